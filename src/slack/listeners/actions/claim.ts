import type { AllMiddlewareArgs, BlockButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { isStoreUnavailable } from '../../../store';
import { messageOptions, showClaimedRequest } from '../../approval-messages';
import { renderDenied, renderError } from '../../blocks/messages';
import { CLAIMED_NOT_SHOWN, renderClaimClosed, WORKFLOW_REQUEST_UNKNOWN } from '../../blocks/workflow-requests';
import type { ListenerContext, Outcome, SlackRequest } from '../../context';
import { DECISION_UNRECORDED } from '../../blocks/approvals';
import { clickedMessageTs, tellClicker } from './approval';

// A click on "Request this change" under a workflow step's request (acked
// already by the request middleware). The door decides (the role the change
// needs, the request's channel, the freeze, the first claim across
// instances); this says what it decided: the claimed request's message
// becomes the approval request for everyone, in place; a refusal or a late
// click is told to the clicker alone, and the button stays for someone else.

export async function claimClick(
  ctx: ListenerContext,
  req: SlackRequest,
  { action, body }: AllMiddlewareArgs & SlackActionMiddlewareArgs<BlockButtonAction>,
): Promise<Outcome> {
  const approvalId = typeof action.value === 'string' ? action.value : '';
  let result;
  try {
    result = await ctx.changes.claim(approvalId, { userId: req.userId });
  } catch (error) {
    if (!isStoreUnavailable(error)) throw error;
    req.log.warn('claim refused: the store is unreachable', { error });
    await tellClicker(ctx, req, renderError(DECISION_UNRECORDED));
    return 'failed';
  }
  switch (result.outcome) {
    case 'unknown':
      await tellClicker(ctx, req, renderError(WORKFLOW_REQUEST_UNKNOWN));
      return 'not_found';
    case 'closed':
      await tellClicker(ctx, req, renderClaimClosed(result.approval));
      return 'duplicate';
    case 'denied':
      await tellClicker(ctx, req, renderDenied(result.decision));
      return 'denied';
    case 'claimed': {
      if (!(await showClaimedRequest(req.client, result.approval, messageOptions(ctx, req, clickedMessageTs(body)))))
        await tellClicker(ctx, req, renderError(CLAIMED_NOT_SHOWN));
      return 'requested';
    }
  }
}
