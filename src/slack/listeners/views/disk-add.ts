import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';
import { renderDiskAdded } from '../../blocks/changes';
import { viewStateToValues } from '../../blocks/modals';
import { parseId } from '../../command';
import type { ListenerContext } from '../../context';
import { readMetadata } from '../../metadata';
import { completeSubmission } from './submission';

export function diskAddSubmissionCallback(ctx: ListenerContext) {
  return async (args: AllMiddlewareArgs & SlackViewMiddlewareArgs<ViewSubmitAction>): Promise<void> => {
    const { body, view } = args;
    const userId = body.user.id; // the submitter is the only identity trusted
    const meta = readMetadata(view.private_metadata);
    const values = viewStateToValues(view.state.values);
    const vsId = meta.vsId ?? parseId(values.vs_id);
    if (vsId === null) {
      await args.ack({ response_action: 'errors', errors: { vs_id: 'Enter the server id: a positive whole number, e.g. 42' } });
      return;
    }
    const channelId = meta.channelId ?? (typeof values.channel === 'string' ? values.channel : undefined);
    const log = ctx.logger.child({ user: userId, channel: channelId, view: 'disk_add', target: `vs:${vsId}` });
    await completeSubmission({
      ctx,
      args,
      log,
      subject: { kind: 'vs', id: vsId },
      title: 'Add disk',
      destination: { channelId, responseUrl: meta.responseUrl ?? body.response_urls?.[0]?.response_url },
      formErrorBlock: 'disk_size',
      run: () => ctx.changes.addDisk({ userId, channelId: channelId ?? null, submissionKey: view.id }, vsId, values),
      succeeded: (disk) => renderDiskAdded({ vsId, disk, user: userId, sandbox: ctx.sandbox }),
    });
  };
}
