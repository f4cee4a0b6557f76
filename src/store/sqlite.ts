import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { accessSync, chmodSync, constants, mkdirSync, statSync, writeFileSync, type Stats } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { ConfigError } from '../errors';
import type { Logger } from '../log';
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
 * The database, its -wal and -shm files: readable and writable by their owner only. The audit trail, the prepared
 * requests and who asked for what are nobody else's to read on a shared machine. SQLite gives a new -wal and -shm the
 * database's own mode.
 */
const OWNER_ONLY = 0o600;

/**
 * Opens (creating it and its directory when missing, migrating it forward) the
 * store at `path`; `:memory:` for a throwaway one. Synchronous: SQLite needs
 * no round trip to open. A path that cannot hold the database (a directory,
 * under a file, not writable by this process, not a SQLite file) throws a
 * ConfigError naming VS_DB_PATH and what to do.
 */
export function openSqliteStore(path: string, options: Partial<StoreOptions> & { busyTimeoutMs?: number; logger?: Pick<Logger, 'warn'> } = {}): Store {
  const inMemory = path === ':memory:' || path === '';
  if (!inMemory) {
    const problem = dbPathProblem(path);
    if (problem) throw new ConfigError([problem]);
  }
  let db: Database.Database;
  try {
    if (!inMemory) {
      // Missing folders are made for the owner only; the file is made owner-only before SQLite opens it.
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      createOwnerOnly(path);
      tightenOwnerOnly(path, options.logger);
    }
    db = new Database(path);
  } catch (error) {
    throw openError(error, path);
  }
  try {
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? BUSY_TIMEOUT_MS))}`);
    if (!inMemory) db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    migrateSqlite(db);
  } catch (error) {
    db.close();
    throw openError(error, path);
  }
  const kysely = new Kysely<StoreTables>({ dialect: new SqliteDialect({ database: db }) });
  return createKyselyStore(kysely, 'sqlite', { ...DEFAULT_STORE_OPTIONS, ...options }, inMemory ? {} : { serialize: fileQueue(resolve(path)) });
}

/** What to tell the operator, before SQLite says it less clearly: why `path` cannot hold the database, or null. */
export function dbPathProblem(path: string): string | null {
  const file = resolve(path);
  const where = `VS_DB_PATH (${file})`;
  const stats = (p: string): Stats | undefined | 'forbidden' => {
    try {
      return statSync(p, { throwIfNoEntry: false });
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code === 'ENOTDIR') return undefined;
      if (code === 'EACCES' || code === 'EPERM') return 'forbidden';
      throw error;
    }
  };
  const found = stats(file);
  if (found === 'forbidden') return `this process may not look into the folders of ${where}: ${WRITABLE_HINT}`;
  if (found?.isDirectory()) return `${where} is a directory, not a file: set it to a file in it, e.g. ${join(file, 'vs-chatops.sqlite')}`;
  // The nearest folder that exists: the database's own, or the one its missing folders would be made in.
  let folder = dirname(file);
  for (;;) {
    const up = stats(folder);
    if (up === 'forbidden') return `this process may not look into ${folder}, on the way to ${where}: ${WRITABLE_HINT}`;
    if (up !== undefined) {
      if (!up.isDirectory()) return `${where} lies under ${folder}, which is a file, not a directory: set VS_DB_PATH to a path whose folders are folders`;
      break;
    }
    if (dirname(folder) === folder) break;
    folder = dirname(folder);
  }
  if (!allowed(folder, constants.W_OK | constants.X_OK)) {
    return folder === dirname(file)
      ? `this process may not write in ${folder}, where ${where} lives (SQLite also writes ${basename(file)}-wal and -shm beside it): ${WRITABLE_HINT}`
      : `this process may not create the folders of ${where} in ${folder}: create them and let the bot's user write there, or ${WRITABLE_ELSE}`;
  }
  if (found && !allowed(file, constants.R_OK | constants.W_OK)) return `this process may not read and write ${where}: ${WRITABLE_HINT}`;
  return null;
}

/** Creates the database file, empty (which SQLite takes as a new database), owner-only; one that exists is left to tightenOwnerOnly. */
function createOwnerOnly(path: string): void {
  try {
    writeFileSync(path, '', { flag: 'wx', mode: OWNER_ONLY });
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'EEXIST') throw error;
  }
}

/**
 * The database and its -wal and -shm files as they are found, made owner-only where anyone else may read or write
 * them (a file made before this rule, or copied in), and said so in the log: which file, and its mode before.
 */
function tightenOwnerOnly(path: string, logger: Pick<Logger, 'warn'> | undefined): void {
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    const found = statSync(file, { throwIfNoEntry: false });
    if (!found || (found.mode & 0o077) === 0) continue;
    chmodSync(file, found.mode & 0o700);
    logger?.warn('the SQLite file was readable by others: made readable and writable by its owner only', {
      file: resolve(file),
      modeBefore: (found.mode & 0o777).toString(8).padStart(4, '0'),
      modeNow: (found.mode & 0o700).toString(8).padStart(4, '0'),
    });
  }
}

const WRITABLE_ELSE = 'set VS_DB_PATH to a file in a folder it may write';
const WRITABLE_HINT = `give the bot's user read and write access there, or ${WRITABLE_ELSE}`;

function allowed(path: string, mode: number): boolean {
  try {
    accessSync(path, mode);
    return true;
  } catch {
    return false;
  }
}

/** Opening failed all the same (a race with the checks above, a file that is not a database): in the operator's terms where we can. */
function openError(error: unknown, path: string): unknown {
  const code = (error as { code?: unknown }).code;
  const where = `VS_DB_PATH (${resolve(path)})`;
  if (code === 'SQLITE_NOTADB')
    return new ConfigError([`${where} is not a SQLite database: point it at the bot's database file, or at a new path for an empty one`]);
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS' || (typeof code === 'string' && /^SQLITE_(CANTOPEN|READONLY)/.test(code))) {
    return new ConfigError([`SQLite cannot open or write ${where} (${String(code)}): ${WRITABLE_HINT}`]);
  }
  if (code === 'ENOTDIR' || code === 'EEXIST')
    return new ConfigError([`${where} lies under a file, not a directory: set VS_DB_PATH to a path whose folders are folders`]);
  return storeError(error, 'sqlite');
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
