import { request } from 'undici';
import { BOT_TOKEN, SIGNING_SECRET } from './app-harness';
import type { SlackHttpResponse } from './signed-requests';
import { spawnBot, type SpawnedBot } from './spawned-bot';
import { waitFor } from './wait';

// Several real bot processes (`node --import tsx src/main.ts`) sharing one
// database, each on its own port, driven with signed requests as Slack (or a
// load balancer in front of them) would send them.

export interface Instance {
  name: string;
  bot: SpawnedBot;
  eventsUrl: string;
  /** Sends a signed `/vs <text>`; the answer goes to `responseUrl`. */
  command(text: string, opts: { user: string; responseUrl: string; channel?: string; triggerId?: string }): Promise<SlackHttpResponse>;
  /** Sends a signed interactive payload. */
  interact(payload: unknown): Promise<SlackHttpResponse>;
  /** GET /readyz: status and body. */
  readyz(): Promise<{ status: number; body: { status?: string; store?: string } }>;
  /** GET /metrics as text. */
  metrics(): Promise<string>;
}

export async function startInstances(count: number, env: Record<string, string>): Promise<Instance[]> {
  const base = { SLACK_BOT_TOKEN: BOT_TOKEN, SLACK_SIGNING_SECRET: SIGNING_SECRET, ...env };
  const bots = await Promise.all(Array.from({ length: count }, () => spawnBot(base, { readyTimeoutMs: 40_000 })));
  const instances = bots.map((bot, i) => instance(`bot${i + 1}`, bot));
  // Healthy is not ready: wait until each has applied migrations and serves.
  await Promise.all(instances.map((inst) => waitFor(`${inst.name} ready`, async () => (await inst.readyz()).status === 200, { within: 30_000, every: 50 })));
  return instances;
}

export function instance(name: string, bot: SpawnedBot): Instance {
  const origin = `http://127.0.0.1:${bot.port}`;
  return {
    name,
    bot,
    eventsUrl: bot.eventsUrl,
    command: (text, opts) => bot.command(text, opts),
    interact: (payload) => bot.interact(payload),
    async readyz() {
      const res = await request(`${origin}/readyz`, { headersTimeout: 2000, bodyTimeout: 2000 });
      const text = await res.body.text();
      return { status: res.statusCode, body: text ? (JSON.parse(text) as { status?: string; store?: string }) : {} };
    },
    async metrics() {
      const res = await request(`${origin}/metrics`, { headersTimeout: 2000, bodyTimeout: 2000 });
      return res.body.text();
    },
  };
}
