import type { ChannelMessage } from '@vs-chatops/slack-standin';
import type { Bot } from '../../src/compose';
import { startHarness, type Harness } from '../helpers/app-harness';
import { CHANNEL, openForm, submit, visibleText } from '../helpers/drive';
import { diskInputs, goodDiskForm } from '../helpers/forms';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres';
import { waitFor } from '../helpers/wait';

// Several instances on one PostgreSQL (docs/product.md, Following a change to its end): each followed change is
// polled by one instance at a time, under a lease naming it; an instance that dies mid-follow leaves its changes to
// another once its lease has expired, and the end is told once. The instances are composed in this process on one
// database, one stand-in and one sandbox; their clock and the cloud's are moved by the test.

const T0 = Date.parse('2026-03-14T09:00:00Z');
const clocks = { bot: T0, cloud: T0 };
const PANEL = 'https://panel.example.com';

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

/** Two instances on the database: the harness's (which answers Slack) and a second one beside it. */
async function twoInstances(): Promise<[Harness, Bot, Bot]> {
  clocks.bot = T0;
  clocks.cloud = T0;
  const env = { VS_OPERATORS: 'UOPER', DATABASE_URL: database.url, VS_FOLLOW_INTERVAL_S: '5', VS_PANEL_URL: PANEL };
  h = await startHarness({ env, now: () => clocks.bot, sandboxNow: () => clocks.cloud });
  return [h, h.bot, await h.another()];
}

/** Moves the clocks, then runs a round of every instance at once, as their timers would. */
async function later(instances: readonly Bot[], ms: number, cloudMs = ms): Promise<void> {
  clocks.bot += ms;
  clocks.cloud += cloudMs;
  await Promise.all(instances.map((bot) => bot.follower.round()));
}

/** The transaction reads an instance made (a poll reads one: the list until its transaction is found, then it). */
const transactionReads = async (bot: Bot) => {
  const text = await bot.ops.metrics.registry.getSingleMetricAsString('vs_chatops_cloud_requests_total');
  return [...text.matchAll(/operation="(list_transactions|get_transaction)",status="200"} (\d+)/g)].reduce((n, m) => n + Number(m[2]), 0);
};

async function addDisk(harness: Harness): Promise<{ message: ChannelMessage; recordId: number }> {
  const view = await openForm(harness, 'disk add 42', 'UOPER');
  await submit(harness, 'disk_add', 'UOPER', view.private_metadata, diskInputs({ ...goodDiskForm, require_format_disk: false, file_system: undefined }));
  const message = await waitFor(
    'the message of the accepted change',
    () => harness.slack.messagesIn(CHANNEL).find((m) => m.text.startsWith('Add disk · web-1 (VS 42)')),
    {
      within: 5000,
    },
  );
  const [record] = await harness.store.audit.latest(1);
  await waitFor('the message remembered', async () => (await harness.store.follows.get(record!.id))?.messageTs === message.ts, { within: 5000 });
  return { message, recordId: record!.id };
}

const shown = (harness: Harness, message: ChannelMessage) => visibleText(harness.slack.messagesIn(CHANNEL).find((m) => m.ts === message.ts)!.blocks);
const replies = (harness: Harness, message: ChannelMessage) => harness.slack.messagesIn(CHANNEL).filter((m) => m.threadTs === message.ts);

test('one instance at a time polls a change; when it dies mid-follow, another takes over once its lease expires and tells the end once', async () => {
  const [harness, a, b] = await twoInstances();
  const { message, recordId } = await addDisk(harness);
  // What each instance polls from here (the door's own look at the newest transaction is not a poll).
  const before = new Map([a, b].map((bot) => [bot, 0]));
  for (const bot of [a, b]) before.set(bot, await transactionReads(bot));
  const polls = async (bot: Bot) => (await transactionReads(bot)) - before.get(bot)!;

  // Due at 5 s: both instances run a round at once; one takes it and polls it, the other leaves it.
  await later([a, b], 5000, 2000);
  expect(shown(harness, message)).toMatch(/\*Running\* · building disk \d+…/);
  const owner = (await harness.store.follows.get(recordId))!.owner;
  const [holder, other] = owner === a.ops.instanceId ? [a, b] : [b, a];
  expect(owner).toBe(holder.ops.instanceId);
  const [holderPolls, otherPolls] = [await polls(holder), await polls(other)];
  expect(otherPolls).toBe(0);
  expect(holderPolls).toBeGreaterThan(0);

  // The holder dies (no shutdown hook gives its changes back): its lease runs to its next poll plus a minute.
  holder.store.follows.release = () => Promise.resolve(0);
  await holder.stop(0);
  await later([other], 30_000, 1000);
  expect(await polls(other)).toBe(0);
  expect(shown(harness, message)).toMatch(/\*Running\* · building disk \d+…/);

  // Past it, the other instance takes the change over and finishes it: the message done, one reply in its thread.
  await later([other], 40_000, 5000);
  expect(shown(harness, message)).toMatch(/\*Done\* · disk \d+ is built and unlocked/);
  expect(replies(harness, message)).toHaveLength(1);
  // (The harness's store may be the dead instance's: read through the survivor's.)
  expect(await other.store.follows.get(recordId)).toMatchObject({ owner: other.ops.instanceId, status: 'complete' });
  expect((await other.store.audit.latest(1))[0]).toMatchObject({ id: recordId, outcome: 'done', cloudOutcome: 'complete' });
  // Nothing is said twice however often the survivor looks again.
  await later([other], 60_000);
  expect(replies(harness, message)).toHaveLength(1);
});

test('two live instances rounding together: each poll is made by one of them, and the end is told once', async () => {
  const [harness, a, b] = await twoInstances();
  const { message } = await addDisk(harness);
  const [beforeA, beforeB] = [await transactionReads(a), await transactionReads(b)];
  await later([a, b], 5000, 2000);
  await later([a, b], 5000, 3000);
  expect(shown(harness, message)).toMatch(/\*Done\*/);
  // Two polls (running, then complete), not four: the one holding the lease made both.
  const polls = [(await transactionReads(a)) - beforeA, (await transactionReads(b)) - beforeB].sort();
  expect(polls).toEqual([0, 2]);
  await later([a, b], 60_000);
  expect(replies(harness, message)).toHaveLength(1);
});
