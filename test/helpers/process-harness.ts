import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox, type Sandbox } from '@vs-chatops/cloud-sandbox';
import { API_KEY, BOT_TOKEN, SIGNING_SECRET } from './app-harness';
import { startCloudFaultServer, type CloudFaultServer } from './cloud-fault-server';
import type { Message } from './drive';
import { startSlackFake, type SlackFake } from './slack-fake';
import { spawnBot, type SpawnedBot, type SpawnOptions } from './spawned-bot';
import { useStarted } from './use-started';
import { waitFor } from './wait';
import { READS } from '../../src/cloud/reads';

// What the real bot process runs against in a test: the Slack stand-in, the
// sandbox cloud API on loopback and a folder of its own, with the env that
// points a bot at them. Bots spawned through it are killed on close.

export interface ProcessHarness {
  slack: SlackFake;
  sandbox: Sandbox;
  /** A temporary folder, removed on close. */
  dir: string;
  /** A bot's env on these parts: bot token, signing secret, SLACK_API_URL, the sandbox, VS_DB_PATH=<dir>/<db>.sqlite. */
  env(db?: string): Record<string, string>;
  /** Spawns the real bot with env(db) and `env` over it; resolves once it is healthy. */
  spawn(env?: Record<string, string>, options?: SpawnOptions & { db?: string }): Promise<SpawnedBot>;
  /** Types `/vs <text>` to `bot` and returns what reached its response_url, within `within` ms (8 s). */
  answerTo(bot: SpawnedBot, text: string, opts?: { user?: string; channel?: string; within?: number }): Promise<Message>;
  close(): Promise<void>;
}

export interface ProcessHarnessOptions {
  /** The sandbox answers after this long (work in flight at a signal). */
  cloudDelayMs?: number;
  /** How long the sandbox's transactions stay pending, then running (its default: 1 s, 3 s). */
  transactionMs?: { pending: number; running: number };
}

/** A process harness whose bots reach the sandbox through a cloud fault server (`cloud`): forwarding, recording, misbehaving on request. */
export type ProcessHarnessBehindFaults = ProcessHarness & { cloud: CloudFaultServer };

export async function startProcessHarness(options: ProcessHarnessOptions & { behindFaults: true }): Promise<ProcessHarnessBehindFaults>;
export async function startProcessHarness(options?: ProcessHarnessOptions): Promise<ProcessHarness>;
export async function startProcessHarness(
  options: ProcessHarnessOptions & { behindFaults?: boolean } = {},
): Promise<ProcessHarness | ProcessHarnessBehindFaults> {
  const dir = mkdtempSync(join(tmpdir(), 'vs-chatops-process-'));
  const slack = await startSlackFake();
  const sandbox = await startSandbox({
    reads: READS,
    port: 0,
    apiKey: API_KEY,
    delayMs: options.cloudDelayMs ?? 0,
    ...(options.transactionMs ? { transactionMs: options.transactionMs } : {}),
  });
  const cloud = options.behindFaults ? await startCloudFaultServer({ upstream: sandbox.url }) : undefined;
  const bots: SpawnedBot[] = [];
  let answers = 0;
  const env = (db = 'audit'): Record<string, string> => ({
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: slack.apiUrl,
    VS_API_URL: cloud?.url ?? sandbox.url,
    VS_ACCOUNT_ID: sandbox.accountId,
    VS_API_KEY: sandbox.apiKey,
    VS_DB_PATH: join(dir, `${db}.sqlite`),
  });
  return {
    slack,
    sandbox,
    ...(cloud ? { cloud } : {}),
    dir,
    env,
    async spawn(more = {}, spawnOptions = {}) {
      const bot = await spawnBot({ ...env(spawnOptions.db), ...more }, spawnOptions);
      bots.push(bot);
      return bot;
    },
    async answerTo(bot, text, opts = {}) {
      const id = `answer${++answers}`;
      const ack = await bot.command(text, { responseUrl: slack.responseUrl(id), user: opts.user, channel: opts.channel });
      if (ack.status !== 200) throw new Error(`"/vs ${text}" was answered HTTP ${ack.status}; bot output:\n${bot.output()}`);
      const post = await waitFor(`an answer to "/vs ${text}"`, () => slack.responses.find((r) => r.id === id), {
        within: opts.within ?? 8000,
        detail: () => `bot output:\n${bot.output()}`,
      });
      return post.body;
    },
    async close() {
      await Promise.all(bots.map((bot) => bot.kill('SIGKILL')));
      await cloud?.close();
      await sandbox.close();
      await slack.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** One process harness for the enclosing describe block (or file): started in beforeAll, closed in afterAll; read it inside tests. */
export function useProcessHarness(options: ProcessHarnessOptions = {}): ProcessHarness {
  return useStarted(
    'the process harness',
    () => startProcessHarness(options),
    (started) => started.close(),
  );
}
