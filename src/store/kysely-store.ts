import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type {
  Approval,
  ApprovalDecision,
  ApprovalRequest,
  ApprovalStatus,
  AuditEntry,
  AuditRecord,
  AuditStore,
  ChangeAction,
  ChangeBeginning,
  ChangeCompletion,
  ChangeOutcome,
  Freeze,
  Lease,
  OutboxItem,
  PruneResult,
} from './audit-store';
import type { ApprovalsTable, AuditRecordsTable, StoreTables } from './schema';
import { storeError } from './unavailable';

// The one implementation of the store contract, in Kysely's typed queries,
// for both dialects. Where they differ (row locking) it says so. On SQLite
// every transaction starts with a write, so that two processes on one file
// queue on SQLite's write lock (busy_timeout) instead of failing an upgrade.

export type Dialect = AuditStore['dialect'];

export interface StoreOptions {
  /** Enqueue a post for each final record (VS_AUDIT_CHANNEL is set). */
  auditPosts: boolean;
  /** Audit records older than this many days are deleted by prune(). */
  auditRetentionDays: number;
}

export const DEFAULT_STORE_OPTIONS: StoreOptions = { auditPosts: true, auditRetentionDays: 400 };

/** `/vs audit` asks for a handful; this only bounds a silly request. */
export const MAX_LATEST = 1000;
export const DAY_MS = 24 * 60 * 60 * 1000;
/** Submission claims, sent outbox rows and dead locks are kept this long. */
export const CLAIM_RETENTION_MS = DAY_MS;
export const DEFAULT_PRUNE_BATCH = 5000;
export const DEFAULT_RECOVERY_LIMIT = 100;
export const MAX_OUTBOX_ERROR_LENGTH = 1000;
export const INTERRUPTED_DETAIL =
  'the instance making this change stopped before the cloud API answered; the change may or may not have been applied: check before retrying';

type Db = Kysely<StoreTables> | Transaction<StoreTables>;

export interface StoreHooks {
  /** Runs each call's work; SQLite serialises the handles one process has on one file through it. */
  serialize?: <T>(work: () => Promise<T>) => Promise<T>;
  onClose?: () => Promise<void>;
}

export function createKyselyStore(db: Kysely<StoreTables>, dialect: Dialect, options: StoreOptions, hooks: StoreHooks = {}): AuditStore {
  let closed: Promise<void> | undefined;
  const serialize = hooks.serialize ?? (<T>(work: () => Promise<T>) => work());

  /** Every method's errors pass through here: an unreachable database becomes StoreUnavailableError. */
  async function guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await serialize(work);
    } catch (error) {
      throw storeError(error, dialect);
    }
  }

  async function enqueue(trx: Db, recordIds: readonly number[]): Promise<void> {
    if (!options.auditPosts || recordIds.length === 0) return;
    // Due at once (0): the sender picks it up on its next round.
    await trx
      .insertInto('audit_outbox')
      .values(
        recordIds.map((id) => ({ record_id: id, next_attempt_at_ms: 0, last_error: null, lease_owner: null, lease_expires_at_ms: null, sent_at_ms: null })),
      )
      .execute();
  }

  const store: AuditStore = {
    dialect,

    record: (entry: AuditEntry) =>
      guard(async () => {
        const row = recordRow(entry);
        const posted = entry.outcome !== 'started' && options.auditPosts;
        const insert = async (trx: Db) => {
          const { id } = await trx.insertInto('audit_records').values(row).returning('id').executeTakeFirstOrThrow();
          if (posted) await enqueue(trx, [id]);
          return toRecord({ ...row, id: Number(id) });
        };
        return posted ? db.transaction().execute(insert) : insert(db);
      }),

    complete: (id: number, completion: ChangeCompletion, release?: { target: string; owner: string }) =>
      guard(() =>
        db.transaction().execute(async (trx) => {
          const row = await trx
            .updateTable('audit_records')
            .set({
              outcome: completion.outcome,
              api_status: completion.apiStatus,
              duration_ms: wholeMs(completion.durationMs),
              detail: completion.detail,
              lease_owner: null,
            })
            .where('id', '=', id)
            .where('outcome', 'in', ['started', 'interrupted'])
            .returningAll()
            .executeTakeFirst();
          if (!row) throw new Error(`audit record ${id} is not a started change`);
          await enqueue(trx, [row.id]);
          if (release) await trx.deleteFrom('locks').where('target', '=', release.target).where('owner', '=', release.owner).execute();
          return toRecord(row);
        }),
      ),

    beginChange: ({ submissionKey, at, lease, started }) =>
      guard(() =>
        db.transaction().execute(async (trx): Promise<ChangeBeginning> => {
          if (!(await claim(trx, submissionKey, at))) return { outcome: 'duplicate' };
          // The claim stays when the target is busy, as it would have after claimSubmission.
          if (!(await takeLease(trx, lease))) return { outcome: 'busy' };
          const row = recordRow({ ...started, outcome: 'started', leaseOwner: lease.owner });
          const { id } = await trx.insertInto('audit_records').values(row).returning('id').executeTakeFirstOrThrow();
          return { outcome: 'started', record: toRecord({ ...row, id: Number(id) }) };
        }),
      ),

    latest: (limit: number, filter?: { userId?: string }) =>
      guard(async () => {
        const n = Number.isFinite(limit) ? Math.min(MAX_LATEST, Math.max(0, Math.floor(limit))) : 0;
        if (n === 0) return [];
        let query = db.selectFrom('audit_records').selectAll().orderBy('id', 'desc').limit(n);
        if (filter?.userId !== undefined) query = query.where('user_id', '=', filter.userId);
        return (await query.execute()).map(toRecord);
      }),

    claimSubmission: (key: string, at: string) => guard(() => claim(db, key, at)),

    releaseSubmission: (key: string) =>
      guard(async () => {
        await db.deleteFrom('submissions').where('key', '=', key).execute();
      }),

    tryLock: (target: string, owner: string, nowMs: number, ttlMs: number) => guard(() => takeLease(db, { target, owner, nowMs, ttlMs })),

    unlock: (target: string, owner: string) =>
      guard(async () => {
        await db.deleteFrom('locks').where('target', '=', target).where('owner', '=', owner).execute();
      }),

    recoverInterrupted: (nowMs: number, limit = DEFAULT_RECOVERY_LIMIT) =>
      guard(() =>
        db.transaction().execute(async (trx) => {
          const now = wholeMs(nowMs);
          // Started records with no live lease: none held by their owner (or, for records
          // without an owner, none on their target at all).
          const orphaned = trx
            .selectFrom('audit_records as r')
            .select('r.id')
            .where('r.outcome', '=', 'started')
            .where((eb) =>
              eb.not(
                eb.exists(
                  eb
                    .selectFrom('locks as l')
                    .select('l.target')
                    .whereRef('l.target', '=', 'r.target')
                    .where('l.expires_at_ms', '>', now)
                    .where((eb) => eb.or([eb('r.lease_owner', 'is', null), eb('l.owner', '=', eb.ref('r.lease_owner'))])),
                ),
              ),
            )
            .orderBy('r.id')
            .limit(Math.max(1, Math.floor(limit)));
          // `outcome = 'started'` again on the row itself: of two racing instances, the second
          // finds the row already settled once the first commits, and skips it.
          const rows = await trx
            .updateTable('audit_records')
            .set({ outcome: 'interrupted', detail: INTERRUPTED_DETAIL, lease_owner: null })
            .where('id', 'in', orphaned)
            .where('outcome', '=', 'started')
            .returningAll()
            .execute();
          rows.sort((a, b) => a.id - b.id);
          await enqueue(
            trx,
            rows.map((r) => r.id),
          );
          return rows.map(toRecord);
        }),
      ),

    claimOutbox: (owner: string, nowMs: number, leaseMs: number, limit: number) =>
      guard(async () => {
        const n = Math.max(0, Math.floor(limit));
        if (n === 0) return [];
        const now = wholeMs(nowMs);
        return db.transaction().execute(async (trx) => {
          let due = trx
            .selectFrom('audit_outbox')
            .select('id')
            .where('sent_at_ms', 'is', null)
            .where('next_attempt_at_ms', '<=', now)
            .where((eb) => eb.or([eb('lease_expires_at_ms', 'is', null), eb('lease_expires_at_ms', '<=', now)]))
            .orderBy('id')
            .limit(n);
          // PostgreSQL: rows another instance is claiming right now are skipped, not waited for.
          // SQLite has one writer at a time, which serialises claims by itself.
          if (dialect === 'postgres') due = due.forUpdate().skipLocked();
          const claimed = await trx
            .updateTable('audit_outbox')
            .set({ lease_owner: owner, lease_expires_at_ms: now + wholeMs(leaseMs) })
            .where('id', 'in', due)
            .returning(['id', 'record_id', 'attempts', 'last_error'])
            .execute();
          if (claimed.length === 0) return [];
          const records = await trx
            .selectFrom('audit_records')
            .selectAll()
            .where(
              'id',
              'in',
              claimed.map((c) => c.record_id),
            )
            .execute();
          const byId = new Map(records.map((r) => [r.id, toRecord(r)]));
          const items: OutboxItem[] = [];
          for (const c of claimed.sort((a, b) => a.id - b.id)) {
            const record = byId.get(c.record_id);
            if (record) items.push({ id: c.id, record, attempts: c.attempts, lastError: c.last_error });
          }
          return items;
        });
      }),

    markOutboxSent: (ids: readonly number[], nowMs: number) =>
      guard(async () => {
        if (ids.length === 0) return 0;
        const result = await db
          .updateTable('audit_outbox')
          .set({ sent_at_ms: wholeMs(nowMs), lease_owner: null, lease_expires_at_ms: null })
          .where('id', 'in', [...ids])
          .where('sent_at_ms', 'is', null)
          .executeTakeFirst();
        return Number(result.numUpdatedRows);
      }),

    deferOutbox: (ids: readonly number[], owner: string, untilMs: number, error: string) =>
      guard(async () => {
        if (ids.length === 0) return 0;
        const result = await db
          .updateTable('audit_outbox')
          .set((eb) => ({
            next_attempt_at_ms: wholeMs(untilMs),
            attempts: eb('attempts', '+', 1),
            last_error: clip(error, MAX_OUTBOX_ERROR_LENGTH),
            lease_owner: null,
            lease_expires_at_ms: null,
          }))
          .where('id', 'in', [...ids])
          .where('lease_owner', '=', owner)
          .where('sent_at_ms', 'is', null)
          .executeTakeFirst();
        return Number(result.numUpdatedRows);
      }),

    outboxBacklog: () =>
      guard(async () => {
        const row = await db
          .selectFrom('audit_outbox as o')
          .innerJoin('audit_records as r', 'r.id', 'o.record_id')
          .select((eb) => [eb.fn.countAll<number>().as('pending'), eb.fn.min('r.at').as('oldest')])
          .where('o.sent_at_ms', 'is', null)
          .executeTakeFirstOrThrow();
        return { pending: Number(row.pending), oldestAt: row.oldest ?? null };
      }),

    prune: (nowMs: number, batch = DEFAULT_PRUNE_BATCH) =>
      guard(async () => {
        const n = Math.max(1, Math.floor(batch));
        const now = wholeMs(nowMs);
        const claimCutoff = new Date(now - CLAIM_RETENTION_MS).toISOString();
        const recordCutoff = new Date(now - options.auditRetentionDays * DAY_MS).toISOString();
        const claims = await db
          .deleteFrom('submissions')
          .where('key', 'in', db.selectFrom('submissions').select('key').where('at', '<', claimCutoff).limit(n))
          .executeTakeFirst();
        const records = await db.transaction().execute(async (trx) => {
          const old = () => trx.selectFrom('audit_records').select('id').where('at', '<', recordCutoff).orderBy('id').limit(n);
          await trx.deleteFrom('audit_outbox').where('record_id', 'in', old()).execute();
          return trx.deleteFrom('audit_records').where('id', 'in', old()).executeTakeFirst();
        });
        const sent = await db
          .deleteFrom('audit_outbox')
          .where(
            'id',
            'in',
            db
              .selectFrom('audit_outbox')
              .select('id')
              .where('sent_at_ms', '<', now - CLAIM_RETENTION_MS)
              .limit(n),
          )
          .executeTakeFirst();
        const locks = await db
          .deleteFrom('locks')
          .where('expires_at_ms', '<', now - CLAIM_RETENTION_MS)
          .executeTakeFirst();
        return {
          claims: Number(claims.numDeletedRows),
          records: Number(records.numDeletedRows),
          housekeeping: Number(sent.numDeletedRows) + Number(locks.numDeletedRows),
        } satisfies PruneResult;
      }),

    ping: () =>
      guard(async () => {
        await sql`select 1`.execute(db);
      }),

    currentFreeze: () =>
      guard(async () => {
        const row = await db.selectFrom('change_freeze').selectAll().where('id', '=', 1).executeTakeFirst();
        return row ? toFreeze(row) : null;
      }),

    freeze: (freeze: Freeze) =>
      guard(() =>
        db.transaction().execute(async (trx) => {
          await trx
            .insertInto('change_freeze')
            .values({ id: 1, frozen_by: freeze.by, frozen_at: isoTime(freeze.at, 'at'), reason: freeze.reason })
            .onConflict((oc) => oc.column('id').doNothing())
            .execute();
          return toFreeze(await trx.selectFrom('change_freeze').selectAll().where('id', '=', 1).executeTakeFirstOrThrow());
        }),
      ),

    unfreeze: () =>
      guard(async () => {
        const row = await db.deleteFrom('change_freeze').where('id', '=', 1).returningAll().executeTakeFirst();
        return row ? toFreeze(row) : null;
      }),

    requestApproval: (request: ApprovalRequest) =>
      guard(async () => {
        const row = await db
          .insertInto('approvals')
          .values({
            id: request.id,
            action: request.action,
            target: request.target,
            params: JSON.stringify(request.params ?? {}),
            channel_id: request.channelId,
            requested_by: request.requestedBy,
            requested_at: isoTime(request.requestedAt, 'requestedAt'),
            expires_at_ms: wholeMs(request.expiresAtMs),
            reason: request.reason,
            api_request: JSON.stringify(request.apiRequest),
            status: 'requested',
            decided_by: null,
            decided_at: null,
            message_ts: null,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        return toApproval(row);
      }),

    getApproval: (id: string) =>
      guard(async () => {
        const row = await db.selectFrom('approvals').selectAll().where('id', '=', id).executeTakeFirst();
        return row ? toApproval(row) : null;
      }),

    setApprovalMessage: (id: string, messageTs: string) =>
      guard(async () => {
        await db.updateTable('approvals').set({ message_ts: messageTs }).where('id', '=', id).execute();
      }),

    decideApproval: (id, decision) =>
      guard(async (): Promise<ApprovalDecision> => {
        const row = await db
          .updateTable('approvals')
          .set({ status: decision.status, decided_by: decision.by, decided_at: isoTime(decision.at, 'at') })
          .where('id', '=', id)
          .where('status', '=', 'requested')
          .where('expires_at_ms', '>', wholeMs(decision.nowMs))
          .returningAll()
          .executeTakeFirst();
        if (row) return { won: true, approval: toApproval(row) };
        const current = await db.selectFrom('approvals').selectAll().where('id', '=', id).executeTakeFirst();
        return { won: false, approval: current ? toApproval(current) : null };
      }),

    openApprovals: (nowMs: number) =>
      guard(async () => {
        const rows = await db
          .selectFrom('approvals')
          .selectAll()
          .where('status', '=', 'requested')
          .where('expires_at_ms', '>', wholeMs(nowMs))
          .orderBy('requested_at')
          .orderBy('id')
          .execute();
        return rows.map(toApproval);
      }),

    expireApprovals: (nowMs: number) =>
      guard(async () => {
        const rows = await db
          .updateTable('approvals')
          .set({ status: 'expired' })
          .where('status', '=', 'requested')
          .where('expires_at_ms', '<=', wholeMs(nowMs))
          .returningAll()
          .execute();
        return rows.map(toApproval).sort((a, b) => a.expiresAtMs - b.expiresAtMs || a.id.localeCompare(b.id));
      }),

    close: () => {
      closed ??= (async () => {
        await db.destroy();
        await hooks.onClose?.();
      })();
      return closed;
    },
  };
  return store;
}

/** Claims a submission key once: of concurrent claims, the unique key lets exactly one insert. */
async function claim(db: Db, key: string, at: string): Promise<boolean> {
  const result = await db
    .insertInto('submissions')
    .values({ key, at: isoTime(at, 'at') })
    .onConflict((oc) => oc.column('key').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

/** One statement: take a free lease, take over an expired one, or renew our own; otherwise change nothing. */
async function takeLease(db: Db, { target, owner, nowMs, ttlMs }: Lease): Promise<boolean> {
  const result = await db
    .insertInto('locks')
    .values({ target, owner, expires_at_ms: wholeMs(nowMs) + wholeMs(ttlMs) })
    .onConflict((oc) =>
      oc
        .column('target')
        .doUpdateSet({ owner: (eb) => eb.ref('excluded.owner'), expires_at_ms: (eb) => eb.ref('excluded.expires_at_ms') })
        .where((eb) => eb.or([eb('locks.expires_at_ms', '<=', wholeMs(nowMs)), eb('locks.owner', '=', owner)])),
    )
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

function recordRow(entry: AuditEntry) {
  return {
    at: isoTime(entry.at, 'at'),
    user_id: entry.userId,
    channel_id: entry.channelId,
    action: entry.action,
    target: entry.target,
    params: JSON.stringify(entry.params ?? {}),
    outcome: entry.outcome,
    api_status: entry.apiStatus,
    duration_ms: wholeMs(entry.durationMs),
    detail: entry.detail,
    lease_owner: entry.outcome === 'started' ? (entry.leaseOwner ?? null) : null,
  };
}

/** Times are stored as ISO 8601 with milliseconds, so that text comparison (SQLite) orders them. */
function isoTime(value: string, what: string): string {
  const ms = Date.parse(value);
  if (!Number.isFinite(ms)) throw new RangeError(`${what} must be an ISO 8601 time`);
  return new Date(ms).toISOString();
}

function wholeMs(n: number): number {
  return Number.isFinite(n) ? Math.max(0, Math.round(n)) : 0;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function toRecord(row: Selectable<AuditRecordsTable>): AuditRecord {
  return {
    id: Number(row.id),
    at: row.at,
    userId: row.user_id,
    channelId: row.channel_id,
    action: row.action as ChangeAction,
    target: row.target,
    params: parseObject(row.params),
    outcome: row.outcome as ChangeOutcome,
    apiStatus: row.api_status,
    durationMs: row.duration_ms,
    detail: row.detail,
  };
}

function toFreeze(row: { frozen_by: string; frozen_at: string; reason: string }): Freeze {
  return { by: row.frozen_by, at: row.frozen_at, reason: row.reason };
}

const textOrEmpty = (value: unknown): string => (typeof value === 'string' ? value : '');

function toApproval(row: Selectable<ApprovalsTable>): Approval {
  const apiRequest = parseObject(row.api_request);
  return {
    id: row.id,
    action: row.action as ChangeAction,
    target: row.target,
    params: parseObject(row.params),
    channelId: row.channel_id,
    requestedBy: row.requested_by,
    requestedAt: row.requested_at,
    expiresAtMs: Number(row.expires_at_ms),
    reason: row.reason,
    apiRequest: { method: textOrEmpty(apiRequest.method), path: textOrEmpty(apiRequest.path), body: apiRequest.body ?? null },
    status: row.status as ApprovalStatus,
    decidedBy: row.decided_by,
    decidedAt: row.decided_at,
    messageTs: row.message_ts,
  };
}

function parseObject(json: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(json);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { value };
  } catch {
    return { unreadable: json.slice(0, 200) };
  }
}
