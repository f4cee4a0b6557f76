import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';
import { renderBackupRestored } from '../../blocks/changes';
import type { ListenerContext } from '../../context';
import { completeSubmission, readSubmittedForm } from './submission';

export function backupRestoreSubmissionCallback(ctx: ListenerContext) {
  return async (args: AllMiddlewareArgs & SlackViewMiddlewareArgs<ViewSubmitAction>): Promise<void> => {
    const form = await readSubmittedForm(args, { metaKey: 'backupId', field: 'backup_id', error: 'Enter the backup id: a positive whole number, e.g. 9' });
    if (!form) return;
    const { userId, channelId, targetId: backupId, values } = form;
    const confirm = typeof values.confirm === 'string' ? values.confirm : undefined;
    const reason = typeof values.reason === 'string' ? values.reason : undefined;
    await completeSubmission({
      ctx,
      args,
      log: ctx.logger.child({ user: userId, channel: channelId, view: 'backup_restore', target: `backup:${backupId}` }),
      subject: { kind: 'backup', id: backupId },
      title: 'Restore backup',
      destination: form.destination,
      formErrorBlock: 'confirm',
      run: () => ctx.changes.restoreBackup({ userId, channelId: channelId ?? null, submissionKey: form.submissionKey }, backupId, { confirm, reason }),
      succeeded: (backup) => renderBackupRestored({ backup, user: userId, reason: reason ?? null, sandbox: ctx.sandbox }),
    });
  };
}
