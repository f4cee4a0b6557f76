import { renderUsage } from '../../blocks/messages';
import type { CommandOutcome, Invocation, ListenerContext } from '../../context';
import { replyEphemeral } from '../../reply';

/** Anything that is not a `/vs` command: the usage, with the closest valid command. */
export async function usageCommand(_ctx: ListenerContext, inv: Invocation, cmd: { message: string; suggestion?: string }): Promise<CommandOutcome> {
  await replyEphemeral(inv, renderUsage({ message: cmd.message, suggestion: cmd.suggestion }));
  return 'invalid';
}
