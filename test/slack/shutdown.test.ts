import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox, type Sandbox } from '../../src/sandbox';
import { eventually, visibleText } from '../helpers/drive';
import { postToSlackEndpoint, slashCommandBody } from '../helpers/signed-requests';
import { startSlackFake, type SlackFake } from '../helpers/slack-fake';
import { spawnBot, type SpawnedBot } from '../helpers/spawned-bot';

// Graceful shutdown of the real bot, as a process in HTTP mode: a command
// acked just before SIGTERM (or Ctrl-C) still gets its answer, the process
// then exits 0 with its 'shutting down' and 'stopped' lines, and nothing new
// is served once it has begun shutting down.

const SECRET = 'shutdown-signing-secret-0123456789';
const FORM = 'application/x-www-form-urlencoded';
const CLOUD_DELAY_MS = 1000;

type LogLine = { msg?: string; signal?: string; time?: string };
const logLines = (bot: SpawnedBot): LogLine[] =>
  bot
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);

describe.each(['SIGTERM', 'SIGINT'] as const)('the real bot, sent %s in the middle of a command', (signal) => {
  let dir: string;
  let slack: SlackFake;
  let sandbox: Sandbox;
  let bot: SpawnedBot | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vs-shutdown-'));
    slack = await startSlackFake();
    sandbox = await startSandbox({ port: 0, delayMs: CLOUD_DELAY_MS });
    bot = await spawnBot({
      SLACK_BOT_TOKEN: 'xoxb-shutdown-bot-token-0123456789',
      SLACK_SIGNING_SECRET: SECRET,
      SLACK_API_URL: slack.apiUrl,
      VS_API_URL: sandbox.url,
      VS_ACCOUNT_ID: sandbox.accountId,
      VS_API_KEY: sandbox.apiKey,
      VS_DB_PATH: join(dir, 'audit.sqlite'),
      LOG_LEVEL: 'info',
    });
  });

  afterAll(async () => {
    await bot?.kill('SIGKILL');
    await sandbox?.close();
    await slack?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test(`finishes the command it already acked, stops taking requests, and exits 0 with 'shutting down' and 'stopped' logged`, async () => {
    const running = bot!;
    const command = (text: string, responseUrl: string) =>
      postToSlackEndpoint(running.eventsUrl, SECRET, slashCommandBody({ text, response_url: responseUrl }), FORM);

    const ack = await command('firewall 42', slack.responseUrl('in-flight'));
    expect(ack.status).toBe(200);
    // Acked while the cloud is still answering: the work is in flight.
    expect(slack.responses).toHaveLength(0);
    const signalledAt = Date.now();
    running.child.kill(signal);

    // Once it says it is shutting down, a new command is not served.
    expect(await eventually(() => logLines(running).some((l) => l.msg === 'shutting down'), 3000)).toBe(true);
    const late = await command('firewall 43', slack.responseUrl('after-signal')).then(
      (res) => ({ served: true as const, status: res.status }),
      (error: unknown) => ({ served: false as const, error }),
    );
    expect(late.served).toBe(false);
    expect(['ECONNREFUSED', 'ECONNRESET', 'UND_ERR_SOCKET']).toContain((late as { error?: { code?: string } }).error?.code);

    // The acked command's summary still reaches the channel.
    const [post] = await slack.waitForResponses(1, 5000);
    expect(post!.id).toBe('in-flight');
    expect(post!.at).toBeGreaterThan(signalledAt);
    expect(visibleText(post!.body)).toContain('VS 42');
    expect(post!.body.response_type).toBe('in_channel');

    let timer: NodeJS.Timeout | undefined;
    const ended = await Promise.race([running.exited, new Promise<'still running'>((r) => (timer = setTimeout(() => r('still running'), 5000)))]);
    clearTimeout(timer);
    expect(ended).toEqual({ code: 0, signal: null });

    const lines = logLines(running);
    const shuttingDown = lines.findIndex((l) => l.msg === 'shutting down');
    const stopped = lines.findIndex((l) => l.msg === 'stopped');
    expect(lines[shuttingDown]).toMatchObject({ signal });
    expect(stopped).toBeGreaterThan(shuttingDown);
    // The late command never reached the cloud nor got an answer.
    expect(sandbox.requests.map((r) => r.path)).toEqual(['/virtual_machines/42/firewall_rules.json']);
    expect(slack.responses.map((r) => r.id)).toEqual(['in-flight']);
  });
});
