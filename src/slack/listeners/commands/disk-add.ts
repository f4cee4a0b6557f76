import { diskAddModal } from '../../blocks/modals';
import type { CommandOutcome, Invocation, ListenerContext } from '../../context';
import { writeMetadata } from '../../metadata';
import { openChangeForm } from './open-change-form';

export function diskAddCommand(ctx: ListenerContext, inv: Invocation, cmd: { vsId: number }): Promise<CommandOutcome> {
  const view = diskAddModal({
    vsId: cmd.vsId,
    channelId: inv.channelId,
    privateMetadata: writeMetadata({ channelId: inv.channelId, vsId: cmd.vsId, responseUrl: inv.responseUrl }),
    sandbox: ctx.sandbox,
  });
  return openChangeForm(ctx, inv, 'disk_add', `vs:${cmd.vsId}`, view);
}
