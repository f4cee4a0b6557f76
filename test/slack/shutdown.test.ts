import { visibleText } from '../helpers/drive';
import { useProcessHarness } from '../helpers/process-harness';
import type { SpawnedBot } from '../helpers/spawned-bot';
import { waitFor } from '../helpers/wait';

// Graceful shutdown of the real bot, as a process in HTTP mode: a command
// acked just before SIGTERM (or Ctrl-C) still gets its answer, the process
// then exits 0 with its 'shutting down' and 'stopped' lines, and nothing new
// is served once it has begun shutting down.

const CLOUD_DELAY_MS = 1000;

type LogLine = { msg?: string; signal?: string; time?: string };
const logLines = (bot: SpawnedBot): LogLine[] =>
  bot
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);

describe.each(['SIGTERM', 'SIGINT'] as const)('the real bot, sent %s in the middle of a command', (signal) => {
  const world = useProcessHarness({ cloudDelayMs: CLOUD_DELAY_MS });
  let bot: SpawnedBot;
  beforeAll(async () => {
    bot = await world.spawn({ LOG_LEVEL: 'info' });
  });

  test(`finishes the command it already acked, stops taking requests, and exits 0 with 'shutting down' and 'stopped' logged`, async () => {
    const { slack, sandbox } = world;
    const running = bot;
    const command = (text: string, responseUrl: string) => running.command(text, { responseUrl });

    const ack = await command('firewall 42', slack.responseUrl('in-flight'));
    expect(ack.status).toBe(200);
    // Acked while the cloud is still answering: the work is in flight.
    expect(slack.responses).toHaveLength(0);
    const signalledAt = Date.now();
    running.child.kill(signal);

    // Once it says it is shutting down, a new command is not served.
    await waitFor("'shutting down' in its log", () => logLines(running).some((l) => l.msg === 'shutting down'), { within: 3000 });
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

    expect(await running.exit('the bot to exit after the signal', 5000)).toEqual({ code: 0, signal: null });

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
