import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StoreUnavailableError } from '../../src/store';
import { MIGRATIONS, SCHEMA_VERSION } from '../../src/store/migrations';
import { openSqliteStore } from '../../src/store/sqlite';
import { describeStoreContract, type StoreLocation } from './contract';
import { entry } from './contract/entries';
import { runToExit } from '../helpers/spawned-bot';

// The contract on a real SQLite file, then what only SQLite has: its file,
// its pragmas, its first schema (user_version 1) migrated forward, and
// durability when the process is killed.

const dirs: string[] = [];
function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'vs-audit-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Opens handles on one SQLite file, as the instances of one deployment would. */
const handlesOn = (path: string): StoreLocation => ({ open: (options) => Promise.resolve(openSqliteStore(path, options)) });

describeStoreContract('SQLite', {
  fresh: () => Promise.resolve(handlesOn(join(freshDir(), 'store.sqlite'))),
  freshAt(version, seed) {
    const path = join(freshDir(), 'store.sqlite');
    const db = new Database(path);
    for (const migration of MIGRATIONS.slice(0, version)) for (const statement of migration.sqlite) db.exec(statement);
    db.pragma(`user_version = ${version}`);
    for (const statement of seed) db.exec(statement);
    db.close();
    return Promise.resolve(handlesOn(path));
  },
});

/** What the first release (schema version 1, c703b78) wrote, as it wrote it. */
const FIRST_RELEASE_SCHEMA = `CREATE TABLE audit_records (
     id          INTEGER PRIMARY KEY AUTOINCREMENT,
     at          TEXT    NOT NULL,
     user_id     TEXT    NOT NULL,
     channel_id  TEXT,
     action      TEXT    NOT NULL,
     target      TEXT    NOT NULL,
     params      TEXT    NOT NULL,
     outcome     TEXT    NOT NULL,
     api_status  INTEGER,
     duration_ms INTEGER NOT NULL,
     detail      TEXT
   );
   CREATE INDEX audit_records_target ON audit_records (target, id);
   CREATE TABLE submissions (
     key TEXT PRIMARY KEY,
     at  TEXT NOT NULL
   ) WITHOUT ROWID;
   CREATE TABLE locks (
     target        TEXT PRIMARY KEY,
     owner         TEXT NOT NULL,
     expires_at_ms INTEGER NOT NULL
   ) WITHOUT ROWID;`;

function schemaVersionOf(path: string): unknown {
  const db = new Database(path, { readonly: true });
  try {
    return db.pragma('user_version', { simple: true });
  } finally {
    db.close();
  }
}

describe('the SQLite store', () => {
  test('creates its directory, runs every migration once, and reopening changes nothing', async () => {
    const path = join(freshDir(), 'nested', 'deeper', 'audit.sqlite');
    await openSqliteStore(path).close();
    await openSqliteStore(path).close();
    const db = new Database(path, { readonly: true });
    try {
      expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map((t) => t.name);
      expect(tables).toEqual(expect.arrayContaining(['approvals', 'audit_outbox', 'audit_records', 'change_freeze', 'locks', 'rate_buckets', 'submissions']));
    } finally {
      db.close();
    }
  });

  test('three processes opening one fresh file at once: migrated once, each works, one claim wins', async () => {
    const path = join(freshDir(), 'race', 'audit.sqlite');
    const fixture = join(__dirname, 'fixtures', 'open-and-record.ts');
    const results = await Promise.all(['a', 'b', 'c'].map((name) => runToExit(process.execPath, ['--import', 'tsx', fixture, path, name], 15_000)));
    expect(results.map((r) => [r.code, r.stderr])).toEqual([
      [0, ''],
      [0, ''],
      [0, ''],
    ]);
    expect(results.map((r) => r.stdout.trim()).sort()).toEqual(['claimed', 'duplicate', 'duplicate']);
    const store = openSqliteStore(path);
    try {
      expect((await store.audit.latest(10)).map((r) => r.target).sort()).toEqual(['vs:a', 'vs:b', 'vs:c']);
    } finally {
      await store.close();
    }
    expect(schemaVersionOf(path)).toBe(SCHEMA_VERSION);
  });

  test('a file another process keeps locked past the busy timeout: calls are refused with StoreUnavailableError, and work again once it is free', async () => {
    const path = join(freshDir(), 'locked.sqlite');
    const store = openSqliteStore(path, { busyTimeoutMs: 50 });
    try {
      await store.audit.record(entry({ target: 'vs:1' }));
      const other = new Database(path);
      other.exec('BEGIN EXCLUSIVE');
      const refused = await store.audit.record(entry({ target: 'vs:2' })).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(StoreUnavailableError);
      expect((refused as StoreUnavailableError).code).toBe('STORE_UNAVAILABLE');
      other.exec('COMMIT');
      other.close();
      await store.audit.record(entry({ target: 'vs:3' }));
      expect((await store.audit.latest(5)).map((r) => r.target)).toEqual(['vs:3', 'vs:1']);
    } finally {
      await store.close();
    }
  });

  test('refuses a database written by a newer schema instead of guessing', async () => {
    const path = join(freshDir(), 'audit.sqlite');
    await openSqliteStore(path).close();
    const db = new Database(path);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    expect(() => openSqliteStore(path)).toThrow(/newer/);
  });

  test('a file of the first release (schema version 1) is migrated forward, its records, claims and locks still there', async () => {
    const path = join(freshDir(), 'old.sqlite');
    const old = new Database(path);
    old.pragma('journal_mode = WAL');
    old.exec(FIRST_RELEASE_SCHEMA);
    old.pragma('user_version = 1');
    old
      .prepare(
        `INSERT INTO audit_records (at, user_id, channel_id, action, target, params, outcome, api_status, duration_ms, detail)
       VALUES ('2024-01-02T03:04:05.678Z', 'UOLD', 'COLD', 'backup_restore', 'backup:9', '{"backup_id":9,"reason":"old"}',
               'started', NULL, 0, 'the cloud API call is in progress')`,
      )
      .run();
    old.prepare(`INSERT INTO submissions (key, at) VALUES ('V-old', '2024-01-02T03:04:05.678Z')`).run();
    old.close();

    const store = openSqliteStore(path);
    try {
      const [record] = await store.audit.latest(5);
      expect(record).toEqual({
        id: 1,
        at: '2024-01-02T03:04:05.678Z',
        userId: 'UOLD',
        channelId: 'COLD',
        action: 'backup_restore',
        target: 'backup:9',
        params: { backup_id: 9, reason: 'old' },
        outcome: 'started',
        apiStatus: null,
        durationMs: 0,
        detail: 'the cloud API call is in progress',
        // Columns of later versions read as none.
        apiRequest: null,
        requestedBy: null,
        decidedBy: null,
        approvalId: null,
        workflowExecutionId: null,
        cloudOutcome: null,
        transactionIds: null,
        cloudStep: null,
        formerOutcome: null,
        onCall: null,
        breakGlass: null,
        reviewedBy: null,
        serverLabel: null,
        reviewedAt: null,
      });
      expect(await store.claims.claim('V-old', '2024-06-01T00:00:00.000Z')).toBe(false);
      // A started record of the old release has no lease owner: with no live lock on its target, it is recovered.
      expect((await store.audit.recoverInterrupted(Date.parse('2024-06-01T00:00:00.000Z'))).map((r) => [r.id, r.outcome])).toEqual([[1, 'unknown']]);
    } finally {
      await store.close();
    }
    expect(schemaVersionOf(path)).toBe(SCHEMA_VERSION);
  });

  test('every change completed before the process is SIGKILLed is found after reopening', async () => {
    const path = join(freshDir(), 'crash', 'audit.sqlite');
    const count = 25;
    const child = spawnSync(process.execPath, ['--import', 'tsx', join(__dirname, 'fixtures', 'write-then-crash.ts'), path, String(count)], {
      encoding: 'utf8',
      timeout: 15_000,
    });
    expect(child.stderr).toBe('');
    expect(child.stdout).toContain(`done ${count}`);
    expect(child.signal).toBe('SIGKILL');

    const store = openSqliteStore(path);
    try {
      const records = await store.audit.latest(count + 10);
      expect(records).toHaveLength(count);
      expect(records.every((r) => r.outcome === 'scheduled' && r.action === 'disk_add' && r.apiStatus === 201)).toBe(true);
      expect(records.map((r) => r.params.disk_size).sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: count }, (_, i) => i + 1));
      // The claims survived too: a redelivery after the restart is still a duplicate.
      expect(await store.claims.claim('V1', '2024-05-01T10:00:00.000Z')).toBe(false);
      // And so did the posts waiting for the audit channel.
      expect((await store.outbox.backlog()).pending).toBe(count);
    } finally {
      await store.close();
    }
  });
});
