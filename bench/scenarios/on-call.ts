import { startPagerDutyStandIn, type PagerDutyOnCall } from '@vs-chatops/cloud-sandbox';
import { launchTarget } from '../launch-targets';
import { runPacedLoad } from '../load';
import { firewallOfSeededServers, signedCommands } from '../signed-commands';
import { percentile, round } from '../stats';
import { startWorld, type BenchWorld } from '../world';
import { startInstances, type Instance } from '../../test/helpers/cluster';
import { goodDisk, newViewId } from '../../test/helpers/drive';
import { viewSubmission } from '../../test/helpers/payloads';
import { startProcessHarness } from '../../test/helpers/process-harness';
import { waitFor } from '../../test/helpers/wait';

// Scenario 19: on call and the incident's timeline (docs/product.md, On call).
//   a. Roles from on call with PagerDuty answering every call after `pagerDutyDelayMs`: `/vs firewall` at `rate`/s
//      from `people` people whom only being on call makes viewers (VS_VIEWERS names none of them, VS_ONCALL_ROLE=viewer),
//      half of them on call. Every command's role check asks about its person; the ack is sent before any of it, so
//      it must not move. Measured: the acks, the commands' answers (the summary for those on call, a refusal for the
//      others), and what PagerDuty was asked: per person at most one look-up per cache period, and the list once.
//      Beside it, the same load just before to a bot where everyone is a viewer by configuration (PagerDuty never
//      asked): on a shared machine, what the acks would be anyway.
//   b. `changes` disk adds over three bot processes on one PostgreSQL, each followed to its end: as many change
//      events reach PagerDuty's Events API (its stand-in), none twice.

export interface OnCallLoad {
  rate: number;
  seconds: number;
  people: number;
  pagerDutyDelayMs: number;
  /** Changes followed to their end over three instances (b). */
  changes: number;
  /** Run the control (the same load, everyone a viewer by configuration) first; the smoke run skips it. */
  control: boolean;
  /** How long to wait once every event arrived, for one sent twice to arrive too. */
  settleMs: number;
}

export interface OnCallFigures {
  rate: number;
  seconds: number;
  people: number;
  pagerDutyDelayMs: number;
  commandsAcked: number;
  ackP50Ms: number;
  ackP99Ms: number;
  /**
   * The same load on the same machine just before, to a bot where everyone is a viewer by configuration (PagerDuty never
   * asked); zeros when not run (the smoke run).
   */
  control: { ackP50Ms: number; ackP99Ms: number; answerP99Ms: number };
  /** Command to its answer (the summary or the refusal), ms. */
  answerP50Ms: number;
  answerP99Ms: number;
  /** Answers that were the summary (on call) and that were refusals (not on call). */
  summaries: number;
  refusals: number;
  missingAnswers: number;
  /** PagerDuty's REST calls during the run: people looked up (the most of one person), and the list of who is on call. */
  userLookups: number;
  mostLookupsOfOnePerson: number;
  onCallListReads: number;
  cacheSeconds: number;
  /** (b) */
  changesEnded: number;
  eventsReceived: number;
  eventsTwice: number;
  /** From the last change ending to its event reaching PagerDuty, ms. */
  lastEventAfterMs: number;
}

const TOKEN = 'bench-pagerduty-token-0123456789';
const ROUTING_KEY = '4d1f2c0b9e8a7d6c5b4a39281706f5e4';
const SCHEDULE = { id: 'PBENCH1', summary: 'Bench primary' };
const CACHE_S = 60;

/** A few commands, unmeasured, from someone else: a bot just started answers its first requests slower. */
async function warmUp(world: BenchWorld, eventsUrl: string): Promise<void> {
  const warm = signedCommands({ tag: `warm-${Math.random()}`, text: firewallOfSeededServers, responseUrl: world.slack.responseUrl, user: () => 'UWARMUP' });
  await runPacedLoad({ url: eventsUrl, connections: 2, overallRate: 20, duration: 1, requests: [warm.request], ignoreCoordinatedOmission: true }, 2);
}

/** `/vs firewall` at the load's rate from `people` in turn: the acks, and each command's answer (a summary, or a refusal). */
async function openLoopOf(world: BenchWorld, eventsUrl: string, load: OnCallLoad, people: readonly string[], tag: string) {
  const commands = signedCommands({ tag, text: firewallOfSeededServers, responseUrl: world.slack.responseUrl, user: (n) => people[n % people.length]! });
  const { latenciesMs } = await runPacedLoad(
    { url: eventsUrl, connections: 10, overallRate: load.rate, duration: load.seconds, requests: [commands.request], ignoreCoordinatedOmission: true },
    10,
  );
  const acked = [...commands.acked].filter(([, status]) => status >= 200 && status < 300).map(([id]) => id);
  const missing = await world.slack.waitForArrivals(acked, 10_000);
  const answerMs: number[] = [];
  let summaries = 0;
  let refusals = 0;
  for (const id of acked) {
    const arrived = world.slack.arrivals.get(id);
    const sentAt = commands.sent.get(id);
    if (!arrived || sentAt === undefined) continue;
    if (arrived.inChannel) summaries++;
    else refusals++;
    answerMs.push(arrived.at - sentAt);
  }
  return {
    acked: acked.length,
    missing,
    summaries,
    refusals,
    ackP50Ms: round(percentile(latenciesMs, 50), 2),
    ackP99Ms: round(percentile(latenciesMs, 99), 2),
    answerP50Ms: round(percentile(answerMs, 50)),
    answerP99Ms: round(percentile(answerMs, 99)),
  };
}

export async function runOnCall(postgresUrl: string, load: OnCallLoad, progress: (message: string) => void): Promise<OnCallFigures> {
  const people = Array.from({ length: load.people }, (_, i) => `UBENCH${i}`);
  // The lenient Slack stand-in gives each person it does not know the email `<id, lower case>@people.example`.
  const users = people.map((id, i) => ({ id: `PB${i}`, name: `Person ${i}`, email: `${id.toLowerCase()}@people.example` }));
  const now = Date.now();
  const oncalls: PagerDutyOnCall[] = users
    .filter((_, i) => i % 2 === 0)
    .map((u) => ({
      userId: u.id,
      schedule: SCHEDULE,
      escalationPolicy: { id: 'PBENCHEP', summary: 'Bench' },
      level: 1,
      start: new Date(now - 3_600_000).toISOString(),
      end: new Date(now + 3_600_000).toISOString(),
    }));
  const pagerDuty = await startPagerDutyStandIn({ token: TOKEN, routingKey: ROUTING_KEY, users, oncalls, delayMs: load.pagerDutyDelayMs });
  const world = await startWorld();
  const closers: (() => Promise<unknown>)[] = [() => pagerDuty.close(), () => world.close()];
  try {
    let controlFigures = { ackP50Ms: 0, ackP99Ms: 0, answerP99Ms: 0 };
    if (load.control) {
      progress(`19a. control: /vs firewall at ${load.rate}/s for ${load.seconds} s from ${load.people} people, everyone a viewer by configuration`);
      const control = await launchTarget('ours', world, { env: { LOG_LEVEL: 'warn' } });
      await warmUp(world, control.eventsUrl);
      controlFigures = await openLoopOf(world, control.eventsUrl, load, people, 'oncall-control');
      await control.stop();
    }
    const roles = `roles from on call, PagerDuty answering after ${load.pagerDutyDelayMs} ms`;
    progress(`19a. /vs firewall at ${load.rate}/s for ${load.seconds} s from ${load.people} people, ${roles}`);
    const bot = await launchTarget('ours', world, {
      env: {
        VS_VIEWERS: 'UNOBODY',
        VS_ONCALL_PROVIDER: 'pagerduty',
        VS_ONCALL_ROLE: 'viewer',
        VS_PAGERDUTY_TOKEN: TOKEN,
        VS_PAGERDUTY_API_URL: pagerDuty.url,
        VS_ONCALL_SCHEDULES: SCHEDULE.id,
        VS_ONCALL_CACHE_S: String(CACHE_S),
        LOG_LEVEL: 'warn',
      },
    });
    closers.unshift(() => bot.stop());
    // A few first, unmeasured (a bot just started answers its first requests slower), from someone else.
    await warmUp(world, bot.eventsUrl);
    // What PagerDuty was asked from here on (the warm-up's look-up of its one person aside; its read of the list counts).
    const askedBefore = pagerDuty.requests.length;
    const measured = await openLoopOf(world, bot.eventsUrl, load, people, 'oncall');
    const lookups = pagerDuty.requests.slice(askedBefore).filter((r) => r.path === '/users');
    // The list is one for everyone: read once per cache period since the bot started, the warm-up's read included.
    const listReads = pagerDuty.requests.filter((r) => r.path === '/oncalls').length;
    const byPerson = new Map<string, number>();
    for (const r of lookups) {
      const email = new URLSearchParams(r.query).get('query') ?? '';
      byPerson.set(email, (byPerson.get(email) ?? 0) + 1);
    }

    progress(`19b. ${load.changes} changes followed to their end over three instances on PostgreSQL, each a change event`);
    const parts = await startProcessHarness({ transactionMs: { pending: 100, running: 300 } });
    closers.unshift(() => parts.close());
    pagerDuty.reset();
    pagerDuty.setDelay(0);
    const instances: Instance[] = await startInstances(3, {
      ...parts.env(),
      DATABASE_URL: postgresUrl,
      VS_OPERATORS: 'UBENCH',
      VS_FOLLOW_INTERVAL_S: '1',
      VS_PAGERDUTY_ROUTING_KEY: ROUTING_KEY,
      VS_PAGERDUTY_EVENTS_URL: pagerDuty.url,
      LOG_LEVEL: 'warn',
      VS_CHANGES_PER_USER_PER_MINUTE: '1000000',
    });
    closers.unshift(() => Promise.all(instances.map((i) => i.bot.kill())));
    const channel = 'CBENCHONCALL';
    let next = 0;
    // One submission per server at a time, the servers side by side.
    const submitter = async (vsId: number) => {
      while (next < load.changes) {
        const i = next++;
        const payload = viewSubmission({
          callbackId: 'disk_add',
          viewId: newViewId(),
          user: 'UBENCH',
          privateMetadata: JSON.stringify({ channelId: channel, vsId }),
          fields: goodDisk,
        });
        const answer = await instances[i % instances.length]!.interact(payload);
        if (answer.status !== 200) throw new Error(`a change was answered HTTP ${answer.status}`);
      }
    };
    await Promise.all([42, 43, 44, 45, 46, 77].map(submitter));
    const ended = () => new Set(parts.slack.messagesIn(channel).flatMap((m) => (m.threadTs ? [m.threadTs] : []))).size;
    await waitFor(`${load.changes} changes ended`, () => ended() >= load.changes, { within: 180_000, every: 100 });
    const endedAt = performance.now();
    await waitFor(`${load.changes} change events`, () => pagerDuty.events.length >= load.changes, { within: 60_000, every: 20 });
    const lastEventAfterMs = performance.now() - endedAt;
    // A while more, for any event sent twice to arrive.
    await new Promise((resolve) => setTimeout(resolve, load.settleMs));
    const ids = pagerDuty.events.map((e) => (e.body.payload as { custom_details: { audit_record_id: number } }).custom_details.audit_record_id);

    return {
      rate: load.rate,
      seconds: load.seconds,
      people: load.people,
      pagerDutyDelayMs: load.pagerDutyDelayMs,
      commandsAcked: measured.acked,
      ackP50Ms: measured.ackP50Ms,
      ackP99Ms: measured.ackP99Ms,
      answerP50Ms: measured.answerP50Ms,
      answerP99Ms: measured.answerP99Ms,
      summaries: measured.summaries,
      refusals: measured.refusals,
      missingAnswers: measured.missing,
      control: { ackP50Ms: controlFigures.ackP50Ms, ackP99Ms: controlFigures.ackP99Ms, answerP99Ms: controlFigures.answerP99Ms },
      userLookups: lookups.length,
      mostLookupsOfOnePerson: Math.max(0, ...byPerson.values()),
      onCallListReads: listReads,
      cacheSeconds: CACHE_S,
      changesEnded: ended(),
      eventsReceived: ids.length,
      eventsTwice: ids.length - new Set(ids).size,
      lastEventAfterMs: round(lastEventAfterMs),
    };
  } finally {
    for (const close of closers) await close().catch(() => undefined);
  }
}
