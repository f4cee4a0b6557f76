import type { ChangeFreeze, Freeze } from '../freeze';
import { isoTime, type SliceDeps } from './rows';

function toFreeze(row: { frozen_by: string; frozen_at: string; reason: string }): Freeze {
  return { by: row.frozen_by, at: row.frozen_at, reason: row.reason };
}

/** The freeze is the one row with id 1: inserting it again does nothing, so the first freeze stays in force. */
export function kyselyFreeze({ db }: SliceDeps): ChangeFreeze {
  return {
    current: async () => {
      const row = await db.selectFrom('change_freeze').selectAll().where('id', '=', 1).executeTakeFirst();
      return row ? toFreeze(row) : null;
    },

    start: (freeze) =>
      db.transaction().execute(async (trx) => {
        await trx
          .insertInto('change_freeze')
          .values({ id: 1, frozen_by: freeze.by, frozen_at: isoTime(freeze.at, 'at'), reason: freeze.reason })
          .onConflict((oc) => oc.column('id').doNothing())
          .execute();
        return toFreeze(await trx.selectFrom('change_freeze').selectAll().where('id', '=', 1).executeTakeFirstOrThrow());
      }),

    lift: async () => {
      const row = await db.deleteFrom('change_freeze').where('id', '=', 1).returningAll().executeTakeFirst();
      return row ? toFreeze(row) : null;
    },
  };
}
