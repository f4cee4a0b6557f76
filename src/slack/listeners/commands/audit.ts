import type { AuditRecord } from '../../../store';
import { auditQuery, type AuditFilter } from '../../../changes/audit-filter';
import { AUDIT_UNREADABLE, renderAuditList } from '../../blocks/audit';
import type { ListenerContext, Outcome, SlackRequest } from '../../context';
import { replyEphemeral, replyError } from '../../reply';

/** `/vs audit [n] [filter]`: the latest n records matching the filter, page 1, with Prev/Next and Export CSV. */
export async function auditCommand(ctx: ListenerContext, req: SlackRequest, cmd: { limit: number; filter?: AuditFilter }): Promise<Outcome> {
  const records = await readLatest(ctx, req, cmd.limit, cmd.filter, undefined);
  if (records === null) return 'failed';
  await replyEphemeral(req, renderAuditList({ records, limit: cmd.limit, filter: cmd.filter, page: 1, anchorId: records[0]?.id ?? 0, sandbox: ctx.sandbox }));
  return 'succeeded';
}

/**
 * The latest `limit` records matching `filter`, up to `anchorId` (the newest of a list's first page, so that its
 * pages stay the same while new records are written); null when the store did not answer (the person was told).
 */
export async function readLatest(
  ctx: ListenerContext,
  req: SlackRequest,
  limit: number,
  filter: AuditFilter | undefined,
  anchorId: number | undefined,
): Promise<readonly AuditRecord[] | null> {
  try {
    return await ctx.store.audit.latest(limit, { ...auditQuery(filter), ...(anchorId ? { maxId: anchorId } : {}) });
  } catch (error) {
    req.log.warn('could not read the audit trail', { error });
    await replyError(req, AUDIT_UNREADABLE);
    return null;
  }
}
