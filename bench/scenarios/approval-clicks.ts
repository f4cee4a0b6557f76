import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Store } from '../../src/store';
import { openPostgresStore } from '../../src/store/postgres';
import { openSqliteStore } from '../../src/store/sqlite';
import { instance, type Instance } from '../../test/helpers/cluster';
import { CHANNEL, goodDisk, newViewId } from '../../test/helpers/drive';
import { buttonClick, viewSubmission } from '../../test/helpers/payloads';
import { createTestDatabase } from '../../test/helpers/postgres';
import { startProcessHarness } from '../../test/helpers/process-harness';
import type { SlackFake } from '../../test/helpers/slack-fake';
import { BOT_NODE_FLAGS } from '../launch-targets';
import { goodDiskForm } from '../../test/helpers/forms';
import { doorBench } from '../door-overhead';
import { percentile, round } from '../stats';

// Scenario 13: an approval click (block_actions `approval_approve`) by a
// second admin, on a request of its own, asked for by a first admin with
// VS_APPROVALS=disk_add. Every request is made before the clicks are timed;
// what is timed is the clicks, one at a time:
//   a. the door's own overhead from the click to the cloud call, measured as
//      the change path's (scenario 9a, bench/door-overhead.ts): the door in
//      this process on SQLite and on PostgreSQL, `decide` timed with the
//      cloud call (which answers at once) taken out: the checks of the click
//      (role now, not the requester, the channel, the freeze), the first
//      decisive click recorded, then the change's claim, lease, call and
//      records;
//   b. the bot process as production runs it, on PostgreSQL: the requests
//      asked for through Slack (`/vs disk add`, the form submitted, the
//      request posted in the channel), then each click sent signed: its ack
//      (the HTTP answer to Slack), and the time until the request's message
//      is updated in place (chat.update at the Slack stand-in) with the
//      change made in the sandbox.

export interface ApprovalDoorFigures {
  clicks: number;
  overheadP50Ms: number;
  overheadP99Ms: number;
}

export interface ApprovalClicksFigures {
  door: { sqlite: ApprovalDoorFigures; postgres: ApprovalDoorFigures };
  bot: { clicks: number; ackP50Ms: number; ackP99Ms: number; updatedP50Ms: number; updatedP99Ms: number; changesMade: number };
}

export interface ApprovalClicksLoad {
  /** Clicks timed through the door, on each store. */
  doorClicks: number;
  /** Clicks timed against the bot process. */
  botClicks: number;
}

const REQUESTER = 'UBENCHADMIN1';
const APPROVER = 'UBENCHADMIN2';
/** Clicks before the timed ones (JIT, prepared statements, pool connections): 20, or as many as are timed if fewer (the smoke run). */
const warmupFor = (count: number) => Math.min(20, count);
const SERVERS = [42, 43, 44, 45, 46];

/** Asks for `count` changes through the door's submission path, then approves each one as the second admin, one at a time. */
async function doorClicks(store: Store, count: number): Promise<ApprovalDoorFigures> {
  const { changes, overheadOf } = doorBench(store, { admins: [REQUESTER, APPROVER], approvals: ['disk_add'] });
  const base = 1_000_000 + Math.floor(Math.random() * 1_000_000);
  const warmup = warmupFor(count);
  const approvals: string[] = [];
  for (let i = 0; i < warmup + count; i++) {
    const asked = await changes.submit({ userId: REQUESTER, channelId: 'CBENCH', submissionKey: `bench-ask-${base}-${i}` }, 'disk_add', base + i, goodDiskForm);
    if (asked.outcome !== 'requested') throw new Error(`the approval bench expected a request, got ${asked.outcome}`);
    approvals.push(asked.approval.id);
  }
  const overheads: number[] = [];
  for (const [i, id] of approvals.entries()) {
    const { result, overheadMs } = await overheadOf(() => changes.decide(id, { userId: APPROVER }, 'approve'));
    if (result.outcome !== 'approved' || result.change.outcome !== 'succeeded') {
      throw new Error(
        `the approval bench expected an approved change made, got ${result.outcome}${result.outcome === 'approved' ? ` (${result.change.outcome})` : ''}`,
      );
    }
    if (i >= warmup) overheads.push(overheadMs);
  }
  return { clicks: overheads.length, overheadP50Ms: round(percentile(overheads, 50), 2), overheadP99Ms: round(percentile(overheads, 99), 2) };
}

interface Asked {
  approvalId: string;
  ts: string;
}

/** The Approve button's value (the approval id) in a posted message's blocks, if it has one. */
function approveValue(blocks: unknown): string | undefined {
  for (const block of (blocks ?? []) as { elements?: { action_id?: string; value?: string }[] }[]) {
    const button = block.elements?.find((e) => e.action_id === 'approval_approve');
    if (button?.value) return button.value;
  }
  return undefined;
}

/** `/vs disk add <vs>` typed by the first admin, the form submitted, and the request the bot then posts in the channel. */
async function askThroughSlack(bot: Instance, slack: SlackFake, vsId: number): Promise<Asked> {
  const triggerId = `trigger.bench.${newViewId()}`;
  const opened = slack.callsTo('views.open').length;
  const command = await bot.command(`disk add ${vsId}`, { user: REQUESTER, responseUrl: slack.responseUrl(), triggerId });
  if (command.status !== 200) throw new Error(`/vs disk add was answered HTTP ${command.status}`);
  const open = (await slack.waitForCalls('views.open', opened + 1, 10_000))[opened]!;
  if (open.args.trigger_id !== triggerId) throw new Error('the add-disk form was opened for another command');
  const view = open.args.view as { private_metadata: string };
  const posted = slack.callsTo('chat.postMessage').length;
  const submission = viewSubmission({ callbackId: 'disk_add', viewId: newViewId(), user: REQUESTER, privateMetadata: view.private_metadata, fields: goodDisk });
  const answer = await bot.interact(submission);
  if (answer.status !== 200) throw new Error(`the add-disk form was answered HTTP ${answer.status}`);
  const post = (await slack.waitForCalls('chat.postMessage', posted + 1, 10_000))[posted]!;
  const approvalId = approveValue(post.args.blocks);
  const message = approvalId === undefined ? undefined : slack.messagesIn(CHANNEL).find((m) => approveValue(m.blocks) === approvalId);
  if (!post.ok || approvalId === undefined || message === undefined) throw new Error(`no approval request was posted (${post.error ?? 'no Approve button'})`);
  return { approvalId, ts: message.ts };
}

async function botClicks(serverUrl: string, count: number, progress: (message: string) => void): Promise<ApprovalClicksFigures['bot']> {
  const database = await createTestDatabase(serverUrl);
  const parts = await startProcessHarness({ behindFaults: true });
  const { slack, cloud } = parts;
  try {
    const spawned = await parts.spawn(
      {
        DATABASE_URL: database.url,
        VS_ADMINS: `${REQUESTER},${APPROVER}`,
        VS_APPROVALS: 'disk_add',
        LOG_LEVEL: 'warn',
        // Two people make all the requests: the bench measures the bot, not the per-person limits.
        VS_READS_PER_USER_PER_MINUTE: '1000000',
        VS_CHANGES_PER_USER_PER_MINUTE: '1000000',
      },
      { readyTimeoutMs: 40_000, nodeArgs: [...BOT_NODE_FLAGS] },
    );
    const bot = instance('bot', spawned);
    const warmup = warmupFor(count);
    progress(`13b. ${warmup + count} disk additions asked for through Slack`);
    const asked: Asked[] = [];
    for (let i = 0; i < warmup + count; i++) asked.push(await askThroughSlack(bot, slack, SERVERS[i % SERVERS.length]!));

    progress(`13b. ${count} approval clicks, one at a time`);
    const changesBefore = cloud.requests.filter((r) => r.method === 'POST').length;
    const acks: number[] = [];
    const updated: number[] = [];
    for (const [i, { approvalId, ts }] of asked.entries()) {
      const updates = slack.callsTo('chat.update').length;
      const sent = performance.now();
      const click = buttonClick({
        user: APPROVER,
        channel: CHANNEL,
        actionId: 'approval_approve',
        value: approvalId,
        responseUrl: slack.responseUrl(),
        messageTs: ts,
      });
      const ack = await bot.interact(click);
      if (ack.status !== 200) throw new Error(`the approval click was answered HTTP ${ack.status}`);
      const update = (await slack.waitForCalls('chat.update', updates + 1, 10_000))[updates]!;
      const ms = performance.now() - sent;
      if (!update.ok || update.args.ts !== ts) throw new Error(`the request's message was not updated in place (${update.error ?? String(update.args.ts)})`);
      if (i >= warmup) {
        acks.push(ack.ms);
        updated.push(ms);
      }
    }
    const changesMade = cloud.requests.filter((r) => r.method === 'POST').length - changesBefore;
    if (changesMade !== asked.length) throw new Error(`${asked.length} approvals made ${changesMade} changes`);
    return {
      clicks: acks.length,
      ackP50Ms: round(percentile(acks, 50), 2),
      ackP99Ms: round(percentile(acks, 99), 2),
      updatedP50Ms: round(percentile(updated, 50), 2),
      updatedP99Ms: round(percentile(updated, 99), 2),
      changesMade: changesMade - warmup,
    };
  } finally {
    await parts.close();
    await database.drop();
  }
}

/** `serverUrl`: a PostgreSQL server (its maintenance database); the scenario makes databases of its own there. */
export async function runApprovalClicks(serverUrl: string, load: ApprovalClicksLoad, progress: (message: string) => void): Promise<ApprovalClicksFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'vs-bench-approvals-'));
  try {
    progress(`13a. ${load.doorClicks} approval clicks through the door on SQLite`);
    const sqliteStore = openSqliteStore(join(dir, 'bench.sqlite'));
    const sqlite = await doorClicks(sqliteStore, load.doorClicks).finally(() => sqliteStore.close());

    progress(`13a. ${load.doorClicks} approval clicks through the door on PostgreSQL`);
    const database = await createTestDatabase(serverUrl);
    let postgres: ApprovalDoorFigures;
    try {
      const postgresStore = await openPostgresStore(database.url);
      postgres = await doorClicks(postgresStore, load.doorClicks).finally(() => postgresStore.close());
    } finally {
      await database.drop();
    }

    const bot = await botClicks(serverUrl, load.botClicks, progress);
    return { door: { sqlite, postgres }, bot };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
