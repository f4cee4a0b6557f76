import { writeFileSync } from 'node:fs';
import { cpus, platform, totalmem } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { launchTarget, TARGET_NAMES, type TargetName } from './launch-targets';
import { parseBenchArgs } from './profile';
import {
  appHomeLines,
  appHomeTargets,
  approvalClicksLines,
  approvalClicksTargets,
  checkTargets,
  cloudClientLines,
  cloudClientTargets,
  closedLoopLines,
  closedLoopTarget,
  type ClosedLoopSection,
  exportsLines,
  exportsTargets,
  followLines,
  followTargets,
  onCallLines,
  onCallTargets,
  formatReport,
  hostileLines,
  hostileTarget,
  slowClientLines,
  slowClientTarget,
  shownName,
  stepsLines,
  stepsTargets,
  unfurlsLines,
  unfurlsTarget,
  serverCardLines,
  serverCardTargets,
  namesLines,
  watchLines,
  agentsLines,
  agentsTargets,
  watchTargets,
  namesTargets,
  firewallLines,
  firewallPreviewTargets,
  panelChangesTargets,
} from './report';
import type { BenchResults, TargetCheck } from './results';
import { runAppHome } from './scenarios/app-home';
import { runExports } from './scenarios/exports';
import { runFollow } from './scenarios/follow';
import { runOnCall } from './scenarios/on-call';
import { runApprovalClicks } from './scenarios/approval-clicks';
import { runClosedLoop, type ClosedLoopFigures } from './scenarios/closed-loop';
import { runLocalMode } from './scenarios/local-mode';
import { runCloudClient } from './scenarios/cloud-client';
import { runHostileTraffic } from './scenarios/hostile-traffic';
import { runSlowClient } from './scenarios/slow-client';
import { measureNpmStart, runSustained } from './scenarios/memory-and-startup';
import { runOpenLoop } from './scenarios/open-loop';
import { runRender } from './scenarios/render';
import { runSeveralInstances } from './scenarios/several-instances';
import { runSingleFlight } from './scenarios/single-flight';
import { runSteps } from './scenarios/steps';
import { runTracing, tracingLines, tracingTargets } from './scenarios/tracing';
import { runUnfurls } from './scenarios/unfurls';
import { runServerCard } from './scenarios/server-card';
import { runNames } from './scenarios/names';
import { runWatch } from './scenarios/watch';
import { runAgents } from './scenarios/agents';
import { runFirewall } from './scenarios/firewall';
import { megabytes, round } from './stats';
import { REPO_ROOT, type TargetProcess } from './target-process';
import { startWorld } from './world';
import { startPostgresServer, type PostgresServer } from '../test/helpers/postgres';

// `npm run bench` (add `--smoke` for the few-second run CI uses,
// `--sustain-seconds N` to change the sustained minute, `--out FILE` for the
// JSON, `--cpu-profile` for a V8 profile of the bot in bench/profiles/,
// `--only closed-loop|hostile-traffic|slow-client|app-home|unfurls|steps|approval-clicks|cloud-client|exports|follow|server-card|names|on-call|watch`
// for scenario 2, 8, 17, 10, 11, 12, 13, 4, 14, 15, 16, 20, 19 or 23 alone; `--only tracing [--baseline <git ref>]` for the
// tracing scenario, which runs only alone; `--only firewall` for scenarios 21 and 22; `--only agents` for scenario 24,
// agents over MCP).
// Micro figures first, while nothing else runs; then the bot and the
// baselines as processes of their own; the closed loop last, since it
// overloads each server on purpose.

const progress = (message: string) => process.stderr.write(`[bench] ${message}\n`);

/** The PostgreSQL of scenarios 9, 10, 13, 14 and 15: VS_TEST_DATABASE_URL's, or one started with production's durability (fsync on). */
async function postgresServer(): Promise<{ url: string; server: PostgresServer | undefined }> {
  const given = process.env.VS_TEST_DATABASE_URL;
  if (given) return { url: given, server: undefined };
  const server = await startPostgresServer({ durable: true });
  return { url: server.url, server };
}

const oursOverMinimal = (ours: ClosedLoopFigures, minimal: ClosedLoopFigures) =>
  round(minimal.completedPerSecond > 0 ? ours.completedPerSecond / minimal.completedPerSecond : 0, 2);

/** `--only <scenario>`: that scenario alone; its lines and its target on stdout. */
async function runAlone(args: ReturnType<typeof parseBenchArgs>): Promise<void> {
  const lines =
    args.only === 'app-home' || args.only === 'approval-clicks' || args.only === 'exports' || args.only === 'follow' || args.only === 'on-call'
      ? await onPostgresAlone(args)
      : args.only === 'closed-loop'
        ? await closedLoopAlone(args)
        : args.only === 'tracing'
          ? await tracingAlone(args)
          : args.only === 'cloud-client'
            ? await cloudClientAlone(args)
            : args.only === 'watch'
              ? await watchAlone(args)
              : args.only === 'agents'
                ? await agentsAlone(args)
                : args.only === 'firewall'
                  ? await firewallAlone(args)
                  : await againstBotAlone(args);
  process.stdout.write(lines.join('\n') + '\n');
}

const targetLine = (target: TargetCheck) => `  ${target.pass ? 'PASS' : 'MISS'}  ${target.target}: ${target.figure}`;

/** Scenario 23 alone: the watch's poll in this process, then a bot of its own reading the account. */
async function watchAlone(args: ReturnType<typeof parseBenchArgs>): Promise<string[]> {
  const world = await startWorld();
  try {
    const figures = await runWatch(world, args.profile.watch, progress);
    return [...watchLines(figures), '', ...watchTargets(figures).map(targetLine)];
  } finally {
    await world.close();
  }
}

/** Scenario 4 alone: the cloud client against the sandbox, no bot. */
async function cloudClientAlone(args: ReturnType<typeof parseBenchArgs>): Promise<string[]> {
  const world = await startWorld();
  try {
    progress('4. cloud client alone');
    const figures = await runCloudClient(world, args.profile.micro);
    return [...cloudClientLines(figures), '', ...cloudClientTargets(figures).map(targetLine)];
  } finally {
    await world.close();
  }
}

/** Scenario 24 alone: agents over MCP, against a bot of its own. */
async function agentsAlone(args: ReturnType<typeof parseBenchArgs>): Promise<string[]> {
  const world = await startWorld();
  try {
    const figures = await runAgents(world, args.profile.agents, progress, { cpuProfile: args.cpuProfile });
    return [...agentsLines(figures), '', ...agentsTargets(figures).map(targetLine)];
  } finally {
    await world.close();
  }
}

/** Scenarios 21 and 22 alone: the firewall form's preview, and the control panel's changes beside power reboot. */
async function firewallAlone(args: ReturnType<typeof parseBenchArgs>): Promise<string[]> {
  const figures = await runFirewall(args.profile.firewall, progress);
  return [
    ...firewallLines(figures.firewallPreview, figures.panelChanges),
    '',
    ...[...firewallPreviewTargets(figures.firewallPreview), ...panelChangesTargets(figures.panelChanges)].map(targetLine),
  ];
}

/** Scenario 10, 13, 14 or 15 alone, on a PostgreSQL of its own. */
async function onPostgresAlone(args: ReturnType<typeof parseBenchArgs>): Promise<string[]> {
  const pg = await postgresServer();
  try {
    if (args.only === 'follow') {
      const figures = await runFollow(pg.url, args.profile.follow, progress);
      return [...followLines(figures), '', ...followTargets(figures).map(targetLine)];
    }
    if (args.only === 'on-call') {
      const figures = await runOnCall(pg.url, args.profile.onCall, progress);
      return [...onCallLines(figures), '', ...onCallTargets(figures).map(targetLine)];
    }
    if (args.only === 'exports') {
      const figures = await runExports(pg.url, args.profile.exports, progress);
      return [...exportsLines(figures), '', ...exportsTargets(figures).map(targetLine)];
    }
    if (args.only === 'approval-clicks') {
      const figures = await runApprovalClicks(pg.url, args.profile.approvalClicks, progress);
      return [...approvalClicksLines(figures), '', ...approvalClicksTargets(figures).map(targetLine)];
    }
    const figures = await runAppHome(pg.url, args.profile.appHome, progress);
    return [...appHomeLines(figures), '', ...appHomeTargets(figures).map(targetLine)];
  } finally {
    await pg.server?.close();
  }
}

/**
 * Scenario 2 alone, for vs-chatops and the baseline its target names (minimal same-work), both started together and
 * warmed up, in `--rounds` rounds (3 by default): each round runs both, one after the other, the first one
 * alternating, so that a busy spell of the shared machine does not always hit the same server. Each round's ratio,
 * and their median.
 */
async function closedLoopAlone(args: ReturnType<typeof parseBenchArgs>): Promise<string[]> {
  const { profile } = args;
  const world = await startWorld();
  const running: TargetProcess[] = [];
  try {
    running.push(...(await Promise.all((['minimal-same-work', 'ours'] as const).map((name) => launchTarget(name, world, { cpuProfile: args.cpuProfile })))));
    const [minimal, ours] = running as [TargetProcess, TargetProcess];
    // A few seconds of each first, unmeasured: a server just started answers its first thousands of commands slower
    // (more so the one with more code to compile), and in the full run both have served other scenarios before.
    progress('2. closed loop: warming both servers up');
    for (const target of [minimal, ours]) await runClosedLoop(world, target, { ...profile.closedLoop, warmupSeconds: 0, seconds: 3 }, true);
    const lines: string[] = [];
    const ratios: number[] = [];
    for (let round = 1; round <= args.rounds; round++) {
      const figures = new Map<TargetProcess, ClosedLoopFigures>();
      for (const target of round % 2 === 1 ? [minimal, ours] : [ours, minimal]) {
        progress(`2. closed loop, round ${round} of ${args.rounds}, ${profile.closedLoop.connections} connections: ${shownName(target.name)}`);
        figures.set(target, await runClosedLoop(world, target, profile.closedLoop, true));
      }
      const [minimalFigures, oursFigures] = [figures.get(minimal), figures.get(ours)] as [ClosedLoopFigures, ClosedLoopFigures];
      const section: ClosedLoopSection = {
        connections: profile.closedLoop.connections,
        seconds: profile.closedLoop.seconds,
        targets: { 'minimal-same-work': minimalFigures, ours: oursFigures },
        oursOverMinimal: oursOverMinimal(oursFigures, minimalFigures),
      };
      ratios.push(section.oursOverMinimal);
      lines.push(`round ${round}: ${round % 2 === 1 ? 'minimal same-work first' : 'vs-chatops first'}`, ...closedLoopLines(section), '');
    }
    const sorted = [...ratios].sort((a, b) => a - b);
    const median = sorted[Math.floor((sorted.length - 1) / 2)] ?? 0;
    const summary: ClosedLoopSection = {
      connections: profile.closedLoop.connections,
      seconds: profile.closedLoop.seconds,
      targets: {},
      oursOverMinimal: median,
    };
    lines.push(`vs-chatops / minimal same-work per round: ${ratios.join(', ')} (median ${median} ×)`, '', targetLine(closedLoopTarget(summary)));
    return lines;
  } finally {
    await Promise.all(running.map((target) => target.stop()));
    await world.close();
  }
}

/** Scenario 17: the closed loop with traces unset and on (and a baseline commit's bot), in `--rounds` rounds. */
async function tracingAlone(args: ReturnType<typeof parseBenchArgs>): Promise<string[]> {
  const world = await startWorld();
  try {
    const figures = await runTracing(world, args.profile.closedLoop, { rounds: args.rounds, baselineRef: args.baseline }, progress);
    return [...tracingLines(figures), '', ...tracingTargets(figures).map(targetLine)];
  } finally {
    await world.close();
  }
}

/** Scenario 8, 11, 12, 16 or 20 alone, against vs-chatops alone. */
async function againstBotAlone(args: ReturnType<typeof parseBenchArgs>): Promise<string[]> {
  const { profile } = args;
  const world = await startWorld();
  let bot: TargetProcess | undefined;
  try {
    bot = await launchTarget('ours', world, { cpuProfile: args.cpuProfile });
    if (args.only === 'steps') {
      progress(`12. workflow read steps, ${profile.steps.rate}/s for ${profile.steps.seconds} s`);
      // A few first, unmeasured: a bot just started answers its first requests slower.
      await runSteps(world, bot, { rate: 10, seconds: 1, upstreamDelayMs: 0 });
      const figures = await runSteps(world, bot, profile.steps);
      return [...stepsLines(figures), '', ...stepsTargets(figures).map(targetLine)];
    }
    if (args.only === 'server-card') {
      progress(`16. /vs server, ${profile.serverCard.commands} cards, then ${profile.serverCard.sameServer} identical at once`);
      // A few first, unmeasured: a bot just started answers its first requests slower.
      await runServerCard(world, bot, { commands: 4, connections: 2, sameServer: 2, upstreamDelayMs: 0 });
      const figures = await runServerCard(world, bot, profile.serverCard);
      return [...serverCardLines(figures), '', ...serverCardTargets(figures).map(targetLine)];
    }
    if (args.only === 'names') {
      progress(`20. servers by name: ${profile.names.coldLookups} names on a cold index, then by name and by id side by side`);
      const figures = await runNames(world, bot, profile.names);
      return [...namesLines(figures), '', ...namesTargets(figures).map(targetLine)];
    }
    if (args.only === 'unfurls') {
      progress(`11. ${profile.unfurls.unfurls} unfurls of one link at once`);
      // A few first, unmeasured: a bot just started answers its first requests slower (as in the full run, where it has served scenario 3).
      await runUnfurls(world, bot, { unfurls: 5, upstreamDelayMs: 0 });
      const figures = await runUnfurls(world, bot, profile.unfurls);
      return [...unfurlsLines(figures), '', targetLine(unfurlsTarget(figures))];
    }
    // As in the full run: scenario 1's open loop first (the bot warmed, and its figures to compare with).
    progress(`1. open loop, ${profile.openLoop.rate}/s for ${profile.openLoop.seconds} s`);
    const openLoop = await runOpenLoop(world, bot, profile.openLoop);
    if (args.only === 'slow-client') {
      progress(`17. one client holding ${profile.slowClient.connections} slow connections, beside the open loop`);
      const figures = await runSlowClient(world, bot, profile.openLoop, profile.slowClient);
      return [
        `1. open loop alone just before: ack p50 / p99 ${openLoop.ackP50Ms} / ${openLoop.ackP99Ms} ms`,
        '',
        ...slowClientLines(figures),
        '',
        targetLine(slowClientTarget(figures)),
      ];
    }
    progress(`8. hostile unsigned traffic, ${profile.hostile.rate}/s, and ${profile.hostile.stalledConnections} stalled bodies, beside the open loop`);
    const figures = await runHostileTraffic(world, bot, profile.openLoop, profile.hostile);
    return [
      `1. open loop alone just before: ack p50 / p99 ${openLoop.ackP50Ms} / ${openLoop.ackP99Ms} ms`,
      '',
      ...hostileLines(figures),
      '',
      targetLine(hostileTarget(figures)),
    ];
  } finally {
    await bot?.stop();
    await world.close();
  }
}

async function main(): Promise<void> {
  const args = parseBenchArgs(process.argv.slice(2));
  if (args.only) return runAlone(args);
  const profile = args.profile;
  const startedAt = new Date();
  const started = performance.now();
  const world = await startWorld();
  const running = new Map<TargetName, TargetProcess>();
  let pg: PostgresServer | undefined;

  try {
    progress('5. rendering one page of 300 and of 10,000 rules');
    const render = await runRender(world, profile.micro);
    progress('4. the cloud client alone against raw undici');
    const cloudClient = await runCloudClient(world, profile.micro);
    progress('6. npm start to a ready /readyz');
    const startup = await measureNpmStart(world);
    progress(`7. local mode: npm start to the page usable, ${profile.localMode.commands} commands typed on the page`);
    const localMode = await runLocalMode(world, profile.localMode);
    const postgres = await postgresServer();
    pg = postgres.server;
    progress('9. several instances on PostgreSQL: the change path, a duplicate storm, the open loop over three');
    const severalInstances = await runSeveralInstances(profile.severalInstances, progress, postgres.url);
    const appHome = await runAppHome(postgres.url, profile.appHome, progress);
    const approvalClicks = await runApprovalClicks(postgres.url, profile.approvalClicks, progress);
    const exports = await runExports(postgres.url, profile.exports, progress);
    const follow = await runFollow(postgres.url, profile.follow, progress);
    const onCall = await runOnCall(postgres.url, profile.onCall, progress);
    await pg?.close();
    pg = undefined;
    const watch = await runWatch(world, profile.watch, progress);
    const firewall = await runFirewall(profile.firewall, progress);

    progress(`starting ${TARGET_NAMES.map(shownName).join(', ')}`);
    const launched = await Promise.all(TARGET_NAMES.map((name) => launchTarget(name, world, { cpuProfile: args.cpuProfile })));
    launched.forEach((target, i) => running.set(TARGET_NAMES[i] as TargetName, target));
    const bot = running.get('ours') as TargetProcess;
    const botRssAfterStart = bot.rssBytes();

    progress(`3. ${profile.singleFlight.commands} identical concurrent commands`);
    const singleFlight = await runSingleFlight(world, bot, profile.singleFlight);
    progress(`11. ${profile.unfurls.unfurls} unfurls of one link at once`);
    const unfurls = await runUnfurls(world, bot, profile.unfurls);
    progress(`16. /vs server, ${profile.serverCard.commands} cards, then ${profile.serverCard.sameServer} identical at once`);
    const serverCard = await runServerCard(world, bot, profile.serverCard);
    progress(`20. servers by name: ${profile.names.coldLookups} names on a cold index, then by name and by id side by side`);
    const names = await runNames(world, bot, profile.names);
    progress(`12. workflow read steps, ${profile.steps.rate}/s for ${profile.steps.seconds} s`);
    const steps = await runSteps(world, bot, profile.steps);
    progress(`1. open loop, ${profile.openLoop.rate}/s for ${profile.openLoop.seconds} s`);
    const openLoop = await runOpenLoop(world, bot, profile.openLoop);
    const peakRssOpenLoop = bot.peakRssBytes();
    progress(`8. hostile unsigned traffic, ${profile.hostile.rate}/s, beside the open loop of scenario 1`);
    const hostileTraffic = await runHostileTraffic(world, bot, profile.openLoop, profile.hostile);
    progress(`17. one client holding ${profile.slowClient.connections} slow connections, beside the open loop of scenario 1`);
    const slowClient = await runSlowClient(world, bot, profile.openLoop, profile.slowClient);
    progress(`6. sustained load for ${profile.sustained.seconds} s`);
    const sustained = await runSustained(world, bot, profile.sustained);
    // Scenario 21 on a bot of its own (VS_MCP on), beside the one measured so far.
    const agents = await runAgents(world, profile.agents, progress, { cpuProfile: args.cpuProfile });

    const closedTargets = {} as Record<TargetName, ClosedLoopFigures>;
    for (const name of TARGET_NAMES) {
      progress(`2. closed loop, ${profile.closedLoop.connections} connections: ${shownName(name)}`);
      const target = running.get(name) as TargetProcess;
      closedTargets[name] = await runClosedLoop(world, target, profile.closedLoop, name === 'minimal-same-work' || name === 'ours');
      // Work still queued in a server must not slow the next one down.
      if (name !== 'ours') {
        await target.stop();
        running.delete(name);
      }
    }
    const peakRss = bot.peakRssBytes();

    const scenarios: BenchResults['scenarios'] = {
      openLoop,
      closedLoop: {
        connections: profile.closedLoop.connections,
        seconds: profile.closedLoop.seconds,
        targets: closedTargets,
        oursOverMinimal: oursOverMinimal(closedTargets.ours, closedTargets['minimal-same-work']),
      },
      singleFlight,
      cloudClient,
      render,
      memoryAndStartup: {
        ...startup,
        botRssAfterStartMb: megabytes(botRssAfterStart),
        peakRssOpenLoopMb: megabytes(peakRssOpenLoop),
        peakRssMb: megabytes(peakRss),
        sustained,
      },
      localMode,
      severalInstances,
      hostileTraffic,
      slowClient,
      appHome,
      unfurls,
      serverCard,
      names,
      approvalClicks,
      steps,
      exports,
      follow,
      onCall,
      watch,
      agents,
      firewallPreview: firewall.firewallPreview,
      panelChanges: firewall.panelChanges,
    };
    const cpu = cpus();
    const results: BenchResults = {
      mode: profile.mode,
      startedAt: startedAt.toISOString(),
      wallSeconds: round((performance.now() - started) / 1000, 0),
      machine: {
        cpus: cpu.length,
        cpuModel: cpu[0]?.model.trim() ?? 'unknown',
        node: process.version,
        platform: platform(),
        totalMemoryMb: megabytes(totalmem()),
      },
      scenarios,
      targets: checkTargets(scenarios),
    };
    const out = args.out ?? join(REPO_ROOT, 'bench', 'results.json');
    writeFileSync(out, JSON.stringify(results, null, 2) + '\n');
    process.stdout.write(formatReport(results) + '\n');
    progress(`figures written to ${out}`);
  } finally {
    await Promise.all([...running.values()].map((target) => target.stop()));
    await world.close();
    await pg?.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
