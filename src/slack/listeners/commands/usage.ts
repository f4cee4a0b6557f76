import { renderUsage } from '../../blocks/messages';
import type { Outcome, SlackRequest } from '../../context';
import { replyEphemeral } from '../../reply';

/** Anything that is not a `/vs` command: why, the closest valid command, and how to type the one it names. */
export async function usageCommand(req: SlackRequest, cmd: { message: string; suggestion?: string; usage?: string }): Promise<Outcome> {
  await replyEphemeral(req, renderUsage(cmd));
  return 'invalid';
}
