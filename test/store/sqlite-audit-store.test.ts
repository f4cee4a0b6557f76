import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuditEntry } from '../../src/store/audit-store';
import { MIGRATIONS, openSqliteAuditStore } from '../../src/store/sqlite-audit-store';

const entry = (overrides: Partial<AuditEntry> = {}): AuditEntry => ({
  at: '2024-05-01T10:00:00.000Z',
  userId: 'UOPER',
  channelId: 'CINCIDENT',
  action: 'disk_add',
  target: 'vs:42',
  params: { disk_type: 'SSD', disk_size: 20 },
  outcome: 'succeeded',
  apiStatus: 201,
  durationMs: 12,
  detail: null,
  ...overrides,
});

describe('the SQLite audit store', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vs-audit-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  test('creates its directory, runs every migration once, and reopening changes nothing', () => {
    const path = join(dir, 'nested', 'deeper', 'audit.sqlite');
    openSqliteAuditStore(path).close();
    openSqliteAuditStore(path).close();
    const db = new Database(path, { readonly: true });
    try {
      expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map((t) => t.name);
      expect(tables).toEqual(expect.arrayContaining(['audit_records', 'locks', 'submissions']));
    } finally {
      db.close();
    }
  });

  test('refuses a database written by a newer schema instead of guessing', () => {
    const path = join(dir, 'audit.sqlite');
    openSqliteAuditStore(path).close();
    const db = new Database(path);
    db.pragma(`user_version = ${MIGRATIONS.length + 1}`);
    db.close();
    expect(() => openSqliteAuditStore(path)).toThrow(/newer/);
  });

  test('records survive closing and reopening, with every field as written', async () => {
    const path = join(dir, 'audit.sqlite');
    const store = openSqliteAuditStore(path);
    const written = await store.record(entry({ detail: 'disk 7 scheduled', params: { label: 'data <x> & "y"', nested: { ok: true } } }));
    await store.close();
    const reopened = openSqliteAuditStore(path);
    try {
      expect(await reopened.latest(10)).toEqual([written]);
      expect(written.id).toBeGreaterThan(0);
    } finally {
      await reopened.close();
    }
  });

  test('latest(n) gives the newest n records first, and bounds silly limits', async () => {
    const store = openSqliteAuditStore(':memory:');
    for (let i = 1; i <= 5; i++) await store.record(entry({ target: `vs:${i}` }));
    expect((await store.latest(3)).map((r) => r.target)).toEqual(['vs:5', 'vs:4', 'vs:3']);
    expect(await store.latest(100)).toHaveLength(5);
    expect(await store.latest(0)).toEqual([]);
    expect(await store.latest(-4)).toEqual([]);
    expect(await store.latest(Number.NaN)).toEqual([]);
    await store.close();
  });

  test('a null channel, a null API status and a denied outcome are kept as such', async () => {
    const store = openSqliteAuditStore(':memory:');
    await store.record(entry({ channelId: null, apiStatus: null, outcome: 'denied', detail: 'needs operator', params: {} }));
    expect((await store.latest(1))[0]).toMatchObject({ channelId: null, apiStatus: null, outcome: 'denied', detail: 'needs operator', params: {} });
    await store.close();
  });

  test('a submission key can be claimed once, ever, even after reopening, unless it is given back', async () => {
    const path = join(dir, 'audit.sqlite');
    const store = openSqliteAuditStore(path);
    expect(await store.claimSubmission('V1', '2024-05-01T10:00:00.000Z')).toBe(true);
    expect(await store.claimSubmission('V1', '2024-05-01T10:00:01.000Z')).toBe(false);
    expect(await store.claimSubmission('V2', '2024-05-01T10:00:01.000Z')).toBe(true);
    await store.close();
    const reopened = openSqliteAuditStore(path);
    expect(await reopened.claimSubmission('V1', '2024-05-01T11:00:00.000Z')).toBe(false);
    await reopened.releaseSubmission('V2');
    expect(await reopened.claimSubmission('V2', '2024-05-01T11:00:00.000Z')).toBe(true);
    await reopened.close();
  });

  test('a target lock keeps others out until it is released or expires, and only its owner releases it', async () => {
    const store = openSqliteAuditStore(':memory:');
    expect(await store.tryLock('vs:42', 'a', 1000, 500)).toBe(true);
    expect(await store.tryLock('vs:42', 'b', 1200, 500)).toBe(false);
    expect(await store.tryLock('vs:43', 'b', 1200, 500)).toBe(true);
    await store.unlock('vs:42', 'b'); // not b's lock: nothing happens
    expect(await store.tryLock('vs:42', 'c', 1300, 500)).toBe(false);
    await store.unlock('vs:42', 'a');
    expect(await store.tryLock('vs:42', 'c', 1300, 500)).toBe(true);
    // c dies holding it; once expired, d takes it over and c's late unlock does not free d's lock.
    expect(await store.tryLock('vs:42', 'd', 1799, 500)).toBe(false);
    expect(await store.tryLock('vs:42', 'd', 1800, 500)).toBe(true);
    await store.unlock('vs:42', 'c');
    expect(await store.tryLock('vs:42', 'e', 1900, 500)).toBe(false);
    await store.close();
  });

  test('two handles on one file see each other’s claims and locks', async () => {
    const path = join(dir, 'audit.sqlite');
    const one = openSqliteAuditStore(path);
    const two = openSqliteAuditStore(path);
    try {
      expect(await one.claimSubmission('V1', 'now')).toBe(true);
      expect(await two.claimSubmission('V1', 'now')).toBe(false);
      expect(await one.tryLock('backup:9', 'one', 0, 60_000)).toBe(true);
      expect(await two.tryLock('backup:9', 'two', 1, 60_000)).toBe(false);
      await one.record(entry());
      expect(await two.latest(1)).toHaveLength(1);
    } finally {
      await one.close();
      await two.close();
    }
  });

  test('a started change is settled in place, once, and the settled outcome survives reopening', async () => {
    const path = join(dir, 'audit.sqlite');
    const store = openSqliteAuditStore(path);
    const started = await store.record(entry({ outcome: 'started', apiStatus: null, detail: 'in progress' }));
    const done = await store.complete(started.id, { outcome: 'succeeded', apiStatus: 201, durationMs: 321.4, detail: 'disk 7 scheduled' });
    expect(done).toMatchObject({ id: started.id, outcome: 'succeeded', apiStatus: 201, durationMs: 321, detail: 'disk 7 scheduled', params: started.params });
    await expect(store.complete(started.id, { outcome: 'failed', apiStatus: 500, durationMs: 1, detail: null })).rejects.toThrow(/not a started change/);
    await store.close();
    const reopened = openSqliteAuditStore(path);
    expect(await reopened.latest(10)).toEqual([expect.objectContaining({ id: started.id, outcome: 'succeeded' })]);
    await reopened.close();
  });

  test('closing twice is harmless', async () => {
    const store = openSqliteAuditStore(':memory:');
    await store.close();
    await expect(store.close()).resolves.toBeUndefined();
  });

  test('every change completed before the process is SIGKILLed is found after reopening', async () => {
    const path = join(dir, 'crash', 'audit.sqlite');
    const count = 25;
    const child = spawnSync(process.execPath, ['--import', 'tsx', join(__dirname, 'fixtures', 'write-then-crash.ts'), path, String(count)], {
      encoding: 'utf8',
      timeout: 15_000,
    });
    expect(child.stderr).toBe('');
    expect(child.stdout).toContain(`done ${count}`);
    expect(child.signal).toBe('SIGKILL');

    const store = openSqliteAuditStore(path);
    try {
      const records = await store.latest(count + 10);
      expect(records).toHaveLength(count);
      expect(records.every((r) => r.outcome === 'succeeded' && r.action === 'disk_add' && r.apiStatus === 201)).toBe(true);
      expect(records.map((r) => r.params.disk_size).sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: count }, (_, i) => i + 1));
      // The claims survived too: a redelivery after the restart is still a duplicate.
      expect(await store.claimSubmission('V1', 'later')).toBe(false);
    } finally {
      await store.close();
    }
  });
});
