import type { ServerResponse } from 'node:http';
import { createCloudClient } from '../../src/cloud/client';
import { NAMES_PER_PAGE } from '../../src/cloud/names';
import type { CloudClient } from '../../src/cloud/client.types';
import { createLogger } from '../../src/log';
import type { Store } from '../../src/store';
import { openSqliteStore } from '../../src/store/sqlite';
import type { Notice } from '../../src/watch/diff';
import type { QuietSummaryLine } from '../../src/watch/quiet';
import { createWatchPoll, SERVERS_PER_PAGE, WATCH_LEASE, type WatchPoll } from '../../src/watch/poll';
import { reply, startCloudFaultServer, type CloudFaultServer, type RecordedRequest } from '../helpers/cloud-fault-server';

// The watch's poll (docs/product.md, Watches: the bot speaks first): through the real cloud client over HTTP to a
// scripted cloud on loopback serving the account's server list (the network edge), on a real SQLite store; the Slack
// side is the port the poll is given (WatchTeller), collected here. The clock is the test's.

const T0 = Date.parse('2026-12-06T09:00:00Z');
const MIN = 60_000;

interface Listed {
  id: number;
  label: string;
  booted: boolean;
  locked?: boolean;
  updated_at?: string;
}

let cloud: CloudFaultServer;
let client: CloudClient;
let servers: Listed[] = [];
let transactions: { id: number; action: string; status: string; parent_type: string; parent_id: number }[] = [];
let down = false;
beforeAll(async () => {
  cloud = await startCloudFaultServer({
    handler: (req: RecordedRequest, res: ServerResponse) => {
      const url = new URL(req.url, 'http://cloud');
      if (down) return reply(res, 500, '{"errors":["Internal error"]}');
      const perPage = Number(url.searchParams.get('per_page') ?? 10);
      const txMatch = /^\/transactions(?:\/page\/(\d+))?\.json$/.exec(url.pathname);
      if (txMatch) {
        const page = Number(txMatch[1] ?? 1);
        const newestFirst = [...transactions].sort((a, b) => b.id - a.id).slice((page - 1) * perPage, page * perPage);
        return reply(res, 200, JSON.stringify(newestFirst.map((t) => ({ transaction: t }))), { 'content-type': 'application/json' });
      }
      // The list pages by query (`?page=N&per_page=M`), as the name index reads it.
      if (url.pathname !== '/virtual_machines.json') return reply(res, 404, '{"errors":["Resource not found"]}');
      const page = Number(url.searchParams.get('page') ?? 1);
      const items = servers
        .slice((page - 1) * perPage, page * perPage)
        .map((s) => ({ virtual_machine: { suspended: false, recovery_mode: false, locked: false, ...s } }));
      reply(res, 200, JSON.stringify(items), { 'content-type': 'application/json' });
    },
  });
  client = createCloudClient({
    url: cloud.url,
    accountId: 'a',
    apiKey: 'k',
    format: 'json',
    timeoutMs: 5000,
    maxConnections: 4,
    changeConnections: 1,
    connectionWaitMs: 2000,
  });
});
afterAll(async () => {
  await client.close();
  await cloud.close();
});

let store: Store;
let clock: number;
let told: Notice[];
let summaries: [string, QuietSummaryLine[]][];
beforeEach(() => {
  summaries = [];
  store = openSqliteStore(':memory:');
  clock = T0;
  told = [];
  servers = [];
  transactions = [];
  down = false;
  cloud.requests.length = 0;
});
afterEach(async () => {
  await store.close();
});

function pollOf(owner: string, tell: (n: Notice) => Promise<boolean> = (n) => (told.push(n), Promise.resolve(true))): WatchPoll {
  return createWatchPoll({
    reads: client,
    store,
    teller: { tell, summarize: (channelId, lines) => (summaries.push([channelId, lines]), Promise.resolve(true)) },
    settings: { lockMs: 10 * MIN, blindMs: 5 * MIN, leaseMs: 3 * MIN, timeZone: 'UTC', followedGraceMs: MIN },
    owner,
    now: () => clock,
    logger: createLogger({ write: () => undefined }),
  });
}

async function watch(channelId: string, serverId: number): Promise<void> {
  await store.watches.add({ channelId, serverId, events: ['power', 'lock', 'failures'], createdBy: 'U1', createdAtMs: T0, snoozedUntilMs: null }, 10);
}

describe('the watch poll', () => {
  test('the first round is a baseline; a server powered off is told once, to the channel watching it', async () => {
    await watch('C1', 42);
    servers = [
      { id: 42, label: 'web-1', booted: true },
      { id: 43, label: 'db-1', booted: true },
    ];
    const poll = pollOf('i1');
    expect(await poll.round()).toBe('polled');
    expect(told).toEqual([]);

    clock += MIN;
    servers = [
      { id: 42, label: 'web-1', booted: false, updated_at: '2026-12-06T09:00:30Z' },
      { id: 43, label: 'db-1', booted: false },
    ];
    await poll.round();
    expect(told.map((n) => [n.channelId, n.serverId, n.kind, n.from])).toEqual([['C1', 42, 'power_off', 'on']]);

    clock += MIN;
    await poll.round();
    expect(told).toHaveLength(1);
    expect((await store.watches.servers()).find((s) => s.serverId === 42)?.power).toBe('off');
  });

  test('reads every page of the list, one request a page, whatever the number of watches', async () => {
    await watch('C1', 250);
    servers = Array.from({ length: 250 }, (_, i) => ({ id: i + 1, label: `vs-${i + 1}`, booted: true }));
    await pollOf('i1').round();
    expect(cloud.requests.map((r) => r.url)).toEqual([
      `/virtual_machines.json?per_page=${NAMES_PER_PAGE}`,
      `/virtual_machines.json?page=2&per_page=${NAMES_PER_PAGE}`,
      `/virtual_machines.json?page=3&per_page=${NAMES_PER_PAGE}`,
      `/transactions.json?per_page=${SERVERS_PER_PAGE}`,
    ]);
    expect(await store.watches.servers()).toHaveLength(250);
  });

  test('hands each whole list it reads to whoever listens (the name index): one list read for both', async () => {
    await watch('C1', 42);
    servers = [{ id: 42, label: 'web-1', booted: true }];
    const lists: number[][] = [];
    const poll = createWatchPoll({
      reads: client,
      store,
      teller: { tell: () => Promise.resolve(true), summarize: () => Promise.resolve(true) },
      settings: { lockMs: 10 * MIN, blindMs: 5 * MIN, leaseMs: 3 * MIN, timeZone: 'UTC', followedGraceMs: MIN },
      owner: 'i1',
      now: () => clock,
      logger: createLogger({ write: () => undefined }),
      onList: (listed) => lists.push(listed.map((s) => s.id)),
    });
    await poll.round();
    expect(lists).toEqual([[42]]);
  });

  test('while no channel watches anything the cloud is not read, and what was seen is forgotten: the next watch starts from a baseline', async () => {
    await watch('C1', 42);
    servers = [{ id: 42, label: 'web-1', booted: true }];
    const poll = pollOf('i1');
    await poll.round();
    await store.watches.remove('C1', 42);
    cloud.requests.length = 0;
    expect(await poll.round()).toBe('no_watches');
    expect(cloud.requests).toEqual([]);
    expect(await store.watches.servers()).toEqual([]);
    // web-1 went off meanwhile: the new watch's first read is its baseline, not news.
    servers = [{ id: 42, label: 'web-1', booted: false }];
    await watch('C2', 42);
    clock += MIN;
    expect(await poll.round()).toBe('polled');
    expect(told).toEqual([]);
  });

  test('a change the bot follows in that channel is not told twice (its message is the news); elsewhere it is', async () => {
    await watch('C1', 42);
    await watch('C2', 42);
    servers = [{ id: 42, label: 'web-1', booted: true }];
    const poll = pollOf('i1');
    await poll.round();
    await followedIn(store, 'C1', 42);
    servers = [{ id: 42, label: 'web-1', booted: false, updated_at: '2026-12-06T09:00:30Z' }];
    clock += MIN;
    await poll.round();
    expect(told.map((n) => [n.channelId, n.kind])).toEqual([['C2', 'power_off']]);
  });

  test('one instance at a time: another polls nothing while the lease is held, and takes over once it expires', async () => {
    await watch('C1', 42);
    servers = [{ id: 42, label: 'web-1', booted: true }];
    await pollOf('i1').round();
    cloud.requests.length = 0;
    const other = pollOf('i2');
    expect(await other.round()).toBe('not_leading');
    expect(cloud.requests).toEqual([]);

    clock += 3 * MIN + 1;
    servers = [{ id: 42, label: 'web-1', booted: false }];
    expect(await other.round()).toBe('polled');
    expect(told.map((n) => n.kind)).toEqual(['power_off']);
    expect(await store.leases.take(WATCH_LEASE, 'i1', clock, MIN)).toBe(false);
  });

  test('what it saw is read back from the store only when another may have polled: not while it keeps the lease', async () => {
    await watch('C1', 42);
    servers = [
      { id: 42, label: 'web-1', booted: true },
      { id: 43, label: 'db-1', booted: true },
    ];
    let storeReads = 0;
    const counted: Store = { ...store, watches: { ...store.watches, servers: () => (storeReads++, store.watches.servers()) } };
    const poll = (owner: string) =>
      createWatchPoll({
        reads: client,
        store: counted,
        teller: { tell: (n) => (told.push(n), Promise.resolve(true)), summarize: () => Promise.resolve(true) },
        settings: { lockMs: 10 * MIN, blindMs: 5 * MIN, leaseMs: 3 * MIN, timeZone: 'UTC', followedGraceMs: MIN },
        owner,
        now: () => clock,
        logger: createLogger({ write: () => undefined }),
      });
    const first = poll('i1');
    await first.round();
    for (const booted of [false, true]) {
      clock += MIN;
      servers = [{ ...servers[0]!, booted }, servers[1]!];
      await first.round();
    }
    expect(told.map((n) => n.kind)).toEqual(['power_off', 'power_on']);
    expect(storeReads).toBe(1);
    // Its lease lapses and another instance polls: web-1 off, told by it; db-1 gone (nobody watches it).
    clock += 3 * MIN + 1;
    servers = [{ id: 42, label: 'web-1', booted: false }];
    expect(await poll('i2').round()).toBe('polled');
    expect(storeReads).toBe(2);
    // The first takes the lease back once the other's lapses: it reads what the other saw, so tells web-1 on (what
    // it saw itself said on: it would tell nothing).
    clock += 3 * MIN + 1;
    servers = [{ id: 42, label: 'web-1', booted: true }];
    expect(await first.round()).toBe('polled');
    expect(storeReads).toBe(3);
    expect(told.map((n) => [n.serverId, n.kind])).toEqual([
      [42, 'power_off'],
      [42, 'power_on'],
      [42, 'power_off'],
      [42, 'power_on'],
    ]);
    expect((await store.watches.servers()).map((s) => [s.serverId, s.power])).toEqual([[42, 'on']]);
  });

  test('a notice already told (an instance that died after telling it, before saving what it saw) is not told again', async () => {
    await watch('C1', 42);
    servers = [{ id: 42, label: 'web-1', booted: true }];
    await pollOf('i1').round();
    clock += MIN;
    servers = [{ id: 42, label: 'web-1', booted: false, updated_at: '2026-12-06T09:00:30Z' }];
    const key = `watch:C1:42:power_off:${Date.parse('2026-12-06T09:00:30Z')}`;
    expect(await store.watches.claimNotice(key, clock, 3 * MIN)).toBe(true);
    await store.watches.noticeTold(key, clock);
    await pollOf('i1').round();
    clock += 10 * MIN;
    await pollOf('i1').round();
    expect(told).toEqual([]);
  });

  test('a notice claimed but never told (its instance died between the claim and the post) is told by the next poller, once', async () => {
    await watch('C1', 42);
    servers = [{ id: 42, label: 'web-1', booted: true }];
    await pollOf('i1').round();
    clock += MIN;
    servers = [{ id: 42, label: 'web-1', booted: false, updated_at: '2026-12-06T09:00:30Z' }];
    // i1's next round: the lease taken, the notice claimed, then i1 dies before posting it or saving what it saw.
    expect(await store.leases.take(WATCH_LEASE, 'i1', clock, 3 * MIN)).toBe(true);
    expect(await store.watches.claimNotice(`watch:C1:42:power_off:${Date.parse('2026-12-06T09:00:30Z')}`, clock, 90_000)).toBe(true);
    expect(await pollOf('i2').round()).toBe('not_leading');
    expect(told).toEqual([]);
    clock += 3 * MIN + 1;
    expect(await pollOf('i2').round()).toBe('polled');
    expect(told.map((n) => n.kind)).toEqual(['power_off']);
    // Told now: never again.
    clock += 10 * MIN;
    await pollOf('i2').round();
    expect(told.map((n) => n.kind)).toEqual(['power_off']);
  });

  test('a notice Slack would not take is given back (the key is free again) and the round goes on', async () => {
    await watch('C1', 42);
    await watch('C2', 42);
    servers = [{ id: 42, label: 'web-1', booted: true }];
    const poll = pollOf('i1', (n) => (n.channelId === 'C1' ? Promise.reject(new Error('channel_not_found')) : (told.push(n), Promise.resolve(true))));
    await poll.round();
    clock += MIN;
    servers = [{ id: 42, label: 'web-1', booted: false, updated_at: '2026-12-06T09:00:30Z' }];
    await poll.round();
    expect(told.map((n) => n.channelId)).toEqual(['C2']);
    expect(await store.watches.claimNotice(`watch:C1:42:power_off:${Date.parse('2026-12-06T09:00:30Z')}`, clock, 3 * MIN)).toBe(true);
  });

  test('a failed transaction of a watched server is told once, whoever started it; the baseline tells none', async () => {
    await watch('C1', 42);
    servers = [{ id: 42, label: 'web-1', booted: true }];
    transactions = [{ id: 5, action: 'reboot_virtual_machine', status: 'failed', parent_type: 'VirtualMachine', parent_id: 42 }];
    const poll = pollOf('i1');
    await poll.round();
    expect(told).toEqual([]);
    clock += MIN;
    transactions.push({ id: 6, action: 'stop_virtual_machine', status: 'failed', parent_type: 'VirtualMachine', parent_id: 42 });
    await poll.round();
    clock += MIN;
    await poll.round();
    expect(told.map((n) => [n.kind, n.label, n.transaction])).toEqual([['failed', 'web-1', { id: 6, action: 'stop_virtual_machine' }]]);
    expect(cloud.requests.filter((r) => r.url.startsWith('/transactions')).every((r) => r.url === `/transactions.json?per_page=${SERVERS_PER_PAGE}`)).toBe(
      true,
    );
  });

  test('a cloud that cannot be read for the blind minutes is told once, and once when it can again; what it saw is kept', async () => {
    await watch('C1', 42);
    servers = [{ id: 42, label: 'web-1', booted: true }];
    const poll = pollOf('i1');
    await poll.round();
    down = true;
    for (let i = 1; i <= 7; i += 1) {
      clock += MIN;
      await poll.round();
    }
    expect(told.map((n) => n.kind)).toEqual(['blind']);
    down = false;
    clock += MIN;
    await poll.round();
    expect(told.map((n) => n.kind)).toEqual(['blind', 'sees_again']);
    expect((await store.watches.servers()).map((s) => s.power)).toEqual(['on']);
  });

  test('quiet hours hold power news and post one summary when they end; failures pass them', async () => {
    await watch('C1', 42);
    await store.watches.setQuiet('C1', { startMin: 9 * 60, endMin: 9 * 60 + 30 });
    servers = [{ id: 42, label: 'web-1', booted: true }];
    const poll = pollOf('i1');
    await poll.round();
    for (const booted of [false, true, false, true]) {
      clock += MIN;
      servers = [{ id: 42, label: 'web-1', booted, updated_at: new Date(clock).toISOString() }];
      await poll.round();
    }
    expect(told.map((n) => n.kind)).toEqual([]);
    clock += MIN;
    transactions.push({ id: 9, action: 'stop_virtual_machine', status: 'failed', parent_type: 'VirtualMachine', parent_id: 42 });
    await poll.round();
    expect(told.map((n) => n.kind)).toEqual(['failed']);
    expect(summaries).toEqual([]);

    clock = T0 + 30 * MIN;
    await poll.round();
    expect(summaries).toEqual([
      [
        'C1',
        [
          {
            serverId: 42,
            label: 'web-1',
            kinds: [
              { kind: 'power_off', times: 2 },
              { kind: 'power_on', times: 2 },
            ],
            lastState: 'on',
          },
        ],
      ],
    ]);
    clock += MIN;
    await poll.round();
    expect(summaries).toHaveLength(1);
  });
});

/** A shutdown of `serverId` the bot follows, its message in `channelId` (as the door leaves it). */
async function followedIn(store: Store, channelId: string, serverId: number): Promise<void> {
  const target = `vs:${serverId}`;
  const begun = await store.audit.beginChange({
    submissionKey: `K-${Math.random()}`,
    at: new Date(T0).toISOString(),
    lease: { target, owner: 'door', nowMs: T0, ttlMs: 60_000 },
    started: {
      at: new Date(T0).toISOString(),
      userId: 'UOPER',
      channelId,
      action: 'power_shutdown',
      target,
      params: {},
      outcome: 'started',
      apiStatus: null,
      durationMs: 0,
      detail: null,
    },
  });
  if (begun.outcome !== 'started') throw new Error('not started');
  await store.audit.complete(
    begun.record.id,
    { outcome: 'scheduled', apiStatus: 201, durationMs: 5, detail: null },
    { target, owner: 'door' },
    {
      action: 'power_shutdown',
      target,
      subject: { serverId, parentType: 'VirtualMachine', parentId: serverId, actions: ['stop_virtual_machine'], facts: {} },
      requestedBy: 'UOPER',
      approvedBy: null,
      channelId,
      baselineId: null,
      acceptedAtMs: T0,
      nextPollAtMs: T0 + 5000,
      intervalMs: 5000,
    },
  );
}
