import type { ChannelMessage } from '@vs-chatops/slack-standin';
import type { Bot } from '../../src/compose';
import { FOLLOW_LEASE_MS } from '../../src/follow/follower';
import { startHarness, type Harness } from '../helpers/app-harness';
import { forward, startCloudFaultServer, type CloudFaultServer } from '../helpers/cloud-fault-server';
import { CHANNEL, openForm, submit } from '../helpers/drive';
import { diskInputs, goodDiskForm } from '../helpers/forms';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres';
import { waitFor } from '../helpers/wait';

// A followed change's lease outlives a slow poll, and its end is replied in its thread once, whatever takes long
// (docs/product.md, Following a change to its end): the instance polling it renews its lease while it reads the
// cloud, so no other takes it over meanwhile; and the reply is marked in the store before it is posted, so an
// instance that takes the change over while another is still telling it never replies a second time. Two instances
// on one PostgreSQL, a slow cloud (the fault server, moving the bot's fake clock as a slow answer would), a slow Slack.

const T0 = Date.parse('2026-03-14T09:00:00Z');
const clocks = { bot: T0, cloud: T0 };

let database: TestDatabase;
let cloud: CloudFaultServer;
let h: Harness | undefined;
beforeAll(async () => {
  database = await createTestDatabase();
  cloud = await startCloudFaultServer({ handler: (req, res) => forward(h!.sandbox.url, req, res) });
});
afterEach(async () => {
  await h?.close();
  h = undefined;
  cloud.heal();
});
afterAll(async () => {
  await cloud.close();
  await database.drop();
});

async function twoInstances(): Promise<[Harness, Bot, Bot]> {
  clocks.bot = T0;
  clocks.cloud = T0;
  const env = { VS_OPERATORS: 'UOPER', DATABASE_URL: database.url, VS_FOLLOW_INTERVAL_S: '5' };
  h = await startHarness({ env, now: () => clocks.bot, sandboxNow: () => clocks.cloud, cloudUrl: cloud.url });
  return [h, h.bot, await h.another()];
}

/** A disk asked for by the operator, accepted, its message posted and remembered; then polled once, by `a` alone: running. */
async function followedBy(harness: Harness, a: Bot): Promise<{ message: ChannelMessage; recordId: number }> {
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
  clocks.bot += 5000;
  clocks.cloud += 2000;
  await a.follower.round();
  expect(await harness.store.follows.get(record!.id)).toMatchObject({ owner: a.ops.instanceId, status: 'running' });
  return { message, recordId: record!.id };
}

const replies = (harness: Harness, message: ChannelMessage) => harness.slack.messagesIn(CHANNEL).filter((m) => m.threadTs === message.ts);

test('a poll slower than the lease keeps it: the other instance does not take the change over meanwhile, and the end is told once', async () => {
  const [harness, a, b] = await twoInstances();
  const { message, recordId } = await followedBy(harness, a);
  // Done in the cloud; each read of a's next poll takes 40 s of the bot's clock, longer together than a lease (60 s).
  clocks.bot += 5000;
  clocks.cloud += 3000;
  let slowReads = 0;
  let ownerMeanwhile: string | null | undefined;
  cloud.handle(async (req, res) => {
    if (slowReads < 2) {
      slowReads += 1;
      clocks.bot += 40_000;
      if (slowReads === 2) {
        // 80 s into the poll: the other instance's round, as its timer would run it.
        await b.follower.round();
        ownerMeanwhile = (await harness.store.follows.get(recordId))?.owner;
      }
    }
    await forward(harness.sandbox.url, req, res);
  });
  await a.follower.round();
  expect(slowReads).toBe(2);
  expect(clocks.bot - T0).toBeGreaterThan(FOLLOW_LEASE_MS);
  expect(ownerMeanwhile).toBe(a.ops.instanceId);
  expect(await harness.store.follows.get(recordId)).toMatchObject({ owner: a.ops.instanceId, status: 'complete' });
  expect(replies(harness, message)).toHaveLength(1);
  cloud.heal();
  clocks.bot += 2 * FOLLOW_LEASE_MS;
  await Promise.all([a.follower.round(), b.follower.round()]);
  expect(replies(harness, message)).toHaveLength(1);
});

test('taken over while its end is still being told (Slack slow): the reply in its thread is posted once, never twice', async () => {
  const [harness, a, b] = await twoInstances();
  const { message, recordId } = await followedBy(harness, a);
  // a ends it and updates its message; Slack takes its time over that update.
  harness.slack.fault('chat.update', { delayMs: 800, times: 1 });
  const updates = harness.slack.callsTo('chat.update').length;
  clocks.bot += 5000;
  clocks.cloud += 3000;
  const aRound = a.follower.round();
  await waitFor("a's update of the message sent to Slack", () => harness.slack.callsTo('chat.update').length > updates, { within: 5000 });
  // Meanwhile a's lease runs out on the bot's clock, and b takes the change over and tells its end.
  clocks.bot += FOLLOW_LEASE_MS + 1000;
  await b.follower.round();
  expect((await harness.store.follows.get(recordId))!.owner).toBe(b.ops.instanceId);
  await aRound;
  expect(replies(harness, message)).toHaveLength(1);
  expect(await harness.store.follows.get(recordId)).toMatchObject({ status: 'complete', repliedAtMs: expect.any(Number) });
  expect((await harness.store.audit.latest(1))[0]).toMatchObject({ id: recordId, cloudOutcome: 'complete' });
});
