import type { BenchProfile } from '../profile';
import { runLoad } from '../load';
import { firewallOfSeededServers, signedCommands } from '../signed-commands';
import { startSlackEdge } from '../slack-edge';
import { percentile, round } from '../stats';
import type { TargetProcess } from '../target-process';
import type { BenchWorld } from '../world';

// Scenario 2, twice per server, N connections sending back to back:
// - end to end: through the Slack edge, each connection's next command waits
//   for the previous one's message (the loop is closed on the message), so
//   the rate is commands completed end to end;
// - acks only: straight at the server, closed on the ack as Slack's own loop
//   is; the work after the ack may queue up, and is let drain before the
//   next server runs.

export interface ClosedLoopFigures {
  /** Commands whose message (or, for servers that post nothing, ack) came back, per second. */
  completedPerSecond: number;
  completedP50Ms: number;
  completedP99Ms: number;
  /** The server's CPU time (user + system) per command completed end to end, ms: what a command costs it, however busy the machine. */
  cpuMsPerCompleted: number;
  /**
   * The bench process's CPU time per command completed, ms: Slack's side (autocannon, the edge, the stand-in checking
   * each message's blocks) and the sandbox serving the rules. It shares the two cores with the server.
   */
  benchCpuMsPerCompleted: number;
  /** Cloud API calls per command completed: below 1 when overlapping commands share a call (single-flight). */
  cloudCallsPerCompleted: number;
  /** Acks per second, loop closed on the ack. */
  ackPerSecond: number;
  ackP99Ms: number;
  /** Not 2xx, error messages instead of summaries, and messages that never came. */
  failures: number;
  /** Acked commands of the ack-only run still without a message when the drain time ran out. */
  unfinished: number;
}

export async function runClosedLoop(
  world: BenchWorld,
  target: TargetProcess,
  load: BenchProfile['closedLoop'],
  postsMessages: boolean,
): Promise<ClosedLoopFigures> {
  const commands = (tag: string) => signedCommands({ tag: `${target.name}-${tag}`, text: firewallOfSeededServers, responseUrl: world.slack.responseUrl });
  world.sandbox.setDelay(0);

  const edge = await startSlackEdge(world.slack, target.eventsUrl, { waitForMessage: postsMessages, timeoutMs: 10_000, connections: load.connections });
  let endToEnd;
  let cpuSeconds: number;
  let benchCpu: NodeJS.CpuUsage;
  let cloudCalls: number;
  try {
    if (load.warmupSeconds > 0) {
      await runLoad({ url: edge.url, connections: load.connections, duration: load.warmupSeconds, requests: [commands('warm').request] });
    }
    const cpuBefore = target.cpuSeconds();
    const benchCpuBefore = process.cpuUsage();
    const cloudCallsBefore = world.cloudRequests();
    endToEnd = await runLoad({ url: edge.url, connections: load.connections, duration: load.seconds, requests: [commands('e2e').request] });
    cpuSeconds = target.cpuSeconds() - cpuBefore;
    benchCpu = process.cpuUsage(benchCpuBefore);
    cloudCalls = world.cloudRequests() - cloudCallsBefore;
  } finally {
    await edge.close();
  }

  const acksOnly = commands('ack');
  const direct = await runLoad({ url: target.eventsUrl, connections: load.connections, duration: load.seconds, requests: [acksOnly.request] });
  const unfinished = postsMessages ? await world.slack.waitForArrivals(acksOnly.acked.keys(), load.drainMs) : 0;
  world.slack.reset();

  const e = endToEnd.result;
  return {
    completedPerSecond: round(e['2xx'] / e.duration, 0),
    completedP50Ms: round(percentile(endToEnd.latenciesMs, 50), 2),
    completedP99Ms: round(percentile(endToEnd.latenciesMs, 99), 2),
    cpuMsPerCompleted: round(e['2xx'] > 0 ? (cpuSeconds * 1000) / e['2xx'] : 0, 3),
    cloudCallsPerCompleted: round(e['2xx'] > 0 ? cloudCalls / e['2xx'] : 0, 2),
    benchCpuMsPerCompleted: round(e['2xx'] > 0 ? (benchCpu.user + benchCpu.system) / 1000 / e['2xx'] : 0, 3),
    ackPerSecond: round(direct.result['2xx'] / direct.result.duration, 0),
    ackP99Ms: round(percentile(direct.latenciesMs, 99), 2),
    failures: e.non2xx + e.errors + direct.result.non2xx + direct.result.errors,
    unfinished,
  };
}
