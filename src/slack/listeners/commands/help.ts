import { renderHelp } from '../../blocks/messages';
import type { ListenerContext, Outcome, SlackRequest } from '../../context';
import { replyEphemeral } from '../../reply';

/** `/vs help`: the help lines of the command table (`commands`), in its order. */
export async function helpCommand(ctx: ListenerContext, req: SlackRequest, commands: readonly string[]): Promise<Outcome> {
  await replyEphemeral(req, renderHelp({ commands, sandbox: ctx.sandbox }));
  return 'succeeded';
}
