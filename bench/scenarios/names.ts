import { runLoad } from '../load';
import type { BenchProfile } from '../profile';
import { signedCommands } from '../signed-commands';
import { startSlackEdge } from '../slack-edge';
import { percentile, round } from '../stats';
import type { TargetProcess } from '../target-process';
import { madeUpName, type BenchWorld } from '../world';

// Scenario 20: servers by name (docs/product.md, Servers by name). The account holds `servers` servers (the seeded
// ones and as many made-up ones as it takes, `srv-1`…). First, with the bot's name index cold, `coldLookups` people
// at once each type `/vs server` with a different name: the account's list should be read once (its pages, one after
// another), not once per person. Then, the index warm, `/vs server web-1` and `/vs server 42` side by side, in
// alternating rounds: command → card p99 of each, which should differ by a lookup in memory.

export interface NamesFigures {
  servers: number;
  coldLookups: number;
  /** Cards that came for the cold look-ups. */
  coldCards: number;
  /** Requests for pages of the account's list, and the pages one read of it takes. */
  listPageRequests: number;
  pagesPerRead: number;
  commandsEach: number;
  byIdP50Ms: number;
  byIdP99Ms: number;
  byNameP50Ms: number;
  byNameP99Ms: number;
  byIdCards: number;
  byNameCards: number;
}

/** The page size the name index asks for (src/cloud/names.ts). */
const PER_PAGE = 100;

export async function runNames(world: BenchWorld, bot: TargetProcess, load: BenchProfile['names']): Promise<NamesFigures> {
  world.sandbox.reset();
  const made = world.servers - world.seededServers;
  // Names spread over the list: each a different server, so nothing but the list's read can be shared.
  const cold = signedCommands({
    tag: 'name-cold',
    text: (n) => `server ${madeUpName(1 + ((n * 97) % made))}`,
    responseUrl: world.slack.responseUrl,
  });
  await runLoad({ url: bot.eventsUrl, connections: load.coldLookups, amount: load.coldLookups, requests: [cold.request] });
  const missing = await world.slack.waitForArrivals(cold.acked.keys(), 30_000);
  const listPageRequests = world.sandbox.requests.filter((r) => /^\/virtual_machines\.(json|xml)/.test(r.path)).length;

  const edge = await startSlackEdge(world.slack, bot.eventsUrl, { waitForMessage: true, timeoutMs: 10_000, connections: load.connections });
  const byId: number[] = [];
  const byName: number[] = [];
  const cards = { id: 0, name: 0 };
  try {
    for (let roundNumber = 0; roundNumber < load.rounds; roundNumber++) {
      const order = roundNumber % 2 === 0 ? (['id', 'name'] as const) : (['name', 'id'] as const);
      for (const how of order) {
        const commands = signedCommands({
          tag: `name-${how}-${roundNumber}`,
          text: () => (how === 'id' ? 'server 42' : 'server web-1'),
          responseUrl: world.slack.responseUrl,
        });
        const run = await runLoad({ url: edge.url, connections: load.connections, amount: load.commandsPerRound, requests: [commands.request] });
        (how === 'id' ? byId : byName).push(...run.latenciesMs);
        cards[how] += run.result['2xx'];
      }
    }
  } finally {
    await edge.close();
    world.slack.reset();
  }
  return {
    servers: world.servers,
    coldLookups: load.coldLookups,
    coldCards: cold.acked.size - missing,
    listPageRequests,
    // A short page ends a read: a list that fills its last page is read to an empty one after it.
    pagesPerRead: Math.floor(world.servers / PER_PAGE) + 1,
    commandsEach: load.rounds * load.commandsPerRound,
    byIdP50Ms: round(percentile(byId, 50), 2),
    byIdP99Ms: round(percentile(byId, 99), 2),
    byNameP50Ms: round(percentile(byName, 50), 2),
    byNameP99Ms: round(percentile(byName, 99), 2),
    byIdCards: cards.id,
    byNameCards: cards.name,
  };
}
