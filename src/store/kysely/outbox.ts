import { sql, type ExpressionBuilder, type SelectQueryBuilder, type UpdateObject } from 'kysely';
import type { AuditRecord } from '../audit';
import { DEFAULT_GROUP_LIMIT, type Outbox, type OutboxItem } from '../outbox';
import type { StoreTables } from '../schema';
import { clip, toRecord, wholeMs, type Db, type SliceDeps, type StoreOptions } from './rows';

export const MAX_OUTBOX_ERROR_LENGTH = 1000;

/**
 * The group a record's post belongs to: one user's refusals go out together (migration 3 wrote the same key for what
 * was called a denial then, and migration 10 keeps it).
 */
export function outboxGroup(record: Pick<AuditRecord, 'outcome' | 'userId'>): string | null {
  return record.outcome === 'refused' ? `denials:${record.userId}` : null;
}

/** Queues the posts of final records, in the caller's transaction; nothing when posts are off. */
export async function enqueuePosts(trx: Db, options: StoreOptions, records: readonly Pick<AuditRecord, 'id' | 'outcome' | 'userId'>[]): Promise<void> {
  if (!options.auditPosts || records.length === 0) return;
  // Due at once (0): the sender picks it up on its next round.
  await trx
    .insertInto('audit_outbox')
    .values(
      records.map((r) => ({
        record_id: r.id,
        next_attempt_at_ms: 0,
        last_error: null,
        lease_owner: null,
        lease_expires_at_ms: null,
        sent_at_ms: null,
        group_key: outboxGroup(r),
      })),
    )
    .execute();
}

type OutboxQuery<O> = SelectQueryBuilder<StoreTables, 'audit_outbox', O>;

export function kyselyOutbox({ db, dialect }: SliceDeps): Outbox {
  /** Unsent, due at `now`, and claimed by no one (or by someone whose claim has expired). */
  const due =
    (now: number) =>
    <O>(query: OutboxQuery<O>): OutboxQuery<O> =>
      query
        .where('sent_at_ms', 'is', null)
        .where('next_attempt_at_ms', '<=', now)
        .where((eb: ExpressionBuilder<StoreTables, 'audit_outbox'>) => eb.or([eb('lease_expires_at_ms', 'is', null), eb('lease_expires_at_ms', '<=', now)]));
  // PostgreSQL: rows another instance is claiming right now are skipped, not waited for.
  // SQLite has one writer at a time, which serialises claims by itself.
  const locked = <O>(query: OutboxQuery<O>): OutboxQuery<O> => (dialect === 'postgres' ? query.forUpdate().skipLocked() : query);

  /** Updates those of `ids` not yet sent (and, given an owner, still claimed by it); returns how many. */
  const unsent = async (ids: readonly number[], owner: string | null, set: UpdateObject<StoreTables, 'audit_outbox'>): Promise<number> => {
    if (ids.length === 0) return 0;
    let update = db
      .updateTable('audit_outbox')
      .set(set)
      .where('id', 'in', [...ids])
      .where('sent_at_ms', 'is', null);
    if (owner !== null) update = update.where('lease_owner', '=', owner);
    return Number((await update.executeTakeFirst()).numUpdatedRows);
  };

  return {
    claim: async (owner, nowMs, leaseMs, limit, groupLimit = DEFAULT_GROUP_LIMIT) => {
      const n = Math.max(0, Math.floor(limit));
      if (n === 0) return [];
      const perGroup = Math.max(1, Math.floor(groupLimit));
      const now = wholeMs(nowMs);
      const lease = { lease_owner: owner, lease_expires_at_ms: now + wholeMs(leaseMs) };
      const returned = ['id', 'record_id', 'attempts', 'last_error', 'group_key'] as const;
      return db.transaction().execute(async (trx) => {
        // Posts of their own first, oldest first: a change's post never waits behind denials.
        const own = trx.selectFrom('audit_outbox').select('id').$call(due(now)).where('group_key', 'is', null).orderBy('id').limit(n).$call(locked);
        const claimed = await trx.updateTable('audit_outbox').set(lease).where('id', 'in', own).returning(returned).execute();
        const room = n - claimed.length;
        if (room > 0) {
          // Then whole groups, each one place in the batch: the `room` groups with the oldest due posts,
          // up to `perGroup` posts of each (the window function numbers each group's posts by age).
          const groups = trx
            .selectFrom('audit_outbox')
            .select('group_key')
            .$call(due(now))
            .where('group_key', 'is not', null)
            .groupBy('group_key')
            .orderBy((eb) => eb.fn.min('id'))
            .limit(room);
          const ranked = trx
            .selectFrom('audit_outbox')
            .select((eb) => [
              'id',
              eb.fn
                .agg<number>('row_number')
                .over((ob) => ob.partitionBy('group_key').orderBy('id'))
                .as('age'),
            ])
            .$call(due(now))
            .where('group_key', 'in', groups);
          const members = trx
            .selectFrom('audit_outbox')
            .select('id')
            .where('id', 'in', trx.selectFrom(ranked.as('g')).select('g.id').where('g.age', '<=', perGroup))
            .$call(due(now))
            .$call(locked);
          claimed.push(...(await trx.updateTable('audit_outbox').set(lease).where('id', 'in', members).returning(returned).execute()));
        }
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
        // Own posts by age, then each group's together, the group with the oldest post first.
        const firstOf = new Map<string, number>();
        for (const c of claimed) if (c.group_key !== null) firstOf.set(c.group_key, Math.min(c.id, firstOf.get(c.group_key) ?? c.id));
        const place = (c: (typeof claimed)[number]) => (c.group_key === null ? c.id : firstOf.get(c.group_key)!);
        claimed.sort((a, b) => Number(a.group_key !== null) - Number(b.group_key !== null) || place(a) - place(b) || a.id - b.id);
        const items: OutboxItem[] = [];
        for (const c of claimed) {
          const record = byId.get(c.record_id);
          if (record) items.push({ id: c.id, record, attempts: c.attempts, lastError: c.last_error, group: c.group_key });
        }
        return items;
      });
    },

    markSent: (ids, nowMs) => unsent(ids, null, { sent_at_ms: wholeMs(nowMs), lease_owner: null, lease_expires_at_ms: null }),

    defer: (ids, owner, untilMs, error) =>
      unsent(ids, owner, {
        next_attempt_at_ms: wholeMs(untilMs),
        attempts: sql<number>`attempts + 1`,
        last_error: clip(error, MAX_OUTBOX_ERROR_LENGTH),
        lease_owner: null,
        lease_expires_at_ms: null,
      }),

    holdBack: (ids, owner, untilMs) => unsent(ids, owner, { next_attempt_at_ms: wholeMs(untilMs), lease_owner: null, lease_expires_at_ms: null }),

    backlog: async () => {
      const row = await db
        .selectFrom('audit_outbox as o')
        .innerJoin('audit_records as r', 'r.id', 'o.record_id')
        .select((eb) => [eb.fn.countAll<number>().as('pending'), eb.fn.min('r.at').as('oldest')])
        .where('o.sent_at_ms', 'is', null)
        .executeTakeFirstOrThrow();
      return { pending: Number(row.pending), oldestAt: row.oldest ?? null };
    },
  };
}
