import type { Bot } from '../../src/compose';
import { startHarness, type Harness } from '../helpers/app-harness';
import { answerTo } from '../helpers/drive';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres';

// Several instances on one PostgreSQL (docs/product.md, Watches): every instance runs the watch's round, only the one
// holding its lease reads and tells, so each notification is posted once; an instance that dies is replaced once its
// lease (three intervals) has run out. Three instances composed in this process on one database, stand-in and sandbox;
// their clock is the test's (the interval an hour: only the rounds the test runs happen after start-up's).

const T0 = Date.parse('2026-12-06T09:00:00Z');
const INTERVAL_MS = 3_600_000;
let clock = T0;
let database: TestDatabase;
let h: Harness | undefined;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterEach(async () => {
  await h?.close();
  h = undefined;
});
afterAll(async () => {
  await database.drop();
});

async function threeInstances(): Promise<[Harness, Bot[]]> {
  clock = T0;
  const env = { VS_OPERATORS: 'UOPER', DATABASE_URL: database.url, VS_WATCH_INTERVAL_S: String(INTERVAL_MS / 1000) };
  h = await startHarness({ env, now: () => clock });
  return [h, [h.bot, await h.another(), await h.another()]];
}

/** Someone in the control panel acts on a server (the sandbox's endpoint). */
async function panel(harness: Harness, serverId: number, act: string): Promise<void> {
  const res = await fetch(`${harness.sandbox.url}/control/virtual_machines/${serverId}/${act}`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${harness.sandbox.accountId}:${harness.sandbox.apiKey}`).toString('base64')}` },
  });
  expect(res.status).toBe(200);
}

const told = (harness: Harness, channel: string) =>
  harness.slack
    .messagesIn(channel)
    .filter((m) => m.kind === 'bot' && !m.ephemeralTo)
    .map((m) => m.text);

/** A round of each instance at once, as their timers would run them; what each did. */
const rounds = (instances: readonly Bot[]) => Promise.all(instances.map((bot) => bot.watchPoll.round()));

test('three instances on PostgreSQL post each notification once; one that dies is replaced within its lease', async () => {
  const [harness, instances] = await threeInstances();
  const channel = 'CWATCHPG';
  await answerTo(harness, 'watch web-1', { user: 'UOPER', channel });
  const first = await rounds(instances);
  // One of them polls (the baseline); the others leave it.
  expect(first.filter((r) => r === 'polled')).toHaveLength(1);
  const leader = instances[first.indexOf('polled')]!;
  const others = instances.filter((bot) => bot !== leader);

  await panel(harness, 42, 'power_off');
  clock += INTERVAL_MS;
  expect(await rounds(instances)).toEqual(instances.map((bot) => (bot === leader ? 'polled' : 'not_leading')));
  expect(told(harness, channel).filter((t) => t.startsWith('web-1 (VS 42)'))).toEqual(['web-1 (VS 42) is off (it was on)']);

  // The leader dies (its rounds stop). Within its lease nobody polls; once it has run out, one of the others does.
  await panel(harness, 42, 'power_on');
  clock += INTERVAL_MS;
  expect(await rounds(others)).toEqual(['not_leading', 'not_leading']);
  clock += 2 * INTERVAL_MS;
  const after = await rounds(others);
  expect(after.filter((r) => r === 'polled')).toHaveLength(1);
  expect(told(harness, channel).filter((t) => t.startsWith('web-1 (VS 42)'))).toEqual(['web-1 (VS 42) is off (it was on)', 'web-1 (VS 42) is on (it was off)']);
  // And it goes on alone: nothing told twice.
  clock += INTERVAL_MS;
  await rounds(others);
  expect(told(harness, channel).filter((t) => t.startsWith('web-1 (VS 42)'))).toHaveLength(2);
});
