import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startInstances, type Instance } from '../test/helpers/cluster';
import { startPostgresServer, type PostgresServer } from '../test/helpers/postgres';
import { startProcessHarness } from '../test/helpers/process-harness';
import { launchTarget } from './launch-targets';
import { parseBenchArgs } from './profile';
import { runClosedLoop, type ClosedLoopFigures } from './scenarios/closed-loop';
import { runOpenLoop, type OpenLoopFigures } from './scenarios/open-loop';
import { openLoopOverInstances, type OpenLoopOverInstancesFigures } from './scenarios/several-instances';
import { round } from './stats';
import { procCpuSeconds, REPO_ROOT } from './target-process';
import { startWorld } from './world';

// The read path alone (`node --max-semi-space-size=32 --import tsx
// bench/read-path.ts [--smoke] [--out FILE]`): what a change to it costs,
// without the whole benchmark. The bot on SQLite, then on PostgreSQL, each
// through scenario 1 (the open loop) and scenario 2 (the closed loop, the bot
// only); then scenario 9c, the open loop over three instances on PostgreSQL.
// Same loads as `npm run bench`; every read passes the per-user limit (set
// far above the load), so what is measured is the limit's cost, not refusals.

interface ReadPathFigures {
  store: 'sqlite' | 'postgres';
  /** The bot's CPU time per command of the open loop (user + system, ms): what a read costs it, however busy the machine. */
  openLoop: OpenLoopFigures & { botCpuMsPerCommand: number };
  closedLoop: ClosedLoopFigures;
}

const cpuMsPer = (seconds: number, commands: number) => round(commands > 0 ? (seconds * 1000) / commands : 0, 3);

const progress = (message: string) => process.stderr.write(`[read-path] ${message}\n`);

async function main(): Promise<void> {
  const args = parseBenchArgs(process.argv.slice(2));
  const profile = args.profile;
  const world = await startWorld();
  let pg: PostgresServer | undefined;
  let bots: Instance[] = [];
  const closers: (() => Promise<unknown>)[] = [];
  try {
    pg = await startPostgresServer({ durable: true });
    const single: ReadPathFigures[] = [];
    for (const store of ['sqlite', 'postgres'] as const) {
      progress(`the bot on ${store}`);
      const bot = await launchTarget('ours', world, { env: store === 'postgres' ? { DATABASE_URL: pg.url } : {} });
      try {
        progress(`1. open loop, ${profile.openLoop.rate}/s for ${profile.openLoop.seconds} s`);
        const cpuBefore = bot.cpuSeconds();
        const open = await runOpenLoop(world, bot, profile.openLoop, `open-${store}`);
        const openLoop = { ...open, botCpuMsPerCommand: cpuMsPer(bot.cpuSeconds() - cpuBefore, open.commandsAcked) };
        progress(`2. closed loop, ${profile.closedLoop.connections} connections`);
        const closedLoop = await runClosedLoop(world, bot, profile.closedLoop, true);
        single.push({ store, openLoop, closedLoop });
      } finally {
        await bot.stop();
      }
    }

    progress(`9c. open loop over three instances on PostgreSQL, ${profile.severalInstances.rate}/s for ${profile.severalInstances.seconds} s`);
    const parts = await startProcessHarness({ behindFaults: true });
    closers.push(() => parts.close());
    bots = await startInstances(3, {
      ...parts.env(),
      DATABASE_URL: pg.url,
      LOG_LEVEL: 'warn',
      VS_READS_PER_USER_PER_MINUTE: '1000000',
    });
    const cpu = () => bots.reduce((sum, b) => sum + procCpuSeconds(b.bot.child.pid!), 0);
    const cpuBefore = cpu();
    const three: OpenLoopOverInstancesFigures = await openLoopOverInstances(bots, parts.slack, profile.severalInstances);
    const threeInstances = { ...three, botCpuMsPerCommand: cpuMsPer(cpu() - cpuBefore, three.acked) };

    const results = { mode: profile.mode, startedAt: new Date().toISOString(), single, threeInstances };
    const out = args.out ?? join(REPO_ROOT, 'bench', 'read-path.json');
    writeFileSync(out, JSON.stringify(results, null, 2) + '\n');
    const rows = single.map(
      ({ store, openLoop: o, closedLoop: c }) =>
        `${store.padEnd(9)} open loop ack p50/p99 ${o.ackP50Ms}/${o.ackP99Ms} ms, bot CPU ${o.botCpuMsPerCommand} ms/command, ` +
        `message p50/p99 ${o.messageP50Ms}/${o.messageP99Ms} ms, ` +
        `${o.missingMessages} missing, ${o.errorMessages} errors | closed loop ${c.completedPerSecond}/s (p99 ${c.completedP99Ms} ms), ` +
        `acks ${c.ackPerSecond}/s (p99 ${c.ackP99Ms} ms), ${c.failures} failures`,
    );
    const t = threeInstances;
    rows.push(
      `3 × postgres open loop ${t.rate}/s: ${t.acked} acked, ${t.non2xx} not 2xx, ack p50/p99 ${t.ackP50Ms}/${t.ackP99Ms} ms, ` +
        `bots' CPU ${t.botCpuMsPerCommand} ms/command`,
    );
    process.stdout.write(rows.join('\n') + '\n');
    progress(`figures written to ${out}`);
  } finally {
    await Promise.all(bots.map((b) => b.bot.kill('SIGTERM')));
    for (const close of closers) await close().catch(() => undefined);
    await pg?.close();
    await world.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`read-path bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
