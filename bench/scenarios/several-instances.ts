import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Store } from '../../src/store';
import { openPostgresStore } from '../../src/store/postgres';
import { openSqliteStore } from '../../src/store/sqlite';
import { startInstances, type Instance } from '../../test/helpers/cluster';
import { goodDisk, newViewId } from '../../test/helpers/drive';
import { goodDiskForm } from '../../test/helpers/forms';
import { viewSubmission } from '../../test/helpers/payloads';
import { createTestDatabase, startPostgresServer, type PostgresServer } from '../../test/helpers/postgres';
import { startProcessHarness } from '../../test/helpers/process-harness';
import type { SlackFake } from '../../test/helpers/slack-fake';
import { waitFor } from '../../test/helpers/wait';
import { doorBench } from '../door-overhead';
import { percentile, round } from '../stats';

// Scenario 9: several instances on one PostgreSQL.
//   a. the change path through the door (policy, claim, lock, started record,
//      settled record with its queued audit post, unlock) on SQLite and on
//      PostgreSQL, submissions to distinct servers: changes/s with
//      `concurrency` in flight, and the door's own overhead per change (its
//      time minus the cloud call's, which answers at once here) measured one
//      change at a time, after a warm-up;
//   b. a duplicate storm: one submission delivered `deliveries` times, spread
//      over three bot processes at once: API calls made, deliveries answered;
//   c. the open loop over three instances on PostgreSQL: `/vs firewall`
//      at `rate`/s, round robin, the ack latency (the HTTP answer to Slack).
// The PostgreSQL it starts runs with production's durability (fsync on).

export interface ChangePathFigures {
  changes: number;
  concurrency: number;
  changesPerSecond: number;
  overheadP50Ms: number;
  overheadP99Ms: number;
}

export interface SeveralInstancesFigures {
  changePath: { sqlite: ChangePathFigures; postgres: ChangePathFigures };
  duplicateStorm: { deliveries: number; instances: number; apiCalls: number; answered: number };
  openLoop: {
    instances: number;
    rate: number;
    seconds: number;
    acked: number;
    non2xx: number;
    ackP50Ms: number;
    ackP99Ms: number;
    /** From the command sent to its answer at its response_url; `missing`: acked commands whose answer never came. */
    completionP50Ms: number;
    completionP99Ms: number;
    missing: number;
  };
}

export interface SeveralInstancesLoad {
  changes: number;
  concurrency: number;
  deliveries: number;
  rate: number;
  seconds: number;
}

const USER = 'UBENCH';

async function changePath(store: Store, load: SeveralInstancesLoad): Promise<ChangePathFigures> {
  const { changes, overheadOf } = doorBench(store, { admins: [USER] });
  const base = 1_000_000 + Math.floor(Math.random() * 1_000_000);
  let next = 0;
  /** Runs `count` changes, `concurrency` at a time; returns each one's door overhead (its time minus the cloud call's). */
  const pass = async (count: number, concurrency: number): Promise<number[]> => {
    const overheads: number[] = [];
    const end = next + count;
    const worker = async () => {
      while (next < end) {
        const i = next++;
        const submission = { userId: USER, channelId: 'CBENCH', submissionKey: `bench-${base}-${i}` };
        const { result, overheadMs } = await overheadOf(() => changes.submit(submission, 'disk_add', base + i, goodDiskForm));
        if (result.outcome !== 'succeeded') throw new Error(`the change path bench expected succeeded, got ${result.outcome}`);
        overheads.push(overheadMs);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    return overheads;
  };
  await pass(Math.min(50, load.changes), 1); // warm-up: JIT, prepared statements, pool connections
  // Throughput: `concurrency` submissions in flight, as from several users at once.
  const started = performance.now();
  await pass(load.changes, load.concurrency);
  const seconds = (performance.now() - started) / 1000;
  // The door's own overhead: one change at a time, so that no other change's work is counted in it.
  const overheads = await pass(Math.max(20, Math.floor(load.changes / 2)), 1);
  return {
    changes: load.changes,
    concurrency: load.concurrency,
    changesPerSecond: round(load.changes / seconds, 0),
    overheadP50Ms: round(percentile(overheads, 50), 2),
    overheadP99Ms: round(percentile(overheads, 99), 2),
  };
}

/**
 * Inside `npm test` (the smoke run of test/bench/smoke.test.ts), a database of its own on the server the jest run
 * already started, rather than a server of our own: no figure is judged there, and initdb costs seconds.
 */
async function jestRunDatabase(closers: (() => Promise<unknown>)[]): Promise<string | undefined> {
  if (!process.env.VS_TEST_POSTGRES_URL) return undefined;
  const database = await createTestDatabase(process.env.VS_TEST_POSTGRES_URL);
  closers.push(() => database.drop());
  return database.url;
}

export type OpenLoopOverInstancesFigures = SeveralInstancesFigures['openLoop'];

/**
 * `/vs firewall` at `rate`/s for `seconds`, round robin over `bots` and over `servers`, from one user: the ack latency
 * (the HTTP answer to Slack) and the completion (from sending the command to its answer at its response_url, waited
 * for up to `drainMs` after the last).
 */
export async function openLoopOverInstances(
  bots: readonly Instance[],
  slack: Pick<SlackFake, 'responseUrl' | 'arrivals' | 'waitForArrivals'>,
  load: Pick<SeveralInstancesLoad, 'rate' | 'seconds'> & { servers?: readonly number[]; drainMs?: number; user?: string },
): Promise<OpenLoopOverInstancesFigures> {
  const servers = load.servers ?? [42, 43, 44, 45, 46];
  const latencies: number[] = [];
  const sent = new Map<string, number>();
  let non2xx = 0;
  const pending: Promise<void>[] = [];
  const total = load.rate * load.seconds;
  const tag = `loop-${Date.now()}`;
  const start = performance.now();
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / load.rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const bot = bots[i % bots.length]!;
    const id = `${tag}-${i}`;
    sent.set(id, performance.now());
    pending.push(
      bot.command(`firewall ${servers[i % servers.length]}`, { user: load.user ?? USER, responseUrl: slack.responseUrl(id) }).then(
        (res) => {
          if (res.status === 200) latencies.push(res.ms);
          else non2xx++;
        },
        () => void non2xx++,
      ),
    );
  }
  await Promise.all(pending);
  const missing = await slack.waitForArrivals(sent.keys(), load.drainMs ?? 10_000);
  const completions = [...sent].flatMap(([id, at]) => {
    const arrived = slack.arrivals.get(id);
    return arrived ? [arrived.at - at] : [];
  });
  return {
    instances: bots.length,
    rate: load.rate,
    seconds: load.seconds,
    acked: latencies.length,
    non2xx,
    ackP50Ms: round(percentile(latencies, 50), 2),
    ackP99Ms: round(percentile(latencies, 99), 2),
    completionP50Ms: round(percentile(completions, 50)),
    completionP99Ms: round(percentile(completions, 99)),
    missing,
  };
}

/** `serverUrl`: the PostgreSQL to use (run.ts starts one for scenarios 9 and 10); unset: VS_TEST_DATABASE_URL, or one of its own. */
export async function runSeveralInstances(
  load: SeveralInstancesLoad,
  progress: (message: string) => void,
  serverUrl?: string,
): Promise<SeveralInstancesFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'vs-bench-instances-'));
  let pg: PostgresServer | undefined;
  let bots: Instance[] = [];
  const closers: (() => Promise<unknown>)[] = [];
  try {
    progress('9a. the change path on SQLite');
    const sqlite = openSqliteStore(join(dir, 'bench.sqlite'));
    const sqliteFigures = await changePath(sqlite, load);
    await sqlite.close();

    const url = serverUrl ?? process.env.VS_TEST_DATABASE_URL ?? (await jestRunDatabase(closers)) ?? (pg = await startPostgresServer({ durable: true })).url;
    progress('9a. the change path on PostgreSQL');
    const postgres = await openPostgresStore(url);
    const postgresFigures = await changePath(postgres, load);
    await postgres.close();

    progress('9b/c. three instances on PostgreSQL');
    const parts = await startProcessHarness({ behindFaults: true });
    const { slack, cloud } = parts;
    closers.push(() => parts.close());
    bots = await startInstances(3, {
      ...parts.env(),
      DATABASE_URL: url,
      VS_OPERATORS: USER,
      LOG_LEVEL: 'warn',
      // One user sends the whole load: the bench measures the bot, not the per-person limits.
      VS_READS_PER_USER_PER_MINUTE: '1000000',
      VS_CHANGES_PER_USER_PER_MINUTE: '1000000',
    });

    // b. The storm: the form opened once, its submission delivered `deliveries` times over the three.
    const triggerId = `trigger.storm.${Date.now()}`;
    await bots[0]!.command('disk add 42', { user: USER, responseUrl: slack.responseUrl(), triggerId });
    await waitFor('the form to open', () => slack.callsTo('views.open').some((c) => c.args.trigger_id === triggerId), { within: 10_000 });
    const view = slack.callsTo('views.open').find((c) => c.args.trigger_id === triggerId)!.args.view as { private_metadata: string };
    const payload = viewSubmission({ callbackId: 'disk_add', viewId: newViewId(), user: USER, privateMetadata: view.private_metadata, fields: goodDisk });
    const diskPosts = () => cloud.requests.filter((r) => r.method === 'POST' && r.url.startsWith('/virtual_machines/42/disks')).length;
    const before = diskPosts();
    const answers = await Promise.all(
      Array.from({ length: load.deliveries }, (_, i) =>
        bots[i % bots.length]!.interact(payload).then(
          (a) => a.status,
          () => 0,
        ),
      ),
    );
    await new Promise((r) => setTimeout(r, 500));
    const duplicateStorm = {
      deliveries: load.deliveries,
      instances: bots.length,
      apiCalls: diskPosts() - before,
      answered: answers.filter((s) => s === 200).length,
    };

    // c. The open loop, round robin over the three.
    const openLoop = await openLoopOverInstances(bots, slack, load);
    return { changePath: { sqlite: sqliteFigures, postgres: postgresFigures }, duplicateStorm, openLoop };
  } finally {
    await Promise.all(bots.map((b) => b.bot.kill('SIGTERM')));
    for (const close of closers) await close().catch(() => undefined);
    await pg?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
