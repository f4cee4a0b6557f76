import type { PreparedRequest } from '../cloud/prepared';
import { samePreparedRequest } from '../cloud/prepared';
import type { Logger } from '../log';
import type { Approval, AuditRecord, ExpiredApproval, RecordedRequest } from '../store';
import { CHANGES, isChangeAction, type ChangeAction } from './definitions';
import { mustRecord, recorded, type ChangeContext, type ChangeResult, type Door, type RunResult } from './door';
import { neededRole, type Decision } from './policy';
import { targetIdIn } from './targets';

// The second person (docs/product.md, Approvals). A change that needs one is not
// called when it is submitted: its prepared request is stored with who asked,
// where and until when, and recorded as `requested` (ask). A click on its
// message's Approve or Deny button is checked (decide): the clicker holds the
// role the change needs now, is not the one who asked, may act in the channel
// the request sits in, and, to approve, changes are not frozen; a refusal is
// recorded. The first decisive click wins across instances (the store's
// decide), recorded with it. An approved change runs through the door once
// (claim `approval:<id>`, lease, call, records), sending the request that was
// approved, after checking that it is still what the bot would send now.
// Requests nobody decides expire (expire, run by the sweeps of src/ops).
// A workflow step's request (docs/product.md, Workflow steps) is asked for with
// nobody as its requester; the first person allowed to make the change who
// clicks it becomes the requester (claim), and from there it is an approval
// request like any other. One nobody claims expires the same way.

export type Verdict = 'approve' | 'reject';

export type { ExpiredApproval } from '../store';

/** How an approved change ended: a run of the door, or not sent because what was approved is not what would be sent now. */
export type ApprovedRun =
  | RunResult<unknown>
  /**
   * The run threw after the approval was recorded: an OutcomeNotRecordedError (sent, its outcome not written), a
   * StoreUnavailableError (nothing sent), or something unforeseen.
   */
  | { outcome: 'error'; error: unknown }
  | {
      outcome: 'not_sent';
      /** The request the bot would send now for the same change; null when its stored parameters could not be read. */
      current: RecordedRequest | null;
      record: AuditRecord;
    };

export type ApprovalResult =
  /** No such request (or not one this version knows). */
  | { outcome: 'unknown' }
  /** Decided before, or past its expiry: who decided and how are in the approval. */
  | { outcome: 'closed'; approval: Approval }
  /** The click was refused (and recorded); nothing was decided. */
  | { outcome: 'denied'; approval: Approval; decision: Decision; record: AuditRecord }
  | { outcome: 'rejected'; approval: Approval; record: AuditRecord }
  /** Approved (recorded), and the change run: `change` says how it ended. */
  | { outcome: 'approved'; approval: Approval; record: AuditRecord; change: ApprovedRun };

/** The open requests as one person sees them (the Home tab): those they may decide now, and their own, oldest first. */
export interface WaitingApprovals {
  decidable: Approval[];
  own: Approval[];
}

/** VS_APPROVAL_TTL_MIN's default, for a change made to wait without VS_APPROVALS (a workflow step's). */
export const DEFAULT_APPROVAL_TTL_MS = 30 * 60_000;

/** What submit hands over once a change that needs a second person is allowed and valid. */
export interface ApprovalAsk {
  ctx: ChangeContext & { channelId: string; submissionKey: string };
  action: ChangeAction;
  target: string;
  params: Record<string, unknown>;
  prepared: PreparedRequest;
  startedMs: number;
  /**
   * Asked for by a workflow step: nobody is its requester yet (ctx.userId is empty); the first person who claims it
   * becomes it (claim). Its reason is the step's.
   */
  workflow?: { workflowExecutionId: string; reason: string };
}

/** How a claim of a workflow's request ended. */
export type ClaimResult =
  /** No such request (or not one this version knows). */
  | { outcome: 'unknown' }
  /** Claimed by someone else first, decided, or past its expiry: the request says which. */
  | { outcome: 'closed'; approval: Approval }
  /** The click was refused (and recorded): the role the change needs, the request's channel, the freeze. */
  | { outcome: 'denied'; approval: Approval; decision: Decision; record: AuditRecord }
  /** The clicker is its requester now (recorded); it waits for a second person like any approval request. */
  | { outcome: 'claimed'; approval: Approval; record: AuditRecord };

const iso = (ms: number) => new Date(ms).toISOString();

/** What every record of an approval request is about: its change and request, who asked, and the request's ids. */
function aboutApproval(approval: Approval) {
  return {
    action: approval.action,
    target: approval.target,
    params: approval.params,
    apiRequest: approval.apiRequest,
    // A workflow's request nobody has claimed has no requester yet.
    requestedBy: approval.requestedBy === '' ? null : approval.requestedBy,
    approvalId: approval.id,
    workflowExecutionId: approval.workflowExecutionId ?? null,
  };
}

export function createApprovalSteps(door: Door) {
  const { store, now, logger, check, frozenDenial, write, notify, auditEntry, denialEntry } = door;
  const ttlMs = door.deps.approvals?.ttlMs ?? DEFAULT_APPROVAL_TTL_MS;

  /** Stores the request and its `requested` record with the submission's claim, in one transaction. */
  async function ask(
    { ctx, action, target, params, prepared, startedMs, workflow }: ApprovalAsk,
    log: Logger,
  ): Promise<Extract<ChangeResult<never>, { outcome: 'requested' | 'duplicate' }>> {
    const id = door.newId();
    const expiresAtMs = startedMs + ttlMs;
    const apiRequest = recorded(prepared);
    const requested = auditEntry(
      startedMs,
      {
        userId: ctx.userId,
        channelId: ctx.channelId,
        action,
        target,
        params,
        apiRequest,
        requestedBy: workflow ? null : ctx.userId,
        approvalId: id,
        workflowExecutionId: workflow?.workflowExecutionId ?? null,
      },
      'requested',
      workflow
        ? `a workflow asked for it (${workflow.workflowExecutionId}); ` +
            `waits for someone with the ${neededRole(action)} role to claim it until ${iso(expiresAtMs)}`
        : `waits for a second person's approval until ${iso(expiresAtMs)}`,
    );
    const request = {
      id,
      action,
      target,
      params,
      channelId: ctx.channelId,
      requestedBy: ctx.userId,
      requestedAt: requested.at,
      expiresAtMs,
      reason: workflow ? workflow.reason : typeof params.reason === 'string' ? params.reason : null,
      apiRequest,
      ...(workflow ? { awaitingRequester: true, workflowExecutionId: workflow.workflowExecutionId } : {}),
    };
    const ask = { submissionKey: ctx.submissionKey, at: requested.at, request, requested };
    const asked = await mustRecord(() => store.approvals.ask(ask), 'could not store the approval request', requested, log);
    if (asked.outcome === 'duplicate') {
      log.info('duplicate submission ignored', { submission: ctx.submissionKey });
      return { outcome: 'duplicate' };
    }
    log.info('approval requested', { approval: id, expiresAt: iso(expiresAtMs) });
    return { outcome: 'requested', approval: asked.approval, record: asked.record };
  }

  /**
   * A click on a request's button: the request, if it is still `status` and open, with who clicked, where, and what
   * every record of the click names; else how it stands (unknown, or closed: taken, decided or past its expiry).
   */
  async function clicked(approvalId: string, clicker: { userId: string }, status: 'awaiting_requester' | 'requested') {
    const startedMs = now();
    const approval = await store.approvals.get(approvalId);
    if (!approval || !isChangeAction(approval.action)) return { outcome: 'unknown' as const };
    if (approval.status !== status) return { outcome: 'closed' as const, approval };
    // Past its expiry and not yet swept: closed all the same (the sweep records it and says so in its message).
    if (approval.expiresAtMs <= startedMs) return { outcome: 'closed' as const, approval: { ...approval, status: 'expired' as const } };
    const action = approval.action;
    const ctx = { userId: clicker.userId, channelId: approval.channelId };
    const log = logger.child({ user: ctx.userId, channel: ctx.channelId, action, target: approval.target, approval: approval.id });
    const about = aboutApproval(approval);
    /** Records a refused click (the clicker's denial) and hears of it. */
    const refuse = async (decision: Decision, what: string, fields: Record<string, unknown> = {}) => {
      log.info(what, { ...fields, denial: decision.denial?.code, role: decision.role });
      const record = await write(denialEntry(startedMs, { ...ctx, ...about }, decision), log);
      notify(record, log);
      return { outcome: 'denied' as const, approval, decision, record };
    };
    return { outcome: 'open' as const, startedMs, approval, action, ctx, log, about, refuse };
  }

  /**
   * A click on a workflow's request ("Request this change"): the clicker holds the role the change needs now, may act
   * in the channel the request sits in, and changes are not frozen; a refusal is recorded. The first claim wins across
   * instances: the clicker becomes the requester, recorded, and the request waits for a second person (decide), open
   * for VS_APPROVAL_TTL_MIN from now.
   */
  async function claim(approvalId: string, clicker: { userId: string }): Promise<ClaimResult> {
    const click = await clicked(approvalId, clicker, 'awaiting_requester');
    if (click.outcome !== 'open') return click;
    const { startedMs, approval, action, ctx, log, about } = click;
    const checked = await check(ctx.userId, action, approval.channelId, log, {}, approval.params);
    const decision = checked.allowed ? ((await frozenDenial(checked)) ?? checked) : checked;
    if (!decision.allowed) return click.refuse(decision, 'claim of a workflow request refused');
    const claimedMs = now();
    const expiresAtMs = claimedMs + ttlMs;
    const claimed = await store.approvals.claim(approval.id, { by: ctx.userId, at: iso(claimedMs), nowMs: claimedMs, expiresAtMs }, (current) =>
      auditEntry(
        startedMs,
        { ...about, userId: ctx.userId, channelId: current.channelId, requestedBy: ctx.userId },
        'requested',
        `claimed the workflow's request; waits for a second person's approval until ${iso(expiresAtMs)}`,
      ),
    );
    if (!claimed.won) {
      log.info('claim came after another', { status: claimed.approval?.status, by: claimed.approval?.requestedBy });
      return claimed.approval ? { outcome: 'closed', approval: claimed.approval } : { outcome: 'unknown' };
    }
    notify(claimed.record!, log);
    log.info('workflow request claimed; waits for a second person', { expiresAt: iso(expiresAtMs) });
    return { outcome: 'claimed', approval: claimed.approval, record: claimed.record! };
  }

  async function decide(approvalId: string, clicker: { userId: string }, verdict: Verdict): Promise<ApprovalResult> {
    const click = await clicked(approvalId, clicker, 'requested');
    if (click.outcome !== 'open') return click;
    const { startedMs, approval, action, ctx, log, about } = click;

    // The role now and the channel of the request; not the one who asked; to approve, not while frozen.
    const checked = await check(ctx.userId, action, approval.channelId, log, {}, approval.params);
    let decision: Decision = checked;
    if (ctx.userId === approval.requestedBy) decision = { ...checked, allowed: false, denial: { code: 'own_request' } };
    else if (checked.allowed && verdict === 'approve') decision = (await frozenDenial(checked)) ?? checked;
    if (!decision.allowed) return click.refuse(decision, 'approval click refused', { verdict });

    const status = verdict === 'approve' ? 'approved' : 'rejected';
    const decidedMs = now();
    const decided = await store.approvals.decide(approval.id, { status, by: ctx.userId, at: iso(decidedMs), nowMs: decidedMs }, (current) =>
      auditEntry(
        startedMs,
        { ...about, userId: ctx.userId, channelId: current.channelId, decidedBy: ctx.userId },
        status,
        status === 'approved' ? `approved by ${ctx.userId}; the change runs now` : `rejected by ${ctx.userId}; nothing was changed`,
      ),
    );
    if (!decided.won) {
      log.info('approval click came after the decision', { verdict, status: decided.approval?.status });
      return decided.approval ? { outcome: 'closed', approval: decided.approval } : { outcome: 'unknown' };
    }
    const record = decided.record!;
    notify(record, log);
    if (status === 'rejected') {
      log.info('approval rejected');
      return { outcome: 'rejected', approval: decided.approval, record };
    }
    log.info('approval approved; running the change');
    let change: ApprovedRun;
    try {
      change = await runApproved(decided.approval, action, startedMs, log);
    } catch (error) {
      log.error('the approved change could not be run to its end', { error });
      change = { outcome: 'error', error };
    }
    if ('record' in change) notify(change.record, log);
    return { outcome: 'approved', approval: decided.approval, record, change };
  }

  /** Runs an approved change once, as the one who asked for it, sending the request that was approved. */
  async function runApproved<A extends ChangeAction>(approval: Approval, action: A, startedMs: number, log: Logger): Promise<ApprovedRun> {
    const change = CHANGES[action];
    const names = {
      requestedBy: approval.requestedBy,
      decidedBy: approval.decidedBy,
      approvalId: approval.id,
      workflowExecutionId: approval.workflowExecutionId ?? null,
    };
    const ctx = { userId: approval.requestedBy, channelId: approval.channelId };
    const targetId = targetIdIn(approval.target, change.targetKind);
    const stored = change.stored.safeParse(approval.params);
    const prepared = targetId !== null && stored.success ? change.request.prepare(door.cloud.format, targetId, stored.data) : null;
    if (targetId === null || !stored.success || prepared === null || !samePreparedRequest(prepared, approval.apiRequest)) {
      // What would go on the wire now is not what was approved (VS_API_FORMAT changed, or the bot did): nothing is sent.
      const current = prepared === null ? null : recorded(prepared);
      const detail =
        current === null
          ? 'not sent: the approved request could not be read back; nothing was changed'
          : `not sent: the bot would now send ${current.method} ${current.path}, not the request that was approved; nothing was changed`;
      log.warn('the approved request is not what would be sent now; not sent', { approved: approval.apiRequest.path, now: current?.path });
      const entry = auditEntry(
        startedMs,
        { ...ctx, action, target: approval.target, params: approval.params, apiRequest: approval.apiRequest, ...names },
        'failed',
        detail,
      );
      return { outcome: 'not_sent', current, record: await write(entry, log) };
    }
    return door.execute({ ctx, action, targetId, params: stored.data, prepared, claimKey: `approval:${approval.id}`, startedMs, names }, log);
  }

  async function expire(): Promise<ExpiredApproval[]> {
    const atMs = now();
    const expired = await store.approvals.expire(atMs, (approval) =>
      auditEntry(
        atMs,
        { userId: approval.requestedBy, channelId: approval.channelId, ...aboutApproval(approval) },
        'expired',
        // A workflow's request nobody claimed has no requester: expired all the same.
        approval.requestedBy === ''
          ? `nobody claimed the workflow's request before ${iso(approval.expiresAtMs)}; nothing was changed`
          : `nobody approved or rejected it before ${iso(approval.expiresAtMs)}; nothing was changed`,
      ),
    );
    for (const approval of expired) {
      logger.info('approval request expired', { approval: approval.id, action: approval.action, target: approval.target });
      if (approval.record) notify(approval.record);
    }
    return expired;
  }

  /** The open requests as `userId` sees them now: those they may decide (not their own; role and channel allow it), and their own. */
  async function waiting(userId: string): Promise<WaitingApprovals> {
    const open = await store.approvals.open(now());
    const others = open.filter((a) => a.requestedBy !== userId);
    const allowed = await Promise.all(
      others.map(async (a) => isChangeAction(a.action) && (await check(userId, a.action, a.channelId, logger, {}, a.params)).allowed),
    );
    return { decidable: others.filter((_, i) => allowed[i]), own: open.filter((a) => a.requestedBy === userId) };
  }

  return {
    ask,
    claim,
    decide,
    expire,
    decidable: async (userId: string) => (await waiting(userId)).decidable,
    waiting,
    setMessage: (approvalId: string, messageTs: string) => store.approvals.setMessage(approvalId, messageTs),
  };
}
