import { sql } from 'kysely';
import type { ChangeFreeze, Freeze } from '../freeze';
import { insertRecord } from './audit';
import { isoTime, type Db, type Dialect, type SliceDeps } from './rows';

// The freeze and the start of a change exclude each other, so that no change
// starts after a freeze commits, on any instance: on PostgreSQL a freeze takes
// an advisory lock exclusively, and each change's start transaction takes it
// shared before it reads the freeze (freezeInForce). A start under way when
// the freeze comes commits first (it started before the freeze); one that
// comes while a freeze is committing waits for it, then reads it. SQLite runs
// one transaction at a time already.

/** Any fixed number (beside the migrations'); the lock only orders freezes and the starts of changes. */
export const FREEZE_LOCK_KEY = 7_346_520_912;

function toFreeze(row: { frozen_by: string; frozen_at: string; reason: string }): Freeze {
  return { by: row.frozen_by, at: row.frozen_at, reason: row.reason };
}

/** In the transaction that starts a change: the freeze in force, read once no freeze is being committed (null: none). */
export async function freezeInForce(trx: Db, dialect: Dialect): Promise<Freeze | null> {
  if (dialect === 'postgres') await sql`SELECT pg_advisory_xact_lock_shared(${FREEZE_LOCK_KEY})`.execute(trx);
  const row = await trx.selectFrom('change_freeze').selectAll().where('id', '=', 1).executeTakeFirst();
  return row ? toFreeze(row) : null;
}

/** In a freeze's own transaction: waits for the starts of changes under way, and holds new ones until it commits. */
export async function holdStarts(trx: Db, dialect: Dialect): Promise<void> {
  if (dialect === 'postgres') await sql`SELECT pg_advisory_xact_lock(${FREEZE_LOCK_KEY})`.execute(trx);
}

/** The freeze is the one row with id 1: inserting it again does nothing, so the first freeze stays in force. */
export function kyselyFreeze({ db, dialect, options }: SliceDeps): ChangeFreeze {
  return {
    current: async () => {
      const row = await db.selectFrom('change_freeze').selectAll().where('id', '=', 1).executeTakeFirst();
      return row ? toFreeze(row) : null;
    },

    start: (freeze, recorded) =>
      db.transaction().execute(async (trx) => {
        await holdStarts(trx, dialect);
        const inserted = await trx
          .insertInto('change_freeze')
          .values({ id: 1, frozen_by: freeze.by, frozen_at: isoTime(freeze.at, 'at'), reason: freeze.reason })
          .onConflict((oc) => oc.column('id').doNothing())
          .executeTakeFirst();
        const started = Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1;
        const current = toFreeze(await trx.selectFrom('change_freeze').selectAll().where('id', '=', 1).executeTakeFirstOrThrow());
        const record = started && recorded ? await insertRecord(trx, options, recorded) : null;
        return { started, freeze: current, record };
      }),

    lift: (recordOf) =>
      db.transaction().execute(async (trx) => {
        const row = await trx.deleteFrom('change_freeze').where('id', '=', 1).returningAll().executeTakeFirst();
        if (!row) return { lifted: null, record: null };
        const lifted = toFreeze(row);
        return { lifted, record: recordOf ? await insertRecord(trx, options, recordOf(lifted)) : null };
      }),
  };
}
