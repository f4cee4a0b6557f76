import { randomUUID } from 'node:crypto';
import { isCloudError, type CloudError } from '../cloud/errors';
import type { Logger } from '../log';
import type { AuditEntry, AuditRecord, ChangeBeginning, ChangeCompletion, ChangeOutcome, Lease, Store } from '../store';
import { mapApiErrors } from './api-errors';
import { asCloudError, bounded, clip, denialDetail, failureDetail, MAX_DETAIL_LENGTH } from './audit-text';
import { CHANGES, type ChangeAction, type ChangeCloud, type ChangeValue } from './definitions';
import type { FormValues } from './disk-form';
import { OutcomeNotRecordedError } from './errors';
import { keepLease } from './keep-lease';
import { neededRole, type Decision, type Policy, type WhereFrom } from './policy';
import { isTargetId, TARGET_KINDS, targetKey, targetTitle } from './targets';

// The one door every change goes through. In order:
//   1. policy, for the submitting user (the only identity trusted), now;
//   2. validation (an invalid form burns nothing: the user fixes it and sends the same view again);
//   3. in one transaction: the submission key is claimed, so a second delivery never reaches the API;
//      the target is leased, so two changes to one server or backup never run at once; the attempt is
//      on record as started;
//   4. the cloud API is called;
//   5. the attempt is settled and the lease ended, in one transaction (before anything is returned);
//   6. onRecorded hears of the record.
// Every path that reaches a decision writes one audit record, except a
// duplicate delivery, which did nothing and writes nothing.

export interface ChangeContext {
  userId: string;
  /** Where the change was asked for; null when unknown (a channel restriction then refuses it). */
  channelId: string | null;
}

export interface SubmissionContext extends ChangeContext {
  /** The channel was picked in a shortcut's form (policy.ts, WhereFrom). */
  channelChosenInForm?: boolean;
  /** Identifies one submission across deliveries: the modal's view id. */
  submissionKey: string;
}

export type ChangeResult<T> =
  | { outcome: 'succeeded'; value: T; record: AuditRecord }
  | { outcome: 'denied'; decision: Decision; record: AuditRecord }
  | { outcome: 'invalid'; fieldErrors: Record<string, string>; record: AuditRecord }
  | {
      outcome: 'failed';
      error: CloudError;
      /** API field messages on the form field of the same name. */
      fieldErrors: Record<string, string>;
      /** API messages that match no field. */
      formErrors: string[];
      record: AuditRecord;
    }
  /** The API accepted the change (2xx) but its answer could not be read: applied, details unknown. */
  | { outcome: 'applied_unreadable'; error: CloudError; record: AuditRecord }
  /** The same submission was already claimed: nothing was called and nothing recorded. */
  | { outcome: 'duplicate' }
  /** Another change holds the target; nothing was called. */
  | { outcome: 'busy'; record: AuditRecord };

export type AuthorizeOptions = WhereFrom;

export interface Changes {
  /** The check when the command is typed, before the modal opens. A denial is recorded and returned. */
  authorize(ctx: ChangeContext, action: ChangeAction, target: string, options?: AuthorizeOptions): Promise<Decision>;
  /** Runs one submitted change form through the door (the table of definitions.ts says what each change is). */
  submit<A extends ChangeAction>(ctx: SubmissionContext, action: A, targetId: number, values: FormValues): Promise<ChangeResult<ChangeValue<A>>>;
}

export interface ChangesDeps {
  cloud: ChangeCloud;
  /** The audit trail (records, the start and end of a change), submission claims and target leases. */
  store: Pick<Store, 'audit' | 'claims' | 'leases'>;
  policy: Policy;
  now?: () => number;
  logger?: Logger;
  /**
   * Hears of every record once it is written (the Slack side posts it to VS_AUDIT_CHANNEL). Never awaited: what it
   * throws, or the promise it returns rejects with, is logged and dropped.
   */
  onRecorded?: (record: AuditRecord) => unknown;
  /** How long a target lock lives if its holder dies (VS_LOCK_TTL_MS); a live holder keeps it while the call runs (keep-lease.ts). */
  lockTtlMs: number;
}

const noopLogger: Logger = {
  level: 'error',
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => noopLogger,
};

export function createChanges(deps: ChangesDeps): Changes {
  const { cloud, store, policy } = deps;
  const now = deps.now ?? (() => Date.now());
  const logger = deps.logger ?? noopLogger;
  const { lockTtlMs } = deps;

  /** The policy's answer; if the policy itself fails, the answer is no. */
  async function decide(ctx: ChangeContext, action: ChangeAction, log: Logger, options: AuthorizeOptions = {}): Promise<Decision> {
    try {
      return await policy.can(ctx.userId, action, ctx.channelId, options);
    } catch (error) {
      log.error('the role check failed; refusing the change', { error });
      return { allowed: false, action, role: 'none', needed: neededRole(action), denial: { code: 'check_failed' } };
    }
  }

  /** Writes the record before anyone is told; a failed write is logged with the whole entry, then thrown. */
  async function write(entry: AuditEntry, log: Logger): Promise<AuditRecord> {
    try {
      return await store.audit.record(entry);
    } catch (error) {
      log.error('could not write the audit record', { error, entry });
      throw error;
    }
  }

  /** Claims, leases and records `started` in one transaction; like write(), a failure is logged with the entry, then thrown. */
  async function begin(submissionKey: string, at: string, lease: Lease, started: AuditEntry, log: Logger): Promise<ChangeBeginning> {
    try {
      return await store.audit.beginChange({ submissionKey, at, lease, started });
    } catch (error) {
      log.error('could not start the change on record', { error, entry: started });
      throw error;
    }
  }

  /** Settles a started record and ends its lease; like write(), a failure is logged with what was known, then thrown. */
  async function settle(started: AuditRecord, completion: ChangeCompletion, lease: { target: string; owner: string }, log: Logger): Promise<AuditRecord> {
    try {
      return await store.audit.complete(started.id, completion, lease);
    } catch (error) {
      log.error('could not settle the audit record', { error, record: started.id, completion });
      // Not a StoreUnavailableError any more: the cloud was called, so "nothing was changed" would be untrue.
      // The record stays `started` and is settled as interrupted once its lease expires.
      throw new OutcomeNotRecordedError({ cause: error });
    }
  }

  function notify(record: AuditRecord, log: Logger): void {
    if (!deps.onRecorded) return;
    try {
      const returned: unknown = deps.onRecorded(record);
      if (isPromiseLike(returned)) returned.then(undefined, (error: unknown) => log.warn('onRecorded failed', { record: record.id, error }));
    } catch (error) {
      log.warn('onRecorded failed', { record: record.id, error });
    }
  }

  async function run<A extends ChangeAction>(ctx: SubmissionContext, action: A, targetId: number, values: FormValues): Promise<ChangeResult<ChangeValue<A>>> {
    const change = CHANGES[action];
    const target = { kind: change.targetKind, id: targetId };
    const key = targetKey(target);
    const log = logger.child({ user: ctx.userId, channel: ctx.channelId, action: change.action, target: key });
    const startedMs = now();
    const entry = (outcome: ChangeOutcome, params: Record<string, unknown>, apiStatus: number | null, detail: string | null): AuditEntry => ({
      at: new Date(startedMs).toISOString(),
      userId: ctx.userId,
      channelId: ctx.channelId,
      action: change.action,
      target: key,
      params,
      outcome,
      apiStatus,
      durationMs: Math.max(0, now() - startedMs),
      detail: detail === null ? null : clip(detail, MAX_DETAIL_LENGTH),
    });
    // The form as typed, bounded, for records of changes that did not run.
    const asTyped = bounded(values, change.fields);

    const decision = await decide(ctx, change.action, log, { channelChosenInForm: ctx.channelChosenInForm });
    if (!decision.allowed) {
      log.info('change denied', { role: decision.role, needed: decision.needed });
      return { outcome: 'denied', decision, record: await write(entry('denied', asTyped, null, denialDetail(decision)), log) };
    }

    const validated = isTargetId(targetId)
      ? change.validate(targetId, values)
      : { ok: false as const, fieldErrors: { [TARGET_KINDS[change.targetKind].field]: TARGET_KINDS[change.targetKind].idError } };
    if (!validated.ok) {
      const detail = `invalid form: ${Object.entries(validated.fieldErrors)
        .map(([field, message]) => `${field}: ${message}`)
        .join('; ')}`;
      return { outcome: 'invalid', fieldErrors: validated.fieldErrors, record: await write(entry('invalid', asTyped, null, detail), log) };
    }
    const params = validated.params;
    const audited = change.audited(params);

    // One transaction, atomic and durable: the submission claimed (of two deliveries, however close, exactly one
    // gets past here), the target leased, and the attempt on record as started before the call (if the process
    // dies mid-call, it is still there; once its lease has expired, recovery settles it as interrupted).
    const owner = `${ctx.submissionKey}#${randomUUID()}`;
    const lease = { target: key, owner };
    const begun = await begin(
      ctx.submissionKey,
      new Date(startedMs).toISOString(),
      { ...lease, nowMs: now(), ttlMs: lockTtlMs },
      entry('started', audited, null, 'the cloud API call is in progress'),
      log,
    );
    if (begun.outcome === 'duplicate') {
      log.info('duplicate submission ignored', { submission: ctx.submissionKey });
      return { outcome: 'duplicate' };
    }
    if (begun.outcome === 'busy') {
      log.info('target busy', { submission: ctx.submissionKey });
      return { outcome: 'busy', record: await write(entry('busy', audited, null, `another change to ${targetTitle(target)} is in progress`), log) };
    }

    const started = begun.record;
    const keeper = keepLease(store.leases, lease, lockTtlMs, now, log);
    let released = false;
    /** Settles the record and ends the lease in one transaction. */
    const settleAndRelease = async (completion: ChangeCompletion) => {
      const record = await settle(started, completion, lease, log);
      released = true;
      return record;
    };
    try {
      const completion = (outcome: ChangeCompletion['outcome'], apiStatus: number | null, detail: string): ChangeCompletion => ({
        outcome,
        apiStatus,
        durationMs: Math.max(0, now() - startedMs),
        detail: clip(detail, MAX_DETAIL_LENGTH),
      });
      let value: ChangeValue<A>;
      try {
        value = await change.call(cloud, targetId, params);
      } catch (thrown) {
        const error = asCloudError(thrown);
        if (!isCloudError(thrown)) log.error('the cloud client threw something other than a CloudError', { error: thrown });
        if (error.unreadableSuccess) {
          // A 2xx whose body could not be read: the change was applied.
          const detail = `applied: the cloud API answered HTTP ${error.status ?? '2xx'}, but its answer could not be read (${error.message})`;
          const record = await settleAndRelease(completion('applied_unreadable', error.status ?? null, detail));
          log.warn('change applied, answer unreadable', { kind: error.kind, status: error.status });
          return { outcome: 'applied_unreadable', error, record };
        }
        if (error.kind === 'validation') {
          // The API refused the parameters and changed nothing; the modal stays open to be fixed and sent again.
          await releaseQuietly(ctx.submissionKey, log);
        }
        const { fieldErrors, formErrors } = mapApiErrors(error, change.apiFields);
        const record = await settleAndRelease(completion('failed', error.status ?? null, failureDetail(error, thrown)));
        log.info('change failed', { kind: error.kind, status: error.status });
        return { outcome: 'failed', error, fieldErrors, formErrors, record };
      }
      const record = await settleAndRelease(completion('succeeded', change.successStatus, change.describe(targetId, value)));
      log.info('change succeeded', { ms: record.durationMs });
      return { outcome: 'succeeded', value, record };
    } finally {
      keeper.stop();
      try {
        if (!released) await store.leases.release(key, owner);
      } catch (error) {
        log.warn('could not release the target lock; it expires on its own', { error, ttlMs: lockTtlMs });
      }
    }
  }

  async function releaseQuietly(key: string, log: Logger): Promise<void> {
    try {
      await store.claims.release(key);
    } catch (error) {
      log.warn('could not release the submission key; the form must be opened again', { error });
    }
  }

  async function submit<A extends ChangeAction>(
    ctx: SubmissionContext,
    action: A,
    targetId: number,
    values: FormValues,
  ): Promise<ChangeResult<ChangeValue<A>>> {
    const result = await run(ctx, action, targetId, values);
    if ('record' in result) notify(result.record, logger);
    return result;
  }

  return {
    async authorize(ctx, action, target, options) {
      const log = logger.child({ user: ctx.userId, channel: ctx.channelId, action, target });
      const startedMs = now();
      const decision = await decide(ctx, action, log, options);
      if (!decision.allowed) {
        const record = await write(
          {
            at: new Date(startedMs).toISOString(),
            userId: ctx.userId,
            channelId: ctx.channelId,
            action,
            target,
            params: {},
            outcome: 'denied',
            apiStatus: null,
            durationMs: Math.max(0, now() - startedMs),
            detail: denialDetail(decision),
          },
          log,
        );
        notify(record, log);
      }
      return decision;
    },

    submit,
  };
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
