import { OPEN_STATUSES } from '../approval-states';
import type { PruneResult, Retention } from '../retention';
import { DAY_MS, wholeMs, type SliceDeps } from './rows';

/** Submission claims, sent outbox rows and dead locks are kept this long. */
export const CLAIM_RETENTION_MS = DAY_MS;
export const DEFAULT_PRUNE_BATCH = 5000;

export function kyselyRetention({ db, options }: SliceDeps): Retention {
  return {
    prune: async (nowMs, batch = DEFAULT_PRUNE_BATCH) => {
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
        await trx.deleteFrom('followed_changes').where('record_id', 'in', old()).execute();
        await trx.deleteFrom('change_events').where('record_id', 'in', old()).execute();
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
      // A full bucket and no bucket answer alike.
      const buckets = await db
        .deleteFrom('rate_buckets')
        .where('key', 'in', db.selectFrom('rate_buckets').select('key').where('full_at_ms', '<=', now).limit(n))
        .executeTakeFirst();
      // Closed approvals go with the audit records of their time; open ones stay until the expiry sweep settles them.
      const closed = db.selectFrom('approvals').select('id').where('status', 'not in', OPEN_STATUSES).where('requested_at', '<', recordCutoff).limit(n);
      const approvals = await db.deleteFrom('approvals').where('id', 'in', closed).executeTakeFirst();
      // Break-glass windows go with the audit records of their time too (their records say what they were).
      const windows = await db
        .deleteFrom('break_glass_windows')
        .where('id', 'in', db.selectFrom('break_glass_windows').select('id').where('opened_at', '<', recordCutoff).limit(n))
        .executeTakeFirst();
      return {
        claims: Number(claims.numDeletedRows),
        records: Number(records.numDeletedRows),
        housekeeping:
          Number(sent.numDeletedRows) +
          Number(locks.numDeletedRows) +
          Number(buckets.numDeletedRows) +
          Number(approvals.numDeletedRows) +
          Number(windows.numDeletedRows),
      } satisfies PruneResult;
    },
  };
}
