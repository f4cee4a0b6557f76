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

  test('records survive closing and reopening, with every field as written', () => {
    const path = join(dir, 'audit.sqlite');
    const store = openSqliteAuditStore(path);
    const written = store.record(entry({ detail: 'disk 7 scheduled', params: { label: 'data <x> & "y"', nested: { ok: true } } }));
    store.close();
    const reopened = openSqliteAuditStore(path);
    try {
      expect(reopened.latest(10)).toEqual([written]);
      expect(written.id).toBeGreaterThan(0);
    } finally {
      reopened.close();
    }
  });

  test('latest(n) gives the newest n records first, and bounds silly limits', () => {
    const store = openSqliteAuditStore(':memory:');
    for (let i = 1; i <= 5; i++) store.record(entry({ target: `vs:${i}` }));
    expect(store.latest(3).map((r) => r.target)).toEqual(['vs:5', 'vs:4', 'vs:3']);
    expect(store.latest(100)).toHaveLength(5);
    expect(store.latest(0)).toEqual([]);
    expect(store.latest(-4)).toEqual([]);
    expect(store.latest(Number.NaN)).toEqual([]);
    store.close();
  });

  test('a null channel, a null API status and a denied outcome are kept as such', () => {
    const store = openSqliteAuditStore(':memory:');
    store.record(entry({ channelId: null, apiStatus: null, outcome: 'denied', detail: 'needs operator', params: {} }));
    expect(store.latest(1)[0]).toMatchObject({ channelId: null, apiStatus: null, outcome: 'denied', detail: 'needs operator', params: {} });
    store.close();
  });

  test('a submission key can be claimed once, ever, even after reopening, unless it is given back', () => {
    const path = join(dir, 'audit.sqlite');
    const store = openSqliteAuditStore(path);
    expect(store.claimSubmission('V1', '2024-05-01T10:00:00.000Z')).toBe(true);
    expect(store.claimSubmission('V1', '2024-05-01T10:00:01.000Z')).toBe(false);
    expect(store.claimSubmission('V2', '2024-05-01T10:00:01.000Z')).toBe(true);
    store.close();
    const reopened = openSqliteAuditStore(path);
    expect(reopened.claimSubmission('V1', '2024-05-01T11:00:00.000Z')).toBe(false);
    reopened.releaseSubmission('V2');
    expect(reopened.claimSubmission('V2', '2024-05-01T11:00:00.000Z')).toBe(true);
    reopened.close();
  });

  test('a target lock keeps others out until it is released or expires, and only its owner releases it', () => {
    const store = openSqliteAuditStore(':memory:');
    expect(store.tryLock('vs:42', 'a', 1000, 500)).toBe(true);
    expect(store.tryLock('vs:42', 'b', 1200, 500)).toBe(false);
    expect(store.tryLock('vs:43', 'b', 1200, 500)).toBe(true);
    store.unlock('vs:42', 'b'); // not b's lock: nothing happens
    expect(store.tryLock('vs:42', 'c', 1300, 500)).toBe(false);
    store.unlock('vs:42', 'a');
    expect(store.tryLock('vs:42', 'c', 1300, 500)).toBe(true);
    // c dies holding it; once expired, d takes it over and c's late unlock does not free d's lock.
    expect(store.tryLock('vs:42', 'd', 1799, 500)).toBe(false);
    expect(store.tryLock('vs:42', 'd', 1800, 500)).toBe(true);
    store.unlock('vs:42', 'c');
    expect(store.tryLock('vs:42', 'e', 1900, 500)).toBe(false);
    store.close();
  });

  test('two handles on one file see each other’s claims and locks', () => {
    const path = join(dir, 'audit.sqlite');
    const one = openSqliteAuditStore(path);
    const two = openSqliteAuditStore(path);
    try {
      expect(one.claimSubmission('V1', 'now')).toBe(true);
      expect(two.claimSubmission('V1', 'now')).toBe(false);
      expect(one.tryLock('backup:9', 'one', 0, 60_000)).toBe(true);
      expect(two.tryLock('backup:9', 'two', 1, 60_000)).toBe(false);
      one.record(entry());
      expect(two.latest(1)).toHaveLength(1);
    } finally {
      one.close();
      two.close();
    }
  });

  test('a started change is settled in place, once, and the settled outcome survives reopening', () => {
    const path = join(dir, 'audit.sqlite');
    const store = openSqliteAuditStore(path);
    const started = store.record(entry({ outcome: 'started', apiStatus: null, detail: 'in progress' }));
    const done = store.complete(started.id, { outcome: 'succeeded', apiStatus: 201, durationMs: 321.4, detail: 'disk 7 scheduled' });
    expect(done).toMatchObject({ id: started.id, outcome: 'succeeded', apiStatus: 201, durationMs: 321, detail: 'disk 7 scheduled', params: started.params });
    expect(() => store.complete(started.id, { outcome: 'failed', apiStatus: 500, durationMs: 1, detail: null })).toThrow(/not a started change/);
    store.close();
    const reopened = openSqliteAuditStore(path);
    expect(reopened.latest(10)).toEqual([expect.objectContaining({ id: started.id, outcome: 'succeeded' })]);
    reopened.close();
  });

  test('closing twice is harmless', () => {
    const store = openSqliteAuditStore(':memory:');
    store.close();
    expect(() => store.close()).not.toThrow();
  });

  test('every change completed before the process is SIGKILLed is found after reopening', () => {
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
      const records = store.latest(count + 10);
      expect(records).toHaveLength(count);
      expect(records.every((r) => r.outcome === 'succeeded' && r.action === 'disk_add' && r.apiStatus === 201)).toBe(true);
      expect(records.map((r) => r.params.disk_size).sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: count }, (_, i) => i + 1));
      // The claims survived too: a redelivery after the restart is still a duplicate.
      expect(store.claimSubmission('V1', 'later')).toBe(false);
    } finally {
      store.close();
    }
  });
});
