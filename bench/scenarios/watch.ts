import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import { createCloudClient } from '../../src/cloud/client';
import { NAMES_PER_PAGE } from '../../src/cloud/names';
import { createLogger } from '../../src/log';
import { openSqliteStore } from '../../src/store/sqlite';
import type { Store } from '../../src/store';
import { createWatchPoll } from '../../src/watch/poll';
import { launchTarget } from '../launch-targets';
import { runLoad } from '../load';
import { signedCommands } from '../signed-commands';
import { startSlackEdge } from '../slack-edge';
import { percentile, round } from '../stats';
import type { TargetProcess } from '../target-process';
import type { BenchWorld } from '../world';

// Scenario 23: watches (docs/product.md, Watches: the bot speaks first), an account of the world's servers (5,000)
// with `watches` of them watched, spread over channels.
//   a. The watch's poll in this process, on its own SQLite store and the real cloud client, round after round, a
//      server of the watched ones powered off or on between rounds (so that each round has news to tell): per round,
//      the cloud requests it made (the sandbox's count: pages of the server list, pages of the account's
//      transactions), whatever the number of watches, and its time.
//   b. The bot as `npm start` runs it, reading the account every `intervalS`, the same watches in its store: its CPU
//      per interval (its process's, over `cpuRounds` intervals, asked nothing meanwhile) idle before the watches and
//      polling after; `changes` times a watched server powered off or on through the sandbox's control endpoint
//      (someone in the control panel, behind the bot's back), and the time from the change to its notification at Slack; meanwhile `/vs server web-1`
//      typed over and over beside it (command → card), compared with the same before any watch.

export interface WatchLoad {
  watches: number;
  /** Channels the watches are spread over. */
  channels: number;
  /** Rounds of (a) measured, after the baseline. */
  rounds: number;
  /** VS_WATCH_INTERVAL_S of the bot (b). */
  intervalS: number;
  /** Intervals of the bot's CPU measured, idle before its watches and then polling, nothing else asked of it (b). */
  cpuRounds: number;
  /** Changes timed to their notification (b). */
  changes: number;
  connections: number;
  /** `/vs server web-1` typed per burst (b, before and beside). */
  commandsPerBurst: number;
}

export interface WatchFigures {
  servers: number;
  watches: number;
  channels: number;
  rounds: number;
  /** One read of the list: its pages (a short page ends it). */
  pagesPerRead: number;
  /** Requests of a round: the most, and of them the list's and the transactions' pages (the most of each). */
  readsPerRoundMax: number;
  listPagesPerRoundMax: number;
  transactionPagesPerRoundMax: number;
  /**
   * The bot's CPU per interval (its process: user + system), idle before any watch, and polling with them; the poll's
   * own is the difference. (A round's CPU in the bench process would count the sandbox's rendering of the pages too.)
   */
  botIdleCpuPerIntervalMs: number;
  botPollingCpuPerIntervalMs: number;
  pollCpuPerIntervalMs: number;
  cpuRounds: number;
  roundP50Ms: number;
  roundMaxMs: number;
  /** Notices told by (a)'s rounds (one per change, to each channel watching it). */
  noticesTold: number;
  intervalS: number;
  changes: number;
  /** Changes whose notification reached Slack, and the time from the change to it. */
  notified: number;
  notifyP50Ms: number;
  notifyMaxMs: number;
  /** `/vs server web-1` command → card, before any watch and beside the watch's poll. */
  readAloneP99Ms: number;
  readBesideP99Ms: number;
  readBesideCards: number;
  readBesideCommands: number;
}

const quiet = createLogger({ level: 'error', write: () => undefined });
const LIST_PATH = /^\/virtual_machines\.(json|xml)/;
const TRANSACTIONS_PATH = /^\/transactions\.(json|xml)/;

/** The watched servers: `count` of the account's, spread over it, web-1 (VS 42) first. */
function watchedServers(world: BenchWorld, count: number): { id: number; label: string }[] {
  const all = world.sandbox.servers();
  const step = Math.max(1, Math.floor(all.length / count));
  const picked = new Map<number, { id: number; label: string }>();
  const web1 = all.find((s) => s.label === 'web-1');
  if (web1) picked.set(web1.id, web1);
  for (let i = 0; picked.size < Math.min(count, all.length); i = (i + step) % all.length) {
    const server = all[i]!;
    if (!picked.has(server.id)) picked.set(server.id, server);
    else if (step === 1 || picked.size >= all.length) break;
  }
  return [...picked.values()];
}

/** The watched servers a change can be made to: web-1 and the made-up copies of it (a seeded one may be locked or off). */
const changeableOf = (watched: readonly { id: number; label: string }[]) => watched.filter((s) => s.label === 'web-1' || s.label.startsWith('srv-'));

async function seedWatches(store: Store, servers: readonly { id: number }[], channels: number): Promise<void> {
  const at = Date.now();
  for (const [i, server] of servers.entries()) {
    const made = await store.watches.add(
      {
        channelId: `CBENCHWATCH${i % channels}`,
        serverId: server.id,
        events: ['power', 'lock', 'failures'],
        createdBy: 'UBENCH',
        createdAtMs: at,
        snoozedUntilMs: null,
      },
      servers.length,
    );
    if (made.outcome === 'full') throw new Error('the watch scenario could not seed its watches');
  }
}

/** Someone in the control panel: powers a server off or on, behind the bot's back (the sandbox's control endpoint). */
async function controlAct(world: BenchWorld, serverId: number, act: 'power_off' | 'power_on'): Promise<void> {
  const answer = await request(`${world.sandbox.url}/control/virtual_machines/${serverId}/${act}`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${world.sandbox.accountId}:${world.sandbox.apiKey}`).toString('base64')}` },
  });
  await answer.body.dump();
  if (answer.statusCode !== 200) throw new Error(`the control panel's ${act} of VS ${serverId} was refused (${answer.statusCode})`);
}

/** (a): the poll in this process. */
async function pollRounds(world: BenchWorld, load: WatchLoad, watched: readonly { id: number; label: string }[]) {
  const changeable = changeableOf(watched);
  const store = openSqliteStore(join(world.scratchDir, 'watch-poll.sqlite'));
  const cloud = createCloudClient({
    url: world.sandbox.url,
    accountId: world.sandbox.accountId,
    apiKey: world.sandbox.apiKey,
    format: 'json',
    timeoutMs: 10_000,
    maxConnections: 4,
    changeConnections: 1,
    connectionWaitMs: 5000,
  });
  let told = 0;
  try {
    await seedWatches(store, watched, load.channels);
    const poll = createWatchPoll({
      reads: { listServers: (page) => cloud.listServers(page), listAccountTransactions: (page) => cloud.listAccountTransactions(page) },
      store: { watches: store.watches, leases: store.leases },
      teller: { tell: () => Promise.resolve(true), summarize: () => Promise.resolve(true) },
      settings: { lockMs: 10 * 60_000, blindMs: 5 * 60_000, timeZone: 'UTC', leaseMs: 60_000, followedGraceMs: 10_000 },
      owner: 'bench',
      now: () => Date.now(),
      logger: quiet,
      onTold: () => void told++,
    });
    // The baseline (never told), then the rounds measured, each after a change to one watched server.
    if ((await poll.round()) !== 'polled') throw new Error('the watch poll did not poll');
    const reads: number[] = [];
    const listPages: number[] = [];
    const transactionPages: number[] = [];
    const wall: number[] = [];
    for (let i = 0; i < load.rounds; i++) {
      // Off, then on again, server after server: each round has one change to tell.
      const target = changeable[Math.floor(i / 2) % changeable.length]!;
      await controlAct(world, target.id, i % 2 === 0 ? 'power_off' : 'power_on');
      const logged = world.sandbox.requests.length;
      const counted = world.cloudRequests();
      const started = performance.now();
      await poll.round();
      wall.push(performance.now() - started);
      reads.push(world.cloudRequests() - counted);
      const made = world.sandbox.requests.slice(logged);
      listPages.push(made.filter((r) => LIST_PATH.test(r.path)).length);
      transactionPages.push(made.filter((r) => TRANSACTIONS_PATH.test(r.path)).length);
    }
    return { reads, listPages, transactionPages, wall, told };
  } finally {
    await cloud.close();
    await store.close();
  }
}

/** The bot's rounds of the watch's poll that read the cloud so far (vs_chatops_watch_poll_seconds). */
async function botRounds(bot: TargetProcess): Promise<number> {
  const answer = await request(`${bot.origin}/metrics`);
  const text = await answer.body.text();
  const count = /^vs_chatops_watch_poll_seconds_count(?:\{[^}]*\})? (\d+)/m.exec(text);
  return count ? Number(count[1]) : 0;
}

async function until<T>(what: string, find: () => Promise<T | undefined> | T | undefined, withinMs: number): Promise<T> {
  const deadline = performance.now() + withinMs;
  for (;;) {
    const found = await find();
    if (found !== undefined) return found;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** `/vs server web-1` in bursts until `stop()` says so (at least one burst): command → card latencies. */
async function readBursts(world: BenchWorld, bot: TargetProcess, load: WatchLoad, tag: string, stop: () => boolean) {
  const edge = await startSlackEdge(world.slack, bot.eventsUrl, { waitForMessage: true, timeoutMs: 10_000, connections: load.connections });
  const latencies: number[] = [];
  let cards = 0;
  let commands = 0;
  try {
    for (let burst = 0; burst === 0 || !stop(); burst++) {
      const typed = signedCommands({ tag: `${tag}-${burst}`, text: () => 'server web-1', responseUrl: world.slack.responseUrl });
      const run = await runLoad({ url: edge.url, connections: load.connections, amount: load.commandsPerBurst, requests: [typed.request] });
      latencies.push(...run.latenciesMs);
      cards += run.result['2xx'];
      commands += load.commandsPerBurst;
    }
  } finally {
    await edge.close();
  }
  return { latencies, cards, commands };
}

/** (b): the bot, its watches, changes behind its back, and reads beside. */
async function againstBot(world: BenchWorld, load: WatchLoad, watched: readonly { id: number; label: string }[]) {
  const changeable = changeableOf(watched);
  const bot = await launchTarget('ours', world, {
    env: {
      VS_DB_PATH: join(world.scratchDir, 'watch-bot.sqlite'),
      VS_WATCH_INTERVAL_S: String(load.intervalS),
      VS_WATCH_MAX_PER_CHANNEL: String(load.watches),
    },
  });
  try {
    // A few first, unmeasured: a bot just started answers its first requests slower.
    await readBursts(world, bot, { ...load, commandsPerBurst: Math.min(10, load.commandsPerBurst) }, 'watch-warm', () => true);
    const alone = await readBursts(world, bot, load, 'watch-alone', () => true);

    // The bot's CPU while it has nothing to do: as many intervals as are measured polling below.
    const idleFrom = bot.cpuSeconds();
    await new Promise((resolve) => setTimeout(resolve, load.cpuRounds * load.intervalS * 1000));
    const idleCpuMs = ((bot.cpuSeconds() - idleFrom) * 1000) / load.cpuRounds;

    const store = openSqliteStore(join(world.scratchDir, 'watch-bot.sqlite'));
    try {
      await seedWatches(store, watched, load.channels);
    } finally {
      await store.close();
    }
    // The baseline: the bot's first read with watches, never told.
    await until('the watch poll’s baseline', async () => ((await botRounds(bot)) >= 1 ? true : undefined), (load.intervalS + 10) * 1000);
    // Its CPU polling, nothing else asked of it: `cpuRounds` intervals from the end of a round, as long as the idle
    // window. Its metrics are asked for only at both ends: asking every 10 ms until the rounds were done (as this
    // scenario first did) cost the bot more CPU than its poll (a scrape of /metrics is about a millisecond).
    const first = await botRounds(bot);
    await until('a round of the watch poll', async () => ((await botRounds(bot)) > first ? true : undefined), (load.intervalS + 10) * 1000);
    const from = await botRounds(bot);
    const pollingFrom = bot.cpuSeconds();
    await new Promise((resolve) => setTimeout(resolve, load.cpuRounds * load.intervalS * 1000));
    const pollingCpuMs = ((bot.cpuSeconds() - pollingFrom) * 1000) / load.cpuRounds;
    const polled = (await botRounds(bot)) - from;
    if (polled < load.cpuRounds - 1) throw new Error(`the bot polled ${polled} times in ${load.cpuRounds} intervals`);

    let changing = true;
    const beside = readBursts(world, bot, load, 'watch-beside', () => !changing);
    const notifyMs: number[] = [];
    try {
      for (let i = 0; i < load.changes; i++) {
        const server = changeable[(i + 1) % changeable.length]!;
        const power = (await isOn(world, server.id)) ? 'power_off' : 'power_on';
        const before = world.slack.callsTo('chat.postMessage').length;
        const started = performance.now();
        await controlAct(world, server.id, power);
        const said = power === 'power_off' ? 'is off' : 'is on';
        await until(
          `the notification of ${server.label}`,
          () =>
            world.slack
              .callsTo('chat.postMessage')
              .slice(before)
              .find((c) => JSON.stringify(c.args).includes(`${server.label} (VS ${server.id})`) && JSON.stringify(c.args).includes(said)),
          (load.intervalS + 10) * 1000,
        );
        notifyMs.push(performance.now() - started);
      }
    } finally {
      changing = false;
    }
    const read = await beside;
    return { notifyMs, alone, read, idleCpuMs, pollingCpuMs };
  } finally {
    await bot.stop();
    world.slack.reset();
  }
}

async function isOn(world: BenchWorld, serverId: number): Promise<boolean> {
  const answer = await request(`${world.sandbox.url}/virtual_machines/${serverId}.json`, {
    headers: { authorization: `Basic ${Buffer.from(`${world.sandbox.accountId}:${world.sandbox.apiKey}`).toString('base64')}` },
  });
  const body = (await answer.body.json()) as { virtual_machine?: { booted?: boolean } };
  return body.virtual_machine?.booted === true;
}

export async function runWatch(world: BenchWorld, load: WatchLoad, progress: (message: string) => void): Promise<WatchFigures> {
  world.sandbox.reset();
  world.sandbox.setDelay(0);
  const watched = watchedServers(world, load.watches);
  progress(`23a. the watch's poll: ${watched.length} watches of ${world.servers} servers, ${load.rounds} rounds`);
  const a = await pollRounds(world, load, watched);
  world.sandbox.reset();
  progress(`23b. the bot reading the account every ${load.intervalS} s: ${load.changes} changes behind its back, /vs server web-1 beside`);
  const b = await againstBot(world, load, watched);
  world.sandbox.reset();
  return {
    servers: world.servers,
    watches: watched.length,
    channels: load.channels,
    rounds: load.rounds,
    // A short page ends a read: a list that fills its last page is read to an empty one after it.
    pagesPerRead: Math.floor(world.servers / NAMES_PER_PAGE) + 1,
    readsPerRoundMax: Math.max(...a.reads),
    listPagesPerRoundMax: Math.max(...a.listPages),
    transactionPagesPerRoundMax: Math.max(...a.transactionPages),
    botIdleCpuPerIntervalMs: round(b.idleCpuMs, 1),
    botPollingCpuPerIntervalMs: round(b.pollingCpuMs, 1),
    pollCpuPerIntervalMs: round(Math.max(0, b.pollingCpuMs - b.idleCpuMs), 1),
    cpuRounds: load.cpuRounds,
    roundP50Ms: round(percentile(a.wall, 50), 1),
    roundMaxMs: round(Math.max(...a.wall), 1),
    noticesTold: a.told,
    intervalS: load.intervalS,
    changes: load.changes,
    notified: b.notifyMs.length,
    notifyP50Ms: round(percentile(b.notifyMs, 50), 0),
    notifyMaxMs: round(Math.max(...b.notifyMs), 0),
    readAloneP99Ms: round(percentile(b.alone.latencies, 99), 2),
    readBesideP99Ms: round(percentile(b.read.latencies, 99), 2),
    readBesideCards: b.read.cards,
    readBesideCommands: b.read.commands,
  };
}
