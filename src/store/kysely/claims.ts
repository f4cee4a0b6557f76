import type { SubmissionClaims } from '../claims';
import { isoTime, type Db, type SliceDeps } from './rows';

/** Claims a submission key once: of concurrent claims, the unique key lets exactly one insert. */
export async function claimKey(db: Db, key: string, at: string): Promise<boolean> {
  const result = await db
    .insertInto('submissions')
    .values({ key, at: isoTime(at, 'at') })
    .onConflict((oc) => oc.column('key').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

export function kyselyClaims({ db }: SliceDeps): SubmissionClaims {
  return {
    claim: (key, at) => claimKey(db, key, at),
    release: async (key) => {
      await db.deleteFrom('submissions').where('key', '=', key).execute();
    },
  };
}
