import { request } from 'node:http';
import type { BenchProfile } from '../profile';
import { megabytes } from '../stats';
import type { TargetProcess } from '../target-process';
import type { BenchWorld } from '../world';
import { runOpenLoop, type OpenLoopFigures } from './open-loop';
import { startStalledBodies, type StalledBodiesOutcome } from './stalled-bodies';

// Scenario 8: the open loop of scenario 1 again, while unsigned requests hit
// /slack/events at `rate` a second. They are the costliest an attacker can
// send without the signing secret: each carries a fresh timestamp and a
// well-formed (wrong) signature, so the bot must read its body and check it;
// bodies just under the 1 MB bound (a JSON array nested 450,000 deep, a form
// payload of the same kind), malformed JSON, and bodies announced over the
// bound. Beside them, stalled bodies: `stalledConnections` connections that
// look signed the same way, announce 1 MB and send all of it but the last
// byte, then wait; each one the bot closes is opened again about
// `stalledReopenMs` later (5 s, the Retry-After of its 503), so the bot faces
// them through the whole open loop. The stalled bodies come from 50 clients
// (8 each, a client's share of the places: what the guard caps here is the
// total), the hostile requests from another, the signed commands from a third.
// Signed commands' ack p99 must stay within the open loop's 25 ms; the bot's
// RSS growth over the scenario is reported.

export interface StalledBodiesFigures extends StalledBodiesOutcome {
  connections: number;
  rssBeforeMb: number;
  rssPeakMb: number;
  rssGrowthMb: number;
}

export interface HostileTrafficFigures {
  rate: number;
  sent: number;
  /** Answers to the hostile requests by status ("401", "413", "503" while stalled bodies hold every place, "error" for a dropped connection). */
  answers: Record<string, number>;
  stalled: StalledBodiesFigures;
  /** The open loop beside it. */
  openLoop: OpenLoopFigures;
}

const NEST = 450_000;
function hostileBodies(): { contentType: string; body: Buffer; announce?: number }[] {
  const deep = Buffer.from('['.repeat(NEST) + ']'.repeat(NEST));
  const deepForm = Buffer.from('payload=' + '%5B'.repeat(110_000) + '%5D'.repeat(110_000));
  const malformed = Buffer.from('payload=' + encodeURIComponent('{"type":"view_submission","user":{"id":'.repeat(5000)));
  return [
    { contentType: 'application/json', body: deep },
    { contentType: 'application/x-www-form-urlencoded', body: deepForm },
    { contentType: 'application/x-www-form-urlencoded', body: malformed },
    // Announced as 50 MB; a few bytes are sent before the answer.
    { contentType: 'application/json', body: Buffer.from('[[[['), announce: 50 * 1024 * 1024 },
  ];
}

/** The stalled bodies' clients, and the hostile requests' (loopback's 127.0.0.0/8; the signed commands come from 127.0.0.1). */
const STALLED_FROM = Array.from({ length: 50 }, (_, i) => `127.0.1.${i + 1}`);
const HOSTILE_FROM = '127.0.0.3';

function sendHostile(url: URL, shape: ReturnType<typeof hostileBodies>[number]): Promise<string> {
  return new Promise((resolve) => {
    const headers = {
      'content-type': shape.contentType,
      'content-length': String(shape.announce ?? shape.body.length),
      'x-slack-request-timestamp': String(Math.floor(Date.now() / 1000)),
      'x-slack-signature': 'v0=' + Math.random().toString(16).slice(2).padEnd(64, '0').slice(0, 64),
    };
    const req = request(url, { method: 'POST', headers, agent: false, localAddress: HOSTILE_FROM }, (res) => {
      res.resume();
      res.on('end', () => resolve(String(res.statusCode)));
      res.on('error', () => resolve('error'));
    });
    req.on('error', () => resolve('error'));
    req.end(shape.body);
  });
}

export async function runHostileTraffic(
  world: BenchWorld,
  bot: TargetProcess,
  load: BenchProfile['openLoop'],
  hostile: BenchProfile['hostile'],
): Promise<HostileTrafficFigures> {
  const url = new URL(bot.eventsUrl);
  const bodies = hostileBodies();
  const rssBefore = bot.rssBytes();
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, bot.rssBytes())), 200);
  const stalled = startStalledBodies({
    url: bot.eventsUrl,
    connections: hostile.stalledConnections,
    reopenAfterMs: hostile.stalledReopenMs,
    from: STALLED_FROM,
  });
  let stalledOutcome: Promise<StalledBodiesOutcome> | undefined;
  const answers: Record<string, number> = {};
  const inFlight: Promise<void>[] = [];
  let sent = 0;
  let stop = false;
  const startedAt = Date.now();
  // Paced: one request every 1000 / rate ms, on schedule whatever the answers do (an open loop too).
  const pacer = (async () => {
    while (!stop) {
      const due = startedAt + (sent * 1000) / hostile.rate;
      const wait = due - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      if (stop) break;
      const shape = bodies[sent % bodies.length]!;
      sent += 1;
      inFlight.push(sendHostile(url, shape).then((status) => void (answers[status] = (answers[status] ?? 0) + 1)));
    }
  })();
  try {
    const openLoop = await runOpenLoop(world, bot, load, 'hostile');
    stalledOutcome = stalled.stop();
    const { opened, answers: stalledAnswers } = await stalledOutcome;
    rssPeak = Math.max(rssPeak, bot.rssBytes());
    return {
      rate: hostile.rate,
      sent,
      answers,
      stalled: {
        connections: hostile.stalledConnections,
        opened,
        answers: stalledAnswers,
        rssBeforeMb: megabytes(rssBefore),
        rssPeakMb: megabytes(rssPeak),
        rssGrowthMb: megabytes(rssPeak - rssBefore),
      },
      openLoop,
    };
  } finally {
    stop = true;
    await (stalledOutcome ?? stalled.stop());
    clearInterval(sampler);
    await pacer;
    await Promise.all(inFlight);
  }
}
