import type { AllMiddlewareArgs, BlockButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import type { ApprovedRun, Verdict } from '../../../changes';
import { isStoreUnavailable, type Approval } from '../../../store';
import { updateApprovalMessage } from '../../approval-messages';
import { APPROVAL_UNKNOWN, DECISION_UNRECORDED, renderApprovalClosed } from '../../blocks/approvals';
import { renderDenied, renderError } from '../../blocks/messages';
import { markSandbox, type Rendered } from '../../blocks/mrkdwn';
import { statusModal } from '../../blocks/status-modal';
import type { ListenerContext, Outcome, SlackRequest } from '../../context';
import { openModal } from '../../open-modal';
import { publishHome } from '../../publish-home';
import { replyEphemeral } from '../../reply';

// A click on an approval request's Approve or Deny button (acked already by
// the request middleware). The door decides everything (who may, the first
// decisive click, running the change once); this says what it decided: the
// request's message is updated in place for everyone, a refusal or a late
// click is told to the clicker alone. A click on the Home tab redraws the
// clicker's Home tab.

export function approvalClick(verdict: Verdict) {
  return async (ctx: ListenerContext, req: SlackRequest, args: AllMiddlewareArgs & SlackActionMiddlewareArgs<BlockButtonAction>): Promise<Outcome> => {
    const outcome = await decideClick(verdict, ctx, req, args);
    // Clicked on the Home tab: the clicker's is drawn again, the request gone from it (or shown as it stands now).
    if (args.body.view?.type === 'home') await publishHome(ctx, req.client, req.userId, req.log);
    return outcome;
  };
}

async function decideClick(
  verdict: Verdict,
  ctx: ListenerContext,
  req: SlackRequest,
  { action, body }: AllMiddlewareArgs & SlackActionMiddlewareArgs<BlockButtonAction>,
): Promise<Outcome> {
  const approvalId = typeof action.value === 'string' ? action.value : '';
  const clickedTs = clickedMessageTs(body);
  let result;
  try {
    result = await ctx.changes.decide(approvalId, { userId: req.userId }, verdict);
  } catch (error) {
    if (!isStoreUnavailable(error)) throw error;
    req.log.warn('approval click refused: the store is unreachable', { error });
    await tellClicker(ctx, req, renderError(DECISION_UNRECORDED));
    return 'failed';
  }
  switch (result.outcome) {
    case 'unknown':
      await tellClicker(ctx, req, renderError(APPROVAL_UNKNOWN));
      return 'not_found';
    case 'closed':
      await tellClicker(ctx, req, renderApprovalClosed(result.approval));
      return 'duplicate';
    case 'denied':
      await tellClicker(ctx, req, renderDenied(result.decision));
      return 'denied';
    case 'rejected':
    case 'approved': {
      const end =
        result.outcome === 'rejected'
          ? { kind: 'rejected' as const }
          : { kind: 'approved' as const, run: result.change, timeoutMs: ctx.config.cloud.timeoutMs };
      const { updated, message } = await updateApprovalMessage(req.client, result.approval, end, { sandbox: ctx.sandbox, log: req.log, ts: clickedTs });
      // The message could not be updated: the one who decided hears the outcome at least.
      if (!updated && message) await tellClicker(ctx, req, message);
      await followInRequestMessage(ctx, req, result.approval, result.outcome === 'approved' ? result.change : null, clickedTs);
      return result.outcome;
    }
  }
}

/** An approved change the cloud accepted is followed in its request's message: the follower updates it and replies in its thread. */
async function followInRequestMessage(ctx: ListenerContext, req: SlackRequest, approval: Approval, run: ApprovedRun | null, clickedTs: string | undefined) {
  const ts = approval.messageTs ?? clickedTs;
  if (run?.outcome !== 'succeeded' || !run.followed || !ts) return;
  await ctx.follower.setMessage(run.accepted.recordId, approval.channelId, ts).catch((error: unknown) => {
    req.log.warn('could not remember the message of a followed change', { record: run.accepted.recordId, error });
  });
}

/** To the clicker alone: ephemeral where the button was in a channel; a status modal where it was not (the Home tab). */
export async function tellClicker(ctx: ListenerContext, req: SlackRequest, message: Rendered): Promise<void> {
  if (req.respond) {
    await replyEphemeral(req, markSandbox(message, ctx.sandbox));
    return;
  }
  if (req.triggerId) await openModal(req.client, req.triggerId, statusModal({ title: 'Approval', mrkdwn: message.text, sandbox: ctx.sandbox }), req.log);
}

/** The ts of the message whose button was clicked (a request's message, if its ts was not stored yet). */
export function clickedMessageTs(body: unknown): string | undefined {
  const { message, container } = body as { message?: { ts?: unknown }; container?: { message_ts?: unknown } };
  const ts = message?.ts ?? container?.message_ts;
  return typeof ts === 'string' ? ts : undefined;
}
