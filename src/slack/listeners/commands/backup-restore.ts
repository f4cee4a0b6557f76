import { backupRestoreModal } from '../../blocks/modals';
import type { CommandOutcome, Invocation, ListenerContext } from '../../context';
import { writeMetadata } from '../../metadata';
import { openChangeForm } from './open-change-form';

export function backupRestoreCommand(ctx: ListenerContext, inv: Invocation, cmd: { backupId: number }): Promise<CommandOutcome> {
  const view = backupRestoreModal({
    backupId: cmd.backupId,
    channelId: inv.channelId,
    privateMetadata: writeMetadata({ channelId: inv.channelId, backupId: cmd.backupId, responseUrl: inv.responseUrl }),
    sandbox: ctx.sandbox,
  });
  return openChangeForm(ctx, inv, 'backup_restore', `backup:${cmd.backupId}`, view);
}
