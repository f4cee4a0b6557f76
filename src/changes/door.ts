import { randomUUID } from 'node:crypto';
import { isCloudError, type CloudError } from '../cloud/errors';
import type { PreparedRequest } from '../cloud/prepared';
import type { Config } from '../config';
import type { Logger } from '../log';
import type {
  Approval,
  AuditEntry,
  AuditRecord,
  ChangeCompletion,
  ChangeOutcome,
  CloudAccount,
  Freeze,
  NewFollow,
  OnCallGrant,
  RecordedRequest,
  Store,
} from '../store';
import { mapApiErrors } from './api-errors';
import { asCloudError, clip, denialDetail, failureDetail, frozenDetail, MAX_DETAIL_LENGTH } from './audit-text';
import { CHANGES, isChangeAction, type ChangeAction, type ChangeAnswerOf, type ChangeCloud, type ChangeParams, type ChangeValue } from './definitions';
import type { FormLimits } from './disk-form';
import { OutcomeNotRecordedError } from './errors';
import { newestTransactionId, type ChangeReads } from './followed';
import { keepLease } from './keep-lease';
import { atLeast, neededRole, type Action, type Decision, type Policy, type Role, type WhereFrom } from './policy';
import { isBackupState, type TargetState } from './inspection';
import type { RunningTransaction } from './power';
import { targetKey, targetTitle, type Target } from './targets';

// What every way through the door shares: the policy's answer (no, if the
// policy fails), the freeze as it stands now, records written before anyone
// is told, and the run of a change (claim, lease and `started` in one
// transaction, the call of its prepared request, the settled record and the
// end of the lease in another). changes.ts (forms), approvals.ts (the second
// person) and freeze.ts (the switch) are built on it.

export interface ChangeContext {
  userId: string;
  /** Where the change was asked for; null when unknown (a channel restriction then refuses it). */
  channelId: string | null;
}

/**
 * How a call of the door ended, for its caller to answer with. These kinds are not what people read: each result's
 * record carries its outcome in the one vocabulary (src/changes/outcome.ts): `succeeded` is `scheduled` (accepted,
 * followed from then on), `denied`, `invalid`, `busy` and `unfit` are `refused`, `applied_unreadable` is `unknown`.
 */
export type ChangeResult<T> =
  /**
   * The cloud accepted it (scheduled): `accepted` says what it is and where its transactions are (its row's facts);
   * `followed`, that it is followed from now on (src/follow), its message to be posted and remembered.
   */
  | { outcome: 'succeeded'; value: T; record: AuditRecord; accepted: NewFollow; followed: boolean }
  | { outcome: 'denied'; decision: Decision; record: AuditRecord }
  | { outcome: 'invalid'; fieldErrors: Record<string, string>; record: AuditRecord }
  | {
      outcome: 'failed';
      error: CloudError;
      /** API field messages on the form field of the same name. */
      fieldErrors: Record<string, string>;
      /** API messages that match no field. */
      formErrors: string[];
      /** What a 404 is about: its row's notFound (a backup of a missing disk: the disk), the change's target otherwise. */
      about?: Target;
      record: AuditRecord;
    }
  /** The API accepted the change (2xx) but its answer could not be read: applied, details unknown. */
  | { outcome: 'applied_unreadable'; error: CloudError; record: AuditRecord }
  /** The same submission was already claimed: nothing was called and nothing recorded. */
  | { outcome: 'duplicate' }
  /**
   * Another change holds the target (our lease), or the cloud does (`transaction`: the target is locked by a running
   * transaction, named when the cloud lists it); nothing was called.
   */
  | { outcome: 'busy'; record: AuditRecord; transaction?: RunningTransaction | null }
  /** The target's state does not allow the change (starting a server that is on, restoring a backup marked for deletion); nothing was called. */
  | { outcome: 'unfit'; action: ChangeAction; state: TargetState; record: AuditRecord }
  /** The change waits for a second person (VS_APPROVALS): nothing was called; the request is stored and recorded. */
  | { outcome: 'requested'; approval: Approval; record: AuditRecord };

/**
 * What a run of a change can end in, once it was allowed and valid; `frozen`: changes were frozen when it was to start
 * (checked in the transaction that starts it), so nothing was sent; recorded as refused.
 */
export type RunResult<T> =
  | Extract<ChangeResult<T>, { outcome: 'succeeded' | 'failed' | 'applied_unreadable' | 'duplicate' | 'busy' | 'unfit' }>
  | { outcome: 'frozen'; freeze: Freeze; record: AuditRecord };

/** How a change that may not be made as its target stands ended, recorded: busy, unfit, or its target could not be read. */
export type Refused = Extract<ChangeResult<never>, { outcome: 'busy' | 'unfit' | 'failed' }>;

/** Break glass (docs/product.md, On call; break-glass.ts): on or off, how long a window lasts, who would have approved. */
export interface BreakGlassSettings {
  /** VS_BREAKGLASS: off, every step says so and nothing runs without a second person. */
  on: boolean;
  /** VS_BREAKGLASS_MIN, in ms. */
  windowMs: number;
  /** Who could approve (VS_ADMINS, VS_OPERATORS): mentioned when a window opens. */
  roles: Pick<Config['roles'], 'admins' | 'operators'>;
}

/** The longest a change waits for the servers' labels (a cold name index): a record without one names the id alone. */
const LABELS_WAIT_MS = 250;

export interface DoorDeps {
  cloud: ChangeCloud;
  /** The cloud `cloud` sends to (VS_API_URL, VS_ACCOUNT_ID): kept with each approval request, which is sent to it or not at all. */
  cloudAccount: CloudAccount;
  /** The audit trail, submission claims, target leases, approvals, the freeze and break-glass windows. */
  store: Pick<Store, 'audit' | 'claims' | 'leases' | 'approvals' | 'freeze' | 'breakGlass'>;
  policy: Policy;
  /** VS_APPROVALS and VS_APPROVAL_TTL_MIN: the changes that wait for a second person, and for how long. Default: none. */
  approvals?: { actions: readonly ChangeAction[]; ttlMs: number };
  now?: () => number;
  logger?: Logger;
  /**
   * Hears of every record once it is written (the Slack side posts it to VS_AUDIT_CHANNEL). Never awaited: what it
   * throws, or the promise it returns rejects with, is logged and dropped.
   */
  onRecorded?: (record: AuditRecord) => unknown;
  /** A server's label, as the name index knows it (src/cloud/names.ts), read without a call: records name servers "web-1 (VS 42)". */
  labelOf?: (vsId: number) => string | null;
  /** Reads the name index when it holds no list yet (never rejects), so that a change's records name its server. */
  knowLabels?: (waitMs: number) => Promise<void>;
  /** How long a target lock lives if its holder dies (VS_LOCK_TTL_MS); a live holder keeps it while the call runs (keep-lease.ts). */
  lockTtlMs: number;
  /** Makes approval ids (tests); default: random UUIDs. */
  newId?: () => string;
  /**
   * Set: every change the cloud accepts is followed to its end (src/follow polls it), its first poll one interval
   * (VS_FOLLOW_INTERVAL_S) after it was accepted. Unset: nothing is followed.
   */
  follow?: { intervalMs: number; reads: ChangeReads };
  /** What the forms accept (VS_MAX_DISK_GB); default: DEFAULT_FORM_LIMITS. */
  formLimits?: FormLimits;
  /** Break glass (VS_BREAKGLASS, VS_BREAKGLASS_MIN); unset: off. */
  breakGlass?: BreakGlassSettings;
}

/** Who a record of an approval names, besides the user it is about. */
export interface ApprovalNames {
  requestedBy: string;
  decidedBy: string | null;
  approvalId: string;
  /** The workflow execution whose step asked for the change, when one did. */
  workflowExecutionId?: string | null;
  /** The agent that asked for it, for `requestedBy` (its owner), when one did. */
  agent?: string;
}

/**
 * What the records of one attempt are about: who asked and where, which action on what, with what parameters, the
 * request sent (when there is one) and, for an approval, who asked, who decided and the request's id.
 */
export type RecordSubject = Omit<AuditEntry, 'at' | 'durationMs' | 'outcome' | 'apiStatus' | 'detail' | 'leaseOwner'>;

/** One change about to run: everything it was checked with, and the request it sends. */
export interface Run<A extends ChangeAction> {
  ctx: ChangeContext;
  action: A;
  targetId: number;
  params: ChangeParams<A>;
  prepared: PreparedRequest<ChangeAnswerOf<A>>;
  /** Claims it once: the submission's key (the modal's view id), or `approval:<id>`. */
  claimKey: string;
  /** When it was asked for (epoch ms): its records' time and duration count from here. */
  startedMs: number;
  /** On the records of an approved change. */
  names?: ApprovalNames;
  /** The person's role came from being on call: kept on its records. */
  onCall?: OnCallGrant;
  /** It runs under this break-glass window, without a second person: its record is a use, which waits for review. */
  breakGlass?: string;
  /** An approved change's record (`approved`): the change's own from here on (started in place, or settled when not sent). */
  recordId?: number;
}

/** The on-call shift a decision's role came from, as the audit keeps it; null when it came from the configuration. */
export function onCallGrant(decision: Decision): OnCallGrant | null {
  const note = decision.onCall;
  if (note?.state !== 'granted') return null;
  const { shift } = note;
  return { role: note.role, until: shift.end, schedule: shift.schedule?.name ?? null, escalationPolicy: shift.escalationPolicy.name, level: shift.level };
}

export type Door = ReturnType<typeof createDoor>;

const noopLogger: Logger = {
  level: 'error',
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => noopLogger,
};

/** The request as an audit record keeps it. */
export function recorded(prepared: PreparedRequest): RecordedRequest {
  return { method: prepared.method, path: prepared.path, body: prepared.body };
}

export function createDoor(deps: DoorDeps) {
  const { cloud, store, policy } = deps;
  const now = deps.now ?? (() => Date.now());
  const logger = deps.logger ?? noopLogger;
  const { lockTtlMs } = deps;
  const newId = deps.newId ?? randomUUID;

  /**
   * The policy's answer; if the policy itself fails, the answer is no. With a change's `params` (as validated, or as
   * its record kept them), the role they need too (a reboot into the recovery image: admin).
   */
  async function check(userId: string, action: Action, channelId: string | null, log: Logger, where: WhereFrom = {}, params?: unknown): Promise<Decision> {
    let decision: Decision;
    try {
      decision = await policy.can(userId, action, channelId, where);
    } catch (error) {
      log.error('the role check failed; refusing', { error });
      return { allowed: false, action, role: 'none', needed: neededRole(action), denial: { code: 'check_failed' } };
    }
    return params !== undefined && isChangeAction(action) ? withParams(decision, action, params) : decision;
  }

  /** A decision for a change, held against the role its parameters need. */
  function withParams(decision: Decision, action: ChangeAction, params: unknown): Decision {
    const needed = neededFor(action, params);
    if (!decision.allowed || atLeast(decision.role, needed)) return decision;
    return { ...decision, allowed: false, needed, denial: { code: 'role', holders: policy.holders(needed) } };
  }

  /** A decision that allowed `action` turned into a refusal because changes are frozen now (read from the store: every instance sees it at once). */
  async function frozenDenial(decision: Decision): Promise<Decision | null> {
    const freeze: Freeze | null = await store.freeze.current();
    return freeze ? { ...decision, allowed: false, denial: { code: 'frozen', freeze } } : null;
  }

  /** Writes the record before anyone is told; a failed write is logged with the whole entry, then thrown. */
  function write(entry: AuditEntry, log: Logger): Promise<AuditRecord> {
    return mustRecord(() => store.audit.record(entry), 'could not write the audit record', entry, log);
  }

  function notify(record: AuditRecord, log: Logger = logger): void {
    if (!deps.onRecorded) return;
    try {
      const returned: unknown = deps.onRecorded(record);
      if (isPromiseLike(returned)) returned.then(undefined, (error: unknown) => log.warn('onRecorded failed', { record: record.id, error }));
    } catch (error) {
      log.warn('onRecorded failed', { record: record.id, error });
    }
  }

  /**
   * The one way an audit entry is made: what it is about, how the attempt ended and why (bounded), timed from when it
   * was asked for (`at`) to now (its duration).
   */
  /** The server's label as the name index knows it now (no read): kept on the record beside the id. */
  function serverLabelOf(target: string): { serverLabel?: string } {
    const id = target.startsWith('vs:') ? Number(target.slice(3)) : NaN;
    const label = Number.isSafeInteger(id) ? deps.labelOf?.(id) : null;
    return label ? { serverLabel: label } : {};
  }

  function auditEntry(startedMs: number, subject: RecordSubject, outcome: ChangeOutcome, detail: string | null, apiStatus: number | null = null): AuditEntry {
    return {
      at: new Date(startedMs).toISOString(),
      durationMs: Math.max(0, now() - startedMs),
      ...subject,
      ...serverLabelOf(subject.target),
      outcome,
      apiStatus,
      detail: detail === null ? null : clip(detail, MAX_DETAIL_LENGTH),
    };
  }

  /**
   * How a change that was never sent ended, on record: a record of its own, or, for an approved change
   * (`recordId`), its record settled (nothing may be left `approved`).
   */
  async function unsent(entry: AuditEntry & { outcome: 'refused' | 'failed' | 'unknown' }, log: Logger, recordId?: number): Promise<AuditRecord> {
    if (recordId === undefined) return write(entry, log);
    const { outcome, apiStatus, durationMs, detail } = entry;
    try {
      return await store.audit.complete(recordId, { outcome, apiStatus, durationMs, detail });
    } catch (error) {
      // No longer `approved` (settled meanwhile): the outcome is a record of its own, as before approvals had one.
      log.warn('could not settle the approved change on its record; writing one of its own', { error, record: recordId });
      return write(entry, log);
    }
  }

  /**
   * Reads the target as it stands (its row's inspect) before the change is sent or asked for: when it may be made now,
   * what the change keeps of it (its row's `noted`: a restore's disk, when the backup was taken, its size and type);
   * otherwise how it ended, recorded (`refused` when busy or unfit, or `failed` when the target could not be read; an
   * approved change's own record, `recordId`, settled so).
   */
  async function asItStands(
    startedMs: number,
    subject: RecordSubject,
    action: ChangeAction,
    targetId: number,
    log: Logger,
    recordId?: number,
  ): Promise<{ refused: Refused } | { noted: Record<string, unknown> }> {
    const refused = (r: Refused) => ({ refused: r });
    const change = CHANGES[action];
    if (!change.inspect) return { noted: {} };
    const title = targetTitle({ kind: change.targetKind, id: targetId });
    let inspection;
    try {
      inspection = await change.inspect(cloud, targetId);
    } catch (thrown) {
      const error = asCloudError(thrown);
      log.info('the target could not be read before the change; not sent', { kind: error.kind, status: error.status });
      const entry = auditEntry(startedMs, subject, 'failed', `not sent: ${title} could not be read first (${error.message})`, error.status ?? null);
      return refused({ outcome: 'failed', error, fieldErrors: {}, formErrors: [], record: await unsent({ ...entry, outcome: 'failed' }, log, recordId) });
    }
    if (inspection.outcome === 'busy') {
      const { transaction } = inspection;
      log.info('target locked by a transaction; not sent', { transaction: transaction?.id });
      const detail = `not sent: ${title} is locked by a running transaction${transaction ? ` (${transaction.action} ${transaction.id})` : ''}`;
      return refused({
        outcome: 'busy',
        transaction,
        record: await unsent({ ...auditEntry(startedMs, subject, 'refused', detail), outcome: 'refused' }, log, recordId),
      });
    }
    if (inspection.outcome === 'unfit') {
      const { state } = inspection;
      const as = isBackupState(state) ? (state.usability.usable ? 'usable' : state.usability.why) : state.power;
      log.info('the target does not fit the change; not sent', { state: as });
      const detail = isBackupState(state)
        ? `not sent: ${title} cannot be restored (${as.replace(/_/g, ' ')})`
        : `not sent: ${title} is ${as}, which ${action} does not fit`;
      return refused({
        outcome: 'unfit',
        action,
        state,
        record: await unsent({ ...auditEntry(startedMs, subject, 'refused', detail), outcome: 'refused' }, log, recordId),
      });
    }
    return { noted: change.noted?.(inspection.state) ?? {} };
  }

  /** A refusal on record: the denial's words in the detail. */
  function denialEntry(startedMs: number, subject: RecordSubject, decision: Decision): AuditEntry {
    return auditEntry(startedMs, subject, 'refused', denialDetail(decision));
  }

  /**
   * Runs one allowed, valid change: in one transaction the claim (a second delivery never reaches the API), the
   * target's lease (two changes to one server or backup never run at once) and the `started` record; then the call of
   * the prepared request, exactly as prepared; then the settled record and the end of the lease in another.
   */
  async function execute<A extends ChangeAction>(run: Run<A>, log: Logger): Promise<RunResult<ChangeValue<A>>> {
    const change = CHANGES[run.action];
    const target: Target = { kind: change.targetKind, id: run.targetId };
    const key = targetKey(target);
    const asked: RecordSubject = {
      userId: run.ctx.userId,
      channelId: run.ctx.channelId,
      action: change.action,
      target: key,
      params: change.audited(run.params),
      apiRequest: recorded(run.prepared),
      ...run.names,
      ...(run.onCall ? { onCall: run.onCall } : {}),
    };
    // docs/cloud-api.md, Finding a change's transaction: the newest transaction id before the change is sent, read while
    // the target is read as it stands and the change is started on record (a refusal, a duplicate or a busy target only
    // wastes the read).
    const baseline = deps.follow ? newestTransactionId(deps.follow.reads, change.follow.listedUnder(run.targetId)) : Promise.resolve(null);
    const stands = await asItStands(run.startedMs, asked, run.action, run.targetId, log, run.recordId);
    if ('refused' in stands) return stands.refused;
    // What the change was made on, as read just now, kept with its records.
    const subject: RecordSubject = { ...asked, params: { ...asked.params, ...stands.noted } };
    const entry = <O extends ChangeOutcome>(outcome: O, detail: string) => ({ ...auditEntry(run.startedMs, subject, outcome, detail), outcome });

    const owner = `${run.claimKey}#${newId()}`;
    const lease = { target: key, owner };
    // Only the record of a change that starts is a break-glass use: a refusal made nothing to review.
    const started = { ...entry('started', 'the cloud API call is in progress'), ...(run.breakGlass ? { breakGlass: run.breakGlass } : {}) };
    const begin = {
      submissionKey: run.claimKey,
      at: started.at,
      lease: { ...lease, nowMs: now(), ttlMs: lockTtlMs },
      started,
      ...(run.recordId === undefined ? {} : { recordId: run.recordId }),
    };
    const begun = await mustRecord(() => store.audit.beginChange(begin), 'could not start the change on record', started, log);
    if (begun.outcome === 'duplicate') {
      log.info('duplicate submission ignored', { submission: run.claimKey });
      return { outcome: 'duplicate' };
    }
    if (begun.outcome === 'busy') {
      log.info('target busy', { submission: run.claimKey });
      return {
        outcome: 'busy',
        record: await unsent(entry('refused', `not sent: another change to ${targetTitle(target)} is in progress`), log, run.recordId),
      };
    }
    if (begun.outcome === 'frozen') {
      // Frozen after the checks read the freeze, before the start committed (another instance, or a click): nothing sent.
      log.info('change refused at its start: changes are frozen', { by: begun.freeze.by });
      return { outcome: 'frozen', freeze: begun.freeze, record: await unsent(entry('refused', frozenDetail(begun.freeze)), log, run.recordId) };
    }

    const record = begun.record;
    const keeper = keepLease(store.leases, lease, lockTtlMs, now, log);
    let released = false;
    /** Settles the record and ends the lease in one transaction (and, for a change the cloud accepted, starts following it). */
    const settle = async (
      outcome: ChangeCompletion['outcome'],
      apiStatus: number | null,
      detail: string,
      follow?: Omit<NewFollow, 'recordId'>,
    ): Promise<AuditRecord> => {
      const completion = { outcome, apiStatus, durationMs: Math.max(0, now() - run.startedMs), detail: clip(detail, MAX_DETAIL_LENGTH) };
      try {
        const settled = await store.audit.complete(record.id, completion, lease, follow);
        released = true;
        return settled;
      } catch (error) {
        log.error('could not settle the audit record', { error, record: record.id, completion });
        // Not a StoreUnavailableError any more: the cloud was called, so "nothing was changed" would be untrue.
        // The record stays `started` and is settled as unknown (interrupted) once its lease expires.
        throw new OutcomeNotRecordedError({ cause: error });
      }
    };
    const baselineId = await baseline;
    try {
      let value: ChangeValue<A>;
      try {
        value = await cloud.send(run.prepared);
      } catch (thrown) {
        const error = asCloudError(thrown);
        if (!isCloudError(thrown)) log.error('the cloud client threw something other than a CloudError', { error: thrown });
        if (error.unreadableSuccess) {
          // A 2xx whose body could not be read: the change was applied.
          const detail = `applied: the cloud API answered HTTP ${error.status ?? '2xx'}, but its answer could not be read (${error.message})`;
          const settled = await settle('unknown', error.status ?? null, detail);
          log.warn('change applied, answer unreadable', { kind: error.kind, status: error.status });
          return { outcome: 'applied_unreadable', error, record: settled };
        }
        if (error.kind === 'validation' && run.names === undefined) {
          // The API refused the parameters and changed nothing; the modal stays open to be fixed and sent again.
          await releaseClaim(run.claimKey, log);
        }
        const { fieldErrors, formErrors } = mapApiErrors(error, change.apiFields);
        const settled = await settle('failed', error.status ?? null, failureDetail(error, thrown));
        log.info('change failed', { kind: error.kind, status: error.status });
        const about = error.kind === 'not_found' && change.notFound ? { about: change.notFound(run.targetId, run.params) } : {};
        return { outcome: 'failed', error, fieldErrors, formErrors, ...about, record: settled };
      }
      const accepted = acceptedOf(run, value, baselineId, deps.follow?.intervalMs ?? 0);
      const followed = deps.follow !== undefined;
      // The client hands back the answer, not its status: the first the request expects is the one the cloud documents.
      const status = run.prepared.expectedStatuses[0] ?? null;
      const settled = await settle('scheduled', status, change.describe(run.targetId, value, run.params), followed ? accepted : undefined);
      log.info('change succeeded', { ms: settled.durationMs, followed });
      return { outcome: 'succeeded', value, record: settled, accepted: { ...accepted, recordId: settled.id }, followed };
    } finally {
      keeper.stop();
      try {
        if (!released) await store.leases.release(key, owner);
      } catch (error) {
        log.warn('could not release the target lock; it expires on its own', { error, ttlMs: lockTtlMs });
      }
    }
  }

  /** What the cloud accepted just now, as it is followed: its row's facts, who asked and approved, where, since when. */
  function acceptedOf<A extends ChangeAction>(run: Run<A>, value: ChangeValue<A>, baselineId: number | null, intervalMs: number): Omit<NewFollow, 'recordId'> {
    const change = CHANGES[run.action];
    const acceptedAtMs = now();
    return {
      action: change.action,
      target: targetKey({ kind: change.targetKind, id: run.targetId }),
      subject: change.follow.subject(run.targetId, run.params, value),
      requestedBy: run.names?.requestedBy ?? run.ctx.userId,
      approvedBy: run.names?.decidedBy ?? null,
      channelId: run.ctx.channelId,
      baselineId,
      acceptedAtMs,
      nextPollAtMs: acceptedAtMs + intervalMs,
      intervalMs,
    };
  }

  async function releaseClaim(key: string, log: Logger): Promise<void> {
    try {
      await store.claims.release(key);
    } catch (error) {
      log.warn('could not release the submission key; the form must be opened again', { error });
    }
  }

  /**
   * Before a change to a server is recorded: the servers' labels, read once (then kept by the index). Waited for at most
   * LABELS_WAIT_MS, so a slow cloud never holds a change back for a name; without them a record names the id alone.
   */
  async function learnLabels(): Promise<void> {
    await deps.knowLabels?.(LABELS_WAIT_MS);
  }

  return {
    deps,
    store,
    cloud,
    now,
    logger,
    newId,
    check,
    withParams,
    frozenDenial,
    write,
    unsent,
    notify,
    auditEntry,
    denialEntry,
    asItStands,
    execute,
    learnLabels,
  };
}

/** The role a change's parameters need (as validated, or as its record kept them); parameters that cannot be read back need the most. */
export function neededFor<A extends ChangeAction>(action: A, params: unknown): Role {
  const change = CHANGES[action];
  if (!change.neededFor) return change.needed;
  const stored = change.stored.safeParse(params);
  return stored.success ? change.neededFor(stored.data) : 'admin';
}

/**
 * A store write that must happen before anything else does: if it fails, the entry it would have kept is logged whole
 * (so the log holds what the audit trail could not), then the failure is thrown to the caller.
 */
export async function mustRecord<T>(write: () => Promise<T>, failure: string, entry: AuditEntry, log: Logger): Promise<T> {
  try {
    return await write();
  } catch (error) {
    log.error(failure, { error, entry });
    throw error;
  }
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
