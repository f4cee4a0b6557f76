import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { composeBot, type Bot } from '../../src/compose';
import type { CloudClient } from '../../src/cloud/client.types';
import { loadConfig, secretValues, type Config } from '../../src/config';
import { appManifest } from '../../src/local-mode';
import { createLogger } from '../../src/log';
import { startSandbox, type Sandbox } from '@vs-chatops/cloud-sandbox';
import type { Store } from '../../src/store';
import { forward, startCloudFaultServer, type CloudFaultServer } from './cloud-fault-server';
import { startSlackFake, type SlackFake } from './slack-fake';
import { FORM, interactiveBody, JSON_CONTENT_TYPE, slashCommandBody } from './payloads';
import { useStarted } from './use-started';
import { postToSlackEndpoint, type SlackHttpResponse, type SlackRequestOptions } from './signed-requests';
import { READS } from '../../src/cloud/reads';

// The real bot, composed by the same composeBot() as main.ts, over its HTTP
// receiver, with a loopback Slack fake and the sandbox cloud API on loopback:
// what a test drives is what runs in production.

export const SIGNING_SECRET = 'test-signing-secret-0123456789';
export const BOT_TOKEN = 'xoxb-test-bot-token-0123456789';
export const API_KEY = 'test-cloud-api-key-0123456789';

export interface Harness {
  config: Config;
  /** The composed bot (its parts, e.g. ops for readiness and metrics). */
  bot: Bot;
  slack: SlackFake;
  sandbox: Sandbox;
  cloud: CloudClient;
  store: Store;
  dbPath: string;
  /** Every log line the app wrote. */
  logs: string[];
  eventsUrl: string;
  /** Sends a signed `/vs <text>` and returns the HTTP answer (the ack). */
  command(
    text: string,
    opts?: { user?: string; channel?: string; responseUrl?: string; triggerId?: string } & SlackRequestOptions,
  ): Promise<SlackHttpResponse & { responseUrl: string }>;
  /** Sends a signed interactive payload (block_actions, view_submission, shortcut). */
  interact(payload: unknown, opts?: SlackRequestOptions): Promise<SlackHttpResponse>;
  /** Sends a signed Events API delivery (an envelope: eventCallback, appHomeOpened, linkShared…) as JSON. */
  event(envelope: unknown, opts?: SlackRequestOptions): Promise<SlackHttpResponse>;
  /** Sends any body, signed unless told otherwise. */
  raw(body: string, contentType: string, opts?: SlackRequestOptions): Promise<SlackHttpResponse>;
  /**
   * Stops the bot and composes another on the same store, stand-in and sandbox, as a deployment restarts it: with the
   * same settings, or with `env` in place of the harness's `env` option (settings edited meanwhile). Requests go to the
   * new one from then on, and `bot`, `config`, `store` and `cloud` are its.
   */
  restart(env?: Record<string, string>): Promise<void>;
  /**
   * Composes one more instance on the same stand-in, sandbox and settings (on PostgreSQL, `env` with DATABASE_URL: the
   * same database), as a second instance behind a load balancer; requests still go to the first (its own `eventsUrl`
   * reaches it). Stopped by close().
   */
  another(env?: Record<string, string>): Promise<Bot & { eventsUrl: string }>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  env?: Record<string, string>;
  sandbox?: boolean;
  delayMs?: number;
  /** Point the bot at another cloud API (a fault server) instead of the sandbox. */
  cloudUrl?: string;
  /** The bot's clock (group caches, claims, locks, the outbox, the follower): a test moves it instead of waiting. */
  now?: () => number;
  /** The sandbox's clock, which its changes' transactions run on (epoch ms): a test moves it to step them. */
  sandboxNow?: () => number;
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const slack = await startSlackFake(SIGNING_SECRET);
  // The app as manifest.yml declares it: the stand-in checks each step's completion against its steps, and offers its shortcuts.
  slack.setManifest(appManifest());
  const sandboxNow = options.sandboxNow;
  const sandbox = await startSandbox({
    reads: READS,
    port: 0,
    apiKey: API_KEY,
    delayMs: options.delayMs ?? 0,
    ...(sandboxNow ? { now: () => new Date(sandboxNow()) } : {}),
  });
  const dir = mkdtempSync(join(tmpdir(), 'vs-chatops-test-'));
  const dbPath = join(dir, 'audit.sqlite');
  const settings = {
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: slack.apiUrl,
    VS_API_URL: options.cloudUrl ?? sandbox.url,
    VS_ACCOUNT_ID: sandbox.accountId,
    VS_API_KEY: sandbox.apiKey,
    VS_DB_PATH: dbPath,
    VS_API_TIMEOUT_MS: '3000',
    LOG_LEVEL: 'debug',
    // Tests send many reads and open many forms as one user; the limits have tests of their own (test/slack/user-limits.test.ts).
    VS_READS_PER_USER_PER_MINUTE: '100000',
    VS_CHANGES_PER_USER_PER_MINUTE: '100000',
    // Workflows run many steps in one channel here; their hourly limits have tests of their own (test/slack/listeners/functions/workflow-limits.test.ts).
    VS_WORKFLOW_REQUESTS_PER_HOUR: '100000',
    VS_WORKFLOW_CALLS_PER_HOUR: '100000',
  };
  const logs: string[] = [];
  async function compose(env: Record<string, string>) {
    const config = loadConfig(env);
    const logger = createLogger({ level: config.logLevel, secrets: secretValues(config), write: (l) => logs.push(l) });
    const bot = await composeBot(config, {
      logger,
      cloudDeps: { retry: { baseDelayMs: 5 } },
      sandboxLabel: options.sandbox ?? false,
      ...(options.now ? { now: options.now } : {}),
    });
    const { port } = await bot.start(0);
    return { config, bot, eventsUrl: `http://127.0.0.1:${port}/slack/events` };
  }
  let running = await compose({ ...settings, ...options.env });
  // What a person does on the stand-in (h.slack.command, click, submit) reaches this bot, as on the local page.
  slack.connect(running.eventsUrl);
  let closed = false;
  const others: Bot[] = [];

  return {
    get config() {
      return running.config;
    },
    get bot() {
      return running.bot;
    },
    slack,
    sandbox,
    get cloud() {
      return running.bot.cloud;
    },
    get store() {
      return running.bot.store;
    },
    dbPath,
    logs,
    get eventsUrl() {
      return running.eventsUrl;
    },
    async command(text, opts = {}) {
      const responseUrl = opts.responseUrl ?? slack.responseUrl();
      const body = slashCommandBody({ text, user: opts.user, channel: opts.channel, responseUrl, triggerId: opts.triggerId });
      return { ...(await postToSlackEndpoint(running.eventsUrl, SIGNING_SECRET, body, FORM, opts)), responseUrl };
    },
    interact: (payload, opts) => postToSlackEndpoint(running.eventsUrl, SIGNING_SECRET, interactiveBody(payload), FORM, opts),
    event: (envelope, opts) => postToSlackEndpoint(running.eventsUrl, SIGNING_SECRET, JSON.stringify(envelope), JSON_CONTENT_TYPE, opts),
    raw: (body, contentType, opts) => postToSlackEndpoint(running.eventsUrl, SIGNING_SECRET, body, contentType, opts),
    async restart(env = options.env) {
      await running.bot.stop(2000);
      running = await compose({ ...settings, ...env });
      slack.connect(running.eventsUrl);
    },
    async another(env = options.env) {
      const other = await compose({ ...settings, ...env });
      others.push(other.bot);
      return Object.assign(other.bot, { eventsUrl: other.eventsUrl });
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const other of others) await other.stop(2000);
      await running.bot.stop(2000);
      await sandbox.close();
      await slack.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface UseHarnessOptions extends HarnessOptions {
  /** Options known only once things started (a fault server's URL, a closed port): read at start, over the others. */
  startWith?: () => HarnessOptions | Promise<HarnessOptions>;
  /** Forget what the stand-in and the sandbox recorded (calls, posts, scripted answers, faults, sandbox data) before each test; default true. */
  reset?: boolean;
  /** More to do before each test, after the reset (a user group, a delay). */
  beforeEach?: (h: Harness) => void | Promise<void>;
}

/**
 * One harness for the enclosing describe block (or file): started in beforeAll, closed in afterAll, reset before
 * each test. Returns it for use inside tests; reading it outside a test (before beforeAll ran) throws.
 *
 *   const h = useHarness({ env: { VS_OPERATORS: 'UOPER' } });
 *   test('…', async () => { const m = await answerTo(h, 'firewall 42'); … });
 */
export function useHarness(options: UseHarnessOptions = {}): Harness {
  const h = useStarted(
    'the harness',
    async () => startHarness({ ...options, ...(await options.startWith?.()) }),
    (started) => started.close(),
  );
  beforeEach(async () => {
    if (options.reset ?? true) {
      h.slack.reset();
      h.sandbox.reset();
    }
    await options.beforeEach?.(h);
  });
  return h;
}

/**
 * useHarness with a cloud fault server between the bot and the harness's sandbox: before each test (after the
 * harness's reset) it forwards every request to the sandbox and forgets those it recorded, until a test makes it
 * misbehave (`fault.handle(…)`; `fault.heal()` forwards again).
 *
 *   const { h, fault } = useHarnessBehindFaults({ env: { VS_API_TIMEOUT_MS: '500' } });
 *   test('…', async () => { fault.handle(hang); … });
 */
export function useHarnessBehindFaults(options: UseHarnessOptions = {}): { h: Harness; fault: CloudFaultServer } {
  const fault = useStarted(
    'the cloud fault server',
    () => startCloudFaultServer({ handler: (req, res) => forward(h.sandbox.url, req, res) }),
    (started) => started.close(),
  );
  const h = useHarness({
    ...options,
    startWith: async () => ({ ...(await options.startWith?.()), cloudUrl: fault.url }),
    beforeEach: async (started) => {
      fault.heal();
      fault.requests.length = 0;
      await options.beforeEach?.(started);
    },
  });
  return { h, fault };
}
