import type { ChangeFreeze } from '../freeze';
import { insertRecord } from './audit';
import { holdStarts, toFreeze } from './freeze-lock';
import { isoTime, type SliceDeps } from './rows';

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
