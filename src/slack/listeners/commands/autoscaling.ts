import type { AutoscalingSlot } from '../../../cloud/schemas';
import { renderAutoscaling } from '../../blocks/autoscaling';
import type { Rendered } from '../../blocks/mrkdwn';
import type { CommandOutcome, Invocation, ListenerContext } from '../../context';
import { oncePerAnswer } from '../../once-per-answer';
import { replySummary } from '../../reply';
import { replyCloudError } from './firewall';

const summary = oncePerAnswer<readonly AutoscalingSlot[], Rendered>();

export async function autoscalingCommand(ctx: ListenerContext, inv: Invocation, cmd: { vsId: number }): Promise<CommandOutcome> {
  try {
    const slots = await ctx.cloud.listAutoscaling(cmd.vsId);
    await replySummary(
      ctx,
      inv,
      summary(slots, () => renderAutoscaling({ vsId: cmd.vsId, slots, sandbox: ctx.sandbox })),
    );
    return 'succeeded';
  } catch (error) {
    return replyCloudError(ctx, inv, error, { kind: 'vs', id: cmd.vsId });
  }
}
