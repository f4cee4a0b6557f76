import type { AutoscalingSlot } from '../../../cloud/schemas';
import { renderAutoscaling } from '../../blocks/autoscaling';
import type { Rendered } from '../../blocks/mrkdwn';
import type { ListenerContext, Outcome, SlackRequest } from '../../context';
import { oncePerAnswer } from '../../once-per-answer';
import { replyCloudError, replySummary } from '../../reply';

const summary = oncePerAnswer<readonly AutoscalingSlot[], Rendered>();

export async function autoscalingCommand(ctx: ListenerContext, req: SlackRequest, cmd: { vsId: number }): Promise<Outcome> {
  try {
    const slots = await ctx.cloud.listAutoscaling(cmd.vsId);
    await replySummary(
      ctx,
      req,
      summary(slots, () => renderAutoscaling({ vsId: cmd.vsId, slots, sandbox: ctx.sandbox })),
    );
    return 'succeeded';
  } catch (error) {
    return replyCloudError(ctx, req, error, { kind: 'vs', id: cmd.vsId });
  }
}
