import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/log';
import { openStore } from '../../src/store';
import { openSqliteStore } from '../../src/store/sqlite';

// The SQLite file holds the audit trail, the prepared requests and who asked for what: it is readable and writable
// by its owner only (docs/product.md, Security), and so are its -wal and -shm files. A file found readable by others
// is tightened when the store opens, and the log says so.

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'vs-db-mode-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const modeOf = (path: string) => statSync(path).mode & 0o777;
const T0 = '2024-05-06T14:03:12.000Z';

/** Writes a record, so that SQLite has made its -wal and -shm files. */
async function write(store: ReturnType<typeof openSqliteStore>): Promise<void> {
  await store.claims.claim('permissions-test', T0);
}

test('a new database, its -wal and -shm are made readable and writable by their owner only (0600), in a folder of its own made 0700', async () => {
  const path = join(dir, 'data', 'vs-chatops.sqlite');
  const store = openSqliteStore(path);
  try {
    await write(store);
    expect(modeOf(path)).toBe(0o600);
    expect(modeOf(`${path}-wal`)).toBe(0o600);
    expect(modeOf(`${path}-shm`)).toBe(0o600);
    expect(modeOf(join(dir, 'data'))).toBe(0o700);
  } finally {
    await store.close();
  }
});

test('a database found readable by others is tightened when opened, with its -wal and -shm, and the log says which and how it was', async () => {
  const path = join(dir, 'vs-chatops.sqlite');
  // A database left as an older version (or a copy) made it: world-readable, its WAL world-writable.
  const old = new Database(path);
  old.pragma('journal_mode = WAL');
  old.exec('CREATE TABLE kept (x INTEGER)');
  chmodSync(path, 0o644);
  chmodSync(`${path}-wal`, 0o666);
  chmodSync(`${path}-shm`, 0o640);
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({ level: 'debug', write: (l) => lines.push(JSON.parse(l) as Record<string, unknown>) });
  const config = loadConfig({ SLACK_BOT_TOKEN: 'xoxb-mode-test', SLACK_SIGNING_SECRET: 'mode-test-secret', VS_API_URL: 'sandbox', VS_DB_PATH: path });
  const store = await openStore(config, logger);
  try {
    await write(store);
    expect([modeOf(path), modeOf(`${path}-wal`), modeOf(`${path}-shm`)]).toEqual([0o600, 0o600, 0o600]);
    const said = lines.filter((l) => l.msg === 'the SQLite file was readable by others: made readable and writable by its owner only');
    expect(said).toEqual([
      expect.objectContaining({ level: 'warn', component: 'store', file: path, modeBefore: '0644', modeNow: '0600' }),
      expect.objectContaining({ file: `${path}-wal`, modeBefore: '0666', modeNow: '0600' }),
      expect.objectContaining({ file: `${path}-shm`, modeBefore: '0640', modeNow: '0600' }),
    ]);
  } finally {
    await store.close();
    old.close();
  }
});

test('a database already owner-only is opened without a word about it', async () => {
  const path = join(dir, 'vs-chatops.sqlite');
  writeFileSync(path, '', { mode: 0o600 });
  const lines: string[] = [];
  const store = openSqliteStore(path, { logger: createLogger({ level: 'debug', write: (l) => lines.push(l) }) });
  await store.close();
  expect(modeOf(path)).toBe(0o600);
  expect(lines).toEqual([]);
});
