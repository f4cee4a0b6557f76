import type { AllMiddlewareArgs, SlackCommandMiddlewareArgs } from '@slack/bolt';
import { parseCommand, type Command } from '../../command';
import { renderUsage } from '../../blocks/messages';
import type { CommandOutcome, Invocation, ListenerContext } from '../../context';
import { replyError, replyEphemeral } from '../../reply';
import { responder } from '../../response-url';
import { auditCommand } from './audit';
import { autoscalingCommand } from './autoscaling';
import { backupRestoreCommand } from './backup-restore';
import { diskAddCommand } from './disk-add';
import { firewallCommand } from './firewall';
import { helpCommand } from './help';
import { templatesCommand } from './templates';
import { whoamiCommand } from './whoami';

type Kind = Command['kind'];
type Handler<K extends Kind> = (ctx: ListenerContext, inv: Invocation, cmd: Extract<Command, { kind: K }>) => Promise<CommandOutcome>;

// One handler per subcommand; each guards its own role through the policy
// (read commands here, changes through the changes door).
const handlers: { [K in Exclude<Kind, 'invalid'>]: Handler<K> } = {
  help: helpCommand,
  firewall: firewallCommand,
  autoscaling: autoscalingCommand,
  templates: templatesCommand,
  whoami: whoamiCommand,
  audit: auditCommand,
  disk_add: diskAddCommand,
  backup_restore: backupRestoreCommand,
};

export function vsCommandCallback(ctx: ListenerContext) {
  return async ({ command, ack, client }: AllMiddlewareArgs & SlackCommandMiddlewareArgs): Promise<void> => {
    // Ack at once with nothing: every answer goes through respond(), after.
    await ack();
    const started = ctx.now();
    const cmd = parseCommand(typeof command.text === 'string' ? command.text : '');
    const log = ctx.logger.child({ user: command.user_id, channel: command.channel_id, subcommand: cmd.kind });
    const inv: Invocation = {
      userId: command.user_id,
      channelId: command.channel_id,
      triggerId: command.trigger_id,
      responseUrl: command.response_url,
      respond: responder(command.response_url, ctx.sandbox),
      client,
      log,
    };
    let outcome: CommandOutcome = 'error';
    try {
      if (cmd.kind === 'invalid') {
        await replyEphemeral(inv, renderUsage({ message: cmd.message, suggestion: cmd.suggestion }));
        outcome = 'usage';
      } else {
        outcome = await (handlers[cmd.kind] as Handler<typeof cmd.kind>)(ctx, inv, cmd as never);
      }
    } catch (error) {
      log.error('command failed', { error });
      await replyError(inv, 'Something went wrong while handling this command; nothing was changed by it. Try again, and tell the bot operator if it repeats.');
    } finally {
      log.info('command', { outcome, ms: Math.round(ctx.now() - started) });
    }
  };
}
