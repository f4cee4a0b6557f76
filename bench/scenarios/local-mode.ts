import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import type { BenchProfile } from '../profile';
import { megabytes, percentile, round } from '../stats';
import { freePort, spawnTarget } from '../target-process';
import type { BenchWorld } from '../world';

// Scenario 7: local mode, as someone trying the bot runs it: `npm start` with
// no Slack variable. From start to the page usable (its port answers /healthz
// once the bot behind it is connected, and serves the page), the resident set
// once started, and commands typed on the page (the page's own endpoint) to
// their message on the page's event stream, one at a time.

export interface LocalModeFigures {
  startupMs: number;
  rssAfterStartMb: number;
  commands: number;
  messageP50Ms: number;
  messageP99Ms: number;
}

/** Settling time after the page is usable, before reading the resident set. */
const SETTLE_MS = 1000;

export async function runLocalMode(world: BenchWorld, load: BenchProfile['localMode']): Promise<LocalModeFigures> {
  const port = await freePort();
  const target = await spawnTarget({
    name: 'npm start (local mode)',
    command: 'npm',
    args: ['start', '--silent'],
    // No Slack variable: local mode, with its own store (./data/local-mode/ of the project, as for anyone trying it; reads only).
    // One person types every command: the bench measures the page and the bot, not the per-person read limit.
    env: { PORT: String(port), LOG_LEVEL: 'warn', VS_READS_PER_USER_PER_MINUTE: '1000000' },
    port,
    readyPath: '/readyz',
    servingProcess: (cmdline) => /^(\S*\/)?node\s/.test(cmdline) && /(src\/main\.ts|dist\/main\.js)/.test(cmdline),
  });
  try {
    const page = await request(`${target.origin}/`);
    await page.body.dump();
    if (page.statusCode !== 200) throw new Error(`the page answered HTTP ${page.statusCode}`);
    const startupMs = round(target.startupMs, 0);
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const rssAfterStartMb = megabytes(target.rssBytes());
    const latencies = await typeCommands(target.origin, load.commands);
    return {
      startupMs,
      rssAfterStartMb,
      commands: latencies.length,
      messageP50Ms: round(percentile(latencies, 50)),
      messageP99Ms: round(percentile(latencies, 99)),
    };
  } finally {
    await target.stop();
  }
}

/** Sends each command once the previous one's message arrived on the event stream; the time from sending to arrival, per command. */
async function typeCommands(origin: string, count: number): Promise<number[]> {
  const controller = new AbortController();
  const stream = await request(`${origin}/local/events`, { signal: controller.signal });
  let waiting: ((at: number) => void) | undefined;
  let buffered = '';
  stream.body.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    let end: number;
    while ((end = buffered.indexOf('\n\n')) >= 0) {
      const event = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      // The app's answer in the channel: not the echo of the command, not someone else's.
      if (event.startsWith('event: message') && event.includes('"kind":"bot"') && event.includes('"channel":"C0INCIDENT"')) waiting?.(performance.now());
    }
  });
  stream.body.on('error', () => undefined);
  const latencies: number[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const arrived = new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no message for command ${i + 1} within 10 s`)), 10_000);
        waiting = (at) => {
          clearTimeout(timer);
          resolve(at);
        };
      });
      const sent = performance.now();
      const res = await request(`${origin}/local/command`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ user: 'U0VIEWER', channel: 'C0INCIDENT', text: `/vs firewall ${42 + (i % 5)}` }),
      });
      await res.body.dump();
      latencies.push((await arrived) - sent);
      waiting = undefined;
    }
  } finally {
    controller.abort();
  }
  return latencies;
}
