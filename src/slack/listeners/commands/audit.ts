import { renderAuditRecords } from '../../blocks/messages';
import type { ListenerContext, Outcome, SlackRequest } from '../../context';
import { replyEphemeral } from '../../reply';

export async function auditCommand(ctx: ListenerContext, req: SlackRequest, cmd: { limit: number }): Promise<Outcome> {
  await replyEphemeral(req, renderAuditRecords({ records: await ctx.store.audit.latest(cmd.limit) }));
  return 'succeeded';
}
