import type { ChangeForm } from '../../change-forms';
import type { CommandOutcome, Invocation, ListenerContext } from '../../context';
import { targetMetadata, writeMetadata } from '../../metadata';
import { MODAL_NOT_OPENED, openModal } from '../../open-modal';
import { replyError } from '../../reply';

/**
 * `/vs disk add 42`, `/vs backup restore 9`: opens the change's form. The
 * needs check (the change door, which records a refusal) has already let
 * the user through; the door checks again when the form is submitted.
 */
export function openChangeForm(ctx: ListenerContext, inv: Invocation, form: ChangeForm<never>, targetId: number): Promise<CommandOutcome> {
  const view = form.modal({
    targetId,
    channelId: inv.channelId,
    privateMetadata: writeMetadata({ channelId: inv.channelId, ...targetMetadata(form.change.targetKind, targetId), responseUrl: inv.responseUrl }),
    sandbox: ctx.sandbox,
  });
  return opened(inv, view);
}

async function opened(inv: Invocation, view: ReturnType<ChangeForm['modal']>): Promise<CommandOutcome> {
  if (await openModal(inv.client, inv.triggerId, view, inv.log)) return 'opened';
  await replyError(inv, MODAL_NOT_OPENED);
  return 'failed';
}
