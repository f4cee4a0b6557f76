import { renderAutoscaling } from '../../blocks/autoscaling';
import type { CommandOutcome, Invocation, ListenerContext } from '../../context';
import { allowedToRead } from '../../guard';
import { replySummary } from '../../reply';
import { replyCloudError } from './firewall';

export async function autoscalingCommand(ctx: ListenerContext, inv: Invocation, cmd: { vsId: number }): Promise<CommandOutcome> {
  if (!(await allowedToRead(ctx, inv))) return 'denied';
  try {
    const slots = await ctx.cloud.listAutoscaling(cmd.vsId);
    await replySummary(ctx, inv, renderAutoscaling({ vsId: cmd.vsId, slots, sandbox: ctx.sandbox }));
    return 'ok';
  } catch (error) {
    return replyCloudError(ctx, inv, error, { kind: 'vs', id: cmd.vsId });
  }
}
