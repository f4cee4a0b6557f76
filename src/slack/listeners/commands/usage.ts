import { renderUsage } from '../../blocks/messages';
import type { Outcome, SlackRequest } from '../../context';
import { replyEphemeral } from '../../reply';

/** Anything that is not a `/vs` command: why, the closest valid command, and the table's commands. */
export async function usageCommand(req: SlackRequest, cmd: { message: string; suggestion?: string }, commands: readonly string[]): Promise<Outcome> {
  await replyEphemeral(req, renderUsage({ message: cmd.message, suggestion: cmd.suggestion, commands }));
  return 'invalid';
}
