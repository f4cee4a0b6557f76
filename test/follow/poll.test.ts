import { CHANGES } from '../../src/changes';
import { createCloudClient } from '../../src/cloud/client';
import type { CloudClient } from '../../src/cloud/client.types';
import { CloudError } from '../../src/cloud/errors';
import { FALLBACK_AFTER_MS, poll, type PollSettings, type Polled } from '../../src/follow/poll';
import type { FollowedChange, FollowSubject, RecordedAction } from '../../src/store';
import { reply, startCloudFaultServer, type CloudFaultServer } from '../helpers/cloud-fault-server';

// How a poll tells where a followed change stands (docs/cloud-api.md, Finding a change's transaction): which
// transactions are its own, when it is done, failed or cancelled, and when nothing can be said yet. Each poll goes
// through the real cloud client over HTTP to a scripted cloud on loopback that serves the transactions, disks and
// server a test writes; the clock is the `nowMs` each poll is given. The whole path through Slack and the store is
// test/follow/follow.test.ts's; this file pins the decisions, one situation at a time.

const T0 = Date.parse('2026-03-14T09:00:00Z');
const SETTINGS: PollSettings = { intervalMs: 5000, backoffMaxMs: 30_000, maxMs: 10 * 60_000 };
const VS = 42;
const DISK_ID = 7;
const BASELINE = 100;

/** A transaction as the cloud lists it (JSON, unwrapped); by default one of the followed disk's, on server 42. */
interface Tx {
  id: number;
  action: string;
  status: string;
  parent_type?: string;
  parent_id?: number;
  associated_object_id?: number | null;
  created_at?: string;
}

/** What the scripted cloud serves; reset before each test. */
interface World {
  /** Server 42's transactions, served newest first (or as written, with `asWritten`), `per_page` at a time (10 unless asked). */
  server: Tx[];
  /** The account's transactions (`/transactions`), likewise. */
  account: Tx[];
  asWritten: boolean;
  disk: { built: boolean; locked: boolean } | null;
  vm: { locked: boolean };
  backup: { locked: boolean };
  /** Paths that answer 500 (an HTML page, as a real cloud's errors do). */
  failing: RegExp | null;
}
let world: World;
beforeEach(() => {
  world = { server: [], account: [], asWritten: false, disk: { built: false, locked: true }, vm: { locked: true }, backup: { locked: true }, failing: null };
});

const tx = (id: number, action: string, status: string, o: Partial<Tx> = {}): Tx => ({
  id,
  action,
  status,
  parent_type: 'Disk',
  parent_id: DISK_ID,
  associated_object_id: VS,
  ...o,
});

/** A page of a list as the cloud serves it: newest first, `/page/N`, `per_page`. */
function page(list: Tx[], url: URL, pageNumber: number): Tx[] {
  const perPage = Number(url.searchParams.get('per_page') ?? 10);
  const ordered = world.asWritten ? list : [...list].sort((a, b) => b.id - a.id);
  return ordered.slice((pageNumber - 1) * perPage, pageNumber * perPage);
}

function answer(rawUrl: string): [number, unknown] {
  const url = new URL(rawUrl, 'http://cloud');
  const path = url.pathname.replace(/\.json$/, '');
  if (world.failing?.test(path)) return [500, '<html><body>We are sorry, but something went wrong.</body></html>'];
  let m: RegExpExecArray | null;
  const wrapped = (list: Tx[]) => list.map((transaction) => ({ transaction }));
  if ((m = /^\/virtual_machines\/42\/transactions(?:\/page\/(\d+))?$/.exec(path))) return [200, wrapped(page(world.server, url, Number(m[1] ?? 1)))];
  if ((m = /^\/transactions(?:\/page\/(\d+))?$/.exec(path))) return [200, wrapped(page(world.account, url, Number(m[1] ?? 1)))];
  if ((m = /^\/transactions\/(\d+)$/.exec(path))) {
    const found = [...world.server, ...world.account].find((t) => t.id === Number(m![1]));
    return found ? [200, { transaction: found }] : [404, { errors: ['Resource not found'] }];
  }
  if (path === '/virtual_machines/42/disks') return [200, world.disk ? [{ disk: { id: DISK_ID, disk_size: 20, ...world.disk } }] : []];
  if (path === '/virtual_machines/42/status' || path === '/virtual_machines/42') return [200, { virtual_machine: { id: VS, booted: true, ...world.vm } }];
  if (path === '/backups/9') return [200, { backup: { id: 9, ...world.backup } }];
  return [404, { errors: ['Resource not found'] }];
}

let cloud: CloudFaultServer;
let client: CloudClient;
beforeAll(async () => {
  cloud = await startCloudFaultServer({
    handler: (req, res) => {
      const [status, body] = answer(req.url);
      reply(res, status, typeof body === 'string' ? body : JSON.stringify(body));
    },
  });
  client = createCloudClient(
    {
      url: cloud.url,
      accountId: 'acct',
      apiKey: 'key-of-the-poll-test',
      format: 'json',
      timeoutMs: 3000,
      maxConnections: 4,
      changeConnections: 1,
      connectionWaitMs: 2000,
    },
    { retry: { baseDelayMs: 1 } },
  );
});
afterAll(async () => {
  await client?.close();
  await cloud?.close();
});
beforeEach(() => {
  cloud.requests.length = 0;
});

/** The followed disk (server 42, disk 7), as its row of changes describes it. */
const DISK: FollowSubject = CHANGES.disk_add.follow.subject(VS, { disk_type: 'SSD', disk_size: 20 }, { id: DISK_ID, disk_size: 20 });
/** A restore of backup 9, whose answer names no server: its transactions are the account's. */
const RESTORE: FollowSubject = CHANGES.backup_restore.follow.subject(9, { backup_id: 9 }, { id: 9 });

/** The newest of the account's transactions before the restore was sent: another backup's. */
const accountBaseline = tx(BASELINE, 'restore_backup', 'complete', { parent_type: 'Backup', parent_id: 8, associated_object_id: null });

/** A change the cloud accepted at T0, as the store hands it to a poll; not yet polled unless `o` says otherwise. */
function followed(o: Partial<FollowedChange> = {}): FollowedChange {
  return {
    recordId: 1,
    action: 'disk_add',
    target: `vs:${VS}`,
    subject: DISK,
    requestedBy: 'UOPER',
    approvedBy: null,
    channelId: 'CINCIDENT',
    baselineId: BASELINE,
    acceptedAtMs: T0,
    status: 'scheduled',
    transactionIds: [],
    step: null,
    finalState: null,
    polls: 0,
    intervalMs: SETTINGS.intervalMs,
    nextPollAtMs: T0 + SETTINGS.intervalMs,
    endedAtMs: null,
    told: 'scheduled',
    repliedAtMs: null,
    tellAttempts: 0,
    messageTs: '1700000000.000100',
    owner: 'instance-a',
    leaseUntilMs: null,
    ...o,
  };
}

/** Polls `change` at `atMs` after its acceptance. */
const pollAt = (change: FollowedChange, atMs = 5000): Promise<Polled> => poll(change, client.changeReads, SETTINGS, T0 + atMs);
/** Where the poll left it: status, transactions and step. */
const where = async (change: FollowedChange, atMs?: number) => {
  const { progress } = await pollAt(change, atMs);
  return { status: progress.status, transactionIds: progress.transactionIds, step: progress.step };
};
/** The list pages read, in order (`/virtual_machines/42/transactions/page/2.json?per_page=20`). */
const listed = () => cloud.requests.map((r) => r.url).filter((url) => /\/transactions(\/page\/\d+)?\.json/.test(url));

describe("which transactions are the change's own", () => {
  test('another disk on the same server, another parent type with the same id, or the same disk with another action: never taken', async () => {
    world.server = [
      tx(101, 'build_disk', 'failed', { parent_id: DISK_ID + 1 }),
      tx(102, 'build_disk', 'failed', { parent_type: 'Backup' }),
      tx(103, 'resize_disk', 'failed'),
    ];
    expect(await where(followed(), 30_000)).toEqual({ status: 'scheduled', transactionIds: [], step: null });
    // Its own appears among them: that one is followed.
    world.server.push(tx(104, 'build_disk', 'running'));
    expect(await where(followed(), 35_000)).toEqual({ status: 'running', transactionIds: [104], step: 'build_disk' });
  });

  test('at or below the remembered id: never taken, though its parent and action match', async () => {
    world.server = [tx(BASELINE, 'build_disk', 'failed'), tx(BASELINE - 1, 'build_disk', 'cancelled')];
    expect(await where(followed())).toEqual({ status: 'scheduled', transactionIds: [], step: null });
    world.server.push(tx(BASELINE + 1, 'build_disk', 'pending'));
    expect(await where(followed())).toEqual({ status: 'pending', transactionIds: [BASELINE + 1], step: 'build_disk' });
  });

  test('the one that makes it is taken (the build, not the format after it); of two builds, the newer, in whatever order listed', async () => {
    world.server = [tx(101, 'build_disk', 'running'), tx(102, 'format_disk', 'pending')];
    expect(await where(followed())).toEqual({ status: 'running', transactionIds: [101], step: 'build_disk' });
    world.asWritten = true;
    world.server = [tx(101, 'build_disk', 'failed'), tx(103, 'build_disk', 'running'), tx(102, 'format_disk', 'pending')];
    expect(await where(followed())).toEqual({ status: 'running', transactionIds: [103], step: 'build_disk' });
  });

  test('with no remembered id: one created more than five minutes before acceptance is not taken; one within them, or undated, is', async () => {
    const created = (msBefore: number) => new Date(T0 - msBefore).toISOString();
    const unremembered = followed({ baselineId: null });
    world.server = [tx(5, 'build_disk', 'failed', { created_at: created(5 * 60_000 + 1000) })];
    expect(await where(unremembered)).toEqual({ status: 'scheduled', transactionIds: [], step: null });
    // Exactly five minutes before: still taken.
    world.server = [tx(6, 'build_disk', 'running', { created_at: created(5 * 60_000) })];
    expect(await where(unremembered)).toEqual({ status: 'running', transactionIds: [6], step: 'build_disk' });
    world.server = [tx(7, 'build_disk', 'pending', { created_at: created(4 * 60_000) })];
    expect(await where(unremembered)).toEqual({ status: 'pending', transactionIds: [7], step: 'build_disk' });
    world.server = [tx(8, 'build_disk', 'running', { created_at: undefined })];
    expect(await where(unremembered)).toEqual({ status: 'running', transactionIds: [8], step: 'build_disk' });
  });
});

describe('once its transaction is found', () => {
  const building = (o: Partial<FollowedChange> = {}) => followed({ status: 'running', transactionIds: [101], step: 'build_disk', polls: 1, ...o });

  test('it is read by its id: pending, running, or a status this version does not know (still running); its list is not read', async () => {
    for (const [status, expected] of [
      ['pending', 'pending'],
      ['running', 'running'],
      ['provisioning', 'running'],
    ] as const) {
      world.server = [tx(101, 'build_disk', status)];
      cloud.requests.length = 0;
      expect(await where(building())).toEqual({ status: expected, transactionIds: [101], step: 'build_disk' });
      expect(cloud.requests.map((r) => r.url)).toEqual(['/transactions/101.json']);
    }
  });

  test('the last of the transactions found is the one followed', async () => {
    world.server = [tx(101, 'build_disk', 'complete'), tx(102, 'format_disk', 'complete'), tx(103, 'update_fstab', 'pending')];
    const third = building({ transactionIds: [101, 102, 103], step: 'update_fstab' });
    expect(await where(third)).toEqual({ status: 'pending', transactionIds: [101, 102, 103], step: 'update_fstab' });
  });

  test('failed or cancelled in the cloud: ended so, with its step, told at once; the disk and its server read again (what now, what was left)', async () => {
    world.disk = { built: false, locked: false };
    world.vm = { locked: false };
    for (const status of ['failed', 'cancelled'] as const) {
      world.server = [tx(101, 'build_disk', status)];
      const { progress } = await pollAt(building(), 20_000);
      expect(progress).toMatchObject({
        status,
        transactionIds: [101],
        step: 'build_disk',
        endedAtMs: T0 + 20_000,
        nextPollAtMs: T0 + 20_000,
        finalState: { built: false, locked: false, serverBooted: true, serverLocked: false },
      });
    }
    // A read that fails does not keep it from ending: its state is then unknown, and its message says so.
    world.failing = /\/disks$/;
    const { progress } = await pollAt(building(), 20_000);
    expect(progress).toMatchObject({ status: 'cancelled', finalState: {} });
  });

  test('complete, and the disk reads built and unlocked: done, with what the read found', async () => {
    world.server = [tx(101, 'build_disk', 'complete')];
    world.disk = { built: true, locked: false };
    const { progress } = await pollAt(building(), 20_000);
    expect(progress).toMatchObject({
      status: 'complete',
      transactionIds: [101],
      step: 'build_disk',
      finalState: { built: true, locked: false },
      endedAtMs: T0 + 20_000,
    });
  });

  describe('complete, but the disk still locked: what follows it on the same disk', () => {
    test('a format running after the build: running, with the ids up to it (not the one queued behind it, nor another disk’s)', async () => {
      world.server = [
        tx(101, 'build_disk', 'complete'),
        tx(102, 'format_disk', 'running'),
        tx(103, 'update_fstab', 'pending'),
        tx(104, 'build_disk', 'failed', { parent_id: DISK_ID + 1 }),
        tx(99, 'build_disk', 'failed'),
      ];
      const { progress } = await pollAt(building());
      expect(progress).toMatchObject({ status: 'running', transactionIds: [101, 102], step: 'format_disk', finalState: { built: false, locked: true } });
      expect(progress.endedAtMs).toBeNull();
    });

    test('the next one still pending: pending', async () => {
      world.server = [tx(101, 'build_disk', 'complete'), tx(102, 'format_disk', 'pending')];
      expect(await where(building())).toEqual({ status: 'pending', transactionIds: [101, 102], step: 'format_disk' });
    });

    test('a later one failed or cancelled: the change ends so, at that step, with every id so far', async () => {
      for (const status of ['failed', 'cancelled'] as const) {
        world.server = [tx(101, 'build_disk', 'complete'), tx(102, 'format_disk', 'complete'), tx(103, 'update_fstab', status)];
        const { progress } = await pollAt(building());
        expect(progress).toMatchObject({ status, transactionIds: [101, 102, 103], step: 'update_fstab', finalState: { built: false, locked: true } });
        expect(progress.endedAtMs).toBe(T0 + 5000);
      }
    });

    test('all of them complete, the disk not yet settled: still running, read again next time; done only once it reads settled', async () => {
      world.server = [tx(101, 'build_disk', 'complete'), tx(102, 'format_disk', 'complete')];
      expect(await where(building())).toEqual({ status: 'running', transactionIds: [101, 102], step: 'build_disk' });
      // Nothing after it at all.
      world.server = [tx(101, 'build_disk', 'complete')];
      expect(await where(building())).toEqual({ status: 'running', transactionIds: [101], step: 'build_disk' });
      world.disk = { built: true, locked: false };
      expect(await where(building())).toEqual({ status: 'complete', transactionIds: [101], step: 'build_disk' });
    });
  });
});

describe("a cloud that names its transactions otherwise: after a minute, the server's own transactions and its lock", () => {
  const renamed = (id: number, status: string, o: Partial<Tx> = {}) => tx(id, 'disk_provisioning_v2', status, o);

  test('not before a minute has passed since acceptance; from then on', async () => {
    world.server = [renamed(101, 'complete')];
    world.vm = { locked: false };
    world.disk = { built: true, locked: false };
    expect(await where(followed(), FALLBACK_AFTER_MS - 1)).toEqual({ status: 'scheduled', transactionIds: [], step: null });
    expect(await where(followed(), FALLBACK_AFTER_MS)).toEqual({ status: 'complete', transactionIds: [101], step: 'disk_provisioning_v2' });
  });

  test("one of the server's still running keeps it running, though the server reads unlocked; nothing is kept as its own meanwhile", async () => {
    world.server = [renamed(101, 'complete'), renamed(102, 'running'), renamed(103, 'pending')];
    world.vm = { locked: false };
    expect(await where(followed(), 65_000)).toEqual({ status: 'running', transactionIds: [], step: 'disk_provisioning_v2' });
    world.server = [renamed(101, 'complete'), tx(102, 'update_fstab_v2', 'pending'), renamed(103, 'running')];
    expect(await where(followed(), 70_000)).toEqual({ status: 'running', transactionIds: [], step: 'update_fstab_v2' });
  });

  test('the server still locked, nothing of its own running: running', async () => {
    world.server = [renamed(101, 'complete')];
    world.vm = { locked: true };
    const polled = await pollAt(followed(), 65_000);
    expect(polled.unread).toBeUndefined();
    expect(polled.progress).toMatchObject({ status: 'running', transactionIds: [], step: null });
  });

  test("a failed or cancelled one of the server's ends it so, with its ids in order; another server's does not", async () => {
    world.vm = { locked: false };
    world.server = [renamed(101, 'complete'), renamed(103, 'failed', { associated_object_id: null }), renamed(102, 'complete')];
    expect(await where(followed(), 65_000)).toEqual({ status: 'failed', transactionIds: [101, 102, 103], step: 'disk_provisioning_v2' });
    world.server = [renamed(101, 'complete'), renamed(102, 'cancelled')];
    expect(await where(followed(), 65_000)).toEqual({ status: 'cancelled', transactionIds: [101, 102], step: 'disk_provisioning_v2' });
    // Listed under this server, but run for another.
    world.server = [renamed(101, 'complete'), renamed(102, 'failed', { associated_object_id: VS + 1 })];
    expect(await where(followed(), 65_000)).toEqual({ status: 'complete', transactionIds: [101], step: 'disk_provisioning_v2' });
  });

  test('unlocked and every one final: done, with all of its ids in order and the target read again', async () => {
    world.vm = { locked: false };
    world.disk = { built: true, locked: false };
    // Listed newest first, as the cloud lists them: the step it ended on is the newest.
    world.server = [tx(103, 'fstab_v2', 'complete'), tx(102, 'format_v2', 'complete'), renamed(101, 'complete')];
    const { progress } = await pollAt(followed(), 65_000);
    expect(progress).toMatchObject({ status: 'complete', transactionIds: [101, 102, 103], step: 'fstab_v2', finalState: { built: true, locked: false } });
  });

  test('with no remembered id and nothing listed: unlocked is done, with no transactions', async () => {
    world.vm = { locked: false };
    const polled = await pollAt(followed({ baselineId: null }), 65_000);
    expect(polled.unread).toBeUndefined();
    expect(polled.progress).toMatchObject({ status: 'complete', transactionIds: [], step: null });
  });

  test("without a known server (a restore listed under the account): no fallback, though others' transactions fail there", async () => {
    const otherServers = { parent_type: 'Backup', parent_id: 9, associated_object_id: null };
    world.account = [tx(101, 'restore_v2', 'complete', otherServers), tx(102, 'restore_v2', 'failed', otherServers), accountBaseline];
    world.vm = { locked: false };
    world.backup = { locked: false };
    const restore = followed({ action: 'backup_restore', target: 'backup:9', subject: RESTORE });
    const polled = await pollAt(restore, 5 * 60_000);
    expect(polled.unread).toBeUndefined();
    expect(polled.progress).toMatchObject({ status: 'scheduled', transactionIds: [], step: null });
    expect(cloud.requests.map((r) => r.url)).toEqual(['/transactions.json?per_page=20']);
  });
});

describe('where its transactions are listed, and how far back', () => {
  /** Server 42's transactions from `from` to `to`, none of them the change's but those `own` names. */
  const many = (from: number, to: number, own: readonly number[] = []) =>
    Array.from({ length: to - from + 1 }, (_, i) => from + i).map((id) =>
      own.includes(id) ? tx(id, 'build_disk', 'running') : tx(id, 'build_disk', 'complete', { parent_id: 1000 + id }),
    );
  const pageNumbers = () => listed().map((url) => Number(/\/page\/(\d+)/.exec(url)?.[1] ?? 1));

  test("a restore whose server is not known: the account's transactions", async () => {
    world.account = [tx(101, 'restore_backup', 'running', { parent_type: 'Backup', parent_id: 9, associated_object_id: null }), accountBaseline];
    const restore = followed({ action: 'backup_restore', target: 'backup:9', subject: RESTORE });
    expect(await where(restore)).toEqual({ status: 'running', transactionIds: [101], step: 'restore_backup' });
    expect(listed()).toEqual(['/transactions.json?per_page=20']);
  });

  test('pages are read until one holds the remembered id', async () => {
    // 59…40 on the first page, 39…20 on the second: the remembered one (20) is its last.
    world.server = many(20, 59, [21]);
    expect(await where(followed({ baselineId: 20 }))).toEqual({ status: 'running', transactionIds: [21], step: 'build_disk' });
    expect(listed()).toEqual(['/virtual_machines/42/transactions.json?per_page=20', '/virtual_machines/42/transactions/page/2.json?per_page=20']);
  });

  test('…or until an empty one (an older cloud that sends fewer than asked for)', async () => {
    world.server = many(101, 125);
    await pollAt(followed());
    expect(pageNumbers()).toEqual([1, 2, 3]);
  });

  test('…and five at most: an own transaction on the fifth page is found, one on the sixth is not', async () => {
    // 220…201 on the first page, …, 140…121 on the fifth, 120…101 on the sixth.
    world.server = many(101, 220, [121]);
    expect(await where(followed())).toEqual({ status: 'running', transactionIds: [121], step: 'build_disk' });
    expect(pageNumbers()).toEqual([1, 2, 3, 4, 5]);
    world.server = many(101, 220, [120]);
    expect(await where(followed())).toEqual({ status: 'scheduled', transactionIds: [], step: null });
  });

  test('with no remembered id, the first page alone', async () => {
    world.server = many(101, 160);
    await pollAt(followed({ baselineId: null }));
    expect(pageNumbers()).toEqual([1]);
  });
});

describe("a poll's bookkeeping", () => {
  test('at the limit (VS_FOLLOW_MAX_MIN): unknown, its transactions and step kept, its target read again (no transaction); before, polled', async () => {
    world.vm = { locked: true };
    world.server = [tx(101, 'build_disk', 'running')];
    const change = followed({ status: 'running', transactionIds: [101], step: 'build_disk', polls: 20, intervalMs: 30_000 });
    expect((await pollAt(change, SETTINGS.maxMs - 1)).progress.status).toBe('running');
    cloud.requests.length = 0;
    const { progress } = await pollAt(change, SETTINGS.maxMs);
    expect(progress).toMatchObject({
      status: 'unknown',
      transactionIds: [101],
      step: 'build_disk',
      polls: 21,
      endedAtMs: T0 + SETTINGS.maxMs,
      nextPollAtMs: T0 + SETTINGS.maxMs,
      finalState: { built: false, locked: true, serverBooted: true, serverLocked: true },
    });
    expect(cloud.requests.map((r) => r.url).sort()).toEqual(['/virtual_machines/42.json', '/virtual_machines/42/disks.json']);
  });

  test('an action this version does not know (a record of a newer one): unknown at once, the cloud not read', async () => {
    world.server = [tx(101, 'build_disk', 'complete')];
    world.disk = { built: true, locked: false };
    const newer = followed({ action: 'disk_resize' as RecordedAction, status: 'running', transactionIds: [101], step: 'build_disk' });
    const { progress } = await pollAt(newer);
    expect(progress).toMatchObject({ status: 'unknown', transactionIds: [101], step: 'build_disk', endedAtMs: T0 + 5000 });
    expect(cloud.requests).toHaveLength(0);
  });

  test('a read that fails keeps where it stood and says why (unread), to be tried again; a read that works says nothing of the kind', async () => {
    world.server = [tx(101, 'build_disk', 'running')];
    const change = followed({ status: 'running', transactionIds: [101], step: 'build_disk', polls: 3, intervalMs: 5000 });
    const fine = await pollAt(change);
    expect('unread' in fine).toBe(false);
    world.failing = /^\/transactions\/101$/;
    const polled = await pollAt(change, 20_000);
    expect(polled.unread).toBeInstanceOf(CloudError);
    expect(polled.progress).toMatchObject({
      status: 'running',
      transactionIds: [101],
      step: 'build_disk',
      polls: 4,
      endedAtMs: null,
      nextPollAtMs: T0 + 20_000 + 7500,
    });
    // The same when the read of the target fails once its transaction is complete.
    world.failing = /^\/virtual_machines\/42\/disks$/;
    world.server = [tx(101, 'build_disk', 'complete')];
    const target = await pollAt(change);
    expect(target.unread).toBeInstanceOf(CloudError);
    expect(target.progress).toMatchObject({ status: 'running', transactionIds: [101], step: 'build_disk' });
  });

  test('polls count up; while nothing moves the next one backs off by half, up to the ceiling', async () => {
    world.server = [tx(101, 'build_disk', 'running')];
    const still = followed({ status: 'running', transactionIds: [101], step: 'build_disk', polls: 4, intervalMs: 5000 });
    expect((await pollAt(still, 40_000)).progress).toMatchObject({ polls: 5, intervalMs: 7500, nextPollAtMs: T0 + 47_500, endedAtMs: null });
    expect((await pollAt({ ...still, intervalMs: 7500 })).progress.intervalMs).toBe(11_250);
    expect((await pollAt({ ...still, intervalMs: 25_000 })).progress.intervalMs).toBe(30_000);
    // Still scheduled, nothing found: the same.
    world.server = [];
    expect((await pollAt(followed({ intervalMs: 5000 }))).progress).toMatchObject({ status: 'scheduled', polls: 1, intervalMs: 7500 });
  });

  test('anything moved (its status, its transactions or its step alone): back to the interval', async () => {
    const backedOff = { polls: 6, intervalMs: 30_000 };
    // The status alone: pending, now running.
    world.server = [tx(101, 'build_disk', 'running')];
    const pending = followed({ ...backedOff, status: 'pending', transactionIds: [101], step: 'build_disk' });
    expect((await pollAt(pending)).progress).toMatchObject({ status: 'running', transactionIds: [101], step: 'build_disk', intervalMs: 5000 });
    // Its transactions alone: the build complete and another one of its own complete after it, the disk not settled yet.
    world.server = [tx(101, 'build_disk', 'complete'), tx(102, 'format_disk', 'complete')];
    const running = followed({ ...backedOff, status: 'running', transactionIds: [101], step: 'build_disk' });
    expect((await pollAt(running)).progress).toMatchObject({ status: 'running', transactionIds: [101, 102], step: 'build_disk', intervalMs: 5000 });
    // Its step alone.
    world.server = [tx(101, 'build_disk', 'complete'), tx(102, 'format_disk', 'running')];
    const stale = followed({ ...backedOff, status: 'running', transactionIds: [101, 102], step: 'build_disk' });
    expect((await pollAt(stale)).progress).toMatchObject({ status: 'running', transactionIds: [101, 102], step: 'format_disk', intervalMs: 5000 });
  });
});
