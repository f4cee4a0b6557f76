import type { AllMiddlewareArgs, Context, SlackCommandMiddlewareArgs } from '@slack/bolt';
import { parseCommand, type Command } from '../../command';
import type { Invocation, ListenerContext } from '../../context';
import { requestOf } from '../../middleware/request';
import { replyError, SOMETHING_WENT_WRONG } from '../../reply';
import { runCommand } from '.';

type Args = AllMiddlewareArgs & SlackCommandMiddlewareArgs;

/** Parses `/vs …` once, before anything else reads it. */
export async function parseVsCommand({ command, context, next }: Args): Promise<void> {
  (context as { command?: Command }).command = parseCommand(typeof command.text === 'string' ? command.text : '');
  await next();
}

export function commandOf(context: Context): Command {
  const cmd = (context as { command?: Command }).command;
  if (!cmd) throw new Error('parseVsCommand did not run before this listener');
  return cmd;
}

/** The `/vs` listener: acked, logged and checked by middleware already; runs the subcommand of the table. */
export function vsCommandCallback(ctx: ListenerContext) {
  return async ({ command, client, context }: Args): Promise<void> => {
    const req = requestOf(context);
    const inv: Invocation = {
      userId: command.user_id,
      channelId: command.channel_id,
      triggerId: command.trigger_id,
      responseUrl: command.response_url,
      respond: req.respond!,
      client,
      log: req.log,
    };
    try {
      req.outcome = await runCommand(ctx, inv, commandOf(context));
    } catch (error) {
      req.log.error('command failed', { error });
      req.outcome = 'failed';
      await replyError(inv, SOMETHING_WENT_WRONG);
    }
  };
}
