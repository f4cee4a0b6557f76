import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BOT_NODE_FLAGS, launchTarget } from '../launch-targets';
import type { BenchProfile } from '../profile';
import { BENCH_BOT_TOKEN, BENCH_SIGNING_SECRET } from '../signed-commands';
import { median, round } from '../stats';
import { freePort, REPO_ROOT, spawnTarget, type TargetProcess } from '../target-process';
import type { BenchWorld } from '../world';
import { runClosedLoop, type ClosedLoopFigures } from './closed-loop';

// Scenario 18: what traces cost, in scenario 2's closed loop (/vs firewall, loop closed on the message): vs-chatops
// with OTEL_EXPORTER_OTLP_ENDPOINT unset, and set to an OTLP/HTTP receiver on loopback in the bench process (protobuf,
// the default; every trace kept, batches as the defaults send them), run in rounds, the first one alternating. With
// `--baseline <git ref>`, the bot of that commit too (its src/ taken out of git, on this tree's node_modules): what
// the unset path costs against a tree without tracing.

export interface TracingRound {
  unset: ClosedLoopFigures;
  traced: ClosedLoopFigures;
  baseline?: ClosedLoopFigures;
}

export interface TracingFigures {
  connections: number;
  seconds: number;
  baselineRef: string | undefined;
  rounds: TracingRound[];
  /** Per round: traced / unset, commands completed per second. */
  tracedOverUnset: number[];
  /** Per round: unset / baseline (with a baseline). */
  unsetOverBaseline: number[];
  /** What the receiver took while the traced bot ran: export requests, and megabytes of spans. */
  exportsReceived: number;
  megabytesReceived: number;
}

/** An OTLP/HTTP receiver that only counts: a collector that keeps up, whatever it does with the spans. */
async function startOtlpSink(): Promise<{ url: string; exports: () => number; bytes: () => number; close: () => Promise<void> }> {
  let exports = 0;
  let bytes = 0;
  const server = createServer((req, res) => {
    req.on('data', (chunk: Buffer) => (bytes += chunk.length));
    req.on('end', () => {
      exports++;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' });
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exports: () => exports,
    bytes: () => bytes,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The bot of `ref`: its src/ and package.json out of git into a folder of its own, run with this tree's node_modules. */
async function launchBaseline(world: BenchWorld, ref: string): Promise<{ target: TargetProcess; remove: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), 'vs-chatops-baseline-'));
  const archive = execFileSync('git', ['-C', REPO_ROOT, 'archive', '--format=tar', ref, 'src', 'package.json'], { maxBuffer: 512 * 1024 * 1024 });
  execFileSync('tar', ['-x', '-C', dir], { input: archive });
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'));
  const port = await freePort();
  const target = await spawnTarget({
    name: `baseline-${ref}`,
    command: process.execPath,
    args: [...BOT_NODE_FLAGS, '--import', 'tsx', join(dir, 'src', 'main.ts')],
    env: {
      SLACK_BOT_TOKEN: BENCH_BOT_TOKEN,
      SLACK_SIGNING_SECRET: BENCH_SIGNING_SECRET,
      SLACK_API_URL: world.slack.apiUrl,
      PORT: String(port),
      VS_DB_PATH: join(world.scratchDir, 'baseline.sqlite'),
      LOG_LEVEL: 'info',
      VS_READS_PER_USER_PER_MINUTE: '1000000',
      VS_API_URL: world.sandbox.url,
      VS_ACCOUNT_ID: world.sandbox.accountId,
      VS_API_KEY: world.sandbox.apiKey,
    },
    port,
    readyPath: '/readyz',
  });
  return { target, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export async function runTracing(
  world: BenchWorld,
  load: BenchProfile['closedLoop'],
  options: { rounds: number; baselineRef?: string },
  progress: (message: string) => void,
): Promise<TracingFigures> {
  const sink = await startOtlpSink();
  const running: TargetProcess[] = [];
  let removeBaseline = () => undefined as void;
  try {
    const unset = { ...(await launchTarget('ours', world)), name: 'traces-unset' };
    running.push(unset);
    const traced = { ...(await launchTarget('ours', world, { env: { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url } })), name: 'traces-on' };
    running.push(traced);
    let baseline: TargetProcess | undefined;
    if (options.baselineRef) {
      const launched = await launchBaseline(world, options.baselineRef);
      baseline = launched.target;
      removeBaseline = launched.remove;
      running.push(baseline);
    }
    const targets = [unset, traced, ...(baseline ? [baseline] : [])];
    progress('18. traces: warming every server up');
    for (const target of targets) await runClosedLoop(world, target, { ...load, warmupSeconds: 0, seconds: 3 }, true);

    const rounds: TracingRound[] = [];
    let exportsBefore = 0;
    let bytesBefore = 0;
    let exports = 0;
    let bytes = 0;
    for (let round = 1; round <= options.rounds; round++) {
      const order = round % 2 === 1 ? targets : [...targets].reverse();
      const figures = new Map<TargetProcess, ClosedLoopFigures>();
      for (const target of order) {
        progress(`18. traces, round ${round} of ${options.rounds}, ${load.connections} connections: ${target.name}`);
        if (target === traced) [exportsBefore, bytesBefore] = [sink.exports(), sink.bytes()];
        figures.set(target, await runClosedLoop(world, target, load, true));
        if (target === traced) [exports, bytes] = [exports + sink.exports() - exportsBefore, bytes + sink.bytes() - bytesBefore];
      }
      rounds.push({ unset: figures.get(unset)!, traced: figures.get(traced)!, ...(baseline ? { baseline: figures.get(baseline)! } : {}) });
    }
    const ratio = (a: ClosedLoopFigures, b: ClosedLoopFigures) => round(b.completedPerSecond > 0 ? a.completedPerSecond / b.completedPerSecond : 0, 2);
    return {
      connections: load.connections,
      seconds: load.seconds,
      baselineRef: options.baselineRef,
      rounds,
      tracedOverUnset: rounds.map((r) => ratio(r.traced, r.unset)),
      unsetOverBaseline: rounds.flatMap((r) => (r.baseline ? [ratio(r.unset, r.baseline)] : [])),
      exportsReceived: exports,
      megabytesReceived: round(bytes / (1024 * 1024), 1),
    };
  } finally {
    await Promise.all(running.map((target) => target.stop()));
    removeBaseline();
    await sink.close();
  }
}

/** The scenario's lines of the report. */
export function tracingLines(f: TracingFigures): string[] {
  const lines = [
    `18. traces in the closed loop: ${f.connections} connections, ${f.seconds} s per run, commands completed end to end per second ` +
      `(CPU ms: the bot's CPU time per command)`,
  ];
  f.rounds.forEach((r, i) => {
    const cell = (name: string, t: ClosedLoopFigures) => `${name} ${t.completedPerSecond}/s (p99 ${t.completedP99Ms} ms, CPU ${t.cpuMsPerCompleted} ms)`;
    const cells = [cell('unset', r.unset), cell('on', r.traced), ...(r.baseline ? [cell(`baseline ${f.baselineRef}`, r.baseline)] : [])];
    lines.push(`  round ${i + 1}: ${cells.join(' · ')}`);
  });
  lines.push(`  traces on / unset per round: ${f.tracedOverUnset.join(', ')} (median ${median(f.tracedOverUnset)} ×)`);
  // The bot's CPU time per command moves less with a busy machine than the rate does.
  const cpu = f.rounds.map((r) => round(r.unset.cpuMsPerCompleted > 0 ? r.traced.cpuMsPerCompleted / r.unset.cpuMsPerCompleted : 0, 2));
  lines.push(`  the bot's CPU per command, traces on / unset, per round: ${cpu.join(', ')} (median ${median(cpu)} ×)`);
  if (f.unsetOverBaseline.length > 0) lines.push(`  unset / baseline per round: ${f.unsetOverBaseline.join(', ')} (median ${median(f.unsetOverBaseline)} ×)`);
  lines.push(`  the receiver took ${f.exportsReceived} exports, ${f.megabytesReceived} MB of spans, while traces were on`);
  return lines;
}

export function tracingTargets(f: TracingFigures): { target: string; figure: string; pass: boolean }[] {
  const onOverUnset = median(f.tracedOverUnset);
  const targets = [{ target: 'closed loop: traces on ≥ 0.85 × traces unset', figure: `${onOverUnset} ×`, pass: onOverUnset >= 0.85 }];
  if (f.unsetOverBaseline.length > 0) {
    const unsetOverBaseline = median(f.unsetOverBaseline);
    targets.push({
      target: `closed loop: traces unset ≥ 0.98 × the tree without them (${f.baselineRef})`,
      figure: `${unsetOverBaseline} ×`,
      pass: unsetOverBaseline >= 0.98,
    });
  }
  return targets;
}
