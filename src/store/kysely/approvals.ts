import type { Selectable } from 'kysely';
import type { Approval, ApprovalDecision, Approvals, ApprovalStatus } from '../approvals';
import type { RecordedAction } from '../audit';
import type { ApprovalsTable } from '../schema';
import { isoTime, parseObject, wholeMs, type SliceDeps } from './rows';

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

function toApproval(row: Selectable<ApprovalsTable>): Approval {
  const apiRequest = parseObject(row.api_request);
  return {
    id: row.id,
    action: row.action as RecordedAction,
    target: row.target,
    params: parseObject(row.params),
    channelId: row.channel_id,
    requestedBy: row.requested_by,
    requestedAt: row.requested_at,
    expiresAtMs: Number(row.expires_at_ms),
    reason: row.reason,
    apiRequest: { method: text(apiRequest.method), path: text(apiRequest.path), body: apiRequest.body ?? null },
    status: row.status as ApprovalStatus,
    decidedBy: row.decided_by,
    decidedAt: row.decided_at,
    messageTs: row.message_ts,
  };
}

export function kyselyApprovals({ db }: SliceDeps): Approvals {
  return {
    request: async (request) => {
      const row = await db
        .insertInto('approvals')
        .values({
          id: request.id,
          action: request.action,
          target: request.target,
          params: JSON.stringify(request.params ?? {}),
          channel_id: request.channelId,
          requested_by: request.requestedBy,
          requested_at: isoTime(request.requestedAt, 'requestedAt'),
          expires_at_ms: wholeMs(request.expiresAtMs),
          reason: request.reason,
          api_request: JSON.stringify(request.apiRequest),
          status: 'requested',
          decided_by: null,
          decided_at: null,
          message_ts: null,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toApproval(row);
    },

    get: async (id) => {
      const row = await db.selectFrom('approvals').selectAll().where('id', '=', id).executeTakeFirst();
      return row ? toApproval(row) : null;
    },

    setMessage: async (id, messageTs) => {
      await db.updateTable('approvals').set({ message_ts: messageTs }).where('id', '=', id).execute();
    },

    decide: async (id, decision): Promise<ApprovalDecision> => {
      // Only a `requested`, unexpired row is updated: of racing clicks, the first to commit wins.
      const row = await db
        .updateTable('approvals')
        .set({ status: decision.status, decided_by: decision.by, decided_at: isoTime(decision.at, 'at') })
        .where('id', '=', id)
        .where('status', '=', 'requested')
        .where('expires_at_ms', '>', wholeMs(decision.nowMs))
        .returningAll()
        .executeTakeFirst();
      if (row) return { won: true, approval: toApproval(row) };
      const current = await db.selectFrom('approvals').selectAll().where('id', '=', id).executeTakeFirst();
      return { won: false, approval: current ? toApproval(current) : null };
    },

    open: async (nowMs) => {
      const rows = await db
        .selectFrom('approvals')
        .selectAll()
        .where('status', '=', 'requested')
        .where('expires_at_ms', '>', wholeMs(nowMs))
        .orderBy('requested_at')
        .orderBy('id')
        .execute();
      return rows.map(toApproval);
    },

    expire: async (nowMs) => {
      const rows = await db
        .updateTable('approvals')
        .set({ status: 'expired' })
        .where('status', '=', 'requested')
        .where('expires_at_ms', '<=', wholeMs(nowMs))
        .returningAll()
        .execute();
      return rows.map(toApproval).sort((a, b) => a.expiresAtMs - b.expiresAtMs || a.id.localeCompare(b.id));
    },
  };
}
