import type { AllMiddlewareArgs, BlockButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { AUDIT_BUTTON_OUT_OF_DATE, parseAuditListValue, renderAuditList } from '../../blocks/audit';
import type { ListenerContext, Outcome, SlackRequest } from '../../context';
import { deliver, replyError } from '../../reply';
import { readLatest } from '../commands/audit';

/** Prev/Next on a `/vs audit` list: the same records (up to the list's newest), read again, the page replaced in place. */
export async function auditPage(
  ctx: ListenerContext,
  req: SlackRequest,
  { action }: AllMiddlewareArgs & SlackActionMiddlewareArgs<BlockButtonAction>,
): Promise<Outcome> {
  const list = parseAuditListValue(typeof action.value === 'string' ? action.value : '');
  if (!list) {
    await replyError(req, AUDIT_BUTTON_OUT_OF_DATE);
    return 'invalid';
  }
  const records = await readLatest(ctx, req, list.n, list.f, list.a);
  if (records === null) return 'failed';
  await deliver(req, {
    response_type: 'ephemeral',
    replace_original: true,
    ...renderAuditList({ records, limit: list.n, filter: list.f, page: list.p, anchorId: list.a, sandbox: ctx.sandbox }),
  });
  return 'succeeded';
}
