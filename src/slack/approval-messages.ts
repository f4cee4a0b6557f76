import type { WebClient } from '@slack/web-api';
import { CHANGES, isChangeAction, neededFor, targetIdIn, type Changes } from '../changes';
import type { Logger } from '../log';
import type { Approval } from '../store';
import { renderApprovalEnded, renderApprovalRequest, type ApprovalEnd, type ApprovalFacts } from './blocks/approvals';
import { CHANGE_FORMS } from './blocks/change-forms';
import type { Rendered } from './blocks/mrkdwn';
import { renderWorkflowRequest } from './blocks/workflow-requests';
import { slackErrorSummary } from './channel-post';

// The approval request's message in its channel: posted once (chat.postMessage,
// visible to the channel whatever VS_RESPONSE_VISIBILITY says), its ts kept
// with the request, and updated in place (chat.update) by whichever instance
// settles it: a click on any instance, or the expiry sweep on the one that
// holds the sweeps' lease. A workflow step's request is posted the same way,
// with its claim button, and once claimed becomes the approval request, in
// place.

/** What the renderer needs of a request; null for a request of an action this version does not know. */
export function approvalFacts(approval: Approval, sandbox: boolean): ApprovalFacts | null {
  if (!isChangeAction(approval.action)) return null;
  const { targetKind } = CHANGES[approval.action];
  const id = targetIdIn(approval.target, targetKind);
  if (id === null) return null;
  return {
    approval,
    title: CHANGE_FORMS[approval.action].title,
    target: { kind: targetKind, id },
    needed: neededFor(approval.action, approval.params),
    sandbox,
  };
}

/** Posts a new request in its channel and remembers where; the message's ts, or null (logged) when Slack refused it. */
export async function postApprovalRequest(
  changes: Pick<Changes, 'setMessage'>,
  client: WebClient,
  approval: Approval,
  sandbox: boolean,
  log: Logger,
): Promise<string | null> {
  const facts = approvalFacts(approval, sandbox);
  if (!facts) return null;
  const message = approval.status === 'awaiting_requester' ? renderWorkflowRequest(facts) : renderApprovalRequest(facts);
  let ts: string | undefined;
  try {
    ts = (await client.chat.postMessage({ channel: approval.channelId, text: message.text, blocks: message.blocks })).ts;
  } catch (error) {
    log.warn('could not post the approval request in its channel', { channel: approval.channelId, approval: approval.id, error: slackErrorSummary(error) });
    return null;
  }
  if (!ts) return null;
  try {
    await changes.setMessage(approval.id, ts);
  } catch (error) {
    // A click still carries the message's ts; only the expiry sweep would not find it.
    log.warn('could not remember where the approval request was posted', { approval: approval.id, error });
  }
  return ts;
}

/** Updates a request's message with how it ended; false (logged) when there is no message to update or Slack refused. */
export async function updateApprovalMessage(
  client: WebClient,
  approval: Approval,
  end: ApprovalEnd,
  o: { sandbox: boolean; log: Logger; ts?: string },
): Promise<{ updated: boolean; message: Rendered | null }> {
  const facts = approvalFacts(approval, o.sandbox);
  if (!facts) return { updated: false, message: null };
  const message = renderApprovalEnded(facts, end);
  const ts = approval.messageTs ?? o.ts;
  if (!ts) {
    o.log.warn('the approval request has no message to update', { approval: approval.id });
    return { updated: false, message };
  }
  try {
    await client.chat.update({ channel: approval.channelId, ts, text: message.text, blocks: message.blocks });
    return { updated: true, message };
  } catch (error) {
    o.log.warn('could not update the approval request in place', { approval: approval.id, error: slackErrorSummary(error) });
    return { updated: false, message };
  }
}

/** A workflow's request just claimed: its message becomes the approval request, for the second person; false (logged) when Slack refused. */
export async function showClaimedRequest(client: WebClient, approval: Approval, o: { sandbox: boolean; log: Logger; ts?: string }): Promise<boolean> {
  const facts = approvalFacts(approval, o.sandbox);
  const ts = approval.messageTs ?? o.ts;
  if (!facts || !ts) return false;
  const message = renderApprovalRequest(facts);
  try {
    await client.chat.update({ channel: approval.channelId, ts, text: message.text, blocks: message.blocks });
    return true;
  } catch (error) {
    o.log.warn('could not show the claimed request in place', { approval: approval.id, error: slackErrorSummary(error) });
    return false;
  }
}

/**
 * The expiry sweep's step (run by src/ops, one instance at a time): requests nobody decided in time are settled as
 * `expired` by the door, and their messages say so.
 */
export function expireApprovals(deps: { changes: Pick<Changes, 'expire'>; client: WebClient; sandbox: () => boolean; logger: Logger }): () => Promise<number> {
  return async () => {
    const expired = await deps.changes.expire();
    for (const approval of expired) await updateApprovalMessage(deps.client, approval, { kind: 'expired' }, { sandbox: deps.sandbox(), log: deps.logger });
    return expired.length;
  };
}
