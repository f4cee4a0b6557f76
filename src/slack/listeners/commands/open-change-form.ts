import type { ModalView } from '@slack/types';
import type { ChangeAction } from '../../../store/audit-store';
import { renderDenied } from '../../blocks/messages';
import type { CommandOutcome, Invocation, ListenerContext } from '../../context';
import { MODAL_NOT_OPENED, openModal } from '../../open-modal';
import { replyEphemeral, replyError } from '../../reply';

/**
 * Opens the form of a change once the door says the user may make it. The
 * role is checked (and a denial audited) now, and again on submission.
 */
export async function openChangeForm(ctx: ListenerContext, inv: Invocation, action: ChangeAction, target: string, view: ModalView): Promise<CommandOutcome> {
  const decision = await ctx.changes.authorize({ userId: inv.userId, channelId: inv.channelId }, action, target);
  if (!decision.allowed) {
    await replyEphemeral(inv, renderDenied({ action, needed: decision.needed, reason: decision.reason }));
    return 'denied';
  }
  if (await openModal(inv.client, inv.triggerId, view, inv.log)) return 'opened';
  await replyError(inv, MODAL_NOT_OPENED);
  return 'error';
}
