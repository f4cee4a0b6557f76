import type { AllMiddlewareArgs, BlockButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import type { AuditRecord } from '../../../store';
import { AUDIT_UNREADABLE, RECORD_NOT_YOURS, RECORD_UNKNOWN, renderRecordDetails } from '../../blocks/audit';
import { renderErrorModal } from '../../blocks/messages';
import type { ListenerContext, Outcome, SlackRequest } from '../../context';
import { openModal } from '../../open-modal';
import { replyError } from '../../reply';
import { parseId } from '../commands/grammar';

// Details on a record of the Home tab or of `/vs audit` (docs/product.md, App Home): the record whole, in a modal,
// the exact request among it. Those who may read the audit trail see any record; anyone else only their own (the
// person it is about, who asked for it or who decided it), as the Home tab lists them. A read, counted against the
// person's limit (the needs middleware takes it).

/** The modal's title, and the title of what the limit middleware opens in its place. */
export const RECORD_DETAILS_TITLE = 'Change details';

export async function recordDetails(
  ctx: ListenerContext,
  req: SlackRequest,
  { action }: AllMiddlewareArgs & SlackActionMiddlewareArgs<BlockButtonAction>,
): Promise<Outcome> {
  const id = parseId(typeof action.value === 'string' ? action.value : '');
  let record: AuditRecord | null;
  try {
    record = id === null ? null : await ctx.store.audit.get(id);
  } catch (error) {
    req.log.warn('could not read the audit record', { error, record: id });
    await tell(ctx, req, AUDIT_UNREADABLE);
    return 'failed';
  }
  if (record === null) {
    await tell(ctx, req, RECORD_UNKNOWN);
    return 'not_found';
  }
  const own = [record.userId, record.requestedBy, record.decidedBy].includes(req.userId);
  if (!own && !(await ctx.policy.can(req.userId, 'audit_read', req.channelId)).allowed) {
    req.log.info('denied: not their record, and not an admin', { record: record.id });
    await tell(ctx, req, RECORD_NOT_YOURS);
    return 'denied';
  }
  if (!req.triggerId || !(await openModal(req.client, req.triggerId, renderRecordDetails(record, ctx.sandbox), req.log))) return 'failed';
  return 'succeeded';
}

/** Told where they clicked: in the channel when the button was on a message, in a modal on the Home tab. */
async function tell(ctx: ListenerContext, req: SlackRequest, text: string): Promise<void> {
  if (req.respond) await replyError(req, text);
  else if (req.triggerId) await openModal(req.client, req.triggerId, renderErrorModal({ title: RECORD_DETAILS_TITLE, text, sandbox: ctx.sandbox }), req.log);
}
