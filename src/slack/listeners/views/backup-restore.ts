import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';
import { renderBackupRestored } from '../../blocks/changes';
import { viewStateToValues } from '../../blocks/modals';
import { parseId } from '../../command';
import type { ListenerContext } from '../../context';
import { readMetadata } from '../../metadata';
import { completeSubmission } from './submission';

export function backupRestoreSubmissionCallback(ctx: ListenerContext) {
  return async (args: AllMiddlewareArgs & SlackViewMiddlewareArgs<ViewSubmitAction>): Promise<void> => {
    const { body, view } = args;
    const userId = body.user.id; // the submitter is the only identity trusted
    const meta = readMetadata(view.private_metadata);
    const values = viewStateToValues(view.state.values);
    const backupId = meta.backupId ?? parseId(values.backup_id);
    if (backupId === null) {
      await args.ack({ response_action: 'errors', errors: { backup_id: 'Enter the backup id: a positive whole number, e.g. 9' } });
      return;
    }
    const channelId = meta.channelId ?? (typeof values.channel === 'string' ? values.channel : undefined);
    const confirm = typeof values.confirm === 'string' ? values.confirm : undefined;
    const reason = typeof values.reason === 'string' ? values.reason : undefined;
    const log = ctx.logger.child({ user: userId, channel: channelId, view: 'backup_restore', target: `backup:${backupId}` });
    await completeSubmission({
      ctx,
      args,
      log,
      subject: { kind: 'backup', id: backupId },
      title: 'Restore backup',
      destination: { channelId, responseUrl: meta.responseUrl ?? body.response_urls?.[0]?.response_url },
      formErrorBlock: 'confirm',
      run: () => ctx.changes.restoreBackup({ userId, channelId: channelId ?? null, submissionKey: view.id }, backupId, { confirm, reason }),
      succeeded: (backup) => renderBackupRestored({ backup, user: userId, reason: reason ?? null, sandbox: ctx.sandbox }),
    });
  };
}
