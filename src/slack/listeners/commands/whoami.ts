import type { Freeze } from '../../../store';
import { renderWhoami, type ReadCommand } from '../../blocks/messages';
import type { ListenerContext, Outcome, SlackRequest } from '../../context';
import { replyEphemeral } from '../../reply';

/** `/vs whoami`: the person's role and what it allows, every read command (`reads`, from the command table) by name. */
export async function whoamiCommand(ctx: ListenerContext, req: SlackRequest, reads: readonly ReadCommand[]): Promise<Outcome> {
  const [role, freeze] = await Promise.all([ctx.policy.roleOf(req.userId), frozen(ctx, req)]);
  await replyEphemeral(
    req,
    renderWhoami({
      userId: req.userId,
      role,
      allows: ctx.policy.allows(role),
      reads,
      mutationChannels: ctx.config.roles.mutationChannels ? [...ctx.config.roles.mutationChannels] : null,
      noChangeRolesConfigured: !ctx.policy.changeRolesConfigured,
      freeze,
      sandbox: ctx.sandbox,
    }),
  );
  return 'succeeded';
}

/** The freeze in force; `unknown` (logged) when the store cannot say: whoami still answers. */
async function frozen(ctx: ListenerContext, req: SlackRequest): Promise<Freeze | null | 'unknown'> {
  try {
    return await ctx.changes.frozen();
  } catch (error) {
    req.log.warn('could not read the freeze for whoami', { error });
    return 'unknown';
  }
}
