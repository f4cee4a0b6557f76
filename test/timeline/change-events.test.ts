import { startPagerDutyStandIn, type PagerDutyStandIn } from '@vs-chatops/cloud-sandbox';
import type { Bot } from '../../src/compose';
import type { Store } from '../../src/store';
import { startHarness, type Harness } from '../helpers/app-harness';
import { CHANNEL, openForm, submit, visibleText } from '../helpers/drive';
import { input } from '../helpers/payloads';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres';
import { approvalIdIn, clickOn, updatedTo } from '../helpers/requests';
import { waitFor } from '../helpers/wait';
import { entry } from '../store/contract/entries';

// The incident's timeline (docs/product.md, On call): every change that ends becomes one PagerDuty change event, sent
// from the store's outbox by the instances' rounds to the Events API (its stand-in on loopback: the network edge):
// its summary in words with people's names from Slack, the source, when it ended, a few facts and a link to its
// message; retried with backoff after a 429, set aside for good after a 400; sent once however many instances share
// the database. The bot's clock and the cloud's are the test's.

const ROUTING_KEY = 'e93facc04764012d7bfb002500d5d1a6';
const T0 = Date.parse('2026-03-14T03:00:00Z');
const clocks = { bot: T0, cloud: T0 };
const NAMES: Record<string, string> = { UOPER: 'Otto Operator', UADMIN: 'Ada Admin' };

let pd: PagerDutyStandIn;
beforeAll(async () => {
  pd = await startPagerDutyStandIn({ routingKey: ROUTING_KEY, now: () => new Date(clocks.bot) });
});
afterAll(() => pd.close());

let h: Harness | undefined;
async function fresh(env: Record<string, string> = {}): Promise<Harness> {
  clocks.bot = T0;
  clocks.cloud = T0;
  pd.reset();
  h = await startHarness({
    env: {
      VS_ADMINS: 'UADMIN',
      VS_OPERATORS: 'UOPER',
      VS_APPROVALS: 'power_reboot',
      VS_FOLLOW_INTERVAL_S: '5',
      VS_PAGERDUTY_ROUTING_KEY: ROUTING_KEY,
      VS_PAGERDUTY_EVENTS_URL: pd.url,
      VS_OUTBOX_POLL_MS: '50',
      ...env,
    },
    now: () => clocks.bot,
    sandboxNow: () => clocks.cloud,
  });
  // People's names, as Slack's users.info gives them.
  h.slack.on('users.info', (args) => {
    const id = String(args.user);
    return { body: { ok: true, user: { id, name: id.toLowerCase(), real_name: NAMES[id] ?? id, profile: { real_name: NAMES[id] ?? id, display_name: '' } } } };
  });
  return h;
}
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Moves both clocks, then runs a round of the follower as its timer would. */
async function later(harness: Harness, ms: number): Promise<void> {
  clocks.bot += ms;
  clocks.cloud += ms;
  await harness.bot.follower.round();
}

const filled = (action: string, server: number) => ({
  power_action: input.select(action),
  confirm: input.text(String(server)),
  reason: input.text('kernel hung since 02:50'),
});

/** A reboot of `server` asked by the operator and approved by the admin, followed until it ended; its record's id. */
async function rebootApproved(harness: Harness, server: number): Promise<number> {
  const view = await openForm(harness, `reboot ${server}`, 'UOPER');
  await submit(harness, 'vs_power', 'UOPER', view.private_metadata, filled('reboot', server));
  const message = await waitFor('the approval request', () =>
    harness.slack.messagesIn(CHANNEL).find((m) => m.kind === 'bot' && approvalIdIn(m.blocks) !== undefined),
  );
  const request = { id: approvalIdIn(message.blocks)!, channel: CHANNEL, ts: message.ts };
  await clickOn(harness, 'UADMIN', 'approval_approve', request);
  await updatedTo(harness, request, /Approved by <@UADMIN>/);
  // The approval's record is the change's from then on (about who approved it, asked by the operator).
  const [record] = await harness.store.audit.latest(1, { involving: 'UOPER' });
  expect(record).toMatchObject({ userId: 'UADMIN', requestedBy: 'UOPER', action: 'power_reboot' });
  await waitFor('the message remembered', async () => (await harness.store.follows.get(record!.id))?.messageTs !== null);
  for (let i = 0; i < 4 && !(await harness.store.audit.get(record!.id))?.cloudOutcome; i++) await later(harness, 5000);
  return record!.id;
}

const eventOf = (recordId: number) =>
  pd.events.find((e) => (e.body.payload as { custom_details?: { audit_record_id?: number } }).custom_details?.audit_record_id === recordId);

test('a reboot approved and done is one change event: its summary names people, no reason or secret leaves, and it links to the message', async () => {
  const harness = await fresh();
  const recordId = await rebootApproved(harness, 42);
  const event = await waitFor('the change event', () => eventOf(recordId));
  expect(Object.keys(event.body).sort()).toEqual(['links', 'payload', 'routing_key']);
  expect(event.body.routing_key).toBe(ROUTING_KEY);
  const follow = (await harness.store.follows.get(recordId))!;
  expect(event.body.payload).toEqual({
    summary: 'web-1 (VS 42): reboot done — asked by Otto Operator, approved by Ada Admin',
    source: 'vs-chatops',
    timestamp: new Date(follow.endedAtMs!).toISOString(),
    custom_details: {
      server: 'web-1 (VS 42)',
      target: 'vs:42',
      action: 'power_reboot',
      outcome: 'done',
      transaction_ids: follow.transactionIds,
      audit_record_id: recordId,
      cloud_api_status: 201,
      break_glass: false,
    },
  });
  expect(event.body.links).toEqual([
    { href: `${harness.slack.origin}/?channel=${CHANNEL}&message=${encodeURIComponent(follow.messageTs!)}`, text: 'The change in Slack' },
  ]);
  const sent = JSON.stringify(event.body);
  expect(sent).not.toContain('kernel hung');
  expect(sent).not.toMatch(/UOPER|UADMIN/);
  expect(harness.logs.join('\n')).not.toContain(ROUTING_KEY);
  // Sent once, and nothing is left.
  await waitFor('the outbox empty', async () => (await harness.store.changeEvents.backlog()).pending === 0);
  expect(pd.events.filter((e) => e === event)).toHaveLength(1);
  expect(pd.events).toHaveLength(1);
});

test('a change that failed in the cloud is failed; after a 429 it waits its backoff, then is sent once (202)', async () => {
  const harness = await fresh({ VS_APPROVALS: 'disk_add' });
  pd.answerEvents(429);
  // VS 48's changes are accepted, then fail in the cloud (packages/cloud-sandbox/README.md).
  const view = await openForm(harness, 'shutdown 48', 'UOPER');
  await submit(harness, 'vs_power', 'UOPER', view.private_metadata, filled('shutdown', 48));
  const [record] = await harness.store.audit.latest(1, { userId: 'UOPER' });
  for (let i = 0; i < 4 && !(await harness.store.audit.get(record!.id))?.cloudOutcome; i++) await later(harness, 5000);
  expect((await harness.store.audit.get(record!.id))?.cloudOutcome).toBe('failed');
  const refused = await waitFor('the 429 recorded', async () => {
    const state = await harness.store.changeEvents.get(record!.id);
    return state && state.attempts === 1 ? state : null;
  });
  expect(refused).toMatchObject({ sentAtMs: null, lastError: expect.stringMatching(/^HTTP 429/) });
  expect(pd.events).toHaveLength(0);
  // PagerDuty asks for minutes after a 429: a minute on, it goes, once.
  clocks.bot += 61_000;
  const event = await waitFor('the change event after the backoff', () => eventOf(record!.id));
  expect((event.body.payload as { summary: string }).summary).toBe('legacy-app (VS 48): shut down failed — asked by Otto Operator');
  await waitFor('the event acknowledged', async () => (await harness.store.changeEvents.get(record!.id))?.sentAtMs !== null);
  expect(pd.events).toHaveLength(1);
});

test('an event PagerDuty refuses (400) is set aside as undeliverable and never sent again; the log says why, without the key', async () => {
  const harness = await fresh();
  pd.answerEvents(400);
  const recordId = await failedChange(harness.store, 'vs:43');
  const state = await waitFor('the event set aside', async () => {
    const s = await harness.store.changeEvents.get(recordId);
    return s?.undeliverableAtMs ? s : null;
  });
  expect(state).toMatchObject({ attempts: 1, sentAtMs: null, lastError: expect.stringMatching(/^HTTP 400/) });
  clocks.bot += 24 * 60 * 60_000;
  // Another change's event goes after it, and only that one: the refused one is not tried again.
  const next = await failedChange(harness.store, 'vs:44');
  await waitFor('the next event', () => eventOf(next));
  expect(pd.events).toHaveLength(1);
  expect(await harness.store.changeEvents.backlog()).toEqual({ pending: 0, undeliverable: 1 });
  const logged = harness.logs.find((l) => l.includes('PagerDuty refused a change event'));
  expect(logged).toContain('HTTP 400');
  expect(harness.logs.join('\n')).not.toContain(ROUTING_KEY);
});

/** A change whose cloud API call failed, written as the door writes it (started, then settled): it has ended. */
async function failedChange(store: Pick<Store, 'audit'>, target: string): Promise<number> {
  const begun = await store.audit.beginChange({
    submissionKey: `V-${Math.random()}`,
    at: new Date(clocks.bot).toISOString(),
    lease: { target, owner: 'test', nowMs: clocks.bot, ttlMs: 60_000 },
    started: entry({ outcome: 'started', target, action: 'power_reboot', userId: 'UOPER', at: new Date(clocks.bot).toISOString() }),
  });
  if (begun.outcome !== 'started') throw new Error(begun.outcome);
  const done = await store.audit.complete(
    begun.record.id,
    { outcome: 'failed', apiStatus: 500, durationMs: 40, detail: 'the cloud API failed' },
    { target, owner: 'test' },
  );
  return done.id;
}

describe('three instances on one PostgreSQL', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  test('each change event is posted once, by whichever instance claimed it', async () => {
    const harness = await fresh({ DATABASE_URL: database.url });
    const others: Bot[] = [await harness.another(), await harness.another()];
    const ids: number[] = [];
    for (let i = 0; i < 30; i++) ids.push(await failedChange(harness.store, `vs:${1000 + i}`));
    await waitFor('every event sent', async () => (await harness.store.changeEvents.backlog()).pending === 0, { within: 15_000 });
    const sent = pd.events.map((e) => (e.body.payload as { custom_details: { audit_record_id: number } }).custom_details.audit_record_id);
    expect(sent.sort((a, b) => a - b)).toEqual(ids);
    // Each instance counts what it sent: together, each event once.
    const sentBy = async (bot: Bot) => Number(/vs_chatops_change_events_total\{result="sent"\} (\d+)/.exec(await bot.ops.metrics.registry.metrics())?.[1] ?? 0);
    const counts = await Promise.all([harness.bot, ...others].map(sentBy));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(30);
    expect(visibleText(pd.events.map((e) => e.body.payload))).not.toContain('UOPER');
  });
});
