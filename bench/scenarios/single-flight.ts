import { runLoad } from '../load';
import type { BenchProfile } from '../profile';
import { signedCommands } from '../signed-commands';
import type { TargetProcess } from '../target-process';
import type { BenchWorld } from '../world';

// Scenario 3: the same `/vs firewall 45` from N people at once, while the
// cloud API is slow enough for their reads to overlap: how many requests
// reach the cloud API (counted by the sandbox itself).

export interface SingleFlightFigures {
  commands: number;
  upstreamDelayMs: number;
  upstreamRequests: number;
  messagesDelivered: number;
}

export async function runSingleFlight(world: BenchWorld, bot: TargetProcess, load: BenchProfile['singleFlight']): Promise<SingleFlightFigures> {
  world.sandbox.reset();
  world.sandbox.setDelay(load.upstreamDelayMs);
  const commands = signedCommands({ tag: 'same', text: () => 'firewall 45', responseUrl: world.slack.responseUrl });
  // One connection per command, one command each: all N are in flight together.
  await runLoad({ url: bot.eventsUrl, connections: load.commands, amount: load.commands, requests: [commands.request] });
  const missing = await world.slack.waitForArrivals(commands.acked.keys(), load.upstreamDelayMs + 10_000);
  const upstreamRequests = world.sandbox.requests.filter((r) => r.path.startsWith('/virtual_machines/45/firewall_rules')).length;
  world.sandbox.setDelay(0);
  return {
    commands: commands.acked.size,
    upstreamDelayMs: load.upstreamDelayMs,
    upstreamRequests,
    messagesDelivered: commands.acked.size - missing,
  };
}
