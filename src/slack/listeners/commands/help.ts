import { renderHelp, type HelpSection } from '../../blocks/messages';
import type { ListenerContext, Outcome, SlackRequest } from '../../context';
import { replyEphemeral } from '../../reply';

/** `/vs help`: the help lines of the command table, by group (reads, changes, admin). */
export async function helpCommand(ctx: ListenerContext, req: SlackRequest, groups: readonly HelpSection[]): Promise<Outcome> {
  await replyEphemeral(req, renderHelp({ groups, sandbox: ctx.sandbox }));
  return 'succeeded';
}
