import { renderHelp } from '../../blocks/messages';
import type { CommandOutcome, Invocation, ListenerContext } from '../../context';
import { replyEphemeral } from '../../reply';

export async function helpCommand(ctx: ListenerContext, inv: Invocation): Promise<CommandOutcome> {
  await replyEphemeral(inv, renderHelp({ sandbox: ctx.sandbox }));
  return 'succeeded';
}
