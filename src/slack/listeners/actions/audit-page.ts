import { AUDIT_BUTTON_OUT_OF_DATE, parseAuditListValue, renderAuditList } from '../../blocks/audit';
import type { ListenerContext, Outcome, SlackRequest } from '../../context';
import { deliverPage, replyError } from '../../reply';
import { readLatest } from '../commands/audit';
import { clickedInEphemeral, type ButtonArgs } from './button-args';

/**
 * Prev/Next on a `/vs audit` list: the same records (up to the list's newest), read again, shown to the clicker (the
 * list is theirs alone: replaced in place; deliverPage says how).
 */
export async function auditPage(ctx: ListenerContext, req: SlackRequest, args: ButtonArgs): Promise<Outcome> {
  const { action } = args;
  const list = parseAuditListValue(typeof action.value === 'string' ? action.value : '');
  if (!list) {
    await replyError(req, AUDIT_BUTTON_OUT_OF_DATE);
    return 'invalid';
  }
  const records = await readLatest(ctx, req, list.n, list.f, list.a);
  if (records === null) return 'failed';
  await deliverPage(
    req,
    clickedInEphemeral(args),
    renderAuditList({ records, limit: list.n, filter: list.f, page: list.p, anchorId: list.a, sandbox: ctx.sandbox }),
  );
  return 'succeeded';
}
