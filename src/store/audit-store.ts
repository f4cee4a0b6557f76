// The audit trail and the two guards a change needs (run once per submission,
// one change per target at a time), behind one small interface so that a
// shared database can replace SQLite when several instances run.

export type ChangeAction = 'disk_add' | 'backup_restore';
/**
 * `started` is written before the cloud API is called and replaced by the
 * final outcome when it answers; a record still `started` means the bot
 * stopped mid-call, and the change may or may not have been applied.
 */
export type ChangeOutcome = 'denied' | 'invalid' | 'started' | 'failed' | 'succeeded';

/** What is known once a started change has ended. */
export interface ChangeCompletion {
  outcome: Exclude<ChangeOutcome, 'started'>;
  apiStatus: number | null;
  durationMs: number;
  detail: string | null;
}

export interface AuditEntry {
  /** ISO 8601 time the attempt started. */
  at: string;
  userId: string;
  channelId: string | null;
  action: ChangeAction;
  /** What was changed, e.g. `vs:42` or `backup:9`. */
  target: string;
  /** What was asked for (never a secret). */
  params: Record<string, unknown>;
  outcome: ChangeOutcome;
  /** HTTP status from the cloud API, when it was called. */
  apiStatus: number | null;
  durationMs: number;
  /** Why it was denied or failed, in words. */
  detail: string | null;
}

export interface AuditRecord extends AuditEntry {
  id: number;
}

/**
 * Every method is asynchronous so that a networked database (PostgreSQL) can
 * implement the same contract as SQLite; callers await each call and assume
 * nothing about when it settles beyond its own promise.
 */
export interface AuditStore {
  /** Appends one record, durably, and returns it with its id. */
  record(entry: AuditEntry): Promise<AuditRecord>;
  /** Settles a `started` record with its outcome, durably, and returns it. */
  complete(id: number, completion: ChangeCompletion): Promise<AuditRecord>;
  /** The latest `limit` records, newest first. */
  latest(limit: number): Promise<AuditRecord[]>;
  /**
   * Claims a submission key (e.g. the modal's view id) once, ever. Returns
   * false when it was already claimed: the submission is a repeat.
   */
  claimSubmission(key: string, at: string): Promise<boolean>;
  /**
   * Gives a claimed key back. Only for an attempt that provably changed
   * nothing and whose form stays open to be fixed and sent again (the API
   * rejected the parameters with a 422).
   */
  releaseSubmission(key: string): Promise<void>;
  /** Takes the lock on a target for `ttlMs`; false when someone else holds it. */
  tryLock(target: string, owner: string, nowMs: number, ttlMs: number): Promise<boolean>;
  unlock(target: string, owner: string): Promise<void>;
  close(): Promise<void>;
}
