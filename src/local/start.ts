import type { Config } from '../config';
import type { Logger } from '../log';
import { startSlackStandIn, type SlackStandIn } from './standin';
import { AUDIT_CHANNEL_ID, CHANNELS, LOCAL_ROLES, PEOPLE, type Channel } from './workspace';

// Local mode: the stand-in for Slack and its page on PORT (loopback), and the
// bot, unchanged, in HTTP mode on a loopback port of its own. The bot's
// config is the loaded one, with the stand-in's people given roles when none
// are configured and the stand-in's audit channel when none is.

export interface LocalMode {
  /** The config the bot runs with. */
  readonly config: Config;
  /** Where the bot listens: loopback, any free port. */
  readonly listen: { port: number; host: string };
  /** The stand-in, once started. */
  readonly standIn: SlackStandIn | undefined;
  readonly start: () => Promise<void>;
  /** Points the stand-in at the bot once it listens, and prints the page's address. */
  connect(botPort: number): void;
  readonly stop: () => Promise<void>;
}

export function localMode(loaded: Config, logger: Logger, print: (line: string) => void = (line) => process.stdout.write(line + '\n')): LocalMode {
  const rolesConfigured = loaded.roles.admins.length > 0 || loaded.roles.operators.length > 0 || loaded.roles.viewers !== null;
  const config: Config = {
    ...loaded,
    roles: rolesConfigured ? loaded.roles : { ...loaded.roles, ...LOCAL_ROLES },
    auditChannel: loaded.auditChannel ?? AUDIT_CHANNEL_ID,
  };
  // Channels named in the configuration exist in the make-believe workspace too.
  const channels: Channel[] = [...CHANNELS];
  for (const id of [config.auditChannel, ...(config.roles.mutationChannels ?? [])]) {
    if (id && !channels.some((c) => c.id === id))
      channels.push({ id, name: id === config.auditChannel ? 'audit' : id.toLowerCase(), topic: 'from the configuration' });
  }
  // With roles configured, the page does not claim the make-believe ones.
  const people = rolesConfigured
    ? PEOPLE.map((p) => ({ ...p, name: p.name.replace(/ \(.*\)$/, ''), role: 'as configured (VS_ADMINS, VS_OPERATORS, VS_VIEWERS)' }))
    : PEOPLE;
  let standIn: SlackStandIn | undefined;
  let botOrigin: string | undefined;
  return {
    config,
    listen: { port: 0, host: '127.0.0.1' },
    get standIn() {
      return standIn;
    },
    async start() {
      standIn = await startSlackStandIn({
        port: loaded.slack.port,
        host: '127.0.0.1',
        botToken: config.slack.botToken,
        ...(config.slack.signingSecret ? { signingSecret: config.slack.signingSecret } : {}),
        strict: true,
        page: true,
        people,
        channels,
        opsUrl: () => botOrigin,
      });
      logger.warn('local mode: no Slack variable is set, so the bot talks to an embedded stand-in for Slack on loopback, with make-believe people', {
        page: `${standIn.origin}/`,
      });
    },
    connect(botPort) {
      botOrigin = `http://127.0.0.1:${botPort}`;
      standIn?.connect(`${botOrigin}/slack/events`);
      print(`Open ${standIn?.origin}/ to try vs-chatops without Slack`);
    },
    stop: async () => standIn?.close(),
  };
}
