import { createServer, connect, type Server, type Socket } from 'node:net';
import { request } from 'undici';
import { composeBot, StoppedWhileStarting, type Bot } from '../src/compose';
import { loadConfig, secretValues } from '../src/config';
import { createLogger } from '../src/log';
import { startSandbox, type Sandbox } from '@vs-chatops/cloud-sandbox';
import { goodDisk, newViewId, type View } from './helpers/drive';
import { FORM, interactiveBody, slashCommandBody, viewSubmission } from './helpers/payloads';
import { createTestDatabase, type TestDatabase } from './helpers/postgres';
import { postToSlackEndpoint } from './helpers/signed-requests';
import { startSlackFake, type SlackFake } from './helpers/slack-fake';
import { startSocketModeServer, type SocketModeServer } from './helpers/socket-mode-server';
import { freePort } from './helpers/spawned-bot';
import { waitFor } from './helpers/wait';
import { READS } from '../src/cloud/reads';

// Start-up while the database is down (a deploy during a failover): the bot,
// composed as main.ts composes it, listens at once and waits for PostgreSQL.
// The database sits behind a loopback port that refuses connections until the
// test opens it (a forwarder to the test server); the pauses between tries are
// stepped by the test, so no test waits on the clock.

const SIGNING_SECRET = 'compose-signing-secret-0123456789';
const BOT_TOKEN = 'xoxb-compose-bot-token-0123456789';
const APP_TOKEN = 'xapp-1-A1-compose-app-token-0123456789';

/** A loopback port that refuses connections until open(), then passes them on to `targetPort`. */
async function databaseGate(targetPort: number) {
  const port = await freePort();
  let server: Server | undefined;
  const sockets = new Set<Socket>();
  return {
    port,
    async open() {
      server = createServer((client) => {
        const upstream = connect(targetPort, '127.0.0.1');
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => undefined);
        }
        client.pipe(upstream).pipe(client);
      });
      await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    },
  };
}

/** The pauses between tries, each ended by the test (or by the bot stopping). */
function steppedPauses() {
  const waiting: (() => void)[] = [];
  const pauses: number[] = [];
  return {
    pauses,
    sleep: (ms: number, signal: AbortSignal) =>
      new Promise<void>((resolve) => {
        pauses.push(ms);
        waiting.push(resolve);
        signal.addEventListener('abort', () => resolve(), { once: true });
      }),
    /** Ends the pause under way once there is one. */
    async next() {
      await waitFor('a pause between tries', () => waiting.length > 0);
      waiting.shift()!();
    },
  };
}

const get = async (url: string) => {
  const res = await request(url);
  return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> };
};

describe('start-up while PostgreSQL is down', () => {
  let slack: SlackFake;
  let sandbox: Sandbox;
  let database: TestDatabase;
  let databasePassword: string;

  beforeAll(async () => {
    [slack, sandbox, database] = await Promise.all([startSlackFake(), startSandbox({ reads: READS, port: 0 }), createTestDatabase()]);
    databasePassword = decodeURIComponent(new URL(database.url).password);
  });
  afterAll(async () => {
    await Promise.all([slack?.close(), sandbox?.close()]);
    await database?.drop();
  });

  /** A bot whose DATABASE_URL goes through a closed gate; `socket`: in Socket Mode, connected through `link`. */
  async function waitingBot(options: { socket?: SocketModeServer } = {}) {
    const gate = await databaseGate(Number(new URL(database.url).port));
    const gated = new URL(database.url);
    gated.port = String(gate.port);
    const port = await freePort();
    const config = loadConfig({
      SLACK_BOT_TOKEN: BOT_TOKEN,
      ...(options.socket ? { SLACK_APP_TOKEN: APP_TOKEN } : { SLACK_SIGNING_SECRET: SIGNING_SECRET }),
      SLACK_API_URL: slack.apiUrl,
      PORT: String(port),
      VS_API_URL: sandbox.url,
      VS_ACCOUNT_ID: sandbox.accountId,
      VS_API_KEY: sandbox.apiKey,
      DATABASE_URL: gated.toString(),
      VS_OPERATORS: 'UOPER',
      LOG_LEVEL: 'info',
    });
    const logs: string[] = [];
    const logger = createLogger({ level: config.logLevel, secrets: secretValues(config), write: (line) => logs.push(line) });
    const steps = steppedPauses();
    const bot: Bot = await composeBot(config, { logger, storeWait: { sleep: steps.sleep, delayMs: (attempt) => 1000 * attempt } });
    const started = bot.start(port);
    // Settled by the test; a rejection is read where the test expects one.
    started.catch(() => undefined);
    const origin = `http://127.0.0.1:${port}`;
    const tries = () =>
      logs
        .map((l) => JSON.parse(l) as { msg: string; try?: number; nextTryInMs?: number; cause?: string })
        .filter((l) => l.msg.startsWith('waiting for the store'));
    return { bot, gate, steps, started, origin, logs, tries };
  }

  test('it listens and waits: /healthz 200, /readyz 503 naming the store, Slack answered 503, one log line per try; then it serves by itself', async () => {
    const { bot, gate, steps, started, origin, logs, tries } = await waitingBot();
    try {
      await waitFor('a first try', () => tries().length === 1);
      expect(await get(`${origin}/healthz`)).toMatchObject({ status: 200, body: { status: 'ok' } });
      expect(await get(`${origin}/readyz`)).toEqual({ status: 503, body: { status: 'starting', store: 'unreachable' } });
      const responseUrl = slack.responseUrl('while-waiting');
      const early = await postToSlackEndpoint(`${origin}/slack/events`, SIGNING_SECRET, slashCommandBody({ text: 'firewall 42', responseUrl }), FORM);
      expect(early.status).toBe(503);
      expect(early.body).toMatch(/starting: it is waiting for its database/);

      await steps.next();
      await waitFor('a second try', () => tries().length === 2);
      expect(tries().map((t) => [t.try, t.nextTryInMs])).toEqual([
        [1, 1000],
        [2, 2000],
      ]);
      expect(tries()[0]!.msg).toBe(
        'waiting for the store: The store cannot reach the PostgreSQL database (DATABASE_URL) (ECONNREFUSED). Next try in 1 s; /readyz answers 503 until then',
      );
      expect(tries()[1]!.msg).toContain('Next try in 2 s');
      expect(tries()[0]!.cause).toMatch(/ECONNREFUSED/);

      // The database answers: the next try opens the store (migrations run), and the bot is ready without a restart.
      await gate.open();
      await steps.next();
      await expect(started).resolves.toEqual({ port: expect.any(Number) });
      expect(await get(`${origin}/readyz`)).toEqual({ status: 200, body: { status: 'ready', store: 'ok' } });
      expect(logs.some((l) => l.includes('"msg":"the store answers; start-up goes on"') && l.includes('"tries":3'))).toBe(true);
      expect(steps.pauses).toEqual([1000, 2000]);

      // A change goes through the door, on record in PostgreSQL.
      const triggerId = `trigger.after-wait.${Math.random()}`;
      const command = slashCommandBody({ text: 'disk add 42', user: 'UOPER', responseUrl: slack.responseUrl(), triggerId });
      expect((await postToSlackEndpoint(`${origin}/slack/events`, SIGNING_SECRET, command, FORM)).status).toBe(200);
      const view = await waitFor(
        'the form to open',
        () => slack.callsTo('views.open').find((c) => c.args.trigger_id === triggerId)?.args.view as View | undefined,
      );
      const submission = viewSubmission({
        callbackId: 'disk_add',
        viewId: newViewId(),
        user: 'UOPER',
        privateMetadata: view.private_metadata,
        fields: goodDisk,
      });
      const ack = await postToSlackEndpoint(`${origin}/slack/events`, SIGNING_SECRET, interactiveBody(submission), FORM);
      expect(ack.status).toBe(200);
      expect(await bot.store.audit.latest(1)).toEqual([expect.objectContaining({ action: 'disk_add', target: 'vs:42', outcome: 'scheduled' })]);
      // The command sent while waiting was refused, not queued: it never ran.
      expect(slack.responses.some((r) => r.id === 'while-waiting')).toBe(false);
      expect(logs.join('\n')).not.toContain(databasePassword);
    } finally {
      await bot.stop(1000);
      await gate.close();
    }
  });

  test('stopped while it waits: start-up ends at once, without another try, and the port is closed', async () => {
    const { bot, gate, started, origin, tries } = await waitingBot();
    try {
      await waitFor('a first try', () => tries().length === 1);
      // The pause under way is never ended by the test: only stop() can end it.
      await bot.stop(1000);
      await expect(started).rejects.toBeInstanceOf(StoppedWhileStarting);
      expect(tries()).toHaveLength(1);
      await expect(request(`${origin}/healthz`)).rejects.toThrow();
    } finally {
      await gate.close();
    }
  });

  test('in Socket Mode it serves /healthz and /readyz while waiting, and connects to Slack only once the store is open', async () => {
    const link = await startSocketModeServer();
    slack.on('apps.connections.open', () => ({ body: { ok: true, url: link.url } }));
    const opensBefore = slack.callsTo('apps.connections.open').length;
    const { bot, gate, steps, started, origin, tries } = await waitingBot({ socket: link });
    try {
      await waitFor('a first try', () => tries().length === 1);
      expect(await get(`${origin}/healthz`)).toMatchObject({ status: 200, body: { mode: 'socket' } });
      expect(await get(`${origin}/readyz`)).toEqual({ status: 503, body: { status: 'starting', store: 'unreachable' } });
      expect(slack.callsTo('apps.connections.open')).toHaveLength(opensBefore);
      expect(link.connections()).toBe(0);

      await gate.open();
      await steps.next();
      await expect(started).resolves.toEqual({ port: null });
      expect(link.connections()).toBe(1);
      expect(await get(`${origin}/readyz`)).toEqual({ status: 200, body: { status: 'ready', store: 'ok' } });
    } finally {
      await bot.stop(1000);
      await gate.close();
      await link.close();
    }
  });
});
