import { renderAuditRecords } from '../../blocks/messages';
import type { CommandOutcome, Invocation, ListenerContext } from '../../context';
import { replyEphemeral } from '../../reply';

export async function auditCommand(ctx: ListenerContext, inv: Invocation, cmd: { limit: number }): Promise<CommandOutcome> {
  await replyEphemeral(inv, renderAuditRecords({ records: await ctx.store.audit.latest(cmd.limit) }));
  return 'succeeded';
}
