import type { Resolution } from '../../../cloud/names';
import { renderNamesUnreadable, renderNoServerNamed, renderSeveralServers } from '../../blocks/names';
import type { ListenerContext, Outcome, SlackRequest } from '../../context';
import { replyEphemeral } from '../../reply';
import type { Reading } from './subcommand';

// A `/vs` line that names a server by its label, hostname or address (docs/product.md, Servers by name), run once
// its role has been checked: the name index says which server it is, and the line runs as if its id had been typed.
// A name that is several servers' is never guessed: the person picks one (pick_server buttons, each the same line
// with that server's id); a name that is nobody's is answered with the closest names.

export async function serverByName(
  ctx: ListenerContext,
  req: SlackRequest,
  name: string,
  readingFor: (id: number) => Reading<unknown>,
  lineFor: (id: number) => string,
): Promise<Outcome> {
  let found: Resolution;
  try {
    found = await ctx.names.resolve(name);
  } catch (error) {
    req.log.warn('the account’s server list could not be read to look up a name', { error });
    await replyEphemeral(req, renderNamesUnreadable({ name, sandbox: ctx.sandbox }));
    return 'failed';
  }
  if (found.kind === 'one') return readingFor(found.server.id).run(ctx, req);
  if (found.kind === 'several') {
    await replyEphemeral(req, renderSeveralServers({ name, servers: found.servers, lineFor, sandbox: ctx.sandbox }));
    return 'invalid';
  }
  await replyEphemeral(req, renderNoServerNamed({ name, closest: found.closest, sandbox: ctx.sandbox }));
  return 'not_found';
}
