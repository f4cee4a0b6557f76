import type { ChangeAction } from '../../../changes';
import { CHANGES } from '../../../changes';
import { CHANGE_FORMS } from '../../blocks/change-forms';
import { MODAL_NOT_OPENED } from '../../blocks/messages';
import type { ListenerContext, Outcome, SlackRequest } from '../../context';
import { targetMetadata, writeMetadata } from '../../metadata';
import { openModal } from '../../open-modal';
import { replyError } from '../../reply';

/**
 * `/vs disk add 42`, `/vs backup restore 9`: opens the change's form. The
 * needs check (the change door, which records a refusal) has already let
 * the user through; the door checks again when the form is submitted.
 */
export async function openChangeForm(ctx: ListenerContext, req: SlackRequest, action: ChangeAction, targetId: number): Promise<Outcome> {
  const channelId = req.channelId ?? undefined;
  const view = CHANGE_FORMS[action].form.modal({
    targetId,
    channelId,
    privateMetadata: writeMetadata({ channelId, ...targetMetadata(CHANGES[action].targetKind, targetId), responseUrl: req.responseUrl }),
    sandbox: ctx.sandbox,
  });
  if (req.triggerId && (await openModal(req.client, req.triggerId, view, req.log))) return 'opened';
  await replyError(req, MODAL_NOT_OPENED);
  return 'failed';
}
