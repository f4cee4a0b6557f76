import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { DEFAULT_STORE_OPTIONS, type StoreOptions } from './kysely/rows';
import { createKyselyStore } from './kysely/store';
import { migrateSqlite } from './migrations';
import type { StoreTables } from './schema';
import type { Store } from './store';
import { storeError } from './unavailable';

// The store in one SQLite file, for one instance. WAL with synchronous=FULL:
// once a write resolves, it is in the log on disk, so a SIGKILL (or a power
// cut) right after loses nothing. One connection per process (Kysely queues
// queries on it); across processes on one file, SQLite's write lock with
// busy_timeout serialises writers.

export const BUSY_TIMEOUT_MS = 5000;

/**
 * Opens (creating it and its directory when missing, migrating it forward) the
 * store at `path`; `:memory:` for a throwaway one. Synchronous: SQLite needs
 * no round trip to open.
 */
export function openSqliteStore(path: string, options: Partial<StoreOptions> & { busyTimeoutMs?: number } = {}): Store {
  const inMemory = path === ':memory:' || path === '';
  let db: Database.Database;
  try {
    if (!inMemory) mkdirSync(dirname(path), { recursive: true });
    db = new Database(path);
  } catch (error) {
    throw storeError(error, 'sqlite');
  }
  try {
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? BUSY_TIMEOUT_MS))}`);
    if (!inMemory) db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    migrateSqlite(db);
  } catch (error) {
    db.close();
    throw storeError(error, 'sqlite');
  }
  const kysely = new Kysely<StoreTables>({ dialect: new SqliteDialect({ database: db }) });
  return createKyselyStore(kysely, 'sqlite', { ...DEFAULT_STORE_OPTIONS, ...options }, inMemory ? {} : { serialize: fileQueue(resolve(path)) });
}

const queues = new Map<string, { tail: Promise<unknown> }>();

/**
 * One queue per file for the handles this process has on it. better-sqlite3
 * waits for SQLite's write lock synchronously (busy_timeout), so a handle
 * waiting for another handle of the same process, which is mid-transaction
 * between two awaits, would block the very thread that must finish that
 * transaction. Another process's handle just makes it wait.
 */
function fileQueue(file: string): <T>(work: () => Promise<T>) => Promise<T> {
  let queue = queues.get(file);
  if (!queue) {
    queue = { tail: Promise.resolve() };
    queues.set(file, queue);
  }
  const q = queue;
  return <T>(work: () => Promise<T>): Promise<T> => {
    const run = q.tail.then(work, work);
    q.tail = run.catch(() => undefined);
    return run;
  };
}
