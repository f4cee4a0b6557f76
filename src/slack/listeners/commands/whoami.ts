import type { BreakGlassWindow, Freeze } from '../../../store';
import { renderWhoami, type ReadCommand } from '../../blocks/messages';
import type { ListenerContext, Outcome, SlackRequest } from '../../context';
import { replyEphemeral } from '../../reply';

/** `/vs whoami`: the person's role and what it allows, every read command (`reads`, from the command table) by name. */
export async function whoamiCommand(ctx: ListenerContext, req: SlackRequest, reads: readonly ReadCommand[]): Promise<Outcome> {
  const [standing, freeze, breakGlass] = await Promise.all([ctx.policy.standing(req.userId), frozen(ctx, req), window(ctx, req)]);
  const { role } = standing;
  await replyEphemeral(
    req,
    renderWhoami({
      userId: req.userId,
      role,
      ...(standing.onCall ? { onCall: standing.onCall } : {}),
      breakGlass,
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

/** Their break-glass window open now; `unknown` (logged) when the store cannot say: whoami still answers. */
async function window(ctx: ListenerContext, req: SlackRequest): Promise<BreakGlassWindow | null | 'unknown'> {
  try {
    return await ctx.changes.breakGlassOf(req.userId);
  } catch (error) {
    req.log.warn('could not read the break-glass window for whoami', { error });
    return 'unknown';
  }
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
