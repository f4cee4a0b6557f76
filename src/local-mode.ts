import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CHANNELS,
  PEOPLE,
  readManifest,
  startSlackStandIn,
  type AppManifest,
  type Channel,
  type PanelHint,
  type SlackStandIn,
} from '@vs-chatops/slack-standin';
import type { Config } from './config';
import type { Logger } from './log';

// Local mode: the stand-in for Slack and its page on PORT (loopback), and the
// bot, unchanged, in HTTP mode on a loopback port of its own. The settings
// (made-up credentials, roles, audit channel, the store's own file) are
// config's (LOCAL_MODE); this only builds the make-believe workspace to match,
// and tells the stand-in the app as Slack learns it, from manifest.yml.

export interface LocalMode {
  /** Where the bot listens: loopback, any free port. */
  readonly listen: { port: number; host: string };
  /** The stand-in, once started. */
  readonly standIn: SlackStandIn | undefined;
  readonly start: () => Promise<void>;
  /** Points the stand-in at the bot once it listens, tells it the control panel whose links the bot unfurls, and prints the page's address. */
  connect(botPort: number, app: { panel: PanelHint }): void;
  readonly stop: () => Promise<void>;
}

/** The app's manifest, at the repository's root (beside src/ and dist/), as Slack reads it. */
export const MANIFEST_PATH = join(__dirname, '..', 'manifest.yml');

/** The app as manifest.yml declares it (its slash command, shortcuts and workflow steps), for the stand-in. */
export function appManifest(path = MANIFEST_PATH): AppManifest {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new Error(`local mode tells its stand-in for Slack the app's shortcuts and steps from ${path}, which could not be read: ${String(e)}`, {
      cause: e,
    });
  }
  return readManifest(text);
}

/** What the page says about the settings local mode runs with (mrkdwn): which changes wait for a second person. */
export function localModeNotes(config: Config): string[] {
  const actions = config.approvals.actions;
  if (actions.length === 0) return ['No change waits for a second person here (`VS_APPROVALS` is not set).'];
  return [
    `${actions.map((a) => `\`${a}\``).join(' and ')} wait for a second person's approval here (\`VS_APPROVALS\`): ` +
      'ask as one person, switch to another who holds the role, and approve it in the channel or on their Home tab.',
  ];
}

export function localMode(config: Config, logger: Logger, print: (line: string) => void = (line) => process.stdout.write(line + '\n')): LocalMode {
  // Channels named in the configuration exist in the make-believe workspace too.
  const channels: Channel[] = [...CHANNELS];
  for (const id of [config.auditChannel, ...(config.roles.mutationChannels ?? [])]) {
    if (id && !channels.some((c) => c.id === id))
      channels.push({ id, name: id === config.auditChannel ? 'audit' : id.toLowerCase(), topic: 'from the configuration' });
  }
  // With roles configured, the page does not claim the make-believe ones.
  const people = config.madeUpRoles
    ? PEOPLE
    : PEOPLE.map((p) => ({ ...p, name: p.name.replace(/ \(.*\)$/, ''), role: 'as configured (VS_ADMINS, VS_OPERATORS, VS_VIEWERS)' }));
  let standIn: SlackStandIn | undefined;
  let botOrigin: string | undefined;
  return {
    listen: { port: 0, host: '127.0.0.1' },
    get standIn() {
      return standIn;
    },
    async start() {
      standIn = await startSlackStandIn({
        port: config.slack.port,
        host: '127.0.0.1',
        botToken: config.slack.botToken,
        ...(config.slack.signingSecret ? { signingSecret: config.slack.signingSecret } : {}),
        strict: true,
        page: true,
        people,
        channels,
        notes: localModeNotes(config),
        manifest: appManifest(),
        opsUrl: () => botOrigin,
      });
      logger.warn('local mode: no Slack variable is set, so the bot talks to an embedded stand-in for Slack on loopback, with make-believe people', {
        page: `${standIn.origin}/`,
        // Its own file, never a deployment's: VS_DB_PATH is not read in local mode.
        store: config.dbPath,
      });
    },
    connect(botPort, app) {
      botOrigin = `http://127.0.0.1:${botPort}`;
      standIn?.connect(`${botOrigin}/slack/events`);
      standIn?.setPanel(app.panel);
      print(`Open ${standIn?.origin}/ to try vs-chatops without Slack`);
    },
    stop: async () => standIn?.close(),
  };
}
