import type { PreparedRequest } from '../cloud/prepared';
import { requestText, samePreparedRequest } from '../cloud/prepared';
import type { Logger } from '../log';
import type { Approval, ApprovalStep, AuditEntry, AuditRecord, CloudAccount, ExpiredApproval, RecordedRequest } from '../store';
// The transition table itself, not the store's index: a leaf that imports nothing (no database driver comes with it).
import { APPROVAL_STEPS, mayTake, recordedOutcome } from '../store/approval-states';
import { clip } from './audit-text';
import { CHANGES, isChangeAction, type ChangeAction, type ChangeCloud, type ChangeParams } from './definitions';
import { mustRecord, recorded, type ChangeContext, type ChangeResult, type Door, type RunResult } from './door';
import type { Config } from '../config';
import { atLeast, neededRole, type Decision, type Role } from './policy';
import { MAX_REASON_LENGTH } from './restore-form';
import { targetIdIn } from './targets';

// The second person (docs/product.md, Approvals). A change that needs one is not
// called when it is submitted: its prepared request (shown whole, or not asked
// for) is stored with who asked, where, until when and the cloud it is for,
// and recorded as `requested` (ask). Its states and the steps between them are
// the table of src/store/approval-states.ts; each click is one step, checked
// (clicked, checkDecision): the clicker holds the role the change needs now,
// is not the one who asked, may act in the channel the request sits in, and,
// to approve, changes are not frozen and the one who asked could still ask for
// it; Withdraw is the requester's alone; a refusal is recorded. The first
// step to commit wins across instances (the store's conditional update),
// recorded with it. An approved change runs through the door once (claim
// `approval:<id>`, lease, call, records), sending the request that was
// approved, after checking that it goes to the cloud it was prepared for and
// is still what the bot would send now. Requests nobody decides expire
// (expire, run by the sweeps of src/ops). A workflow step's request
// (docs/product.md, Workflow steps) is asked for with nobody as its requester;
// the first person allowed to make the change who clicks it becomes the
// requester (claim), and from there it is an approval request like any other.
// One nobody claims expires the same way.

/** What a second person decides: a step of the table (approval-states.ts). */
export type Verdict = Extract<ApprovalStep, 'approve' | 'reject'>;

export type { ExpiredApproval } from '../store';

/** How an approved change ended: a run of the door, or not sent because what was approved is not what would be sent now. */
export type ApprovedRun =
  | RunResult<unknown>
  /**
   * The run threw after the approval was recorded: an OutcomeNotRecordedError (sent, its outcome not written), a
   * StoreUnavailableError (nothing sent), or something unforeseen.
   */
  | { outcome: 'error'; error: unknown }
  | { outcome: 'not_sent'; why: NotSent; record: AuditRecord };

/** Why an approved request was not sent (its record settled as refused; nothing was changed). */
export type NotSent =
  /** What the bot would send now for the same change is another request (VS_API_FORMAT changed, or the bot did). */
  | { code: 'changed'; current: RecordedRequest }
  /** Its stored parameters could not be read back. */
  | { code: 'unreadable' }
  /** It was prepared for another cloud: VS_API_URL or VS_ACCOUNT_ID differ now (or it was stored before they were kept). */
  | { code: 'other_cloud' }
  /** It is longer than its message could show (stored before such requests were refused): nobody saw all of it. */
  | { code: 'unshown' };

/** A not-sent request in the audit's words. */
function notSentDetail(why: NotSent): string {
  switch (why.code) {
    case 'changed':
      return `not sent: the bot would now send ${why.current.method} ${why.current.path}, not the request that was approved; nothing was changed`;
    case 'unreadable':
      return 'not sent: the approved request could not be read back; nothing was changed';
    case 'other_cloud':
      return 'not sent: it was prepared for another cloud API or account (VS_API_URL, VS_ACCOUNT_ID); nothing was changed';
    case 'unshown':
      return 'not sent: it is longer than its message could show, so nobody saw all of it; nothing was changed';
  }
}

/** Whether a request's cloud is the one the bot sends to now (a base URL compared without its trailing slashes). */
function sameCloud(a: CloudAccount | null, b: CloudAccount): boolean {
  const base = (url: string) => url.replace(/\/+$/, '');
  return a !== null && base(a.apiUrl) === base(b.apiUrl) && a.accountId === b.accountId;
}

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

/** How a click on Withdraw ended. */
export type WithdrawResult =
  /** No such request (or not one this version knows). */
  | { outcome: 'unknown' }
  /** Decided, withdrawn before, or past its expiry: the request says which. */
  | { outcome: 'closed'; approval: Approval }
  /** Clicked by someone who did not ask for it: refused, recorded. */
  | { outcome: 'denied'; approval: Approval; decision: Decision; record: AuditRecord }
  | { outcome: 'withdrawn'; approval: Approval; record: AuditRecord };

/** Who may decide a request, as the settings name them: the user groups holding the role, and people by their own id. */
export interface Deciders {
  /** User groups (S…) holding the role the change needs, or a higher one. */
  groups: string[];
  /** People (U…, W…) holding it by their own id, never the one who asked; empty when there are ten or more of them. */
  users: string[];
}

/** At most this many people are mentioned by their own id on a request; more, and only the user groups are. */
export const MAX_MENTIONED_DECIDERS = 9;

/**
 * Who may decide a request for a change that needs `needed` (docs/product.md "Approvals": the request mentions them):
 * the user groups and the people VS_ADMINS (and, for an operator's change, VS_OPERATORS) name, never `requestedBy`;
 * the people only when they are fewer than ten. Whether each may decide is still checked when they click.
 */
export function deciders(roles: Pick<Config['roles'], 'admins' | 'operators'>, needed: Role, requestedBy: string): Deciders {
  const named = [...roles.admins, ...(atLeast('operator', needed) ? roles.operators : [])];
  const unique = [...new Set(named)];
  const groups = unique.filter((id) => /^S[A-Z0-9]+$/.test(id));
  const users = unique.filter((id) => /^[UW][A-Z0-9]+$/.test(id) && id !== requestedBy);
  return { groups, users: users.length <= MAX_MENTIONED_DECIDERS ? users : [] };
}

/** How the checks of a click on Deny stand before the reason is asked: its refusal (recorded) or that it is open. */
export type DecisionCheck = Exclude<ApprovalResult, { outcome: 'approved' | 'rejected' }> | { outcome: 'open'; approval: Approval };

/** The open requests as one person sees them (the Home tab): those they may decide now, and their own, oldest first. */
export interface WaitingApprovals {
  decidable: Approval[];
  own: Approval[];
}

/**
 * The most characters of a request (its line and its body, as sent) that an approval request's message shows whole.
 * A longer one is not asked for (unshownFields): an approver never approves what they could not see.
 */
export const MAX_SHOWN_REQUEST = 2800;

/**
 * When a change's request is too long to be shown whole, the text fields that make it long, each with what to
 * shorten (the form shows it on the field); null when it fits. A field's share is what the request loses without it,
 * encoded as it is sent (XML writes each of ' " < > & as five or six characters).
 */
export function unshownFields<A extends ChangeAction>(
  cloud: ChangeCloud,
  action: A,
  targetId: number,
  params: ChangeParams<A>,
  prepared: PreparedRequest,
): Record<string, string> | null {
  const length = requestText(prepared).length;
  if (length <= MAX_SHOWN_REQUEST) return null;
  const change = CHANGES[action];
  const over = length - MAX_SHOWN_REQUEST;
  const typed = (change.textFields ?? []).filter((field) => typeof (params as Record<string, unknown>)[field] === 'string');
  const shares = typed
    .map((field) => {
      const without = change.request.prepare(cloud.format, targetId, { ...(params as object), [field]: undefined } as ChangeParams<A>);
      return { field, share: length - requestText(without).length };
    })
    .filter(({ share }) => share > 0)
    .sort((a, b) => b.share - a.share);
  const count = (n: number) => n.toLocaleString('en-US');
  const whole = `the request would be ${count(length)} characters as sent, ${count(over)} more than an approval request shows whole`;
  const errors: Record<string, string> = {};
  for (const { field, share } of shares)
    errors[field] =
      `Too long to ask for approval: ${whole}. This field takes ${count(share)} of them ` +
      `(quotes, apostrophes, <, > and & take several characters each once encoded): shorten it` +
      (shares.length > 1 ? ' or the other fields marked' : '');
  // Nothing typed makes it long (it cannot happen with today's forms): said about the whole form.
  return shares.length > 0 ? errors : { form: `Too long to ask for approval: ${whole}` };
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
  /** Asked for by an agent (its token's name) for ctx.userId, its owner (docs/product.md, Agents ask, people decide). */
  agent?: string;
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
    ...(approval.agent ? { agent: approval.agent } : {}),
  };
}

export function createApprovalSteps(door: Door) {
  const { store, now, logger, check, frozenDenial, write, unsent, notify, auditEntry, denialEntry } = door;
  const ttlMs = door.deps.approvals?.ttlMs ?? DEFAULT_APPROVAL_TTL_MS;
  const secondPerson = door.deps.approvals?.actions ?? [];
  /** An agent's request its owner may decide: unless its action is in VS_APPROVALS, when a second person must. */
  const ownerDecides = (approval: Approval) =>
    approval.agent !== undefined && !(secondPerson as readonly string[]).includes(approval.action) && approval.requestedBy !== '';

  /** Stores the request and its `requested` record with the submission's claim, in one transaction. */
  async function ask(
    { ctx, action, target, params, prepared, startedMs, workflow, agent }: ApprovalAsk,
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
        ...(agent ? { agent } : {}),
      },
      'requested',
      workflow
        ? `a workflow asked for it (${workflow.workflowExecutionId}); ` +
            `waits for someone with the ${neededRole(action)} role to claim it until ${iso(expiresAtMs)}`
        : agent
          ? `agent ${agent} asked for it for ${ctx.userId}; waits for a person's approval until ${iso(expiresAtMs)}`
          : `waits for a second person's approval until ${iso(expiresAtMs)}`,
    );
    const request = {
      id,
      action,
      target,
      params,
      cloud: door.deps.cloudAccount,
      channelId: ctx.channelId,
      requestedBy: ctx.userId,
      requestedAt: requested.at,
      expiresAtMs,
      reason: workflow ? workflow.reason : typeof params.reason === 'string' ? params.reason : null,
      apiRequest,
      ...(workflow ? { awaitingRequester: true, workflowExecutionId: workflow.workflowExecutionId } : {}),
      ...(agent ? { agent } : {}),
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
   * A workflow asking again for a change it (or another workflow) asked for and that nobody has claimed yet: the same
   * change, on the same target, in the same channel, with the same exact request. Nothing new is stored or posted, so those who
   * may decide it are not called again and again for one change; the step's execution is claimed and recorded against
   * the open request. Null when no such request is open.
   */
  async function askedAgain(
    o: { executionKey: string; workflowExecutionId: string; action: ChangeAction; target: string; channelId: string; prepared: PreparedRequest },
    startedMs: number,
    log: Logger,
  ): Promise<{ outcome: 'repeated'; approval: Approval; record: AuditRecord } | { outcome: 'duplicate' } | null> {
    // Still waiting for someone to claim it: one claimed since is in a person's hands, and a new run asks anew.
    const unclaimed = await store.approvals.open(startedMs, 'claim');
    const same = unclaimed.find(
      (a) => a.action === o.action && a.target === o.target && a.channelId === o.channelId && samePreparedRequest(o.prepared, a.apiRequest),
    );
    if (!same) return null;
    if (!(await store.claims.claim(o.executionKey, iso(startedMs)))) return { outcome: 'duplicate' };
    const entry = auditEntry(
      startedMs,
      { userId: '', channelId: same.channelId, ...aboutApproval(same), requestedBy: null, workflowExecutionId: o.workflowExecutionId },
      'requested',
      `a workflow asked again (${o.workflowExecutionId}) for the change request ${same.id} already asks for, still unclaimed; nothing new was posted`,
    );
    const record = await write(entry, log);
    log.info('workflow asked again for an open request; nothing new posted', { approval: same.id });
    return { outcome: 'repeated', approval: same, record };
  }

  /**
   * A click on a request's button, for one step of the table (approval-states.ts): the request, if the step may be
   * taken from where it stands and it is unexpired, with who clicked, where, and what every record of the click names;
   * else how it stands (unknown, or closed: taken, decided, withdrawn or past its expiry).
   */
  async function clicked(approvalId: string, clicker: { userId: string }, step: ApprovalStep) {
    const startedMs = now();
    const approval = await store.approvals.get(approvalId);
    if (!approval || !isChangeAction(approval.action)) return { outcome: 'unknown' as const };
    if (!mayTake(step, approval.status)) return { outcome: 'closed' as const, approval };
    // Past its expiry and not yet swept: closed all the same (the sweep records it and says so in its message).
    if (approval.expiresAtMs <= startedMs) return { outcome: 'closed' as const, approval: { ...approval, status: APPROVAL_STEPS.expire.to } };
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
    /** The record of the step taken (its outcome: where the step leads), as the request stands once taken; `names` over the click's. */
    const stepEntry = (taken: Approval, detail: string, names: Pick<AuditEntry, 'requestedBy' | 'decidedBy'>) =>
      auditEntry(startedMs, { ...about, userId: ctx.userId, channelId: taken.channelId, ...names }, recordedOutcome(step), detail);
    return { outcome: 'open' as const, startedMs, approval, action, ctx, log, about, refuse, stepEntry };
  }

  /**
   * A click on a workflow's request ("Request this change"): the clicker holds the role the change needs now, may act
   * in the channel the request sits in, and changes are not frozen; a refusal is recorded. The first claim wins across
   * instances: the clicker becomes the requester, recorded, and the request waits for a second person (decide), open
   * for VS_APPROVAL_TTL_MIN from now.
   */
  async function claim(approvalId: string, clicker: { userId: string }): Promise<ClaimResult> {
    const click = await clicked(approvalId, clicker, 'claim');
    if (click.outcome !== 'open') return click;
    const { approval, action, ctx, log } = click;
    const checked = await check(ctx.userId, action, approval.channelId, log, {}, approval.params);
    const decision = checked.allowed ? ((await frozenDenial(checked)) ?? checked) : checked;
    if (!decision.allowed) return click.refuse(decision, 'claim of a workflow request refused');
    const claimedMs = now();
    const expiresAtMs = claimedMs + ttlMs;
    const claimed = await store.approvals.claim(approval.id, { by: ctx.userId, at: iso(claimedMs), nowMs: claimedMs, expiresAtMs }, (current) =>
      click.stepEntry(current, `claimed the workflow's request; waits for a second person's approval until ${iso(expiresAtMs)}`, { requestedBy: ctx.userId }),
    );
    if (!claimed.won) {
      log.info('claim came after another', { status: claimed.approval?.status, by: claimed.approval?.requestedBy });
      return claimed.approval ? { outcome: 'closed', approval: claimed.approval } : { outcome: 'unknown' };
    }
    notify(claimed.record!, log);
    log.info('workflow request claimed; waits for a second person', { expiresAt: iso(expiresAtMs) });
    return { outcome: 'claimed', approval: claimed.approval, record: claimed.record! };
  }

  /** A decision that allowed approving turned into a refusal because the one who asked could not ask for the change now. */
  async function requesterDenial(decision: Decision, approval: Approval, log: Logger): Promise<Decision | null> {
    if (!isChangeAction(approval.action)) return null;
    const theirs = await check(approval.requestedBy, approval.action, approval.channelId, log, {}, approval.params);
    if (theirs.allowed) return null;
    const denial = {
      code: 'requester' as const,
      requestedBy: approval.requestedBy,
      theirs: { role: theirs.role, needed: theirs.needed, denial: theirs.denial },
    };
    return { ...decision, allowed: false, denial };
  }

  /**
   * The checks of a decision, now: the clicker holds the role the change needs (for its parameters) and may act in the
   * request's channel; is not the one who asked; to approve, changes are not frozen and the one who asked could still
   * ask for it (their role now, the request's channel), as at submission. A refusal is recorded.
   */
  async function checkDecision(approvalId: string, clicker: { userId: string }, verdict: Verdict) {
    const click = await clicked(approvalId, clicker, verdict);
    if (click.outcome !== 'open') return click;
    const { approval, action, ctx, log } = click;
    const checked = await check(ctx.userId, action, approval.channelId, log, {}, approval.params);
    let decision: Decision = checked;
    // The owner may decide their agent's request, unless its action needs a second person (VS_APPROVALS).
    if (ctx.userId === approval.requestedBy && !ownerDecides(approval)) decision = { ...checked, allowed: false, denial: { code: 'own_request' } };
    else if (checked.allowed && verdict === 'approve') decision = (await frozenDenial(checked)) ?? (await requesterDenial(checked, approval, log)) ?? checked;
    if (!decision.allowed) return click.refuse(decision, 'approval click refused', { verdict });
    return click;
  }

  /** Whether `clicker` may take `verdict` on the request now, without taking it (Deny asks why first); a refusal is recorded. */
  async function mayDecide(approvalId: string, clicker: { userId: string }, verdict: Verdict): Promise<DecisionCheck> {
    const checked = await checkDecision(approvalId, clicker, verdict);
    return checked.outcome === 'open' ? { outcome: 'open', approval: checked.approval } : checked;
  }

  async function decide(approvalId: string, clicker: { userId: string }, verdict: Verdict, why?: string): Promise<ApprovalResult> {
    const click = await checkDecision(approvalId, clicker, verdict);
    if (click.outcome !== 'open') return click;
    const { startedMs, approval, action, ctx, log } = click;

    // Deny's reason, optional: as typed, without the spaces around it, bounded as every reason is.
    const reason = verdict === 'reject' && typeof why === 'string' && why.trim() !== '' ? clip(why.trim(), MAX_REASON_LENGTH) : null;
    const decidedMs = now();
    const taken = { step: verdict, by: ctx.userId, at: iso(decidedMs), nowMs: decidedMs, reason };
    const decided = await store.approvals.decide(approval.id, taken, (current) =>
      click.stepEntry(
        current,
        verdict === 'approve'
          ? `approved by ${ctx.userId}; the change runs now`
          : `rejected by ${ctx.userId}${reason === null ? '' : ` because “${reason}”`}; nothing was changed`,
        { decidedBy: ctx.userId },
      ),
    );
    if (!decided.won) {
      log.info('approval click came after the decision', { verdict, status: decided.approval?.status });
      return decided.approval ? { outcome: 'closed', approval: decided.approval } : { outcome: 'unknown' };
    }
    const record = decided.record!;
    notify(record, log);
    if (verdict === 'reject') {
      log.info('approval rejected', { reason: reason !== null });
      return { outcome: 'rejected', approval: decided.approval, record };
    }
    log.info('approval approved; running the change');
    let change: ApprovedRun;
    try {
      change = await runApproved(decided.approval, action, startedMs, record.id, log);
    } catch (error) {
      log.error('the approved change could not be run to its end', { error });
      change = { outcome: 'error', error };
      await settleNeverStarted(record, startedMs, log);
    }
    if ('record' in change) notify(change.record, log);
    return { outcome: 'approved', approval: decided.approval, record, change };
  }

  /**
   * A click on Withdraw: only the one who asked may withdraw their request, while it is open (anyone else is refused,
   * recorded); whatever their role now, and while frozen too (it changes nothing). The first step to commit wins.
   */
  async function withdraw(approvalId: string, clicker: { userId: string }): Promise<WithdrawResult> {
    const click = await clicked(approvalId, clicker, 'withdraw');
    if (click.outcome !== 'open') return click;
    const { approval, action, ctx, log } = click;
    if (ctx.userId !== approval.requestedBy) {
      const checked = await check(ctx.userId, action, approval.channelId, log);
      return click.refuse({ ...checked, allowed: false, denial: { code: 'not_requester', requestedBy: approval.requestedBy } }, 'withdrawal refused');
    }
    const withdrawnMs = now();
    const withdrawn = await store.approvals.withdraw(approval.id, { by: ctx.userId, at: iso(withdrawnMs), nowMs: withdrawnMs }, (current) =>
      click.stepEntry(current, `withdrawn by ${ctx.userId}, who asked for it; nothing was changed`, { decidedBy: ctx.userId }),
    );
    if (!withdrawn.won) {
      log.info('withdrawal came after the decision', { status: withdrawn.approval?.status });
      return withdrawn.approval ? { outcome: 'closed', approval: withdrawn.approval } : { outcome: 'unknown' };
    }
    notify(withdrawn.record!, log);
    log.info('approval request withdrawn');
    return { outcome: 'withdrawn', approval: withdrawn.approval, record: withdrawn.record! };
  }

  /**
   * An approved change whose run threw (the store failed at its start, or when its outcome was to be written): its
   * record, still `approved` or `started`, is settled as `unknown` if the store takes it now; else recovery settles it
   * later (APPROVED_RUN_GRACE_MS, or once its lease runs out).
   */
  async function settleNeverStarted(record: AuditRecord, startedMs: number, log: Logger): Promise<void> {
    const detail = 'approved, but its run failed before its outcome could be recorded; it may or may not have been sent: check before retrying';
    try {
      await store.audit.complete(record.id, { outcome: 'unknown', apiStatus: null, durationMs: Math.max(0, now() - startedMs), detail });
    } catch (error) {
      log.warn('could not settle the approved change that did not run; recovery will', { record: record.id, error });
    }
  }

  /**
   * Runs an approved change once, as the one who asked for it, sending the request that was approved. Its record
   * (`recordId`, the approval's, `approved`) is the change's from here on: started in place, or settled when not sent.
   */
  async function runApproved<A extends ChangeAction>(approval: Approval, action: A, startedMs: number, recordId: number, log: Logger): Promise<ApprovedRun> {
    const names = {
      requestedBy: approval.requestedBy,
      decidedBy: approval.decidedBy,
      approvalId: approval.id,
      workflowExecutionId: approval.workflowExecutionId ?? null,
      ...(approval.agent ? { agent: approval.agent } : {}),
    };
    const ctx = { userId: approval.requestedBy, channelId: approval.channelId };
    const sendable = sendableAsApproved(approval, action);
    if (!sendable.ok) {
      const { why } = sendable;
      log.warn('the approved request is not sent', {
        why: why.code,
        approved: approval.apiRequest.path,
        now: why.code === 'changed' ? why.current.path : undefined,
        preparedFor: approval.cloud?.apiUrl ?? null,
        sendingTo: door.deps.cloudAccount.apiUrl,
      });
      const entry = auditEntry(
        startedMs,
        { ...ctx, action, target: approval.target, params: approval.params, apiRequest: approval.apiRequest, ...names },
        'refused',
        notSentDetail(why),
      );
      return { outcome: 'not_sent', why, record: await unsent({ ...entry, outcome: 'refused' }, log, recordId) };
    }
    const { targetId, params, prepared } = sendable;
    return door.execute({ ctx, action, targetId, params, prepared, claimKey: `approval:${approval.id}`, startedMs, names, recordId }, log);
  }

  /**
   * What is sent for an approved request is what was approved, whole, to the cloud it was prepared for: the request
   * prepared again from its stored parameters, to run; or why it is not sent.
   */
  function sendableAsApproved<A extends ChangeAction>(approval: Approval, action: A) {
    const change = CHANGES[action];
    const notSent = (why: NotSent) => ({ ok: false as const, why });
    if (!sameCloud(approval.cloud, door.deps.cloudAccount)) return notSent({ code: 'other_cloud' });
    const targetId = targetIdIn(approval.target, change.targetKind);
    const stored = change.stored.safeParse(approval.params);
    if (targetId === null || !stored.success) return notSent({ code: 'unreadable' });
    const prepared = change.request.prepare(door.cloud.format, targetId, stored.data);
    if (!samePreparedRequest(prepared, approval.apiRequest)) return notSent({ code: 'changed', current: recorded(prepared) });
    if (requestText(approval.apiRequest).length > MAX_SHOWN_REQUEST) return notSent({ code: 'unshown' });
    return { ok: true as const, targetId, params: stored.data, prepared };
  }

  async function expire(): Promise<ExpiredApproval[]> {
    const atMs = now();
    const expired = await store.approvals.expire(atMs, (approval) =>
      auditEntry(
        atMs,
        { userId: approval.requestedBy, channelId: approval.channelId, ...aboutApproval(approval) },
        recordedOutcome('expire'),
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
    // Their agents' requests they may decide too (ownerDecides).
    const others = open.filter((a) => a.requestedBy !== userId || ownerDecides(a));
    const allowed = await Promise.all(
      others.map(async (a) => isChangeAction(a.action) && (await check(userId, a.action, a.channelId, logger, {}, a.params)).allowed),
    );
    const decidable = others.filter((_, i) => allowed[i]);
    return { decidable, own: open.filter((a) => a.requestedBy === userId && !decidable.includes(a)) };
  }

  /**
   * The newest request like this one (its agent's owner, action, target, exact API request and reason) that a person
   * denied since `sinceMs`, with the record of that denial; null when there is none (docs/product.md: the denial memory).
   */
  async function deniedBefore(o: {
    owner: string;
    action: ChangeAction;
    target: string;
    apiRequest: RecordedRequest;
    reason: string;
    sinceMs: number;
  }): Promise<{ approval: Approval; record: AuditRecord } | null> {
    const records = await store.audit.latest(200, { target: o.target });
    const same = JSON.stringify(o.apiRequest);
    const denial = records.find(
      (r) =>
        r.outcome === 'denied' &&
        r.agent !== undefined &&
        r.requestedBy === o.owner &&
        r.action === o.action &&
        r.approvalId !== null &&
        r.approvalId !== undefined &&
        Date.parse(r.at) >= o.sinceMs &&
        r.apiRequest !== null &&
        r.apiRequest !== undefined &&
        JSON.stringify({ method: r.apiRequest.method, path: r.apiRequest.path, body: r.apiRequest.body }) === same &&
        r.params.reason === o.reason,
    );
    if (!denial?.approvalId) return null;
    const approval = await store.approvals.get(denial.approvalId);
    return approval?.status === 'rejected' ? { approval, record: denial } : null;
  }

  return {
    ask,
    askedAgain,
    deniedBefore,
    ownerDecides,
    claim,
    decide,
    mayDecide,
    withdraw,
    expire,
    decidable: async (userId: string) => (await waiting(userId)).decidable,
    waiting,
    setMessage: (approvalId: string, messageTs: string) => store.approvals.setMessage(approvalId, messageTs),
  };
}
