import { CHANGES, type ChangeAction, type Inspection } from '../../../changes';
import { CHANGE_FORMS } from '../../blocks/change-forms';
import { MODAL_NOT_OPENED } from '../../blocks/messages';
import { lockedText, unfitText } from '../../blocks/power';
import type { ListenerContext, Outcome, SlackRequest } from '../../context';
import { targetMetadata, writeMetadata } from '../../metadata';
import { openModal } from '../../open-modal';
import { replyError } from '../../reply';
import { replyCloudError } from './firewall';

/**
 * `/vs disk add 42`, `/vs backup restore 9`, `/vs reboot 42`: opens the
 * change's form. The needs check (the change door, which records a refusal)
 * has already let the user through; the door checks again when the form is
 * submitted. A change whose row reads its target first (the power actions:
 * the server) opens its form only once the target was read and allows it:
 * otherwise the user is told why (busy, its state, or what the cloud said),
 * and nothing opens.
 */
export async function openChangeForm(ctx: ListenerContext, req: SlackRequest, action: ChangeAction, targetId: number): Promise<Outcome> {
  const channelId = req.channelId ?? undefined;
  const { targetKind } = CHANGES[action];
  let inspection: Inspection | null;
  try {
    inspection = await ctx.changes.inspect(action, targetId);
  } catch (error) {
    return replyCloudError(ctx, req, error, { kind: targetKind, id: targetId });
  }
  if (inspection?.outcome === 'busy') {
    await replyError(req, lockedText(targetId, inspection.transaction));
    return 'busy';
  }
  if (inspection?.outcome === 'unfit') {
    await replyError(req, unfitText(targetId, action, inspection.state));
    return 'invalid';
  }
  const view = CHANGE_FORMS[action].form.modal({
    targetId,
    channelId,
    privateMetadata: writeMetadata({ channelId, ...targetMetadata(targetKind, targetId), responseUrl: req.responseUrl }),
    sandbox: ctx.sandbox,
    action,
    role: await ctx.policy.roleOf(req.userId),
    ...(inspection ? { state: inspection.state } : {}),
  });
  if (req.triggerId && (await openModal(req.client, req.triggerId, view, req.log))) return 'opened';
  await replyError(req, MODAL_NOT_OPENED);
  return 'failed';
}
