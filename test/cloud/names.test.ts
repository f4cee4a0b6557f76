import { defaultSeed } from '@vs-chatops/cloud-sandbox';
import { createCloudClient } from '../../src/cloud/client';
import type { CloudClient } from '../../src/cloud/client.types';
import { createNameIndex, editDistance, parseServerId, type ListServers, type Resolution } from '../../src/cloud/names';
import type { ReadPage } from '../../src/cloud/reads';
import { Server } from '../../src/cloud/schemas';
import { useSandbox } from '../helpers/use-started';

// The name index (docs/product.md, Servers by name) on a fake clock and a list read the test answers, then over the
// sandbox with the bot's own client, counting the list reads the sandbox received.

const server = (id: number, label: string | null, hostname: string | null, ...addresses: string[]) =>
  Server.parse({ id, label, hostname, ip_addresses: addresses.map((address) => ({ ip_address: { address } })) });

const FLEET = [
  server(42, 'web-1', 'web-1.prod.example.com', '203.0.113.42', '10.20.0.42'),
  server(47, 'web-2', 'web-2.prod.example.com', '10.20.0.47'),
  server(44, 'bastion', 'jump.example.com', '192.0.2.44'),
  server(46, 'db-primary', 'db-primary.example.com', '10.20.0.46'),
  server(50, 'Mail', null),
];

/** A list read answering `servers` in pages of the size asked (or all at once, as older clouds), counting reads. */
function lister(servers: () => readonly Server[], { pagesIgnored = false } = {}) {
  const pages: ReadPage[] = [];
  let release: (() => void) | null = null;
  let gate: Promise<void> | null = null;
  const list: ListServers = async (page) => {
    pages.push(page);
    if (gate) await gate;
    const all = servers();
    if (pagesIgnored) return all;
    const size = page.perPage ?? 10;
    const number = page.page ?? 1;
    return all.slice((number - 1) * size, number * size);
  };
  return {
    list,
    pages,
    /** Holds every read until released. */
    hold() {
      gate = new Promise((resolve) => (release = resolve));
    },
    release() {
      gate = null;
      release?.();
    },
  };
}

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

const ids = (r: Resolution) => (r.kind === 'one' ? [r.server.id] : r.kind === 'several' ? r.servers.map((s) => s.id) : r.closest.map((s) => s.id));

describe('parseServerId', () => {
  it('reads a bare positive integer or #n as an id, anything else as no id', () => {
    expect([parseServerId('42'), parseServerId('#42'), parseServerId(' 007 '), parseServerId('0'), parseServerId('-1'), parseServerId('web-1')]).toEqual([
      42,
      42,
      7,
      null,
      null,
      null,
    ]);
    expect(parseServerId('1.5')).toBeNull();
    expect(parseServerId('203.0.113.10')).toBeNull();
  });
});

describe('editDistance', () => {
  it('counts the edits between two names, and stops past a limit', () => {
    expect(editDistance('web-9', 'web-1')).toBe(1);
    expect(editDistance('bastoin', 'bastion')).toBe(2);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('abcdefgh', 'zzzzzzzz', 2)).toBe(3);
  });
});

describe('the name index', () => {
  it('resolves an exact label or hostname, case-insensitive, before any prefix', async () => {
    const read = lister(() => FLEET);
    const index = createNameIndex({ list: read.list, ttlMs: 60_000, now: clock().now });
    expect(await index.resolve('web-1')).toEqual({
      kind: 'one',
      server: { id: 42, label: 'web-1', hostname: 'web-1.prod.example.com', addresses: ['203.0.113.42', '10.20.0.42'] },
    });
    expect(ids(await index.resolve('WEB-2.prod.example.com'))).toEqual([47]);
    expect(ids(await index.resolve('mail'))).toEqual([50]);
    // The hostname's first part, as a prefix: `jump` is bastion's host.
    expect(ids(await index.resolve('jump'))).toEqual([44]);
    expect(ids(await index.resolve('db'))).toEqual([46]);
    expect(ids(await index.resolve('192.0.2.44'))).toEqual([44]);
    expect(ids(await index.resolve('10.20.0.42'))).toEqual([42]);
    expect(read.pages).toHaveLength(1);
  });

  it('never guesses between several: a shared prefix is several servers, sorted by name', async () => {
    const index = createNameIndex({ list: lister(() => FLEET).list, ttlMs: 60_000, now: clock().now });
    const web = await index.resolve('web');
    expect(web).toMatchObject({ kind: 'several', name: 'web' });
    expect(ids(web)).toEqual([42, 47]);
  });

  it('answers none with the closest names for a name that matches nothing', async () => {
    const index = createNameIndex({ list: lister(() => FLEET).list, ttlMs: 60_000, now: clock().now });
    const typo = await index.resolve('web-9');
    expect(typo).toMatchObject({ kind: 'none', name: 'web-9' });
    expect(ids(typo)).toEqual([42, 47]);
    expect(ids(await index.resolve('bastoin'))).toEqual([44]);
    expect(await index.resolve('zzzzzzzzzzzz')).toEqual({ kind: 'none', name: 'zzzzzzzzzzzz', closest: [] });
  });

  it('takes an id as an id, without reading the list, and names it once the index knows it', async () => {
    const read = lister(() => FLEET);
    const index = createNameIndex({ list: read.list, ttlMs: 60_000, now: clock().now });
    expect(await index.resolve('#99')).toEqual({ kind: 'one', server: { id: 99, label: null, hostname: null, addresses: [] } });
    expect(index.labelOf(42)).toBeNull();
    expect(read.pages).toHaveLength(0);
    await index.resolve('web-1');
    expect(index.labelOf(42)).toBe('web-1');
    expect(await index.resolve('42')).toMatchObject({ kind: 'one', server: { id: 42, label: 'web-1' } });
    expect(read.pages).toHaveLength(1);
  });

  it('keeps the index VS_NAME_INDEX_TTL_S and reads it again after', async () => {
    const time = clock();
    const read = lister(() => FLEET);
    const index = createNameIndex({ list: read.list, ttlMs: 60_000, now: time.now });
    await index.resolve('web-1');
    time.advance(59_999);
    await index.resolve('web-2');
    expect(read.pages).toHaveLength(1);
    time.advance(1);
    await index.resolve('web-2');
    expect(read.pages).toHaveLength(2);
  });

  it('reads the list once for fifty names asked at once on a cold index', async () => {
    const read = lister(() => FLEET);
    const index = createNameIndex({ list: read.list, ttlMs: 60_000, now: clock().now });
    read.hold();
    const asked = Array.from({ length: 50 }, (_, i) => index.resolve(['web-1', 'web-2', 'bastion', 'db', 'nothing-here'][i % 5] ?? ''));
    read.release();
    const answers = await Promise.all(asked);
    expect(read.pages).toHaveLength(1);
    expect(answers.slice(0, 4).map(ids)).toEqual([[42], [47], [44], [46]]);
  });

  it('reloads for an unknown name at most once per 10 s, and finds a server made since', async () => {
    const time = clock();
    let servers = FLEET;
    const read = lister(() => servers);
    const index = createNameIndex({ list: read.list, ttlMs: 60_000, now: time.now });
    await index.resolve('web-1');
    servers = [...FLEET, server(51, 'web-3', null)];
    // Within 10 s of the last read: no reload, however many unknown names.
    expect((await index.resolve('web-3')).kind).toBe('none');
    time.advance(9_999);
    expect((await index.resolve('web-3')).kind).toBe('none');
    expect(read.pages).toHaveLength(1);
    time.advance(1);
    expect(ids(await index.resolve('web-3'))).toEqual([51]);
    expect(read.pages).toHaveLength(2);
    expect((await index.resolve('web-9000')).kind).toBe('none');
    expect(read.pages).toHaveLength(2);
  });

  it('reads every page of a paged cloud, and an older cloud’s whole list once', async () => {
    const many = Array.from({ length: 250 }, (_, i) => server(1000 + i, `app-${i}`, null));
    const paged = lister(() => many);
    const index = createNameIndex({ list: paged.list, ttlMs: 60_000, now: clock().now });
    expect(ids(await index.resolve('app-249'))).toEqual([1249]);
    expect(paged.pages).toEqual([{ perPage: 100 }, { page: 2, perPage: 100 }, { page: 3, perPage: 100 }]);

    const older = lister(() => many, { pagesIgnored: true });
    const oldIndex = createNameIndex({ list: older.list, ttlMs: 60_000, now: clock().now });
    expect(ids(await oldIndex.resolve('app-249'))).toEqual([1249]);
    expect(older.pages).toHaveLength(1);

    // An older cloud whose whole list is exactly a page long: the second answer holds nothing new, and ends it.
    const exact = lister(() => many.slice(0, 100), { pagesIgnored: true });
    const exactIndex = createNameIndex({ list: exact.list, ttlMs: 60_000, now: clock().now });
    expect(ids(await exactIndex.resolve('app-99'))).toEqual([1099]);
    expect(exact.pages).toHaveLength(2);
  });

  it('fails a name when no list was ever read, and keeps resolving from a stale one when the reload fails', async () => {
    const time = clock();
    let fail = true;
    const list: ListServers = async () => {
      if (fail) throw new Error('cloud down');
      return FLEET;
    };
    const index = createNameIndex({ list, ttlMs: 60_000, now: time.now });
    await expect(index.resolve('web-1')).rejects.toThrow('cloud down');
    fail = false;
    expect(ids(await index.resolve('web-1'))).toEqual([42]);
    fail = true;
    time.advance(60_000);
    expect(ids(await index.resolve('web-2'))).toEqual([47]);
  });

  it('takes a whole list read elsewhere (the watch poll) as fresh: names resolve from it without a read of its own', async () => {
    const read = lister(() => FLEET);
    const time = clock();
    const index = createNameIndex({ list: read.list, ttlMs: 60_000, now: time.now });
    index.offer([server(42, 'web-1', null), server(77, 'cache-1', null)]);
    expect(ids(await index.resolve('cache-1'))).toEqual([77]);
    expect(index.labelOf(77)).toBe('cache-1');
    expect(read.pages).toHaveLength(0);
    // Past its TTL it is read again, as any index.
    time.advance(60_000);
    expect(ids(await index.resolve('web-2'))).toEqual([47]);
    expect(read.pages).toHaveLength(1);
  });

  it('is rebuilt from an offered list only when a name changed, and kept fresh by one that changed none', async () => {
    const read = lister(() => FLEET);
    const time = clock();
    const index = createNameIndex({ list: read.list, ttlMs: 60_000, now: time.now });
    expect(index.offer(FLEET)).toBe(true);
    // The same records again, then new records naming the same servers the same way (a server powered off): kept.
    expect(index.offer(FLEET)).toBe(false);
    const poweredOff = FLEET.map((s) => (s.id === 42 ? Server.parse({ ...s, booted: false, locked: true }) : s));
    expect(index.offer(poweredOff)).toBe(false);
    // Each offer keeps it fresh: 50 s after the last, past 60 s after the first, names resolve without a read.
    time.advance(50_000);
    expect(index.offer(poweredOff)).toBe(false);
    time.advance(50_000);
    expect(ids(await index.resolve('web-1'))).toEqual([42]);
    expect(read.pages).toHaveLength(0);
    // A label renamed: rebuilt, the new name resolves (and its prefix), the old label is no longer its label.
    const renamed = FLEET.map((s) => (s.id === 42 ? server(42, 'front-1', 'web-1.prod.example.com', '203.0.113.42', '10.20.0.42') : s));
    expect(index.offer(renamed)).toBe(true);
    expect(ids(await index.resolve('front-1'))).toEqual([42]);
    expect(ids(await index.resolve('front'))).toEqual([42]);
    expect(index.labelOf(42)).toBe('front-1');
    // An address changed, a hostname changed, a server gone, one more: each rebuilds it.
    const readdressed = renamed.map((s) => (s.id === 47 ? server(47, 'web-2', 'web-2.prod.example.com', '10.20.0.99') : s));
    expect(index.offer(readdressed)).toBe(true);
    expect(ids(await index.resolve('10.20.0.99'))).toEqual([47]);
    const rehosted = readdressed.map((s) => (s.id === 44 ? server(44, 'bastion', 'gate.example.com', '192.0.2.44') : s));
    expect(index.offer(rehosted)).toBe(true);
    expect(ids(await index.resolve('gate.example.com'))).toEqual([44]);
    expect(index.offer(rehosted.filter((s) => s.id !== 50))).toBe(true);
    expect(index.labelOf(50)).toBeNull();
    expect(index.offer([...rehosted, server(77, 'cache-1', null)])).toBe(true);
    expect(ids(await index.resolve('cache-1'))).toEqual([77]);
    expect(read.pages).toHaveLength(0);
  });
});

describe('the name index over the sandbox', () => {
  const sandbox = useSandbox();
  let cloud: CloudClient;
  beforeAll(() => {
    cloud = createCloudClient({
      url: sandbox.url,
      accountId: sandbox.accountId,
      apiKey: sandbox.apiKey,
      format: 'xml',
      timeoutMs: 5000,
      maxConnections: 4,
      changeConnections: 1,
      connectionWaitMs: 2000,
    });
  });
  afterAll(() => cloud.close());

  const listReads = () => sandbox.requests.filter((r) => r.method === 'GET' && /^\/virtual_machines\.(json|xml)/.test(r.path));

  it('resolves the seed’s names with one list read for fifty concurrent names, paged', async () => {
    // Pages of 3: the seed's eight servers take three pages.
    const index = createNameIndex({ list: (page) => cloud.listServers(page), ttlMs: 60_000, now: () => 0, perPage: 3 });
    const names = ['web-1', 'web', 'web-9', '203.0.113.42', 'bastion', 'db-primary.example.com', 'api'];
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => index.resolve(names[i % names.length] ?? '')));
    expect(answers.slice(0, names.length).map((a) => [a.kind, ...ids(a)])).toEqual([
      ['one', 42],
      ['several', 42, 47],
      ['none', 42, 47],
      ['one', 42],
      ['one', 44],
      ['one', 46],
      ['one', 77],
    ]);
    // One list read: its three pages (api-gateway, the eighth server, is on the third), for fifty names.
    expect(defaultSeed().servers).toHaveLength(8);
    expect(listReads()).toHaveLength(3);
  });

  it('keeps no password of the list', async () => {
    const [first] = await cloud.listServers({ perPage: 100 });
    expect(JSON.stringify(first)).not.toMatch(/password|fake-root-pw/);
  });
});
