import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { ServerResponse } from 'node:http';
import type { Store } from '../../src/store';
import { openPostgresStore } from '../../src/store/postgres';
import { openSqliteStore } from '../../src/store/sqlite';
import { forward, type RecordedRequest } from '../../test/helpers/cloud-fault-server';
import { startInstances, type Instance } from '../../test/helpers/cluster';
import { goodDisk, newViewId } from '../../test/helpers/drive';
import { viewSubmission } from '../../test/helpers/payloads';
import { startProcessHarness } from '../../test/helpers/process-harness';
import { waitFor } from '../../test/helpers/wait';
import { doorBench } from '../door-overhead';
import { openLoopOverInstances, type OpenLoopOverInstancesFigures } from './several-instances';
import { percentile, round } from '../stats';

// Scenario 15: following changes to their end (docs/product.md, Following a change to its end).
//   a. the power path through the door (policy, freeze, the server read as it stands and the newest transaction id,
//      answered at once here, claim, lock, started record, settled record with its followed change and queued post),
//      on SQLite and on PostgreSQL, one reboot at a time after a warm-up: the door's own overhead (its time minus the
//      cloud calls');
//   b. `changes` disk adds accepted over three bot processes on one PostgreSQL, their transactions running longer
//      than the open loop lasts (the sandbox's `transactionMs`), so that all are followed at once while `/vs firewall`
//      arrives at `rate`/s round robin, the cloud answering after `upstreamDelayMs`: the reads' ack and completion
//      (command to its response_url post); every GET of a change's transaction as the cloud saw it (how often each
//      was polled, and whether two polls of one came closer than VS_FOLLOW_INTERVAL_S, which one instance at a time
//      under a lease never does); the polls each instance made; and every change followed to its end, told once.

export interface FollowLoad {
  /** Reboots timed through the door on each store (a). */
  doorChanges: number;
  /** Changes accepted, then followed at once (b). */
  changes: number;
  rate: number;
  seconds: number;
  upstreamDelayMs: number;
  intervalS: number;
  /** How long the sandbox's transactions stay pending, then running. */
  transactionMs: { pending: number; running: number };
}

export interface FollowFigures {
  powerPath: { sqlite: { overheadP50Ms: number; overheadP99Ms: number }; postgres: { overheadP50Ms: number; overheadP99Ms: number } };
  changes: number;
  instances: number;
  intervalS: number;
  upstreamDelayMs: number;
  /** Changes still being followed when the open loop began and when it ended. */
  followedAtStart: number;
  followedAtEnd: number;
  /** GETs of a change's own transaction the cloud saw, and the closest two of one transaction came (ms; null: none was read twice). */
  transactionPolls: number;
  /** The closest two polls of one transaction came; absent when no transaction was read twice (a short run). */
  closestPollsMs?: number;
  /** Pairs of polls of one transaction closer than the interval (a change polled twice at once, or too soon). */
  pollsTooClose: number;
  /** Reads of transactions each instance made: its polls, and its look at the newest transaction before each change it sent. */
  pollsByInstance: number[];
  /** Changes whose end was told (a reply in their thread), and replies in all (one each). */
  ended: number;
  replies: number;
  /** `/vs firewall` round robin over the instances meanwhile. */
  reads: OpenLoopOverInstancesFigures;
}

const USER = 'UBENCH';
const CHANNEL = 'CBENCHFOLLOW';
/** Servers a disk can be added to (VS 47 is locked, VS 48's changes fail: both would follow other paths). */
const SERVERS = [42, 43, 44, 45, 46, 77];

async function powerPath(store: Store, changes: number): Promise<{ overheadP50Ms: number; overheadP99Ms: number }> {
  const { changes: door, overheadOf } = doorBench(store, { admins: [USER], follow: true });
  const base = 2_000_000 + Math.floor(Math.random() * 1_000_000);
  const overheads: number[] = [];
  for (let i = 0; i < changes + 20; i++) {
    const vsId = base + i;
    const submission = { userId: USER, channelId: CHANNEL, submissionKey: `bench-power-${vsId}` };
    const values = { power_action: 'reboot', confirm: String(vsId), reason: 'bench' };
    const { result, overheadMs } = await overheadOf(() => door.submit(submission, 'power_reboot', vsId, values));
    if (result.outcome !== 'succeeded' || !result.followed) throw new Error(`the power path bench expected a followed change, got ${result.outcome}`);
    // The first twenty warm up (JIT, prepared statements, pool connections).
    if (i >= 20) overheads.push(overheadMs);
  }
  return { overheadP50Ms: round(percentile(overheads, 50), 2), overheadP99Ms: round(percentile(overheads, 99), 2) };
}

/** The transaction reads an instance made (its metrics): a poll reads one, the list until its transaction is found, then it. */
async function transactionReads(bot: Instance): Promise<number> {
  const text = await bot.metrics();
  return [...text.matchAll(/vs_chatops_cloud_requests_total\{operation="(list_transactions|get_transaction)",status="200"} (\d+)/g)].reduce(
    (n, m) => n + Number(m[2]),
    0,
  );
}

export async function runFollow(postgresUrl: string, load: FollowLoad, progress: (message: string) => void): Promise<FollowFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'vs-bench-follow-'));
  const closers: (() => Promise<unknown>)[] = [];
  let bots: Instance[] = [];
  try {
    progress('15a. the power path through the door, followed, on SQLite');
    const sqlite = openSqliteStore(join(dir, 'bench.sqlite'));
    const sqliteFigures = await powerPath(sqlite, load.doorChanges);
    await sqlite.close();
    progress('15a. the power path through the door, followed, on PostgreSQL');
    const postgres = await openPostgresStore(postgresUrl);
    const postgresFigures = await powerPath(postgres, load.doorChanges);
    await postgres.close();

    progress(`15b. ${load.changes} changes followed at once over three instances on PostgreSQL, beside reads at ${load.rate}/s`);
    const parts = await startProcessHarness({ behindFaults: true, transactionMs: load.transactionMs });
    closers.push(() => parts.close());
    // Every GET of a transaction by id, as the cloud sees it: when, and which.
    const transactionGets: { id: string; at: number }[] = [];
    parts.cloud.handle((req: RecordedRequest, res: ServerResponse) => {
      const id = /^\/transactions\/(\d+)\./.exec(req.url)?.[1];
      if (id && req.method === 'GET') transactionGets.push({ id, at: performance.now() });
      return forward(parts.sandbox.url, req, res);
    });
    bots = await startInstances(3, {
      ...parts.env(),
      DATABASE_URL: postgresUrl,
      VS_OPERATORS: USER,
      VS_FOLLOW_INTERVAL_S: String(load.intervalS),
      LOG_LEVEL: 'warn',
      // One user sends the whole load: the bench measures the bot, not the per-person limits.
      VS_READS_PER_USER_PER_MINUTE: '1000000',
      VS_CHANGES_PER_USER_PER_MINUTE: '1000000',
    });
    const { slack } = parts;
    const pollsBefore = await Promise.all(bots.map(transactionReads));

    // The changes: one at a time per server (one change per server at a time), the servers side by side.
    let next = 0;
    const submitter = async (vsId: number) => {
      while (next < load.changes) {
        const i = next++;
        const metadata = JSON.stringify({ channelId: CHANNEL, vsId });
        const payload = viewSubmission({ callbackId: 'disk_add', viewId: newViewId(), user: USER, privateMetadata: metadata, fields: goodDisk });
        const answer = await bots[i % bots.length]!.interact(payload);
        if (answer.status !== 200) throw new Error(`a change was answered HTTP ${answer.status}`);
      }
    };
    await Promise.all(SERVERS.map(submitter));
    const accepted = () => slack.messagesIn(CHANNEL).filter((m) => m.kind === 'bot' && !m.threadTs);
    await waitFor(`${load.changes} changes accepted and posted`, () => accepted().length >= load.changes, { within: 60_000 });
    const ended = () => new Set(slack.messagesIn(CHANNEL).flatMap((m) => (m.threadTs ? [m.threadTs] : []))).size;
    const followedAtStart = load.changes - ended();

    // The reads, round robin over the three, while every change is followed.
    parts.sandbox.setDelay(load.upstreamDelayMs);
    const reads = await openLoopOverInstances(bots, slack, { ...load, servers: SERVERS, drainMs: load.upstreamDelayMs + 10_000, user: USER });
    const followedAtEnd = load.changes - ended();
    parts.sandbox.setDelay(0);

    // Then every change to its end, told once.
    const endWithin = load.transactionMs.pending + load.transactionMs.running + 40 * load.intervalS * 1000;
    await waitFor(`${load.changes} changes followed to their end`, () => ended() >= load.changes, { within: endWithin, every: 200 });
    await new Promise((r) => setTimeout(r, 2 * load.intervalS * 1000));
    const replies = slack.messagesIn(CHANNEL).filter((m) => m.threadTs).length;

    const byTransaction = new Map<string, number[]>();
    for (const get of transactionGets) byTransaction.set(get.id, [...(byTransaction.get(get.id) ?? []), get.at]);
    const gaps = [...byTransaction.values()].flatMap((times) => times.slice(1).map((at, i) => at - times[i]!));
    // A poll is due no sooner than the interval after the last; rounds run every second, so a gap is never shorter.
    const tooClose = gaps.filter((gap) => gap < load.intervalS * 1000 - 50).length;
    const pollsAfter = await Promise.all(bots.map(transactionReads));
    return {
      powerPath: { sqlite: sqliteFigures, postgres: postgresFigures },
      changes: load.changes,
      instances: bots.length,
      intervalS: load.intervalS,
      upstreamDelayMs: load.upstreamDelayMs,
      followedAtStart,
      followedAtEnd,
      transactionPolls: transactionGets.length,
      ...(gaps.length > 0 ? { closestPollsMs: round(Math.min(...gaps), 0) } : {}),
      pollsTooClose: tooClose,
      pollsByInstance: pollsAfter.map((n, i) => n - pollsBefore[i]!),
      ended: ended(),
      replies,
      reads,
    };
  } finally {
    await Promise.all(bots.map((b) => b.bot.kill('SIGTERM')));
    for (const close of closers) await close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}
