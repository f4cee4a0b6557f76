import { runPacedLoad } from '../load';
import type { BenchProfile } from '../profile';
import { firewallOfSeededServers, signedCommands } from '../signed-commands';
import { percentile, round } from '../stats';
import type { TargetProcess } from '../target-process';
import type { BenchWorld } from '../world';

// Scenario 1: commands arrive at a fixed rate whatever the bot does (open
// loop: autocannon's overallRate, paced through the second) while every cloud
// API answer takes `upstreamDelayMs`. The ack is the HTTP answer to Slack; command-to-message
// runs from handing the command to the socket to its response_url POST
// arriving at the Slack stand-in.

export interface OpenLoopFigures {
  /** Groups the commands of each second arrive in: 1 means all at once. */
  slices: number;
  rate: number;
  seconds: number;
  upstreamDelayMs: number;
  commandsAcked: number;
  non2xx: number;
  ackP50Ms: number;
  ackP99Ms: number;
  messageP50Ms: number;
  messageP99Ms: number;
  /** Acked commands whose answer was an error (ephemeral) instead of the summary. */
  errorMessages: number;
  /** Acked commands with no message after the drain time. */
  missingMessages: number;
}

/** `load.slices` groups of commands a second (runPacedLoad); one slice is autocannon's rate option as it is, each second at once. */
export async function runOpenLoop(world: BenchWorld, bot: TargetProcess, load: BenchProfile['openLoop'], tag = 'open'): Promise<OpenLoopFigures> {
  world.sandbox.setDelay(load.upstreamDelayMs);
  const commands = signedCommands({ tag, text: firewallOfSeededServers, responseUrl: world.slack.responseUrl });
  const options = {
    url: bot.eventsUrl,
    connections: load.connections,
    overallRate: load.rate,
    duration: load.seconds,
    requests: [commands.request],
    // autocannon's correction assumes a 1 ms interval at these rates and would
    // invent samples below the real ones: the raw latencies are reported.
    ignoreCoordinatedOmission: true,
  };
  const { result, latenciesMs } = await runPacedLoad(options, load.slices);
  const acked = [...commands.acked].filter(([, status]) => status >= 200 && status < 300).map(([id]) => id);
  const missing = await world.slack.waitForArrivals(acked, load.upstreamDelayMs + 10_000);
  const messageMs: number[] = [];
  let errorMessages = 0;
  for (const id of acked) {
    const arrived = world.slack.arrivals.get(id);
    const sentAt = commands.sent.get(id);
    if (!arrived || sentAt === undefined) continue;
    if (!arrived.inChannel) errorMessages++;
    messageMs.push(arrived.at - sentAt);
  }
  world.sandbox.setDelay(0);
  return {
    slices: load.slices,
    rate: load.rate,
    seconds: load.seconds,
    upstreamDelayMs: load.upstreamDelayMs,
    commandsAcked: acked.length,
    non2xx: result.non2xx + result.errors,
    ackP50Ms: round(percentile(latenciesMs, 50), 2),
    ackP99Ms: round(percentile(latenciesMs, 99), 2),
    messageP50Ms: round(percentile(messageMs, 50)),
    messageP99Ms: round(percentile(messageMs, 99)),
    errorMessages,
    missingMessages: missing,
  };
}
