import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { composeBot, type Bot } from '../../src/compose';
import type { CloudClient } from '../../src/cloud/client.types';
import { loadConfig, secretValues, type Config } from '../../src/config';
import { manifestFunctions } from '../../src/slack/listeners/functions';
import { createLogger } from '../../src/log';
import { startSandbox, type Sandbox } from '../../src/sandbox';
import type { Store } from '../../src/store';
import { startSlackFake, type SlackFake } from './slack-fake';
import { interactiveBody, postToSlackEndpoint, slashCommandBody, type SlackHttpResponse, type SlackRequestOptions } from './signed-requests';

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
  /** Sends any body, signed unless told otherwise. */
  raw(body: string, contentType: string, opts?: SlackRequestOptions): Promise<SlackHttpResponse>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  env?: Record<string, string>;
  sandbox?: boolean;
  delayMs?: number;
  /** Point the bot at another cloud API (a fault server) instead of the sandbox. */
  cloudUrl?: string;
  /** The bot's clock (a test's fake clock); default the real one. */
  now?: () => number;
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const slack = await startSlackFake();
  // The app's workflow steps as its manifest declares them: the stand-in checks each step's completion against them.
  slack.setFunctions(manifestFunctions());
  const sandbox = await startSandbox({ port: 0, apiKey: API_KEY, delayMs: options.delayMs ?? 0 });
  const dir = mkdtempSync(join(tmpdir(), 'vs-chatops-test-'));
  const dbPath = join(dir, 'audit.sqlite');
  const config = loadConfig({
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
    ...options.env,
  });
  const logs: string[] = [];
  const logger = createLogger({ level: config.logLevel, secrets: secretValues(config), write: (l) => logs.push(l) });
  const bot = await composeBot(config, { logger, now: options.now, cloudDeps: { retry: { baseDelayMs: 5 } }, sandboxLabel: options.sandbox ?? false });
  const { cloud, store } = bot;
  const { port } = await bot.start(0);
  const eventsUrl = `http://127.0.0.1:${port}/slack/events`;
  const form = 'application/x-www-form-urlencoded';
  let closed = false;

  return {
    config,
    bot,
    slack,
    sandbox,
    cloud,
    store,
    dbPath,
    logs,
    eventsUrl,
    async command(text, opts = {}) {
      const responseUrl = opts.responseUrl ?? slack.responseUrl();
      const body = slashCommandBody({ text, user_id: opts.user, channel_id: opts.channel, response_url: responseUrl, trigger_id: opts.triggerId });
      return { ...(await postToSlackEndpoint(eventsUrl, SIGNING_SECRET, body, form, opts)), responseUrl };
    },
    interact: (payload, opts) => postToSlackEndpoint(eventsUrl, SIGNING_SECRET, interactiveBody(payload), form, opts),
    raw: (body, contentType, opts) => postToSlackEndpoint(eventsUrl, SIGNING_SECRET, body, contentType, opts),
    async close() {
      if (closed) return;
      closed = true;
      await bot.stop(2000);
      await sandbox.close();
      await slack.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
