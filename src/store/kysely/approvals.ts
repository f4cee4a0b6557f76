import type { Selectable, Updateable } from 'kysely';
import type { Approval, ApprovalDecision, Approvals, ApprovalRequest, ApprovalStatus, ExpiredApproval } from '../approvals';
import type { AuditEntry, RecordedAction } from '../audit';
import type { ApprovalsTable } from '../schema';
import { insertRecord } from './audit';
import { claimKey } from './claims';
import { isoTime, parseObject, readRecordedRequest, recordedRequest, wholeMs, type Db, type SliceDeps } from './rows';

function toApproval(row: Selectable<ApprovalsTable>): Approval {
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
    apiRequest: readRecordedRequest(row.api_request) ?? { method: '', path: '', body: null },
    status: row.status as ApprovalStatus,
    decidedBy: row.decided_by,
    decidedAt: row.decided_at,
    messageTs: row.message_ts,
    workflowExecutionId: row.workflow_execution_id,
    cloud: row.cloud_api_url !== null && row.cloud_account_id !== null ? { apiUrl: row.cloud_api_url, accountId: row.cloud_account_id } : null,
  };
}

async function insertApproval(db: Db, request: ApprovalRequest): Promise<Approval> {
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
      api_request: JSON.stringify(recordedRequest(request.apiRequest)),
      status: request.awaitingRequester === true ? 'awaiting_requester' : 'requested',
      decided_by: null,
      decided_at: null,
      message_ts: null,
      workflow_execution_id: request.workflowExecutionId ?? null,
      cloud_api_url: request.cloud?.apiUrl ?? null,
      cloud_account_id: request.cloud?.accountId ?? null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toApproval(row);
}

export function kyselyApprovals({ db, options }: SliceDeps): Approvals {
  /**
   * One step of an open request, in one transaction: the row updated only while it is `from` and unexpired at
   * `nowMs` (of racing steps, the first to commit wins), with its record; else nothing, and the request as it stands.
   */
  const takeOpen = (
    id: string,
    from: 'requested' | 'awaiting_requester',
    nowMs: number,
    set: Updateable<ApprovalsTable>,
    recordOf: ((taken: Approval) => AuditEntry) | undefined,
  ) =>
    db.transaction().execute(async (trx): Promise<ApprovalDecision> => {
      const row = await trx
        .updateTable('approvals')
        .set(set)
        .where('id', '=', id)
        .where('status', '=', from)
        .where('expires_at_ms', '>', wholeMs(nowMs))
        .returningAll()
        .executeTakeFirst();
      if (row) {
        const approval = toApproval(row);
        if (!recordOf) return { won: true, approval };
        return { won: true, approval, record: await insertRecord(trx, options, { ...recordOf(approval), approvalId: approval.id }) };
      }
      const current = await trx.selectFrom('approvals').selectAll().where('id', '=', id).executeTakeFirst();
      return { won: false, approval: current ? toApproval(current) : null };
    });

  return {
    ask: ({ submissionKey, at, request, requested }) =>
      db.transaction().execute(async (trx) => {
        if (!(await claimKey(trx, submissionKey, at))) return { outcome: 'duplicate' as const };
        const approval = await insertApproval(trx, request);
        const record = await insertRecord(trx, options, { ...requested, approvalId: approval.id });
        return { outcome: 'requested' as const, approval, record };
      }),

    request: (request) => insertApproval(db, request),

    get: async (id) => {
      const row = await db.selectFrom('approvals').selectAll().where('id', '=', id).executeTakeFirst();
      return row ? toApproval(row) : null;
    },

    setMessage: async (id, messageTs) => {
      await db.updateTable('approvals').set({ message_ts: messageTs }).where('id', '=', id).execute();
    },

    decide: (id, decision, recordOf) =>
      // Only a `requested`, unexpired row is updated: of racing clicks, the first to commit wins.
      takeOpen(id, 'requested', decision.nowMs, { status: decision.status, decided_by: decision.by, decided_at: isoTime(decision.at, 'at') }, recordOf),

    claim: (id, claim, recordOf) =>
      // Only an unclaimed, unexpired row is updated: of racing claims, the first to commit wins.
      takeOpen(
        id,
        'awaiting_requester',
        claim.nowMs,
        { status: 'requested', requested_by: claim.by, requested_at: isoTime(claim.at, 'at'), expires_at_ms: wholeMs(claim.expiresAtMs) },
        recordOf,
      ),

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

    expire: (nowMs, recordOf) =>
      db.transaction().execute(async (trx): Promise<ExpiredApproval[]> => {
        const rows = await trx
          .updateTable('approvals')
          .set({ status: 'expired' })
          .where('status', 'in', ['requested', 'awaiting_requester'])
          .where('expires_at_ms', '<=', wholeMs(nowMs))
          .returningAll()
          .execute();
        const expired = rows.map(toApproval).sort((a, b) => a.expiresAtMs - b.expiresAtMs || a.id.localeCompare(b.id));
        if (!recordOf) return expired;
        const settled: ExpiredApproval[] = [];
        for (const approval of expired)
          settled.push({ ...approval, record: await insertRecord(trx, options, { ...recordOf(approval), approvalId: approval.id }) });
        return settled;
      }),
  };
}
