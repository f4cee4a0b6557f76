import { renderWhoami } from '../../blocks/messages';
import type { CommandOutcome, Invocation, ListenerContext } from '../../context';
import { replyEphemeral } from '../../reply';

export async function whoamiCommand(ctx: ListenerContext, inv: Invocation): Promise<CommandOutcome> {
  const role = await ctx.policy.roleOf(inv.userId);
  await replyEphemeral(
    inv,
    renderWhoami({
      userId: inv.userId,
      role,
      allows: ctx.policy.allows(role),
      mutationChannels: ctx.config.roles.mutationChannels ? [...ctx.config.roles.mutationChannels] : null,
      noChangeRolesConfigured: !ctx.policy.changeRolesConfigured,
      sandbox: ctx.sandbox,
    }),
  );
  return 'succeeded';
}
