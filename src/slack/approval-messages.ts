import type { WebClient } from '@slack/web-api';
import { CHANGES, deciders, isChangeAction, neededFor, targetIdIn, type Changes, type Deciders } from '../changes';
import type { Config } from '../config';
import type { Logger } from '../log';
import type { Approval } from '../store';
import { renderApprovalEnded, renderApprovalRequest, renderRequesterTold, type ApprovalEnd, type ApprovalFacts } from './blocks/approvals';
import { CHANGE_FORMS } from './blocks/change-forms';
import type { Rendered } from './blocks/mrkdwn';
import { renderWorkflowRequest } from './blocks/workflow-requests';
import { slackErrorSummary } from './channel-post';
import { postMessage, updateMessage } from './send';
import type { ListenerContext } from './context';

// The approval request's message in its channel: posted once (chat.postMessage,
// visible to the channel whatever VS_RESPONSE_VISIBILITY says), mentioning who
// may decide it, its ts kept with the request, and updated in place
// (chat.update) by whichever instance settles it: a click on any instance, or
// the expiry sweep on the one that holds the sweeps' lease. An edit notifies
// nobody, so the one who asked is told in the message's thread, with a
// mention, how it ended. A workflow step's request is posted the same way,
// with its claim button, and once claimed becomes the approval request, in
// place: those who may decide it were called when it was posted, once a
// request, and are not called again.

/** What the renderer needs of a request; null for a request of an action this version does not know. `roles`: who may decide it is mentioned. */
export function approvalFacts(approval: Approval, sandbox: boolean, roles?: Config['roles'], labelOf?: (vsId: number) => string | null): ApprovalFacts | null {
  if (!isChangeAction(approval.action)) return null;
  const { targetKind } = CHANGES[approval.action];
  const id = targetIdIn(approval.target, targetKind);
  if (id === null) return null;
  const needed = neededFor(approval.action, approval.params);
  return {
    approval,
    title: CHANGE_FORMS[approval.action].title,
    target: { kind: targetKind, id, label: targetKind === 'vs' ? labelOf?.(id) : null },
    needed,
    ...(roles ? { deciders: deciders(roles, needed, approval.requestedBy) } : {}),
    sandbox,
  };
}

/** Where and how a request's message is shown: labelled as sandbox data or not, the roles that say who may decide it. */
export interface MessageOptions {
  sandbox: boolean;
  roles: Config['roles'];
  log: Logger;
  /** A server's label as the name index knows it (no read): requests name "web-1 (VS 42)". */
  labelOf?: (vsId: number) => string | null;
  /** The message clicked, when the request's own ts was not stored. */
  ts?: string;
  /** Of those who may decide (people and groups, by id), the ones called now; unset: all of them (a workflow's: limited per hour). */
  called?: (ids: readonly string[]) => Promise<string[]>;
  /** An agent's request its owner may decide too (not in VS_APPROVALS): the owner is mentioned among who may decide. */
  ownerDecides?: boolean;
  /** Told the message's ts once it is posted, while where it was posted is being stored (an agent's link is read meanwhile). */
  posted?: (ts: string) => void;
}

/** How a listener shows a request's message: as its context says, logging on the request's logger. */
export function messageOptions(ctx: Pick<ListenerContext, 'sandbox' | 'config' | 'names'>, req: { log: Logger }, ts?: string): MessageOptions {
  return { sandbox: ctx.sandbox, roles: ctx.config.roles, log: req.log, labelOf: (vsId) => ctx.names.labelOf(vsId), ...(ts ? { ts } : {}) };
}

/**
 * Posts a new request in its channel, mentioning who may decide it, and remembers where; the message's ts, or null
 * (logged) when Slack refused it.
 */
export async function postApprovalRequest(
  changes: Pick<Changes, 'setMessage'>,
  client: WebClient,
  approval: Approval,
  o: MessageOptions,
): Promise<string | null> {
  const listed = approvalFacts(approval, o.sandbox, o.roles, o.labelOf);
  if (!listed) return null;
  // The owner of an agent who may decide its request is called first, by their own id.
  const found: ApprovalFacts =
    o.ownerDecides && listed.deciders
      ? { ...listed, ownerDecides: true, deciders: { ...listed.deciders, users: [approval.requestedBy, ...listed.deciders.users] } }
      : listed;
  const facts = o.called && found.deciders ? await withCalled(found, found.deciders, o.called) : found;
  const message = approval.status === 'awaiting_requester' ? renderWorkflowRequest(facts) : renderApprovalRequest(facts);
  let ts: string | undefined;
  try {
    ts = await postMessage(client, { channel: approval.channelId, text: message.text, blocks: message.blocks });
  } catch (error) {
    o.log.warn('could not post the approval request in its channel', { channel: approval.channelId, approval: approval.id, error: slackErrorSummary(error) });
    return null;
  }
  if (!ts) return null;
  o.posted?.(ts);
  try {
    await changes.setMessage(approval.id, ts);
  } catch (error) {
    // A click still carries the message's ts; only the expiry sweep would not find it.
    o.log.warn('could not remember where the approval request was posted', { approval: approval.id, error });
  }
  return ts;
}

/**
 * Posts an agent's request in its channel (VS_AGENT_CHANNEL) as any approval request, mentioning its owner when they
 * may decide it: the message's link (chat.getPermalink), or null when it could not be posted (logged).
 */
export function agentRequestPoster(deps: {
  changes: Pick<Changes, 'setMessage'>;
  client: WebClient;
  roles: Config['roles'];
  sandbox: () => boolean;
  labelOf: (vsId: number) => string | null;
  logger: Logger;
}): (approval: Approval, ownerDecides: boolean) => Promise<{ posted: boolean; link: string | null }> {
  return async (approval, ownerDecides) => {
    const log = deps.logger;
    // The link is read while where the message was posted is stored: the agent's answer waits for one round trip less.
    let link: Promise<string | null> = Promise.resolve(null);
    const posted = (ts: string) => {
      link = deps.client.chat.getPermalink({ channel: approval.channelId, message_ts: ts }).then(
        (answer) => (typeof answer.permalink === 'string' && /^https?:\/\//.test(answer.permalink) ? answer.permalink : null),
        (error: unknown) => {
          log.warn("could not read the link of an agent's request", { approval: approval.id, error: slackErrorSummary(error) });
          return null;
        },
      );
    };
    const o = { sandbox: deps.sandbox(), roles: deps.roles, log, labelOf: deps.labelOf, ownerDecides, posted };
    const ts = await postApprovalRequest(deps.changes, deps.client, approval, o);
    if (!ts) return { posted: false, link: null };
    return { posted: true, link: await link };
  };
}

/** The facts with only the deciders `called` lets be called now; how many were left uncalled, for the message to say. */
async function withCalled(facts: ApprovalFacts, deciders: Deciders, called: NonNullable<MessageOptions['called']>): Promise<ApprovalFacts> {
  const now = new Set(await called([...deciders.groups, ...deciders.users]));
  const kept = { groups: deciders.groups.filter((id) => now.has(id)), users: deciders.users.filter((id) => now.has(id)) };
  const uncalled = deciders.groups.length + deciders.users.length - now.size;
  return { ...facts, deciders: kept, ...(uncalled > 0 ? { uncalled } : {}) };
}

/**
 * A request that ended: its message updated in place with how (an edit notifies nobody), and the one who asked told
 * in its thread, with a mention. `updated` false (logged) when there is no message to update or Slack refused.
 */
export async function endApprovalMessage(
  client: WebClient,
  approval: Approval,
  end: ApprovalEnd,
  o: Omit<MessageOptions, 'roles'>,
): Promise<{ updated: boolean; message: Rendered | null }> {
  const facts = approvalFacts(approval, o.sandbox, undefined, o.labelOf);
  if (!facts) return { updated: false, message: null };
  const message = renderApprovalEnded(facts, end);
  const ts = approval.messageTs ?? o.ts;
  if (!ts) {
    o.log.warn('the approval request has no message to update', { approval: approval.id });
    return { updated: false, message };
  }
  let updated = false;
  try {
    await updateMessage(client, { channel: approval.channelId, ts, text: message.text, blocks: message.blocks });
    updated = true;
  } catch (error) {
    o.log.warn('could not update the approval request in place', { approval: approval.id, error: slackErrorSummary(error) });
  }
  await replyInThread(client, approval, ts, renderRequesterTold(facts, end), o.log, 'tell the requester how the request ended');
  return { updated, message };
}

/**
 * A workflow's request just claimed: its message becomes the approval request, in place (those who may decide it were
 * called when it was posted, and are not called again); false (logged) when Slack refused the update.
 */
export async function showClaimedRequest(client: WebClient, approval: Approval, o: MessageOptions): Promise<boolean> {
  const facts = approvalFacts(approval, o.sandbox, o.roles, o.labelOf);
  const ts = approval.messageTs ?? o.ts;
  if (!facts || !ts) return false;
  const message = renderApprovalRequest(facts);
  try {
    await updateMessage(client, { channel: approval.channelId, ts, text: message.text, blocks: message.blocks });
  } catch (error) {
    o.log.warn('could not show the claimed request in place', { approval: approval.id, error: slackErrorSummary(error) });
    return false;
  }
  // Those who may decide it were called when the workflow's request was posted: once a request, never again (the edit
  // in place notifies nobody, and shows who claimed it).
  return true;
}

/** A reply in the request's thread (chat.postMessage with its ts); a refusal is logged, never thrown. */
async function replyInThread(client: WebClient, approval: Approval, ts: string, reply: Rendered | null, log: Logger, what: string): Promise<void> {
  if (!reply) return;
  try {
    await postMessage(client, { channel: approval.channelId, thread_ts: ts, text: reply.text, blocks: reply.blocks });
  } catch (error) {
    log.warn(`could not ${what} in its thread`, { approval: approval.id, error: slackErrorSummary(error) });
  }
}

/**
 * The expiry sweep's step (run by src/ops, one instance at a time): requests nobody decided in time are settled as
 * `expired` by the door, their messages say so, and those who asked are told in their threads.
 */
export function expireApprovals(deps: { changes: Pick<Changes, 'expire'>; client: WebClient; sandbox: () => boolean; logger: Logger }): () => Promise<number> {
  return async () => {
    const expired = await deps.changes.expire();
    for (const approval of expired) await endApprovalMessage(deps.client, approval, { kind: 'expired' }, { sandbox: deps.sandbox(), log: deps.logger });
    return expired.length;
  };
}
