import { randomUUID } from 'node:crypto';
import type { CloudClient } from '../cloud/client.types';
import { CloudError, isCloudError, mayHaveApplied } from '../cloud/errors';
import type { AddDiskParams, Backup, Disk } from '../cloud/schemas';
import type { Logger } from '../log';
import type { AuditEntry, AuditRecord, AuditStore, ChangeAction, ChangeCompletion, ChangeOutcome } from '../store/audit-store';
import { DISK_FORM_FIELDS, validateDiskForm, type FormValidation, type FormValues } from './disk-form';
import { NEEDED, type Decision, type Policy } from './policy';
import { validateRestoreForm, type RestoreFormValues, type RestoreParams } from './restore-form';

// The one door every change goes through. In order:
//   1. policy, for the submitting user (the only identity trusted), now;
//   2. validation (an invalid form burns nothing: the user fixes it and sends the same view again);
//   3. the submission key is claimed, durably, so a second delivery never reaches the API;
//   4. the target is locked, so two changes to one server or backup never run at once;
//   5. the cloud API is called;
//   6. the attempt is recorded (before anything is returned);
//   7. the lock is released; 8. onRecorded hears of the record.
// Every path that reaches a decision writes one audit record, except a
// duplicate delivery, which did nothing and writes nothing.

export interface ChangeContext {
  userId: string;
  /** Where the change was asked for; null when unknown (a channel restriction then refuses it). */
  channelId: string | null;
}

export interface SubmissionContext extends ChangeContext {
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
  /** The same submission was already claimed: nothing was called and nothing recorded. */
  | { outcome: 'duplicate' }
  /** Another change holds the target; recorded as failed with this message. */
  | { outcome: 'busy'; message: string; record: AuditRecord };

export interface Changes {
  /** The check when the command is typed, before the modal opens. A denial is recorded and returned. */
  authorize(ctx: ChangeContext, action: ChangeAction, target: string): Promise<Decision>;
  addDisk(ctx: SubmissionContext, vsId: number, values: FormValues): Promise<ChangeResult<Disk>>;
  restoreBackup(ctx: SubmissionContext, backupId: number, values: RestoreFormValues): Promise<ChangeResult<Backup>>;
}

export interface ChangesDeps {
  cloud: Pick<CloudClient, 'addDisk' | 'restoreBackup'>;
  store: AuditStore;
  policy: Policy;
  now?: () => number;
  logger?: Logger;
  /** Hears of every record once it is written (the Slack side posts it to VS_AUDIT_CHANNEL). What it throws is logged and dropped. */
  onRecorded?: (record: AuditRecord) => void;
  /** How long a target lock lives if its holder dies; longer than any cloud call. */
  lockTtlMs?: number;
}

export const DEFAULT_LOCK_TTL_MS = 5 * 60_000;
/** Strings kept in an audit record of a form that was not executed (denied, invalid) are cut to this. */
export const MAX_AUDITED_TEXT = 300;
export const MAX_DETAIL_LENGTH = 1000;

/** API error keys that name no field (Rails' `base`). */
const NON_FIELD_KEYS = new Set(['base', 'error', 'errors', 'message', 'messages', '']);

interface ChangeSpec<P, T> {
  action: ChangeAction;
  target: string;
  /** What the change is about, in words: "VS 42". */
  subject: string;
  /** The form as typed, bounded, for records of changes that did not run. */
  asTyped: Record<string, unknown>;
  /** Form fields an API field message may land on. */
  formFields: readonly string[];
  validate(): FormValidation<P>;
  audited(params: P): Record<string, unknown>;
  call(params: P): Promise<T>;
  /** The status the client saw on success (it returns the body only). */
  successStatus: number;
  describe(value: T): string;
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
  const lockTtlMs = deps.lockTtlMs ?? DEFAULT_LOCK_TTL_MS;

  /** The policy's answer; if the policy itself fails, the answer is no. */
  async function decide(ctx: ChangeContext, action: ChangeAction, log: Logger): Promise<Decision> {
    try {
      return await policy.can(ctx.userId, action, ctx.channelId);
    } catch (error) {
      log.error('the role check failed; refusing the change', { error });
      return { allowed: false, role: 'none', needed: NEEDED[action], reason: 'Your role could not be checked just now, so nothing was changed. Try again in a minute.' };
    }
  }

  /** Writes the record before anyone is told; a failed write is logged with the whole entry, then thrown. */
  async function write(entry: AuditEntry, log: Logger): Promise<AuditRecord> {
    try {
      return await store.record(entry);
    } catch (error) {
      log.error('could not write the audit record', { error, entry });
      throw error;
    }
  }

  /** Settles a started record; like write(), a failure is logged with what was known, then thrown. */
  async function settle(started: AuditRecord, completion: ChangeCompletion, log: Logger): Promise<AuditRecord> {
    try {
      return await store.complete(started.id, completion);
    } catch (error) {
      log.error('could not settle the audit record', { error, record: started.id, completion });
      throw error;
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

  async function run<P, T>(ctx: SubmissionContext, spec: ChangeSpec<P, T>): Promise<ChangeResult<T>> {
    const log = logger.child({ user: ctx.userId, channel: ctx.channelId, action: spec.action, target: spec.target });
    const startedMs = now();
    const entry = (outcome: ChangeOutcome, params: Record<string, unknown>, apiStatus: number | null, detail: string | null): AuditEntry => ({
      at: new Date(startedMs).toISOString(),
      userId: ctx.userId,
      channelId: ctx.channelId,
      action: spec.action,
      target: spec.target,
      params,
      outcome,
      apiStatus,
      durationMs: Math.max(0, now() - startedMs),
      detail: detail === null ? null : clip(detail, MAX_DETAIL_LENGTH),
    });

    const decision = await decide(ctx, spec.action, log);
    if (!decision.allowed) {
      log.info('change denied', { role: decision.role, needed: decision.needed });
      return { outcome: 'denied', decision, record: await write(entry('denied', spec.asTyped, null, decision.reason), log) };
    }

    const validated = spec.validate();
    if (!validated.ok) {
      const detail = `invalid form: ${Object.entries(validated.fieldErrors).map(([field, message]) => `${field}: ${message}`).join('; ')}`;
      return { outcome: 'invalid', fieldErrors: validated.fieldErrors, record: await write(entry('invalid', spec.asTyped, null, detail), log) };
    }
    const params = validated.params;
    const audited = spec.audited(params);

    // Atomic and durable: of two deliveries, however close, exactly one gets past here.
    if (!(await store.claimSubmission(ctx.submissionKey, new Date(startedMs).toISOString()))) {
      log.info('duplicate submission ignored', { submission: ctx.submissionKey });
      return { outcome: 'duplicate' };
    }

    const owner = `${ctx.submissionKey}#${randomUUID()}`;
    if (!(await store.tryLock(spec.target, owner, now(), lockTtlMs))) {
      const message = `Another change to ${spec.subject} is in progress; wait until it has finished.`;
      log.info('target busy', { submission: ctx.submissionKey });
      return { outcome: 'busy', message, record: await write(entry('failed', audited, null, message), log) };
    }

    try {
      // On record before the call: if the process dies mid-call, the attempt is still there, marked started.
      const started = await write(entry('started', audited, null, 'the cloud API call is in progress'), log);
      const completion = (outcome: ChangeCompletion['outcome'], apiStatus: number | null, detail: string): ChangeCompletion => ({
        outcome,
        apiStatus,
        durationMs: Math.max(0, now() - startedMs),
        detail: clip(detail, MAX_DETAIL_LENGTH),
      });
      let value: T;
      try {
        value = await spec.call(params);
      } catch (thrown) {
        const error = asCloudError(thrown);
        if (!isCloudError(thrown)) log.error('the cloud client threw something other than a CloudError', { error: thrown });
        if (error.kind === 'validation') {
          // The API refused the parameters and changed nothing; the modal stays open to be fixed and sent again.
          await releaseQuietly(ctx.submissionKey, log);
        }
        const { fieldErrors, formErrors } = mapApiErrors(error, spec.formFields);
        const record = await settle(started, completion('failed', error.status ?? null, failureDetail(error, thrown)), log);
        log.info('change failed', { kind: error.kind, status: error.status });
        return { outcome: 'failed', error, fieldErrors, formErrors, record };
      }
      const record = await settle(started, completion('succeeded', spec.successStatus, spec.describe(value)), log);
      log.info('change succeeded', { ms: record.durationMs });
      return { outcome: 'succeeded', value, record };
    } finally {
      try {
        await store.unlock(spec.target, owner);
      } catch (error) {
        log.warn('could not release the target lock; it expires on its own', { error, ttlMs: lockTtlMs });
      }
      const heldMs = now() - startedMs;
      if (heldMs > lockTtlMs) log.warn('the change took longer than the target lock lives; another change may have started meanwhile', { heldMs, ttlMs: lockTtlMs });
    }
  }

  async function releaseQuietly(key: string, log: Logger): Promise<void> {
    try {
      await store.releaseSubmission(key);
    } catch (error) {
      log.warn('could not release the submission key; the form must be opened again', { error });
    }
  }

  async function through<P, T>(ctx: SubmissionContext, spec: ChangeSpec<P, T>): Promise<ChangeResult<T>> {
    const result = await run(ctx, spec);
    if ('record' in result) notify(result.record, logger);
    return result;
  }

  return {
    async authorize(ctx, action, target) {
      const log = logger.child({ user: ctx.userId, channel: ctx.channelId, action, target });
      const startedMs = now();
      const decision = await decide(ctx, action, log);
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
            detail: decision.reason === null ? null : clip(decision.reason, MAX_DETAIL_LENGTH),
          },
          log,
        );
        notify(record, log);
      }
      return decision;
    },

    addDisk(ctx, vsId, values) {
      const spec: ChangeSpec<AddDiskParams, Disk> = {
        action: 'disk_add',
        target: `vs:${vsId}`,
        subject: `VS ${vsId}`,
        asTyped: bounded(values, DISK_FORM_FIELDS),
        formFields: DISK_FORM_FIELDS,
        validate: () => (isId(vsId) ? validateDiskForm(values) : { ok: false, fieldErrors: { vs_id: 'Enter the server id: a positive whole number, e.g. 42' } }),
        audited: (params) => ({ ...params }),
        call: (params) => cloud.addDisk(vsId, params),
        successStatus: 201,
        describe: (disk) => `disk ${disk.id} (${disk.disk_size} GB) scheduled on VS ${vsId}`,
      };
      return through(ctx, spec);
    },

    restoreBackup(ctx, backupId, values) {
      const spec: ChangeSpec<RestoreParams, Backup> = {
        action: 'backup_restore',
        target: `backup:${backupId}`,
        subject: `backup ${backupId}`,
        asTyped: bounded({ confirm: values.confirm, reason: values.reason }, ['confirm', 'reason']),
        formFields: [],
        validate: () => (isId(backupId) ? validateRestoreForm(backupId, values) : { ok: false, fieldErrors: { backup_id: 'Enter the backup id: a positive whole number, e.g. 9' } }),
        audited: (params) => ({ ...params }),
        call: () => cloud.restoreBackup(backupId),
        successStatus: 200,
        describe: (backup) =>
          `backup ${backup.id} restored${backup.target_id != null ? ` onto ${backup.target_type ?? 'target'} ${backup.target_id}` : ''}${backup.disk_id != null ? `, disk ${backup.disk_id}` : ''}`,
      };
      return through(ctx, spec);
    },
  };
}

/** API messages onto form fields where the names match; the rest as form-level lines. */
export function mapApiErrors(error: CloudError, formFields: readonly string[]): { fieldErrors: Record<string, string>; formErrors: string[] } {
  const fieldErrors: Record<string, string> = {};
  const formErrors: string[] = [];
  for (const [name, messages] of Object.entries(error.fieldErrors)) {
    const text = messages.filter((m) => m.trim() !== '').join('; ');
    if (text === '') continue;
    const field = fieldName(name);
    if (formFields.includes(field)) fieldErrors[field] = fieldErrors[field] === undefined ? text : `${fieldErrors[field]}; ${text}`;
    else formErrors.push(NON_FIELD_KEYS.has(field) ? text : `${name} ${text}`);
  }
  for (const message of error.messages) {
    if (message.trim() === '' || formErrors.includes(message)) continue;
    // XML errors are full sentences ("disk_size must be…", Rails' "Disk size must be…"): put them on their field too.
    const field = formFields.find((f) => leadsWithField(message, f));
    if (field) fieldErrors[field] = fieldErrors[field] === undefined ? message : `${fieldErrors[field]}; ${message}`;
    else formErrors.push(message);
  }
  return { fieldErrors, formErrors };
}

function leadsWithField(message: string, field: string): boolean {
  const lower = message.toLowerCase();
  return [field, field.replace(/_/g, ' ')].some((name) => lower.startsWith(`${name} `));
}

/** `disk[disk_size]`, `disk.disk_size` and `disk_size` all name the field `disk_size`. */
function fieldName(name: string): string {
  const bracket = /^\w+\[(\w+)\]$/.exec(name);
  if (bracket) return bracket[1]!;
  const dot = name.lastIndexOf('.');
  return dot >= 0 ? name.slice(dot + 1) : name;
}

function asCloudError(thrown: unknown): CloudError {
  if (isCloudError(thrown)) return thrown;
  return new CloudError('bad_response', 'something unexpected went wrong while calling the cloud API', { cause: thrown });
}

function failureDetail(error: CloudError, thrown: unknown): string {
  const parts = [isCloudError(thrown) ? error.message : `unexpected ${describeThrown(thrown)}`];
  const fields = Object.entries(error.fieldErrors).map(([field, messages]) => `${field}: ${messages.join(', ')}`);
  if (fields.length > 0) parts.push(fields.join('; '));
  if (mayHaveApplied(error) || !isCloudError(thrown)) parts.push('the change may or may not have been applied: check before retrying');
  return parts.join(' — ');
}

function describeThrown(thrown: unknown): string {
  if (thrown instanceof Error) return `${thrown.name}: ${clip(thrown.message, 200)}`;
  return clip(String(thrown), 200);
}

/** Only the form's own fields, strings cut short: an audit record is not a place for 100 KB of pasted text. */
function bounded(values: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    const value = values[field];
    if (value === undefined) continue;
    out[field] = typeof value === 'string' ? clip(value, MAX_AUDITED_TEXT) : typeof value === 'boolean' || typeof value === 'number' ? value : String(value);
  }
  return out;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

const isId = (n: number) => Number.isSafeInteger(n) && n > 0;

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
