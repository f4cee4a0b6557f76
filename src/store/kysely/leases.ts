import type { Lease, Leases } from '../leases';
import { wholeMs, type Db, type SliceDeps } from './rows';

/** One statement: take a free lease, take over an expired one, or renew our own; otherwise change nothing. */
export async function takeLease(db: Db, { target, owner, nowMs, ttlMs }: Lease): Promise<boolean> {
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

export async function releaseLease(db: Db, target: string, owner: string): Promise<void> {
  await db.deleteFrom('locks').where('target', '=', target).where('owner', '=', owner).execute();
}

export function kyselyLeases({ db }: SliceDeps): Leases {
  return {
    take: (target, owner, nowMs, ttlMs) => takeLease(db, { target, owner, nowMs, ttlMs }),
    release: (target, owner) => releaseLease(db, target, owner),
    extend: async (target, owner, nowMs, ttlMs) => {
      const result = await db
        .updateTable('locks')
        .set({ expires_at_ms: wholeMs(nowMs) + wholeMs(ttlMs) })
        .where('target', '=', target)
        .where('owner', '=', owner)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
  };
}
