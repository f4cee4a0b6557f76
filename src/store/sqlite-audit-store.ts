import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { AuditEntry, AuditRecord, AuditStore, ChangeAction, ChangeCompletion, ChangeOutcome } from './audit-store';

// The audit trail in one SQLite file. WAL with synchronous=FULL: once
// record() returns, the row is in the log on disk, so a SIGKILL (or a power
// cut) right after loses nothing. better-sqlite3 is synchronous, which also
// makes claimSubmission and tryLock atomic within the process; across
// processes SQLite's own locking (with busy_timeout) does the same. The
// methods are async only to meet the contract a networked store needs.

/** Ordered; each runs once, in a transaction, and bumps PRAGMA user_version. Never edit a shipped one: append. */
export const MIGRATIONS: readonly string[] = [
  `CREATE TABLE audit_records (
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
   ) WITHOUT ROWID;`,
];

export const BUSY_TIMEOUT_MS = 5000;
/** `/vs audit` asks for a handful; this only bounds a silly request. */
export const MAX_LATEST = 1000;

interface AuditRow {
  id: number;
  at: string;
  user_id: string;
  channel_id: string | null;
  action: string;
  target: string;
  params: string;
  outcome: string;
  api_status: number | null;
  duration_ms: number;
  detail: string | null;
}

/** Opens (creating it and its directory when missing) the audit store at `path`; `:memory:` for a throwaway one. */
export function openSqliteAuditStore(path: string): AuditStore {
  const inMemory = path === ':memory:' || path === '';
  if (!inMemory) mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  try {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    if (!inMemory) db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    migrate(db);
  } catch (error) {
    db.close();
    throw error;
  }

  const insertRecord = db.prepare<[string, string, string | null, string, string, string, string, number | null, number, string | null]>(
    `INSERT INTO audit_records (at, user_id, channel_id, action, target, params, outcome, api_status, duration_ms, detail)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const selectLatest = db.prepare<[number], AuditRow>('SELECT * FROM audit_records ORDER BY id DESC LIMIT ?');
  const completeRecord = db.prepare<{ id: number; outcome: string; apiStatus: number | null; durationMs: number; detail: string | null }, AuditRow>(
    `UPDATE audit_records SET outcome = @outcome, api_status = @apiStatus, duration_ms = @durationMs, detail = @detail
     WHERE id = @id AND outcome = 'started' RETURNING *`,
  );
  const insertSubmission = db.prepare<[string, string]>('INSERT OR IGNORE INTO submissions (key, at) VALUES (?, ?)');
  const deleteSubmission = db.prepare<[string]>('DELETE FROM submissions WHERE key = ?');
  // One statement: take a free lock, take over an expired one, or renew our own; otherwise change nothing.
  const upsertLock = db.prepare<{ target: string; owner: string; now: number; expires: number }>(
    `INSERT INTO locks (target, owner, expires_at_ms) VALUES (@target, @owner, @expires)
     ON CONFLICT (target) DO UPDATE SET owner = excluded.owner, expires_at_ms = excluded.expires_at_ms
     WHERE locks.expires_at_ms <= @now OR locks.owner = excluded.owner`,
  );
  const deleteLock = db.prepare<[string, string]>('DELETE FROM locks WHERE target = ? AND owner = ?');

  return {
    async record(entry: AuditEntry): Promise<AuditRecord> {
      const result = insertRecord.run(
        entry.at,
        entry.userId,
        entry.channelId,
        entry.action,
        entry.target,
        JSON.stringify(entry.params),
        entry.outcome,
        entry.apiStatus,
        Math.max(0, Math.round(entry.durationMs)),
        entry.detail,
      );
      // What a reader gets back later, not what the caller handed in (params round-trip through JSON).
      return { ...entry, params: JSON.parse(JSON.stringify(entry.params)) as Record<string, unknown>, durationMs: Math.max(0, Math.round(entry.durationMs)), id: Number(result.lastInsertRowid) };
    },
    async complete(id: number, completion: ChangeCompletion): Promise<AuditRecord> {
      const row = completeRecord.get({ id, ...completion, durationMs: Math.max(0, Math.round(completion.durationMs)) });
      if (!row) throw new Error(`audit record ${id} is not a started change`);
      return toRecord(row);
    },
    async latest(limit: number): Promise<AuditRecord[]> {
      const n = Number.isFinite(limit) ? Math.min(MAX_LATEST, Math.max(0, Math.floor(limit))) : 0;
      return selectLatest.all(n).map(toRecord);
    },
    async claimSubmission(key: string, at: string): Promise<boolean> {
      return insertSubmission.run(key, at).changes === 1;
    },
    async releaseSubmission(key: string): Promise<void> {
      deleteSubmission.run(key);
    },
    async tryLock(target: string, owner: string, nowMs: number, ttlMs: number): Promise<boolean> {
      return upsertLock.run({ target, owner, now: nowMs, expires: nowMs + Math.max(0, ttlMs) }).changes === 1;
    },
    async unlock(target: string, owner: string): Promise<void> {
      deleteLock.run(target, owner);
    },
    async close(): Promise<void> {
      if (db.open) db.close();
    },
  };
}

function migrate(db: Database.Database): void {
  // IMMEDIATE: two processes opening a fresh file at once do not both migrate.
  db.transaction(() => {
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > MIGRATIONS.length) {
      throw new Error(`The audit database is at schema version ${version}, newer than this build knows (${MIGRATIONS.length}); run a newer vs-chatops or point VS_DB_PATH elsewhere.`);
    }
    for (let v = version; v < MIGRATIONS.length; v++) {
      db.exec(MIGRATIONS[v]!);
      db.pragma(`user_version = ${v + 1}`);
    }
  }).immediate();
}

function toRecord(row: AuditRow): AuditRecord {
  return {
    id: row.id,
    at: row.at,
    userId: row.user_id,
    channelId: row.channel_id,
    action: row.action as ChangeAction,
    target: row.target,
    params: parseParams(row.params),
    outcome: row.outcome as ChangeOutcome,
    apiStatus: row.api_status,
    durationMs: row.duration_ms,
    detail: row.detail,
  };
}

function parseParams(json: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(json);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { value };
  } catch {
    return { unreadable: json.slice(0, 200) };
  }
}
