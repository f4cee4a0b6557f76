import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchTarget } from './launch-targets';
import { runLoad } from './load';
import { firewallOfSeededServers, signedCommands } from './signed-commands';
import { startSlackEdge } from './slack-edge';
import { median, round } from './stats';
import { REPO_ROOT, type TargetProcess } from './target-process';
import { startWorld, type BenchWorld } from './world';

// What a `/vs firewall` command costs the bot, part by part, under scenario 2's
// closed loop (`node --max-semi-space-size=32 --import tsx bench/command-costs.ts`):
//
// - by default, one bot with a V8 CPU profile: each sample goes to the innermost
//   part of the bot it was taken in (logging, metrics, the limits, the request
//   guard, routing and listeners, the cloud client, Bolt, undici…), and each
//   part's time is divided by the commands served. Start-up is left out. The
//   profiler's clock is the wall's: on a busy machine every figure grows, the
//   shares less so.
// - `--without logging,metrics`: the bot as it is and the bot without those
//   parts, side by side in rounds (two fresh processes each, the order
//   alternating); the difference of their CPU time per command (from /proc) is
//   what the parts cost. Switched off for the run
//   only, from outside the product: LOG_LEVEL=warn (no line per request), and
//   bench/targets/without-metrics.ts preloaded (prom-client counts nothing).

const progress = (message: string) => process.stderr.write(`[command-costs] ${message}\n`);

const CONNECTIONS = 50;
const WARMUP_SECONDS = 3;

/** A test of our own files: src/ under tsx, dist/ compiled (never a library's own dist/). */
const ours =
  (pattern: RegExp) =>
  (u: string): boolean =>
    !u.includes('/node_modules/') && pattern.test(u);

/** The parts a sample is put in: the first whose test its innermost frame of ours (or of a library) passes, walking out. */
const PARTS: readonly [name: string, test: (url: string) => boolean][] = [
  ['logging (src/log.ts, pino)', (u) => ours(/\/(?:src|dist)\/log\.[jt]s/)(u) || /\/pino\/|\/sonic-boom\//.test(u)],
  ['metrics (prom-client)', (u) => /\/prom-client\//.test(u) || ours(/\/(?:src|dist)\/ops\/metrics\.[jt]s/)(u)],
  ['per-person limits', ours(/\/(?:src|dist)\/slack\/(user-limits|read-limit)\.[jt]s/)],
  ['delivery bookkeeping (retry filter, ack timer, in-flight)', ours(/\/(?:src|dist)\/(ops\/deliveries|slack\/in-flight)\.[jt]s/)],
  ['request guard (size, timestamp, signature, shape)', ours(/\/(?:src|dist)\/slack\/(request-guard|client-address)\.[jt]s/)],
  ['policy', ours(/\/(?:src|dist)\/changes\/policy\.[jt]s/)],
  ['cloud answers: decoding and validation (codec, zod)', (u) => ours(/\/(?:src|dist)\/cloud\/(codec|xml|schemas)\.[jt]s/)(u) || /\/zod\//.test(u)],
  ['cloud client (single-flight, transport)', ours(/\/(?:src|dist)\/cloud\//)],
  ['rendering (src/slack/blocks)', ours(/\/(?:src|dist)\/slack\/blocks\//)],
  ['routing, middleware, listeners, response_url post', ours(/\/(?:src|dist)\/slack\//)],
  ['store', (u) => /\/better-sqlite3\/|\/kysely\//.test(u) || ours(/\/(?:src|dist)\/store\//)(u)],
  ['other code of ours', ours(/\/(?:src|dist)\//)],
  ['HTTP client (undici)', (u) => /\/undici\//.test(u)],
  ['Bolt (receiver, processEvent, acks)', (u) => /\/@slack\/bolt\//.test(u)],
  ['start-up (module loading)', (u) => /\/tsx\/|node:internal\/modules\//.test(u)],
];

interface Profile {
  nodes: { id: number; callFrame: { functionName: string; url: string }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

/** Microseconds per command of each part, and of the rest (Node itself, GC): start-up and idle time left out. */
function attribute(profile: Profile, commands: number): Map<string, number> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const parts = new Map<number, string | null>();
  const partOf = (id: number): string | null => {
    const known = parts.get(id);
    if (known !== undefined) return known;
    const own = PARTS.find(([, test]) => test(byId.get(id)!.callFrame.url))?.[0];
    const up = parent.get(id);
    const part = own ?? (up === undefined ? null : partOf(up));
    parts.set(id, part);
    return part;
  };
  const totals = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const name = byId.get(id)!.callFrame.functionName;
    const part = name === '(idle)' ? '(idle)' : (partOf(id) ?? outside(name));
    totals.set(part, (totals.get(part) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  totals.delete('(idle)');
  totals.delete('start-up (module loading)');
  const perCommand = [...totals].map(([part, us]): [string, number] => [part, us / commands]);
  return new Map(perCommand.sort((a, b) => b[1] - a[1]));
}

/** A sample outside every part: the garbage collector, V8 itself, or Node's own work (sockets, timers, streams) called from no code of ours or of a library. */
function outside(functionName: string): string {
  if (functionName === '(garbage collector)') return 'garbage collection';
  if (functionName === '(program)') return 'V8 itself (compiling, the profiler)';
  return "Node's own work, called from its event loop";
}

/** `load.seconds` of the closed loop through the Slack edge: commands completed end to end, and the bot's CPU time meanwhile. */
async function closedLoop(world: BenchWorld, bot: TargetProcess, seconds: number, tag: string): Promise<{ commands: number; cpuMsPerCommand: number }> {
  world.sandbox.setDelay(0);
  const edge = await startSlackEdge(world.slack, bot.eventsUrl, { waitForMessage: true, timeoutMs: 10_000, connections: CONNECTIONS });
  try {
    const commands = signedCommands({ tag: `${bot.name}-${tag}`, text: firewallOfSeededServers, responseUrl: world.slack.responseUrl });
    const cpuBefore = bot.cpuSeconds();
    const { result } = await runLoad({ url: edge.url, connections: CONNECTIONS, duration: seconds, requests: [commands.request] });
    const done = result['2xx'];
    return { commands: done, cpuMsPerCommand: done > 0 ? ((bot.cpuSeconds() - cpuBefore) * 1000) / done : 0 };
  } finally {
    await edge.close();
    world.slack.reset();
  }
}

type Part = 'logging' | 'metrics';
const SWITCHABLE: readonly Part[] = ['logging', 'metrics'];

/** The bot with `without` switched off, from outside the product (see the top of this file). */
function launchWithout(world: BenchWorld, without: readonly Part[], options: { cpuProfileDir?: string; tsx?: boolean } = {}): Promise<TargetProcess> {
  const env: Record<string, string> = without.includes('logging') ? { LOG_LEVEL: 'warn' } : {};
  // The preload is TypeScript: tsx loads it (in both bots of a round, so that they differ by the parts alone).
  const nodeArgs = options.tsx ? ['--import', 'tsx'] : [];
  if (without.includes('metrics')) nodeArgs.push('--import', join(REPO_ROOT, 'bench', 'targets', 'without-metrics.ts'));
  if (options.cpuProfileDir) nodeArgs.push('--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`);
  return launchTarget('ours', world, { env, nodeArgs });
}

async function attributionRun(world: BenchWorld, seconds: number): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'vs-chatops-costs-'));
  let commands = 0;
  try {
    const bot = await launchWithout(world, [], { cpuProfileDir: dir });
    try {
      progress(`closed loop, ${CONNECTIONS} connections: ${WARMUP_SECONDS} s warm-up, then ${seconds} s`);
      commands += (await closedLoop(world, bot, WARMUP_SECONDS, 'warm')).commands;
      commands += (await closedLoop(world, bot, seconds, 'measured')).commands;
    } finally {
      await bot.stop();
    }
    // The main thread's profile (a worker's, if any, is the other file). The bot runs compiled (dist/), as npm start runs it.
    const file = readdirSync(dir).sort()[0];
    if (file === undefined) throw new Error('the bot wrote no CPU profile');
    const costs = attribute(JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile, commands);
    const total = [...costs.values()].reduce((sum, us) => sum + us, 0);
    return [
      `${commands} commands; the bot's profiled time per command: ${round(total, 0)} µs (start-up and idle time left out)`,
      ...[...costs].map(([part, us]) => `  ${String(round(us, 1)).padStart(7)} µs  ${String(round((100 * us) / total, 1)).padStart(5)} %  ${part}`),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function toggleRun(world: BenchWorld, without: readonly Part[], rounds: number, seconds: number): Promise<string[]> {
  const fullMs: number[] = [];
  const reducedMs: number[] = [];
  for (let r = 0; r < rounds; r++) {
    // Two fresh processes a round: one process runs a few percent faster than another of the same code, for as long as it lives.
    const tsx = without.includes('metrics');
    const [full, reduced] = await Promise.all([launchWithout(world, [], { tsx }), launchWithout(world, without, { tsx })]);
    try {
      for (const bot of [full, reduced]) await closedLoop(world, bot, WARMUP_SECONDS, `warm${r}`);
      for (const bot of r % 2 === 0 ? [full, reduced] : [reduced, full]) {
        const { cpuMsPerCommand } = await closedLoop(world, bot, seconds, `round${r}`);
        (bot === full ? fullMs : reducedMs).push(cpuMsPerCommand);
      }
    } finally {
      await Promise.all([full.stop(), reduced.stop()]);
    }
    progress(`round ${r + 1} of ${rounds}: ${round(fullMs[r]!, 3)} / ${round(reducedMs[r]!, 3)} ms of CPU per command`);
  }
  const saved = fullMs.map((ms, r) => (ms - reducedMs[r]!) * 1000);
  return [
    `the bot's CPU time per command, as it is / without ${without.join(', ')}, in ${rounds} rounds of ${seconds} s ` +
      '(fresh processes each round, order alternating):',
    ...fullMs.map((ms, r) => `  round ${r + 1}: ${round(ms, 3)} / ${round(reducedMs[r]!, 3)} ms (${round(saved[r]!, 1)} µs)`),
    `  median ${round(median(fullMs), 3)} / ${round(median(reducedMs), 3)} ms: ${without.join(', ')} cost ${round(median(saved), 1)} µs a command ` +
      `(${round(Math.min(...saved), 1)} to ${round(Math.max(...saved), 1)})`,
  ];
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const value = (flag: string) => {
    const at = argv.indexOf(flag);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  const seconds = Number(value('--seconds') ?? 8);
  const rounds = Number(value('--rounds') ?? 4);
  const without = (value('--without')?.split(',') ?? []) as Part[];
  const unknown = without.filter((part) => !SWITCHABLE.includes(part));
  if (unknown.length > 0) throw new Error(`--without takes ${SWITCHABLE.join(', ')}, got ${unknown.join(', ')}`);
  const world = await startWorld();
  try {
    const lines = without.length > 0 ? await toggleRun(world, without, rounds, seconds) : await attributionRun(world, seconds);
    process.stdout.write(lines.join('\n') + '\n');
  } finally {
    await world.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`command-costs failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
