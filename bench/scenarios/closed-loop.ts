import { performance } from 'node:perf_hooks';
import { runLoad } from '../load';
import type { BenchProfile } from '../profile';
import { firewallOfSeededServers, signedCommands } from '../signed-commands';
import { percentile, round } from '../stats';
import type { TargetProcess } from '../target-process';
import type { BenchWorld } from '../world';

// Scenario 2: N connections send signed commands back to back. The loop is
// closed on the ack, as Slack's is (Slack does not wait for the message), so
// the work after the ack can queue up: "completed" counts only the summaries
// that reached the Slack fake inside the measured window.

export interface ClosedLoopFigures {
  ackPerSecond: number;
  ackP99Ms: number;
  /** Summaries delivered per second inside the window; for targets that post nothing, the ack rate. */
  completedPerSecond: number;
  non2xx: number;
  errorMessages: number;
  /** Acked commands still without a message when the drain time ran out. */
  unfinished: number;
}

export async function runClosedLoop(
  world: BenchWorld,
  target: TargetProcess,
  load: BenchProfile['closedLoop'],
  postsMessages: boolean,
): Promise<ClosedLoopFigures> {
  const run = async (tag: string, seconds: number) => {
    const commands = signedCommands({ tag, text: firewallOfSeededServers, responseUrl: world.fake.responseUrl });
    const started = performance.now();
    const { result, latenciesMs } = await runLoad({ url: target.eventsUrl, connections: load.connections, duration: seconds, requests: [commands.request] });
    const ended = performance.now();
    return { commands, result, latenciesMs, started, ended };
  };

  if (load.warmupSeconds > 0) {
    const warm = await run(`${target.name}-warm`, load.warmupSeconds);
    if (postsMessages) await world.fake.waitFor(warm.commands.acked.keys(), load.drainMs);
  }
  world.fake.clear();
  const { commands, result, latenciesMs, started, ended } = await run(`${target.name}-closed`, load.seconds);
  const windowSeconds = (ended - started) / 1000;
  const ackPerSecond = result['2xx'] / windowSeconds;

  let deliveredInWindow = 0;
  let errorMessages = 0;
  let unfinished = 0;
  if (postsMessages) {
    unfinished = await world.fake.waitFor(commands.acked.keys(), load.drainMs);
    for (const id of commands.acked.keys()) {
      const arrived = world.fake.arrivals.get(id);
      if (!arrived) continue;
      if (!arrived.inChannel) errorMessages++;
      else if (arrived.at <= ended) deliveredInWindow++;
    }
  }
  return {
    ackPerSecond: round(ackPerSecond, 0),
    ackP99Ms: round(percentile(latenciesMs, 99), 2),
    completedPerSecond: round(postsMessages ? deliveredInWindow / windowSeconds : ackPerSecond, 0),
    non2xx: result.non2xx + result.errors,
    errorMessages,
    unfinished,
  };
}
