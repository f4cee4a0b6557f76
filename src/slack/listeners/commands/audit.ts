import { renderAuditRecords } from '../../blocks/messages';
import type { CommandOutcome, Invocation, ListenerContext } from '../../context';
import { allowedToRead } from '../../guard';
import { replyEphemeral } from '../../reply';

export async function auditCommand(ctx: ListenerContext, inv: Invocation, cmd: { limit: number }): Promise<CommandOutcome> {
  if (!(await allowedToRead(ctx, inv, 'audit_read'))) return 'denied';
  await replyEphemeral(inv, renderAuditRecords({ records: await ctx.store.latest(cmd.limit) }));
  return 'ok';
}
