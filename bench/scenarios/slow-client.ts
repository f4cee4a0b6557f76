import type { BenchProfile } from '../profile';
import type { TargetProcess } from '../target-process';
import type { BenchWorld } from '../world';
import { runOpenLoop, type OpenLoopFigures } from './open-loop';
import { startStalledBodies, type StalledBodiesOutcome } from './stalled-bodies';

// Scenario 17: one client holding `connections` slow connections, each
// looking signed (a current timestamp, a well-formed signature), announcing
// a small body and sending a byte of it every `trickleMs`: what kept every
// genuine Slack request out before the guard counted bodies per client. Each
// one the bot closes (429 past the client's share, 408 at the deadline) comes
// back about `reopenMs` later (the Retry-After). Beside it, the open loop of
// scenario 1 from another address: signed commands at its rate, whose ack p99
// must stay within 25 ms, none refused.

/** Where the slow client's connections come from (loopback's 127.0.0.0/8; the signed commands come from 127.0.0.1). */
const SLOW_CLIENT = '127.0.0.2';

export interface SlowClientFigures extends StalledBodiesOutcome {
  connections: number;
  trickleMs: number;
  openLoop: OpenLoopFigures;
}

export async function runSlowClient(
  world: BenchWorld,
  bot: TargetProcess,
  load: BenchProfile['openLoop'],
  slow: BenchProfile['slowClient'],
): Promise<SlowClientFigures> {
  const held = startStalledBodies({
    url: bot.eventsUrl,
    connections: slow.connections,
    reopenAfterMs: slow.reopenMs,
    from: [SLOW_CLIENT],
    trickle: { bodyBytes: 1000, everyMs: slow.trickleMs },
  });
  let outcome: Promise<StalledBodiesOutcome> | undefined;
  try {
    // The slow connections first: the signed commands arrive once they hold what they can.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const openLoop = await runOpenLoop(world, bot, load, 'slow-client');
    outcome = held.stop();
    const { opened, answers } = await outcome;
    return { connections: slow.connections, trickleMs: slow.trickleMs, opened, answers, openLoop };
  } finally {
    await (outcome ?? held.stop());
  }
}
