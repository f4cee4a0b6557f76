import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { dailyShift, startPagerDutyStandIn, type PagerDutyStandIn, type ReceivedChangeEvent, type Sandbox } from '@vs-chatops/cloud-sandbox';
import {
  CHANNELS,
  ON_CALL_PERSON,
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
  /**
   * Points the stand-in at the bot once it listens, tells it the control panel whose links the bot unfurls and the
   * sandbox the page's control panel acts on (none when the cloud is not the built-in sandbox), and prints the page's address.
   */
  connect(botPort: number, app: { panel: PanelHint; sandbox?: Pick<Sandbox, 'url' | 'accountId' | 'apiKey' | 'servers'> | undefined }): void;
  /** Shows a change event the PagerDuty stand-in received on the page's PagerDuty panel. */
  timeline(event: ReceivedChangeEvent): void;
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

/** What the page says about the settings local mode runs with (mrkdwn): which changes wait for a second person, who is on call. */
export function localModeNotes(config: Config): string[] {
  const actions = config.approvals.actions;
  const notes =
    actions.length === 0
      ? ['No change waits for a second person here (`VS_APPROVALS` is not set).']
      : [
          `${actions.map((a) => `\`${a}\``).join(' and ')} wait for a second person's approval here (\`VS_APPROVALS\`): ` +
            'ask as one person, switch to another who holds the role, and approve it in the channel or on their Home tab.',
        ];
  if (config.onCall)
    notes.push(
      `${ON_CALL_PERSON.name.replace(/ \(.*\)$/, '')} is on call now in the PagerDuty stand-in, ` +
        `so holds the ${config.onCall.role} role while on call (\`/vs oncall\`).` +
        (config.breakGlass.on && actions.length > 0 ? ' `/vs breakglass <reason>` lets your own changes run without a second person for a while, loudly.' : ''),
    );
  return notes;
}

/**
 * Local mode's PagerDuty (docs/product.md, On call): a stand-in on loopback whose schedule has one of the make-believe
 * people on call today, who is matched by their email; change events it receives are handed to `received`.
 */
export async function startLocalPagerDuty(config: Config, received: (event: ReceivedChangeEvent) => void): Promise<PagerDutyStandIn> {
  const users = PEOPLE.filter((p) => p.email).map((p, i) => ({ id: `PLOCAL${i + 1}`, name: p.name.replace(/ \(.*\)$/, ''), email: p.email! }));
  const onCall = users.find((u) => u.email === ON_CALL_PERSON.email);
  return startPagerDutyStandIn({
    token: config.pagerDuty.token,
    ...(config.pagerDuty.routingKey ? { routingKey: config.pagerDuty.routingKey } : {}),
    users,
    oncalls: onCall ? dailyShift(onCall.id) : [],
    onEvent: received,
  });
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
      const sandbox = app.sandbox;
      // The page's control panel (sandbox): the page server adds the API's credentials, the page never sees them.
      if (sandbox)
        standIn?.setControl({
          url: sandbox.url,
          authorization: `Basic ${Buffer.from(`${sandbox.accountId}:${sandbox.apiKey}`).toString('base64')}`,
          servers: () => sandbox.servers(),
        });
      print(`Open ${standIn?.origin}/ to try vs-chatops without Slack`);
    },
    timeline(event) {
      const payload = (event.body.payload ?? {}) as { summary?: unknown; timestamp?: unknown };
      const links = Array.isArray(event.body.links) ? (event.body.links as { href?: unknown }[]) : [];
      standIn?.addTimelineEntry({
        receivedAt: event.receivedAt,
        summary: typeof payload.summary === 'string' ? payload.summary : '(no summary)',
        timestamp: typeof payload.timestamp === 'string' ? payload.timestamp : null,
        link: typeof links[0]?.href === 'string' ? links[0].href : null,
      });
    },
    stop: async () => standIn?.close(),
  };
}
