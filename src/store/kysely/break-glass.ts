import { sql, type Selectable } from 'kysely';
import type { BreakGlass, BreakGlassWindow } from '../break-glass';
import type { BreakGlassWindowsTable } from '../schema';
import { insertRecord } from './audit';
import { isoTime, toRecord, wholeMs, type Db, type SliceDeps } from './rows';

function toWindow(row: Selectable<BreakGlassWindowsTable>): BreakGlassWindow {
  return {
    id: row.id,
    userId: row.user_id,
    channelId: row.channel_id,
    reason: row.reason,
    openedAt: row.opened_at,
    endsAtMs: Number(row.ends_at_ms),
    endedBy: row.ended_by,
  };
}

export function kyselyBreakGlass({ db, dialect, options }: SliceDeps): BreakGlass {
  /** One person's windows open at `now`, in `trx`. */
  const openOf = (trx: Db, userId: string, now: number) =>
    trx.selectFrom('break_glass_windows').selectAll().where('user_id', '=', userId).where('ends_at_ms', '>', now).orderBy('ends_at_ms', 'desc');
  /** PostgreSQL: one person's openings and closings, on any instance, one at a time (SQLite has one writer). */
  const serialise = async (trx: Db, userId: string) => {
    if (dialect === 'postgres') await sql`SELECT pg_advisory_xact_lock(hashtext(${`break_glass:${userId}`}))`.execute(trx);
  };

  return {
    open: (window, nowMs, recorded) =>
      db.transaction().execute(async (trx) => {
        const now = wholeMs(nowMs);
        await serialise(trx, window.userId);
        const open = await openOf(trx, window.userId, now).executeTakeFirst();
        if (open) return { opened: false, window: toWindow(open), record: null };
        const row = await trx
          .insertInto('break_glass_windows')
          .values({
            id: window.id,
            user_id: window.userId,
            channel_id: window.channelId,
            reason: window.reason,
            opened_at: isoTime(window.openedAt, 'openedAt'),
            ends_at_ms: wholeMs(window.endsAtMs),
            ended_by: null,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        return { opened: true, window: toWindow(row), record: await insertRecord(trx, options, recorded) };
      }),

    current: async (userId, nowMs) => {
      const row = await openOf(db, userId, wholeMs(nowMs)).executeTakeFirst();
      return row ? toWindow(row) : null;
    },

    openAt: async (nowMs) =>
      (await db.selectFrom('break_glass_windows').selectAll().where('ends_at_ms', '>', wholeMs(nowMs)).orderBy('ends_at_ms').limit(100).execute()).map(
        toWindow,
      ),

    end: (userId, by, nowMs, recordOf) =>
      db.transaction().execute(async (trx) => {
        const now = wholeMs(nowMs);
        await serialise(trx, userId);
        const rows = await trx
          .updateTable('break_glass_windows')
          .set({ ends_at_ms: now, ended_by: by })
          .where('user_id', '=', userId)
          .where('ends_at_ms', '>', now)
          .returningAll()
          .execute();
        const ended = rows.map(toWindow).sort((a, b) => a.openedAt.localeCompare(b.openedAt))[0];
        if (!ended) return { ended: null, record: null };
        return { ended, record: await insertRecord(trx, options, recordOf(ended)) };
      }),

    acknowledge: (recordId, by, at, recordOf) =>
      db.transaction().execute(async (trx) => {
        if (!Number.isSafeInteger(recordId) || recordId <= 0) return { acknowledged: false, use: null, record: null };
        const row = await trx
          .updateTable('audit_records')
          .set({ reviewed_by: by, reviewed_at: isoTime(at, 'at') })
          .where('id', '=', recordId)
          .where('break_glass', 'is not', null)
          .where('reviewed_by', 'is', null)
          .returningAll()
          .executeTakeFirst();
        if (!row) {
          const found = await trx.selectFrom('audit_records').selectAll().where('id', '=', recordId).executeTakeFirst();
          return { acknowledged: false, use: found ? toRecord(found) : null, record: null };
        }
        const use = toRecord(row);
        return { acknowledged: true, use, record: await insertRecord(trx, options, recordOf(use)) };
      }),
  };
}
