import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';
import { renderDiskAdded } from '../../blocks/changes';
import type { ListenerContext } from '../../context';
import { completeSubmission, readSubmittedForm } from './submission';

export function diskAddSubmissionCallback(ctx: ListenerContext) {
  return async (args: AllMiddlewareArgs & SlackViewMiddlewareArgs<ViewSubmitAction>): Promise<void> => {
    const form = await readSubmittedForm(args, { metaKey: 'vsId', field: 'vs_id', error: 'Enter the server id: a positive whole number, e.g. 42' });
    if (!form) return;
    const { userId, channelId, targetId: vsId } = form;
    await completeSubmission({
      ctx,
      args,
      log: ctx.logger.child({ user: userId, channel: channelId, view: 'disk_add', target: `vs:${vsId}` }),
      subject: { kind: 'vs', id: vsId },
      title: 'Add disk',
      destination: form.destination,
      formErrorBlock: 'disk_size',
      run: () => ctx.changes.addDisk({ userId, channelId: channelId ?? null, submissionKey: form.submissionKey }, vsId, form.values),
      succeeded: (disk) => renderDiskAdded({ vsId, disk, user: userId, sandbox: ctx.sandbox }),
    });
  };
}
