import { sql } from 'kysely';
import { isInFlight, type AuditEntry, type AuditQuery, type AuditRecord, type AuditTrail, type ChangeBeginning } from '../audit';
import { endsAsWritten, isChangeEnd } from '../change-events';
import { claimKey } from './claims';
import { freezeInForce } from './freeze-lock';
import { releaseLease, takeLease } from './leases';
import { insertFollow } from './follows';
import { enqueueChangeEvents } from './change-events';
import { enqueuePosts } from './outbox';
import { recordRow, toRecord, wholeMs, type Db, type SliceDeps, type StoreOptions } from './rows';

/** `/vs audit` asks for a handful; this only bounds a silly request. */
export const MAX_LATEST = 1000;
export const DEFAULT_RECOVERY_LIMIT = 100;
export const INTERRUPTED_DETAIL =
  'the instance making this change stopped before the cloud API answered; the change may or may not have been applied: check before retrying';
/** An approved change not started within this long was never sent: its instance stopped first (or its store failed). */
export const APPROVED_RUN_GRACE_MS = 15 * 60_000;
export const NEVER_STARTED_DETAIL =
  'approved, but the instance that was to send it stopped before it was sent (or could not record its start); ' +
  'nothing was sent: ask again if it is still needed';

/**
 * Appends one record in the caller's transaction, queuing its post when it is final, and its change event when it ends
 * a change as written (what record() does, for other slices' transactions).
 */
export async function insertRecord(trx: Db, options: StoreOptions, entry: AuditEntry): Promise<AuditRecord> {
  const row = recordRow(entry);
  const { id } = await trx.insertInto('audit_records').values(row).returning('id').executeTakeFirstOrThrow();
  const record = toRecord({ ...row, id: Number(id) });
  if (!isInFlight(entry.outcome)) await enqueuePosts(trx, options, [record]);
  if (endsAsWritten(entry)) await enqueueChangeEvents(trx, options, [record.id]);
  return record;
}

export function kyselyAuditTrail({ db, dialect, options }: SliceDeps): AuditTrail {
  return {
    record: async (entry: AuditEntry) => {
      const queued = (!isInFlight(entry.outcome) && options.auditPosts) || (endsAsWritten(entry) && options.changeEvents === true);
      const insert = (trx: Db) => insertRecord(trx, options, entry);
      return queued ? db.transaction().execute(insert) : insert(db);
    },

    beginChange: ({ submissionKey, at, lease, started, recordId }) =>
      db.transaction().execute(async (trx): Promise<ChangeBeginning> => {
        // First, before anything is written: a change never starts after a freeze commits.
        const freeze = await freezeInForce(trx, dialect);
        if (freeze) return { outcome: 'frozen', freeze };
        if (!(await claimKey(trx, submissionKey, at))) return { outcome: 'duplicate' };
        // The claim stays when the target is busy, as it would have after claims.claim.
        if (!(await takeLease(trx, lease))) return { outcome: 'busy' };
        const row = recordRow({ ...started, outcome: 'started', leaseOwner: lease.owner });
        if (recordId !== undefined) {
          // An approved change: the approval's record becomes the change's (who approved it, and when, stay as they are).
          const { outcome, detail, params, lease_owner, api_request } = row;
          const moved = await trx
            .updateTable('audit_records')
            .set({ outcome, detail, params, lease_owner, api_request })
            .where('id', '=', recordId)
            .where('outcome', '=', 'approved')
            .returningAll()
            .executeTakeFirst();
          if (moved) return { outcome: 'started', record: toRecord(moved) };
        }
        const { id } = await trx.insertInto('audit_records').values(row).returning('id').executeTakeFirstOrThrow();
        return { outcome: 'started', record: toRecord({ ...row, id: Number(id) }) };
      }),

    complete: (id, completion, release, follow) =>
      db.transaction().execute(async (trx) => {
        const settle = (from: 'started' | 'interrupted' | 'approved') => {
          let update = trx
            .updateTable('audit_records')
            .set({
              outcome: completion.outcome,
              api_status: completion.apiStatus,
              duration_ms: wholeMs(completion.durationMs),
              detail: completion.detail,
              lease_owner: null,
            })
            .where('id', '=', id);
          update =
            from === 'interrupted' ? update.where('outcome', '=', 'unknown').where('detail', '=', INTERRUPTED_DETAIL) : update.where('outcome', '=', from);
          return update.returningAll().executeTakeFirst();
        };
        const started = (await settle('started')) ?? (await settle('approved'));
        // A late answer to a change recovery already settled as interrupted: the record takes the truth, but
        // its post was queued then (sent since, or still waiting, and then saying what the record says).
        const row = started ?? (await settle('interrupted'));
        if (!row) throw new Error(`audit record ${id} is not a started change`);
        const record = toRecord(row);
        if (started) await enqueuePosts(trx, options, [record]);
        // A change that ends here (`failed`: the cloud API refused it, or an approved one's target could not be read;
        // `unknown`: its answer could not be read, or an approved one's run broke off) goes to the incident's timeline;
        // one the cloud accepted (`scheduled`) does when its follow ends (follows.end), and one not sent (`refused`)
        // never. A late answer's event went out with its interruption.
        if (started && isChangeEnd(completion.outcome)) await enqueueChangeEvents(trx, options, [record.id]);
        if (release) await releaseLease(trx, release.target, release.owner);
        // Not for a late answer recovery had settled: nobody was told the change was accepted, and its time has passed.
        if (follow && started) await insertFollow(trx, { ...follow, recordId: record.id });
        return record;
      }),

    recoverInterrupted: (nowMs, limit = DEFAULT_RECOVERY_LIMIT) =>
      db.transaction().execute(async (trx) => {
        const now = wholeMs(nowMs);
        // Started records with no live lease: none held by their owner (or, for records
        // without an owner, none on their target at all).
        const orphaned = trx
          .selectFrom('audit_records as r')
          .select('r.id')
          .where('r.outcome', '=', 'started')
          .where((eb) =>
            eb.not(
              eb.exists(
                eb
                  .selectFrom('locks as l')
                  .select('l.target')
                  .whereRef('l.target', '=', 'r.target')
                  .where('l.expires_at_ms', '>', now)
                  .where((eb) => eb.or([eb('r.lease_owner', 'is', null), eb('l.owner', '=', eb.ref('r.lease_owner'))])),
              ),
            ),
          )
          .orderBy('r.id')
          .limit(Math.max(1, Math.floor(limit)));
        // `outcome = 'started'` again on the row itself: of two racing instances, the second
        // finds the row already settled once the first commits, and skips it.
        const rows = await trx
          .updateTable('audit_records')
          .set({ outcome: 'unknown', detail: INTERRUPTED_DETAIL, lease_owner: null })
          .where('id', 'in', orphaned)
          .where('outcome', '=', 'started')
          .returningAll()
          .execute();
        // Approved changes never started: the instance that was to send them stopped first (nothing was sent).
        const room = Math.max(1, Math.floor(limit)) - rows.length;
        if (room > 0) {
          const stale = trx
            .selectFrom('audit_records')
            .select('id')
            .where('outcome', '=', 'approved')
            .where('at', '<', new Date(now - APPROVED_RUN_GRACE_MS).toISOString())
            .orderBy('id')
            .limit(room);
          rows.push(
            ...(await trx
              .updateTable('audit_records')
              .set({ outcome: 'unknown', detail: NEVER_STARTED_DETAIL, lease_owner: null })
              .where('id', 'in', stale)
              .where('outcome', '=', 'approved')
              .returningAll()
              .execute()),
          );
        }
        const records = rows.map(toRecord).sort((a, b) => a.id - b.id);
        await enqueuePosts(trx, options, records);
        await enqueueChangeEvents(
          trx,
          options,
          records.map((r) => r.id),
        );
        return records;
      }),

    latest: async (limit, query = {}) => {
      const n = Number.isFinite(limit) ? Math.min(MAX_LATEST, Math.max(0, Math.floor(limit))) : 0;
      if (n === 0) return [];
      const offset = Number.isFinite(query.offset) ? Math.max(0, Math.floor(query.offset!)) : 0;
      let select = matching(db, query).selectAll('r').orderBy('r.id', 'desc').limit(n);
      if (offset > 0) select = select.offset(offset);
      return (await select.execute()).map(toRecord);
    },

    count: async (query = {}) => {
      const { n } = await matching(db, query)
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(n);
    },

    get: async (id) => {
      if (!Number.isSafeInteger(id) || id <= 0) return null;
      const row = await db.selectFrom('audit_records').selectAll().where('id', '=', id).executeTakeFirst();
      return row ? toRecord(row) : null;
    },
  };
}

/** The records a query names, on the index of its one filter (its id order serves `maxId` and newest first). */
function matching(db: Db, query: AuditQuery) {
  let select = db.selectFrom('audit_records as r');
  if (query.target !== undefined) select = select.where('r.target', '=', query.target);
  if (query.userId !== undefined) select = select.where('r.user_id', '=', query.userId);
  const involving = query.involving;
  if (involving !== undefined) select = select.where((eb) => eb.or([eb('r.user_id', '=', involving), eb('r.requested_by', '=', involving)]));
  if (query.outcomes !== undefined) select = query.outcomes.length > 0 ? select.where('r.outcome', 'in', query.outcomes) : select.where(sql<boolean>`1 = 0`);
  const left = query.notOutcomes ?? [];
  if (left.length > 0) select = select.where('r.outcome', 'not in', left);
  if (query.breakGlass !== undefined) select = select.where('r.break_glass', 'is not', null);
  if (query.breakGlass === 'unreviewed') select = select.where('r.reviewed_by', 'is', null);
  if (query.perChange === true) {
    // Of an approval's records, the newest that is listed: the request as it stands, or the change it became.
    select = select.where((eb) =>
      eb.or([
        eb('r.approval_id', 'is', null),
        eb.not(
          eb.exists(
            eb
              .selectFrom('audit_records as newer')
              .select('newer.id')
              .whereRef('newer.approval_id', '=', 'r.approval_id')
              .whereRef('newer.id', '>', 'r.id')
              .$if(left.length > 0, (q) => q.where('newer.outcome', 'not in', left)),
          ),
        ),
      ]),
    );
  }
  if (query.maxId !== undefined && Number.isFinite(query.maxId)) select = select.where('r.id', '<=', Math.floor(query.maxId));
  if (query.minId !== undefined && Number.isFinite(query.minId)) select = select.where('r.id', '>=', Math.floor(query.minId));
  return select;
}
