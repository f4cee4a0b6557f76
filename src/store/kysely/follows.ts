import type { Selectable } from 'kysely';
import { OUTCOME_OF_CLOUD, type RecordedAction } from '../audit';
import { FOLLOW_STATUSES, type FollowedChange, type FollowProgress, type Follows, type FollowStatus, type FollowSubject, type NewFollow } from '../follows';
import type { FollowedChangesTable } from '../schema';
import { enqueueChangeEvents } from './change-events';
import { enqueuePosts } from './outbox';
import { parseObject, readIds, toRecord, wholeMs, type Db, type SliceDeps } from './rows';

const asStatus = (value: string | null): FollowStatus | null => FOLLOW_STATUSES.find((s) => s === value) ?? null;

/** Facts read back: what is not a plain value is left out (the subject is ours, but a row is text on disk). */
function plainValues(json: string | null): Record<string, string | number | boolean | null> {
  const out: Record<string, string | number | boolean | null> = {};
  if (json === null) return out;
  for (const [key, value] of Object.entries(parseObject(json))) {
    if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') out[key] = value;
  }
  return out;
}

function readSubject(json: string): FollowSubject {
  const o = parseObject(json);
  return {
    serverId: typeof o.serverId === 'number' ? o.serverId : null,
    parentType: typeof o.parentType === 'string' ? o.parentType : '',
    parentId: typeof o.parentId === 'number' ? o.parentId : 0,
    actions: Array.isArray(o.actions) ? o.actions.filter((a): a is string => typeof a === 'string') : [],
    facts: o.facts !== null && typeof o.facts === 'object' ? plainValues(JSON.stringify(o.facts)) : {},
  };
}

const optionalNumber = (n: number | null): number | null => (n === null ? null : Number(n));

function toFollowed(row: Selectable<FollowedChangesTable>): FollowedChange {
  return {
    recordId: Number(row.record_id),
    action: row.action as RecordedAction,
    target: row.target,
    subject: readSubject(row.subject),
    requestedBy: row.requested_by,
    approvedBy: row.approved_by,
    channelId: row.channel_id,
    messageTs: row.message_ts,
    baselineId: optionalNumber(row.baseline_id),
    acceptedAtMs: Number(row.accepted_at_ms),
    status: asStatus(row.status) ?? 'scheduled',
    transactionIds: readIds(row.transaction_ids),
    step: row.step,
    finalState: row.final_state === null ? null : plainValues(row.final_state),
    polls: Number(row.polls),
    intervalMs: Number(row.interval_ms),
    nextPollAtMs: Number(row.next_poll_at_ms),
    owner: row.owner,
    leaseUntilMs: optionalNumber(row.lease_until_ms),
    endedAtMs: optionalNumber(row.ended_at_ms),
    told: row.told,
    repliedAtMs: optionalNumber(row.replied_at_ms),
    tellAttempts: Number(row.tell_attempts),
  };
}

/** Starts following a change, in the caller's transaction (the door's settle of its record). */
export async function insertFollow(trx: Db, follow: NewFollow): Promise<void> {
  await trx
    .insertInto('followed_changes')
    .values({
      record_id: follow.recordId,
      action: follow.action,
      target: follow.target,
      subject: JSON.stringify({ ...follow.subject, actions: [...follow.subject.actions], facts: { ...follow.subject.facts } }),
      requested_by: follow.requestedBy,
      approved_by: follow.approvedBy,
      channel_id: follow.channelId,
      message_ts: null,
      baseline_id: follow.baselineId,
      accepted_at_ms: wholeMs(follow.acceptedAtMs),
      status: 'scheduled',
      transaction_ids: '[]',
      step: null,
      final_state: null,
      interval_ms: wholeMs(follow.intervalMs),
      next_poll_at_ms: wholeMs(follow.nextPollAtMs),
      owner: null,
      lease_until_ms: null,
      ended_at_ms: null,
      told: null,
      replied_at_ms: null,
    })
    .execute();
}

function progressRow(progress: FollowProgress) {
  return {
    status: progress.status,
    transaction_ids: JSON.stringify(progress.transactionIds.filter((id) => Number.isSafeInteger(id))),
    step: progress.step,
    final_state: progress.finalState === null ? null : JSON.stringify(progress.finalState),
    polls: Math.max(0, Math.floor(progress.polls)),
    interval_ms: wholeMs(progress.intervalMs),
    next_poll_at_ms: wholeMs(progress.nextPollAtMs),
    ended_at_ms: progress.endedAtMs === null ? null : wholeMs(progress.endedAtMs),
    told: progress.told,
    replied_at_ms: progress.repliedAtMs === null ? null : wholeMs(progress.repliedAtMs),
    tell_attempts: Math.max(0, Math.floor(progress.tellAttempts)),
  };
}

export function kyselyFollows({ db, dialect, options }: SliceDeps): Follows {
  /** `owner`'s progress saved, its lease kept until the next poll plus `leaseMs`; only while it holds the change (and, given, while it has not ended). */
  const saveAs = (trx: Db, recordId: number, owner: string, progress: FollowProgress, leaseMs: number, unended = false) => {
    let update = trx
      .updateTable('followed_changes')
      .set({ ...progressRow(progress), lease_until_ms: wholeMs(progress.nextPollAtMs) + wholeMs(leaseMs) })
      .where('record_id', '=', recordId)
      .where('owner', '=', owner);
    if (unended) update = update.where('ended_at_ms', 'is', null);
    return update.executeTakeFirst();
  };

  return {
    start: (follow) => insertFollow(db, follow),

    setMessage: async (recordId, channelId, messageTs) => {
      // Posted as it stood when accepted: scheduled, unless the follower has told more since.
      await db
        .updateTable('followed_changes')
        .set((eb) => ({ channel_id: channelId, message_ts: messageTs, told: eb.fn.coalesce('told', eb.val('scheduled')) }))
        .where('record_id', '=', recordId)
        .execute();
    },

    claimDue: (owner, nowMs, leaseMs, limit) => {
      const n = Math.max(0, Math.floor(limit));
      if (n === 0) return Promise.resolve([]);
      const now = wholeMs(nowMs);
      return db.transaction().execute(async (trx) => {
        let due = trx
          .selectFrom('followed_changes')
          .select('record_id')
          .where('replied_at_ms', 'is', null)
          .where('next_poll_at_ms', '<=', now)
          .where((eb) => eb.or([eb('owner', 'is', null), eb('owner', '=', owner), eb('lease_until_ms', '<=', now)]))
          .orderBy('next_poll_at_ms')
          .orderBy('record_id')
          .limit(n);
        // PostgreSQL: rows another instance is claiming right now are skipped, not waited for (SQLite has one writer).
        if (dialect === 'postgres') due = due.forUpdate().skipLocked();
        const ids = (await due.execute()).map((r) => r.record_id);
        if (ids.length === 0) return [];
        const rows = await trx
          .updateTable('followed_changes')
          .set({ owner, lease_until_ms: now + wholeMs(leaseMs) })
          .where('record_id', 'in', ids)
          .returningAll()
          .execute();
        return rows.map(toFollowed).sort((a, b) => a.nextPollAtMs - b.nextPollAtMs || a.recordId - b.recordId);
      });
    },

    save: (recordId, owner, progress, leaseMs) =>
      db.transaction().execute(async (trx) => {
        const saved = Number((await saveAs(trx, recordId, owner, progress, leaseMs)).numUpdatedRows) === 1;
        // Its record's outcome moves with it: scheduled until one of its transactions runs.
        if (saved && progress.status === 'running')
          await trx.updateTable('audit_records').set({ outcome: 'running' }).where('id', '=', recordId).where('outcome', '=', 'scheduled').execute();
        return saved;
      }),

    end: (recordId, owner, progress, leaseMs) =>
      db.transaction().execute(async (trx) => {
        const saved = await saveAs(trx, recordId, owner, progress, leaseMs, true);
        if (Number(saved.numUpdatedRows) !== 1) return null;
        const row = await trx
          .updateTable('audit_records')
          .set({
            outcome: OUTCOME_OF_CLOUD[progress.status],
            cloud_outcome: progress.status,
            cloud_step: progress.step,
            transaction_ids: JSON.stringify(progress.transactionIds),
          })
          .where('id', '=', recordId)
          .returningAll()
          .executeTakeFirstOrThrow();
        const record = toRecord(row);
        // Posted again, now with the cloud's outcome (its first post said what the cloud accepted).
        await enqueuePosts(trx, options, [record]);
        // The change has ended: its event for the incident's timeline.
        await enqueueChangeEvents(trx, options, [record.id]);
        return record;
      }),

    renew: async (recordId, owner, leaseUntilMs) => {
      const renewed = await db
        .updateTable('followed_changes')
        .set({ lease_until_ms: wholeMs(leaseUntilMs) })
        .where('record_id', '=', recordId)
        .where('owner', '=', owner)
        .executeTakeFirst();
      return Number(renewed.numUpdatedRows) === 1;
    },

    markReplied: async (recordId, owner, atMs) => {
      const marked = await db
        .updateTable('followed_changes')
        .set({ replied_at_ms: wholeMs(atMs) })
        .where('record_id', '=', recordId)
        .where('owner', '=', owner)
        .where('replied_at_ms', 'is', null)
        .executeTakeFirst();
      return Number(marked.numUpdatedRows) === 1;
    },

    release: async (owner) => {
      const released = await db.updateTable('followed_changes').set({ owner: null, lease_until_ms: null }).where('owner', '=', owner).executeTakeFirst();
      return Number(released.numUpdatedRows);
    },

    get: async (recordId) => {
      const row = await db.selectFrom('followed_changes').selectAll().where('record_id', '=', recordId).executeTakeFirst();
      return row ? toFollowed(row) : null;
    },
  };
}
