import { sql, type UpdateObject } from 'kysely';
import type { ChangeEvents, ChangeEventItem } from '../change-events';
import type { StoreTables } from '../schema';
import { clip, toRecord, wholeMs, type Db, type SliceDeps, type StoreOptions } from './rows';

export const MAX_CHANGE_EVENT_ERROR_LENGTH = 500;

/** Queues the change events of records whose change just ended, in the caller's transaction; nothing when events are off, never twice. */
export async function enqueueChangeEvents(trx: Db, options: StoreOptions, recordIds: readonly number[]): Promise<void> {
  if (!options.changeEvents || recordIds.length === 0) return;
  await trx
    .insertInto('change_events')
    .values(
      recordIds.map((id) => ({
        record_id: id,
        next_attempt_at_ms: 0,
        last_error: null,
        lease_owner: null,
        lease_expires_at_ms: null,
        sent_at_ms: null,
        undeliverable_at_ms: null,
      })),
    )
    .onConflict((oc) => oc.column('record_id').doNothing())
    .execute();
}

export function kyselyChangeEvents({ db, dialect }: SliceDeps): ChangeEvents {
  /** `owner`'s claimed, unsent event updated so; whether it was. */
  const held = async (id: number, owner: string, set: UpdateObject<StoreTables, 'change_events'>) => {
    const done = await db
      .updateTable('change_events')
      .set(set)
      .where('id', '=', id)
      .where('lease_owner', '=', owner)
      .where('sent_at_ms', 'is', null)
      .where('undeliverable_at_ms', 'is', null)
      .executeTakeFirst();
    return Number(done.numUpdatedRows) === 1;
  };

  return {
    claim: (owner, nowMs, leaseMs, limit) => {
      const n = Math.max(0, Math.floor(limit));
      if (n === 0) return Promise.resolve([]);
      const now = wholeMs(nowMs);
      return db.transaction().execute(async (trx) => {
        let due = trx
          .selectFrom('change_events')
          .select('id')
          .where('sent_at_ms', 'is', null)
          .where('undeliverable_at_ms', 'is', null)
          .where('next_attempt_at_ms', '<=', now)
          .where((eb) => eb.or([eb('lease_expires_at_ms', 'is', null), eb('lease_expires_at_ms', '<=', now)]))
          .orderBy('next_attempt_at_ms')
          .orderBy('id')
          .limit(n);
        // PostgreSQL: rows another instance is claiming right now are skipped, not waited for (SQLite has one writer).
        if (dialect === 'postgres') due = due.forUpdate().skipLocked();
        const claimed = await trx
          .updateTable('change_events')
          .set({ lease_owner: owner, lease_expires_at_ms: now + wholeMs(leaseMs) })
          .where('id', 'in', due)
          .returning(['id', 'record_id', 'attempts', 'last_error'])
          .execute();
        if (claimed.length === 0) return [];
        const rows = await trx
          .selectFrom('audit_records as r')
          .leftJoin('followed_changes as f', 'f.record_id', 'r.id')
          .leftJoin('approvals as a', 'a.id', 'r.approval_id')
          .selectAll('r')
          .select([
            'f.channel_id as follow_channel',
            'f.message_ts as follow_ts',
            'f.ended_at_ms as ended_at_ms',
            'a.channel_id as approval_channel',
            'a.message_ts as approval_ts',
          ])
          .where(
            'r.id',
            'in',
            claimed.map((c) => c.record_id),
          )
          .execute();
        const byId = new Map(rows.map((r) => [Number(r.id), r]));
        const items: ChangeEventItem[] = [];
        for (const c of claimed.sort((a, b) => a.id - b.id)) {
          const row = byId.get(Number(c.record_id));
          if (!row) continue;
          const { follow_channel, follow_ts, ended_at_ms, approval_channel, approval_ts, ...record } = row;
          const message =
            follow_channel && follow_ts
              ? { channelId: follow_channel, ts: follow_ts }
              : approval_channel && approval_ts
                ? { channelId: approval_channel, ts: approval_ts }
                : null;
          const endedAtMs = ended_at_ms === null ? null : Number(ended_at_ms);
          items.push({ id: Number(c.id), record: toRecord(record), message, endedAtMs, attempts: c.attempts, lastError: c.last_error });
        }
        return items;
      });
    },

    markSent: async (id, nowMs) => {
      const done = await db
        .updateTable('change_events')
        .set({ sent_at_ms: wholeMs(nowMs), lease_owner: null, lease_expires_at_ms: null })
        .where('id', '=', id)
        .where('sent_at_ms', 'is', null)
        .executeTakeFirst();
      return Number(done.numUpdatedRows) === 1;
    },

    defer: (id, owner, untilMs, error) =>
      held(id, owner, {
        next_attempt_at_ms: wholeMs(untilMs),
        attempts: sql<number>`attempts + 1`,
        last_error: clip(error, MAX_CHANGE_EVENT_ERROR_LENGTH),
        lease_owner: null,
        lease_expires_at_ms: null,
      }),

    holdBack: async (ids, owner, untilMs) => {
      if (ids.length === 0) return 0;
      const done = await db
        .updateTable('change_events')
        .set({ next_attempt_at_ms: wholeMs(untilMs), lease_owner: null, lease_expires_at_ms: null })
        .where('id', 'in', [...ids])
        .where('lease_owner', '=', owner)
        .where('sent_at_ms', 'is', null)
        .executeTakeFirst();
      return Number(done.numUpdatedRows);
    },

    giveUp: (id, owner, nowMs, error) =>
      held(id, owner, {
        undeliverable_at_ms: wholeMs(nowMs),
        attempts: sql<number>`attempts + 1`,
        last_error: clip(error, MAX_CHANGE_EVENT_ERROR_LENGTH),
        lease_owner: null,
        lease_expires_at_ms: null,
      }),

    backlog: async () => {
      const row = await db
        .selectFrom('change_events')
        .select((eb) => [
          eb.fn
            .sum<number | string | null>(
              eb
                .case()
                .when(eb.and([eb('sent_at_ms', 'is', null), eb('undeliverable_at_ms', 'is', null)]))
                .then(1)
                .else(0)
                .end(),
            )
            .as('pending'),
          eb.fn.sum<number | string | null>(eb.case().when('undeliverable_at_ms', 'is not', null).then(1).else(0).end()).as('undeliverable'),
        ])
        .executeTakeFirstOrThrow();
      return { pending: Number(row.pending ?? 0), undeliverable: Number(row.undeliverable ?? 0) };
    },

    get: async (recordId) => {
      if (!Number.isSafeInteger(recordId)) return null;
      const row = await db.selectFrom('change_events').selectAll().where('record_id', '=', recordId).executeTakeFirst();
      if (!row) return null;
      const optional = (n: number | null) => (n === null ? null : Number(n));
      return { attempts: row.attempts, lastError: row.last_error, sentAtMs: optional(row.sent_at_ms), undeliverableAtMs: optional(row.undeliverable_at_ms) };
    },
  };
}
