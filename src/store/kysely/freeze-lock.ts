import { sql } from 'kysely';
import type { Freeze } from '../frozen';
import type { Db, Dialect } from './rows';

// The freeze and the start of a change exclude each other, so that no change
// starts after a freeze commits, on any instance: on PostgreSQL a freeze takes
// an advisory lock exclusively, and each change's start transaction takes it
// shared before it reads the freeze (freezeInForce). A start under way when
// the freeze comes commits first (it started before the freeze); one that
// comes while a freeze is committing waits for it, then reads it. SQLite runs
// one transaction at a time already.

/** Any fixed number (beside the migrations'); the lock only orders freezes and the starts of changes. */
export const FREEZE_LOCK_KEY = 7_346_520_912;

export function toFreeze(row: { frozen_by: string; frozen_at: string; reason: string }): Freeze {
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
