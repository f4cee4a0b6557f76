import type { BenchProfile } from '../profile';
import { runLoad } from '../load';
import { signedCommands } from '../signed-commands';
import { startSlackEdge } from '../slack-edge';
import { percentile, round } from '../stats';
import type { TargetProcess } from '../target-process';
import type { BenchWorld } from '../world';

// Scenario 16: `/vs server <id>` while the cloud API answers every request
// after `upstreamDelayMs`. The card reads the server, its disks, backups and
// transactions side by side, so it should cost about one round trip, not
// four: first `commands` cards, `connections` at a time on different servers,
// each command's loop closed on its card (command → card latency); then
// `sameServer` identical `/vs server 45` at once, whose reads single flight
// should share: one cloud call per resource (counted by the sandbox itself).

export interface ServerCardFigures {
  upstreamDelayMs: number;
  /** Cards asked for one after another (`connections` at a time), and how many came. */
  commands: number;
  cards: number;
  cardP50Ms: number;
  cardP99Ms: number;
  sameServer: {
    commands: number;
    delivered: number;
    /** Requests that reached the cloud API per resource: server, disks, backups, transactions. */
    requests: Record<'server' | 'disks' | 'backups' | 'transactions', number>;
  };
}

/** The seeded servers, in turn: two cards in flight are always of two servers, so single flight shares nothing between them. */
const SERVERS = [42, 43, 44, 46, 47, 48, 77] as const;
const SAME = 45;

export async function runServerCard(world: BenchWorld, bot: TargetProcess, load: BenchProfile['serverCard']): Promise<ServerCardFigures> {
  world.sandbox.reset();
  world.sandbox.setDelay(load.upstreamDelayMs);
  try {
    const edge = await startSlackEdge(world.slack, bot.eventsUrl, {
      waitForMessage: true,
      timeoutMs: load.upstreamDelayMs * 4 + 5000,
      connections: load.connections,
    });
    let cards;
    try {
      const commands = signedCommands({ tag: 'card', text: (n) => `server ${SERVERS[n % SERVERS.length]}`, responseUrl: world.slack.responseUrl });
      cards = await runLoad({ url: edge.url, connections: load.connections, amount: load.commands, requests: [commands.request] });
    } finally {
      await edge.close();
    }

    world.sandbox.reset();
    const same = signedCommands({ tag: 'same-card', text: () => `server ${SAME}`, responseUrl: world.slack.responseUrl });
    // One connection per command, one command each: all of them are in flight together.
    await runLoad({ url: bot.eventsUrl, connections: load.sameServer, amount: load.sameServer, requests: [same.request] });
    const missing = await world.slack.waitForArrivals(same.acked.keys(), load.upstreamDelayMs + 10_000);
    const paths = world.sandbox.requests.map((r) => r.path.replace(/\.(json|xml).*$/, ''));
    const count = (path: string) => paths.filter((p) => p === path).length;
    return {
      upstreamDelayMs: load.upstreamDelayMs,
      commands: load.commands,
      cards: cards.result['2xx'],
      cardP50Ms: round(percentile(cards.latenciesMs, 50), 1),
      cardP99Ms: round(percentile(cards.latenciesMs, 99), 1),
      sameServer: {
        commands: same.acked.size,
        delivered: same.acked.size - missing,
        requests: {
          server: count(`/virtual_machines/${SAME}`),
          disks: count(`/virtual_machines/${SAME}/disks`),
          backups: count(`/virtual_machines/${SAME}/backups`),
          transactions: count(`/virtual_machines/${SAME}/transactions`),
        },
      },
    };
  } finally {
    world.sandbox.setDelay(0);
    world.slack.reset();
  }
}
