import { renderWhoami } from '../../blocks/messages';
import type { ListenerContext, Outcome, SlackRequest } from '../../context';
import { replyEphemeral } from '../../reply';

export async function whoamiCommand(ctx: ListenerContext, req: SlackRequest): Promise<Outcome> {
  const role = await ctx.policy.roleOf(req.userId);
  await replyEphemeral(
    req,
    renderWhoami({
      userId: req.userId,
      role,
      allows: ctx.policy.allows(role),
      mutationChannels: ctx.config.roles.mutationChannels ? [...ctx.config.roles.mutationChannels] : null,
      noChangeRolesConfigured: !ctx.policy.changeRolesConfigured,
      sandbox: ctx.sandbox,
    }),
  );
  return 'succeeded';
}
