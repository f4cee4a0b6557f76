import type { Approval, AuditRecord, BreakGlassWindow, Freeze } from '../store';
import type { PreparedRequest } from '../cloud/prepared';
import {
  createApprovalSteps,
  unshownFields,
  type ApprovalResult,
  type ClaimResult,
  type DecisionCheck,
  type ExpiredApproval,
  type Verdict,
  type WaitingApprovals,
  type WithdrawResult,
} from './approvals';
import { bounded, frozenDetail } from './audit-text';
import { CHANGES, type ChangeAction, type ChangeAnswerOf, type ChangeParams, type ChangeValue } from './definitions';
import { createBreakGlassSteps, type AcknowledgeResult, type BreakGlassEndResult, type BreakGlassResult } from './break-glass';
import { createDoor, onCallGrant, recorded, type ChangeContext, type ChangeResult, type DoorDeps, type RecordSubject, type Refused } from './door';
import { DEFAULT_FORM_LIMITS, type FormValues, type FormValidation } from './disk-form';
import { MAX_REASON_LENGTH } from './restore-form';
import { createFreezeSteps, type FreezeResult, type UnfreezeResult } from './freeze';
import type { Decision, WhereFrom } from './policy';
import type { Inspection } from './inspection';
import { outcomeOf, type Outcome } from './outcome';
import { RECORDED_AS } from '../store/approval-states';
import { isTargetId, TARGET_KINDS, targetKey } from './targets';

// The one door every change goes through. A form's submission, in order:
//   1. policy, for the submitting user (the only identity trusted), now;
//   2. the freeze, read from the store now (every instance sees it at once);
//   3. validation (an invalid form burns nothing: the user fixes it and sends the same view again);
//   4. when the change needs a second person (VS_APPROVALS), its request is stored and recorded as
//      `requested` with the submission's claim, in one transaction, and nothing is called (approvals.ts
//      runs it once approved); unless its person has a break-glass window open (break-glass.ts): then it
//      runs at once, its record flagged as a use of that window, to be reviewed;
//   5. otherwise it runs (door.ts): in one transaction the submission key is claimed, so a second delivery
//      never reaches the API; the target is leased, so two changes to one server or backup never run at
//      once; the attempt is on record as started; then the prepared request is sent; then the attempt is
//      settled and the lease ended, in one transaction (before anything is returned);
//   6. onRecorded hears of the record.
// Every path that reaches a decision writes one audit record, except a
// duplicate delivery, which did nothing and writes nothing.

export type { ChangeContext, ChangeResult } from './door';

/** A change made under break glass says so: the window it ran under (its record is a use, waiting for review). */
export interface UnderBreakGlass {
  breakGlass?: BreakGlassWindow;
}

export interface SubmissionContext extends ChangeContext {
  /** The channel was picked in a shortcut's form (policy.ts, WhereFrom). */
  channelChosenInForm?: boolean;
  /** Identifies one submission across deliveries: the modal's view id. */
  submissionKey: string;
  /** Needs a second person whatever VS_APPROVALS says (a change asked for by a workflow step). */
  needsApproval?: boolean;
}

export type AuthorizeOptions = WhereFrom;

/** A workflow step asking for a change: nothing in it proves who started the workflow. */
export interface WorkflowStepContext {
  /** The step's execution: it is asked for once, however often it is delivered. */
  functionExecutionId: string;
  /** The workflow's execution, on every record of the request. */
  workflowExecutionId: string;
  /** Where the request is posted, and the channel its claim and decision are checked against. */
  channelId: string;
  /** Why the workflow asks (the step's `reason`), shown with the request and kept in its records. */
  reason: unknown;
}

/**
 * How a workflow step's request ended: refused as changes are frozen (recorded), invalid (recorded), stored and
 * recorded (awaiting its requester), or asked before.
 */
export type WorkflowRequestResult =
  | { outcome: 'frozen'; freeze: Freeze; record: AuditRecord }
  | Extract<ChangeResult<never>, { outcome: 'invalid' | 'requested' | 'duplicate' }>
  /** The same change was asked for already and nobody has claimed it yet: nothing new was stored or posted (recorded against it). */
  | { outcome: 'repeated'; approval: Approval; record: AuditRecord }
  /** The target read first could not take it (docs/product.md, Restore with eyes open): nobody is asked. */
  | Refused;

/** An agent asking for a change for its owner (docs/product.md, Agents ask, people decide). */
export interface AgentAskContext {
  /** Who made the agent's token: the agent acts for them, with their role now. */
  owner: string;
  /** The agent's name (its token's). */
  agent: string;
  /** VS_AGENT_CHANNEL: where the request is posted, and the channel the policy checks. */
  channelId: string;
  /** Identifies this call: it is asked for once, however often it is delivered. */
  submissionKey: string;
  /** VS_AGENT_DENY_MEMORY_MIN, in ms: an identical request denied this recently is refused with that denial. */
  denyMemoryMs: number;
}

/**
 * How an agent's request ended: refused (role, channel, freeze: `denied`; invalid; the target as it stands), refused
 * because an identical request was denied within the memory (`denied_before`: that request, with who denied it and
 * why), or stored and recorded as `requested`, always waiting for a person. Each is recorded.
 */
export type AgentAskResult =
  | Extract<ChangeResult<never>, { outcome: 'denied' | 'invalid' | 'requested' | 'duplicate' }>
  | Refused
  | { outcome: 'denied_before'; approval: Approval; record: AuditRecord };

/** Where an agent's request stands now, in the one vocabulary (outcome.ts), for its owner (or an admin). */
export type AgentChangeStatus =
  | { found: false }
  | {
      found: true;
      approval: Approval;
      outcome: Outcome;
      /** The record that says it: the request's, its decision's, or the change it became, followed to its end. */
      record: AuditRecord | null;
    };

export interface Changes {
  /** The check when the command is typed, before the modal opens: the role, and the freeze. A denial is recorded and returned. */
  authorize(ctx: ChangeContext, action: ChangeAction, target: string, options?: AuthorizeOptions): Promise<Decision>;
  /** Runs one submitted change form through the door (the table of definitions.ts says what each change is). */
  submit<A extends ChangeAction>(
    ctx: SubmissionContext,
    action: A,
    targetId: number,
    values: FormValues,
  ): Promise<ChangeResult<ChangeValue<A>> & UnderBreakGlass>;
  /**
   * An approval request approved, or denied (with the reason given, if any), by `clicker`: the checks of the click,
   * the first decisive click across instances, and an approved change run once (approvals.ts).
   */
  decide(approvalId: string, clicker: { userId: string }, verdict: Verdict, reason?: string): Promise<ApprovalResult>;
  /** Whether `clicker` may decide the request now, without deciding (Deny asks why first); a refusal is recorded. */
  mayDecide(approvalId: string, clicker: { userId: string }, verdict: Verdict): Promise<DecisionCheck>;
  /** A click on an approval request's Withdraw: its requester's alone (anyone else is refused, recorded), while it is open. */
  withdraw(approvalId: string, clicker: { userId: string }): Promise<WithdrawResult>;
  /**
   * A workflow step's change: refused while changes are frozen (as every way in is), then validated as its form would
   * be (and its reason), then stored as a request nobody has claimed yet, recorded; nothing is called, whatever
   * VS_APPROVALS says (the claim and the decision are checked when they happen, the freeze again with them).
   */
  request<A extends ChangeAction>(step: WorkflowStepContext, action: A, targetId: number, values: FormValues): Promise<WorkflowRequestResult>;
  /**
   * An agent's change, for its owner: the owner's role now and the channel (VS_AGENT_CHANNEL), the freeze, the form's
   * validation, an identical request denied within the memory, the target as it stands; then stored as a request that
   * always waits for a person, whatever VS_APPROVALS says (the owner may decide it unless its action is listed there).
   */
  askForAgent<A extends ChangeAction>(ctx: AgentAskContext, action: A, targetId: number, values: FormValues): Promise<AgentAskResult>;
  /**
   * A token made for an agent, or tokens revoked, on record (docs/product.md, Agents ask, people decide): its name, its
   * owner and expiry, never the token.
   */
  recordAgentToken(
    ctx: ChangeContext,
    step: 'agent_token' | 'agent_revoke',
    tokens: readonly { name: string; owner: string; expiresAtMs: number }[],
  ): Promise<void>;
  /** An agent's request by its id, for `asker` (its owner; anyone when `anyone`, an admin): where it stands now. */
  agentStatus(changeId: string, asker: string, anyone: boolean): Promise<AgentChangeStatus>;
  /** A click on a workflow's request by `clicker`: the checks of the click, and the first claim across instances (approvals.ts). */
  claim(approvalId: string, clicker: { userId: string }): Promise<ClaimResult>;
  /**
   * The target as it stands for `action`, before its form opens (its row's inspect): whether the change may be made
   * now. Null when the change reads nothing first. A read only: nothing is recorded; a cloud failure is thrown.
   */
  inspect(action: ChangeAction, targetId: number): Promise<Inspection | null>;
  /** Settles every open request past its expiry as `expired`, recorded; returns them, so their messages can say so. */
  expire(): Promise<ExpiredApproval[]>;
  /** Remembers where an approval request's message was posted (its ts), so that any instance updates it in place. */
  setMessage(approvalId: string, messageTs: string): Promise<void>;
  /** The open requests `userId` may decide now: not their own, their role and the request's channel allow it. */
  decidable(userId: string): Promise<Approval[]>;
  /** The open requests as `userId` sees them now: those they may decide (as decidable), and their own waiting for someone. */
  waiting(userId: string): Promise<WaitingApprovals>;
  /** Stops every change on every instance until unfrozen (admins), recorded. */
  freeze(ctx: ChangeContext, reason: string): Promise<FreezeResult>;
  /** Allows changes again (admins), recorded. */
  unfreeze(ctx: ChangeContext): Promise<UnfreezeResult>;
  /** The freeze in force now, or null. */
  frozen(): Promise<Freeze | null>;
  /**
   * Opens a break-glass window for the person (docs/product.md, On call): refused, recorded, unless they hold the role of
   * a change that waits for a second person, where they are, and changes are not frozen.
   */
  breakGlass(ctx: ChangeContext, reason: string): Promise<BreakGlassResult>;
  /** Closes the person's break-glass window before its end, recorded. */
  endBreakGlass(ctx: ChangeContext): Promise<BreakGlassEndResult>;
  /** The person's break-glass window open now (null: none, or break glass is off). */
  breakGlassOf(userId: string): Promise<BreakGlassWindow | null>;
  /** Every break-glass window open now. */
  openBreakGlass(): Promise<BreakGlassWindow[]>;
  /** A change made under break glass acknowledged by `clicker` (another admin), once, recorded. */
  acknowledge(recordId: number, clicker: ChangeContext): Promise<AcknowledgeResult>;
}

export type ChangesDeps = DoorDeps;

/** A valid form: its parameters, and the request they make. */
type Validated<A extends ChangeAction> =
  { ok: true; params: ChangeParams<A>; prepared: PreparedRequest<ChangeAnswerOf<A>> } | Extract<FormValidation<ChangeParams<A>>, { ok: false }>;

/** An invalid form or step in the audit's words: each field with its message. */
function invalidDetail(what: string, fieldErrors: Record<string, string>): string {
  return `${what}: ${Object.entries(fieldErrors)
    .map(([field, message]) => `${field}: ${message}`)
    .join('; ')}`;
}

export function createChanges(deps: ChangesDeps): Changes {
  const door = createDoor(deps);
  const { now, logger, check, withParams, frozenDenial, write, notify, auditEntry, denialEntry, asItStands, learnLabels } = door;
  const approvals = createApprovalSteps(door);
  const freezing = createFreezeSteps(door);
  const breaking = createBreakGlassSteps(door, deps.breakGlass, deps.approvals?.actions ?? []);
  const needsApproval = (action: ChangeAction, ctx: SubmissionContext) => ctx.needsApproval === true || (deps.approvals?.actions.includes(action) ?? false);

  async function run<A extends ChangeAction>(
    ctx: SubmissionContext,
    action: A,
    targetId: number,
    values: FormValues,
  ): Promise<ChangeResult<ChangeValue<A>> & UnderBreakGlass> {
    const change = CHANGES[action];
    const target = { kind: change.targetKind, id: targetId };
    const key = targetKey(target);
    const log = logger.child({ user: ctx.userId, channel: ctx.channelId, action: change.action, target: key });
    const startedMs = now();
    // The form as typed, bounded, for records of changes that did not run.
    const asTyped: RecordSubject = { userId: ctx.userId, channelId: ctx.channelId, action: change.action, target: key, params: bounded(values, change.fields) };

    const allowed = await check(ctx.userId, change.action, ctx.channelId, log, { channelChosenInForm: ctx.channelChosenInForm });
    const decision = allowed.allowed ? ((await frozenDenial(allowed)) ?? allowed) : allowed;
    if (!decision.allowed) {
      log.info('change denied', { role: decision.role, needed: decision.needed, denial: decision.denial?.code });
      return { outcome: 'denied', decision, record: await write(denialEntry(startedMs, asTyped, decision), log) };
    }

    // A role that came from being on call is said on every record from here.
    const grant = onCallGrant(decision);
    if (grant) asTyped.onCall = grant;
    // Their break-glass window lets a change that would wait run at once (never a workflow's: nobody asked it as theirs).
    const window = needsApproval(action, ctx) && ctx.needsApproval !== true ? await breaking.openFor(ctx.userId) : null;
    const asked = needsApproval(action, ctx) && window === null;
    const validated = validate(action, targetId, values, asked);
    const fieldErrors = validated.ok ? {} : { ...validated.fieldErrors };
    // A request for approval is posted in its channel: without one, it could be seen by nobody.
    if (asked && ctx.channelId === null) fieldErrors.channel = 'Choose the channel where the request for approval is posted';
    if (!validated.ok || Object.keys(fieldErrors).length > 0) {
      return {
        outcome: 'invalid',
        fieldErrors,
        record: await write(auditEntry(startedMs, asTyped, 'refused', invalidDetail('invalid form', fieldErrors)), log),
      };
    }
    const { params, prepared } = validated;
    // What the parameters chose may need more than the change itself (a reboot into the recovery image: admin).
    const raised = withParams(decision, action, params);
    if (!raised.allowed) {
      log.info('change denied', { role: raised.role, needed: raised.needed, denial: raised.denial?.code });
      return { outcome: 'denied', decision: raised, record: await write(denialEntry(startedMs, asTyped, raised), log) };
    }

    // Allowed and valid: from here its records name the server ("web-1 (VS 42)").
    if (change.targetKind === 'vs') await learnLabels();
    if (asked) {
      const audited = change.audited(params);
      // Nobody is asked to approve what could not be sent as the target stands (the door reads it again before sending).
      const stands = await asItStands(startedMs, { ...asTyped, params: audited, apiRequest: recorded(prepared) }, action, targetId, log);
      if ('refused' in stands) return stands.refused;
      // The request keeps what it was asked on (a restore: what it overwrites), for whoever approves it.
      const kept = { ...audited, ...stands.noted };
      return approvals.ask({ ctx: { ...ctx, channelId: ctx.channelId! }, action, target: key, params: kept, prepared, startedMs }, log);
    }
    if (window) log.warn('the change runs under break glass, without a second person', { window: window.id });
    const under = window ? { breakGlass: window.id } : {};
    const ran = await door.execute(
      { ctx, action, targetId, params, prepared, claimKey: ctx.submissionKey, startedMs, ...(grant ? { onCall: grant } : {}), ...under },
      log,
    );
    // Frozen between the check above and the start: a refusal like the check's.
    if (ran.outcome === 'frozen')
      return { outcome: 'denied', decision: { ...decision, allowed: false, denial: { code: 'frozen', freeze: ran.freeze } }, record: ran.record };
    return window && 'record' in ran && ran.record.breakGlass ? { ...ran, breakGlass: window } : ran;
  }

  /**
   * A change's form validated for its target: its parameters and the request they make, or its field errors. A change
   * that waits for approval must be shown whole in its request's message: one too long for it is invalid too.
   */
  function validate<A extends ChangeAction>(action: A, targetId: number, values: FormValues, forApproval: boolean): Validated<A> {
    const change = CHANGES[action];
    if (!isTargetId(targetId)) return { ok: false, fieldErrors: { [TARGET_KINDS[change.targetKind].field]: TARGET_KINDS[change.targetKind].idError } };
    const validated = change.validate(targetId, values, deps.formLimits ?? DEFAULT_FORM_LIMITS);
    if (!validated.ok) return validated;
    const prepared = change.request.prepare(door.cloud.format, targetId, validated.params);
    const unshown = forApproval ? unshownFields(door.cloud, action, targetId, validated.params, prepared) : null;
    return unshown ? { ok: false, fieldErrors: unshown } : { ok: true, params: validated.params, prepared };
  }

  async function request<A extends ChangeAction>(step: WorkflowStepContext, action: A, targetId: number, values: FormValues): Promise<WorkflowRequestResult> {
    const change = CHANGES[action];
    const key = targetKey({ kind: change.targetKind, id: targetId });
    const log = logger.child({ channel: step.channelId, action, target: key, workflow_execution_id: step.workflowExecutionId });
    const startedMs = now();
    // Nobody is known to ask: the records of the request name the workflow's execution instead.
    const ctx = { userId: '', channelId: step.channelId };
    const reason = typeof step.reason === 'string' ? step.reason.trim() : '';
    const asTyped = {
      ...ctx,
      action: change.action,
      target: key,
      params: bounded({ ...values, reason }, [...change.fields, 'reason']),
      workflowExecutionId: step.workflowExecutionId,
    };
    const freeze = await freezing.frozen();
    if (freeze) {
      log.info('workflow request denied: changes are frozen', { by: freeze.by });
      const record = await write(auditEntry(startedMs, asTyped, 'refused', frozenDetail(freeze)), log);
      notify(record, log);
      return { outcome: 'frozen', freeze, record };
    }
    // The step's reason is the form's reason (a restore's is required): one reason, checked once below.
    const validated = validate(action, targetId, { ...values, reason }, true);
    const fieldErrors = validated.ok ? {} : { ...validated.fieldErrors };
    if (reason === '') fieldErrors.reason = 'Give the reason the workflow asks for this change';
    else if (reason.length > MAX_REASON_LENGTH) fieldErrors.reason = `At most ${MAX_REASON_LENGTH} characters`;
    if (!validated.ok || Object.keys(fieldErrors).length > 0) {
      const record = await write(auditEntry(startedMs, asTyped, 'refused', invalidDetail('invalid workflow step', fieldErrors)), log);
      notify(record, log);
      return { outcome: 'invalid', fieldErrors, record };
    }
    const { prepared } = validated;
    if (change.targetKind === 'vs') await learnLabels();
    // The same change asked for and still unclaimed (a workflow run again, or another asking for it): it stays the one
    // request people see.
    const again = await approvals.askedAgain(
      {
        executionKey: `workflow:${step.functionExecutionId}`,
        workflowExecutionId: step.workflowExecutionId,
        action,
        target: key,
        channelId: step.channelId,
        prepared,
      },
      startedMs,
      log,
    );
    if (again) {
      if (again.outcome === 'repeated') notify(again.record, log);
      return again;
    }
    // As for a form's request: nobody is asked to approve what could not be sent as the target stands, and the request
    // keeps what it was asked on (a restore: what it overwrites), for whoever claims and approves it.
    const audited = change.audited(validated.params);
    const stands = await asItStands(startedMs, { ...asTyped, params: audited, apiRequest: recorded(prepared) }, action, targetId, log);
    if ('refused' in stands) {
      notify(stands.refused.record, log);
      return stands.refused;
    }
    const asked = await approvals.ask(
      {
        ctx: { ...ctx, submissionKey: `workflow:${step.functionExecutionId}` },
        action,
        target: key,
        params: { ...audited, ...stands.noted },
        prepared,
        startedMs,
        workflow: { workflowExecutionId: step.workflowExecutionId, reason },
      },
      log,
    );
    if (asked.outcome === 'requested') notify(asked.record, log);
    return asked;
  }

  async function askForAgent<A extends ChangeAction>(ctx: AgentAskContext, action: A, targetId: number, values: FormValues): Promise<AgentAskResult> {
    const change = CHANGES[action];
    const key = targetKey({ kind: change.targetKind, id: targetId });
    const log = logger.child({ user: ctx.owner, agent: ctx.agent, channel: ctx.channelId, action, target: key });
    const startedMs = now();
    const asTyped: RecordSubject = {
      userId: ctx.owner,
      channelId: ctx.channelId,
      action: change.action,
      target: key,
      params: bounded(values, change.fields),
      agent: ctx.agent,
    };
    const told = <R extends AgentAskResult & { record: AuditRecord }>(result: R): R => {
      notify(result.record, log);
      return result;
    };
    const allowed = await check(ctx.owner, change.action, ctx.channelId, log);
    const decision = allowed.allowed ? ((await frozenDenial(allowed)) ?? allowed) : allowed;
    if (!decision.allowed) {
      log.info('agent request denied', { role: decision.role, needed: decision.needed, denial: decision.denial?.code });
      return told({ outcome: 'denied' as const, decision, record: await write(denialEntry(startedMs, asTyped, decision), log) });
    }
    const validated = validate(action, targetId, values, true);
    if (!validated.ok) {
      const record = await write(auditEntry(startedMs, asTyped, 'refused', invalidDetail('invalid agent request', validated.fieldErrors)), log);
      return told({ outcome: 'invalid' as const, fieldErrors: validated.fieldErrors, record });
    }
    const { params, prepared } = validated;
    const raised = withParams(decision, action, params);
    if (!raised.allowed) return told({ outcome: 'denied' as const, decision: raised, record: await write(denialEntry(startedMs, asTyped, raised), log) });
    const audited = change.audited(params);
    const reason = typeof audited.reason === 'string' ? audited.reason : '';
    const denied = await approvals.deniedBefore({
      owner: ctx.owner,
      action,
      target: key,
      apiRequest: recorded(prepared),
      reason,
      sinceMs: startedMs - ctx.denyMemoryMs,
    });
    if (denied) {
      const { approval } = denied;
      log.info('agent request refused: the same request was denied', { approval: approval.id, by: approval.decidedBy });
      const why = approval.decisionReason ? ` because “${approval.decisionReason}”` : ' (no reason given)';
      const detail = `refused: the same request (${approval.id}) was denied by ${approval.decidedBy ?? 'someone'} at ${approval.decidedAt ?? '?'}${why}`;
      const record = await write(auditEntry(startedMs, { ...asTyped, params: audited, apiRequest: recorded(prepared) }, 'refused', detail), log);
      return told({ outcome: 'denied_before' as const, approval, record });
    }
    if (change.targetKind === 'vs') await learnLabels();
    const stands = await asItStands(startedMs, { ...asTyped, params: audited, apiRequest: recorded(prepared) }, action, targetId, log);
    if ('refused' in stands) return told(stands.refused);
    const asked = await approvals.ask(
      {
        ctx: { userId: ctx.owner, channelId: ctx.channelId, submissionKey: ctx.submissionKey },
        action,
        target: key,
        params: { ...audited, ...stands.noted },
        prepared,
        startedMs,
        agent: ctx.agent,
      },
      log,
    );
    return asked.outcome === 'requested' ? told(asked) : asked;
  }

  async function recordAgentToken(
    ctx: ChangeContext,
    step: 'agent_token' | 'agent_revoke',
    tokens: readonly { name: string; owner: string; expiresAtMs: number }[],
  ): Promise<void> {
    const log = logger.child({ user: ctx.userId, action: step });
    const startedMs = now();
    for (const token of tokens) {
      const params = { name: token.name, owner: token.owner, expires_at: new Date(token.expiresAtMs).toISOString() };
      const detail =
        step === 'agent_token'
          ? `token made for agent ${token.name}, acting for ${token.owner} until ${params.expires_at}`
          : `token of agent ${token.name} (for ${token.owner}) revoked`;
      notify(await write(auditEntry(startedMs, { ...ctx, action: step, target: `agent:${token.name}`, params }, 'done', detail), log), log);
    }
  }

  async function agentStatus(changeId: string, asker: string, anyone: boolean): Promise<AgentChangeStatus> {
    const approval = await door.store.approvals.get(changeId);
    if (!approval || approval.agent === undefined || (!anyone && approval.requestedBy !== asker)) return { found: false };
    const records = (await door.store.audit.latest(200, { target: approval.target })).filter((r) => r.approvalId === approval.id);
    // Its own records: the request, and each step taken (a refused click is the clicker's, not the change's).
    const own = records.filter((r) => r.outcome !== 'refused' || r.decidedBy !== null);
    const newest = approval.status === 'approved' ? (own.find((r) => r.decidedBy !== null && r.decidedBy !== undefined) ?? null) : (own[0] ?? null);
    // Past its expiry and not yet swept: expired all the same (no click can decide it; the sweep records it).
    const lapsed = approval.status === 'requested' && approval.expiresAtMs <= now();
    const outcome: Outcome =
      approval.status === 'approved' ? (newest ? outcomeOf(newest.outcome) : 'running') : lapsed ? 'expired' : outcomeOf(RECORDED_AS[approval.status]);
    return { found: true, approval, outcome, record: lapsed ? null : newest };
  }

  async function submit<A extends ChangeAction>(
    ctx: SubmissionContext,
    action: A,
    targetId: number,
    values: FormValues,
  ): Promise<ChangeResult<ChangeValue<A>> & UnderBreakGlass> {
    const result = await run(ctx, action, targetId, values);
    if ('record' in result) notify(result.record);
    return result;
  }

  return {
    async authorize(ctx, action, target, options) {
      const log = logger.child({ user: ctx.userId, channel: ctx.channelId, action, target });
      const startedMs = now();
      const allowed = await check(ctx.userId, action, ctx.channelId, log, options);
      const decision = allowed.allowed ? ((await frozenDenial(allowed)) ?? allowed) : allowed;
      if (!decision.allowed) notify(await write(denialEntry(startedMs, { ...ctx, action, target, params: {} }, decision), log), log);
      return decision;
    },
    submit,
    request,
    askForAgent,
    agentStatus,
    recordAgentToken,
    inspect: async (action, targetId) => (await CHANGES[action].inspect?.(door.cloud, targetId)) ?? null,
    claim: approvals.claim,
    decide: approvals.decide,
    withdraw: approvals.withdraw,
    mayDecide: approvals.mayDecide,
    expire: approvals.expire,
    setMessage: approvals.setMessage,
    decidable: approvals.decidable,
    waiting: approvals.waiting,
    freeze: freezing.freeze,
    unfreeze: freezing.unfreeze,
    frozen: freezing.frozen,
    breakGlass: breaking.open,
    endBreakGlass: breaking.end,
    breakGlassOf: breaking.openFor,
    openBreakGlass: breaking.openWindows,
    acknowledge: breaking.acknowledge,
  };
}
