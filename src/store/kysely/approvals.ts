import type { Selectable, Updateable } from 'kysely';
import { APPROVAL_STEPS, fromStates, type ApprovalStatus, type ApprovalStep } from '../approval-states';
import type { Approval, ApprovalDecision, Approvals, ApprovalRequest, ExpiredApproval } from '../approvals';
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
    decisionReason: row.decision_reason,
    messageTs: row.message_ts,
    workflowExecutionId: row.workflow_execution_id,
    ...(row.agent === null ? {} : { agent: row.agent }),
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
      status: (request.awaitingRequester === true ? 'awaiting_requester' : 'requested') satisfies ApprovalStatus,
      decided_by: null,
      decided_at: null,
      decision_reason: null,
      message_ts: null,
      workflow_execution_id: request.workflowExecutionId ?? null,
      cloud_api_url: request.cloud?.apiUrl ?? null,
      cloud_account_id: request.cloud?.accountId ?? null,
      agent: request.agent ?? null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toApproval(row);
}

export function kyselyApprovals({ db, options }: SliceDeps): Approvals {
  /**
   * One step of the table for an open request, in one transaction: the row updated only while its status is one the
   * step may leave (approval-states.ts), it is unexpired at `nowMs` and `where` holds (of racing steps, the first to
   * commit wins), with its record; else nothing, and the request as it stands.
   */
  const take = (
    id: string,
    step: Exclude<ApprovalStep, 'expire'>,
    nowMs: number,
    set: Omit<Updateable<ApprovalsTable>, 'status'>,
    recordOf: ((taken: Approval) => AuditEntry) | undefined,
    where: { requestedBy?: string } = {},
  ) =>
    db.transaction().execute(async (trx): Promise<ApprovalDecision> => {
      let update = trx
        .updateTable('approvals')
        .set({ ...set, status: APPROVAL_STEPS[step].to })
        .where('id', '=', id)
        .where('status', 'in', fromStates(step))
        .where('expires_at_ms', '>', wholeMs(nowMs));
      if (where.requestedBy !== undefined) update = update.where('requested_by', '=', where.requestedBy);
      const row = await update.returningAll().executeTakeFirst();
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

    decide: (id, { step, by, at, nowMs, reason }, recordOf) =>
      take(id, step, nowMs, { decided_by: by, decided_at: isoTime(at, 'at'), decision_reason: step === 'reject' ? (reason ?? null) : null }, recordOf),

    withdraw: (id, { by, at, nowMs }, recordOf) =>
      // Only its requester's: anyone else's withdrawal changes nothing.
      take(id, 'withdraw', nowMs, { decided_by: by, decided_at: isoTime(at, 'at') }, recordOf, { requestedBy: by }),

    claim: (id, claim, recordOf) =>
      take(id, 'claim', claim.nowMs, { requested_by: claim.by, requested_at: isoTime(claim.at, 'at'), expires_at_ms: wholeMs(claim.expiresAtMs) }, recordOf),

    open: async (nowMs, step = 'approve') => {
      const rows = await db
        .selectFrom('approvals')
        .selectAll()
        .where('status', 'in', fromStates(step))
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
          .set({ status: APPROVAL_STEPS.expire.to })
          .where('status', 'in', fromStates('expire'))
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
