import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { AuditStore } from './audit-store';
import { createKyselyStore, DEFAULT_STORE_OPTIONS, type StoreOptions } from './kysely-store';
import { migrateSqlite } from './migrations';
import type { StoreTables } from './schema';
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
export function openSqliteAuditStore(path: string, options: Partial<StoreOptions> = {}): AuditStore {
  const inMemory = path === ':memory:' || path === '';
  let db: Database.Database;
  try {
    if (!inMemory) mkdirSync(dirname(path), { recursive: true });
    db = new Database(path);
  } catch (error) {
    throw storeError(error, 'sqlite');
  }
  try {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    if (!inMemory) db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    migrateSqlite(db);
  } catch (error) {
    db.close();
    throw storeError(error, 'sqlite');
  }
  const kysely = new Kysely<StoreTables>({ dialect: new SqliteDialect({ database: db }) });
  return createKyselyStore(kysely, 'sqlite', { ...DEFAULT_STORE_OPTIONS, ...options });
}
