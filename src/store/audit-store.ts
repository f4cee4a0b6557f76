// The store: everything instances must share (the audit trail, submission
// claims, target locks, the outbox of audit posts, the freeze, approvals),
// behind one asynchronous contract. SQLite (one instance) and PostgreSQL
// (several) implement it with the same typed queries (kysely-store.ts) and
// pass the same contract suite (test/store/contract.ts).
//
// The store has no clock: every method that depends on time takes `nowMs`
// (epoch milliseconds) from the caller, so tests drive time and instances
// agree on whatever clock the caller trusts.

export type ChangeAction = 'disk_add' | 'backup_restore';

/**
 * One vocabulary for records, messages and metrics (PRODUCT.md "Audit").
 * `started` is written before the cloud API is called and replaced by the
 * final outcome when it answers; a record still `started` whose lease has
 * expired is settled as `interrupted` (the change may or may not have been
 * applied). `requested`…`expired` are the steps of an approval.
 */
export type ChangeOutcome =
  'denied' | 'invalid' | 'busy' | 'started' | 'succeeded' | 'failed' | 'applied_unreadable' | 'interrupted' | 'requested' | 'approved' | 'rejected' | 'expired';

export const CHANGE_OUTCOMES: readonly ChangeOutcome[] = [
  'denied',
  'invalid',
  'busy',
  'started',
  'succeeded',
  'failed',
  'applied_unreadable',
  'interrupted',
  'requested',
  'approved',
  'rejected',
  'expired',
];

/** What is known once a started change has ended. */
export interface ChangeCompletion {
  outcome: 'succeeded' | 'failed' | 'applied_unreadable';
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
  /**
   * For a `started` record: the owner of the target lock held during the
   * call (the `owner` given to tryLock). Recovery settles the record as
   * `interrupted` once that lease is no longer live. Without it, once no live
   * lock is held on the target at all. Not returned in records.
   */
  leaseOwner?: string | null;
}

export interface AuditRecord extends Omit<AuditEntry, 'leaseOwner'> {
  id: number;
}

/** One audit post waiting in the outbox, claimed by one sender under a lease. */
export interface OutboxItem {
  /** The outbox row's id (ack and defer by it). */
  id: number;
  /** The record to post, as it is now. */
  record: AuditRecord;
  /** Failed attempts so far (deferrals). */
  attempts: number;
  /** Why the last attempt failed, if one did. */
  lastError: string | null;
}

export interface OutboxBacklog {
  /** Posts not yet sent (due or deferred). */
  pending: number;
  /** `at` of the oldest pending post's record; null when none is pending. */
  oldestAt: string | null;
}

export interface PruneResult {
  /** Submission claims older than a day, deleted. */
  claims: number;
  /** Audit records older than the retention, deleted (with their outbox rows). */
  records: number;
  /** Outbox rows sent more than a day ago, and expired locks, deleted. */
  housekeeping: number;
}

/** Changes are refused while a freeze is in force (PRODUCT.md "Freeze"). */
export interface Freeze {
  /** Who froze (Slack user id). */
  by: string;
  /** ISO 8601 time of the freeze. */
  at: string;
  reason: string;
}

export type ApprovalStatus = 'requested' | 'approved' | 'rejected' | 'expired';

/** A change waiting for a second person (PRODUCT.md "Approvals"). */
export interface ApprovalRequest {
  /** Unique, e.g. a UUID; the buttons' value. */
  id: string;
  action: ChangeAction;
  target: string;
  /** The validated parameters the change will run with. */
  params: Record<string, unknown>;
  /** Where the request is posted. */
  channelId: string;
  requestedBy: string;
  /** ISO 8601. */
  requestedAt: string;
  expiresAtMs: number;
  reason: string | null;
  /** The exact API request it will send (method, path, body), for the message. */
  apiRequest: { method: string; path: string; body: unknown };
}

export interface Approval extends ApprovalRequest {
  status: ApprovalStatus;
  decidedBy: string | null;
  /** ISO 8601. */
  decidedAt: string | null;
  /** The posted request message, once known (to update it in place). */
  messageTs: string | null;
}

/** A target lease: `owner` holds `target` until `nowMs + ttlMs`. */
export interface Lease {
  target: string;
  owner: string;
  nowMs: number;
  ttlMs: number;
}

/** What beginChange did: claimed, leased and recorded the attempt as `started`, or nothing past the claim. */
export type ChangeBeginning = { outcome: 'started'; record: AuditRecord } | { outcome: 'duplicate' } | { outcome: 'busy' };

/** How the store settles a decision: the first decisive click wins, across instances. */
export type ApprovalDecision = { won: true; approval: Approval } | { won: false; approval: Approval | null };

export const STORE_UNAVAILABLE = 'STORE_UNAVAILABLE';

/**
 * The store's database could not be reached (connection refused or lost,
 * server shutting down, pool exhausted past its wait, disk I/O failing). A
 * change must then be refused ("nothing can be changed right now, because it
 * could not be recorded") and nothing changed. The same store recovers on its
 * own when the database is back: no reopening.
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
  readonly code = STORE_UNAVAILABLE;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

export function isStoreUnavailable(error: unknown): error is StoreUnavailableError {
  return error instanceof StoreUnavailableError || (typeof error === 'object' && error !== null && (error as { code?: unknown }).code === STORE_UNAVAILABLE);
}

/**
 * Every method is asynchronous; every write is durable once its promise
 * resolves; any method may reject with StoreUnavailableError. Times: `at`
 * strings are ISO 8601, `…Ms` numbers are epoch milliseconds from the caller.
 */
export interface AuditStore {
  /** `sqlite` or `postgres`: for logs, readiness and metrics. */
  readonly dialect: 'sqlite' | 'postgres';

  /**
   * Appends one record, durably, and returns it with its id. A record with a
   * final outcome (anything but `started`) is enqueued for the audit channel
   * in the same transaction, when posts are enabled.
   */
  record(entry: AuditEntry): Promise<AuditRecord>;
  /**
   * Settles a `started` record with its outcome, durably, enqueuing its post,
   * and returns it. Also settles one already recovered as `interrupted` (a
   * late answer is the truth; it is posted again). Throws for any other id.
   * `release`: ends that lease in the same transaction (as unlock would).
   */
  complete(id: number, completion: ChangeCompletion, release?: { target: string; owner: string }): Promise<AuditRecord>;
  /**
   * The start of a change, in one transaction (one commit instead of three):
   * claims `submissionKey` (else `duplicate`, nothing written); takes the
   * lease (else `busy`: the claim is kept, nothing else written); records
   * `started` (its lease owner: `lease.owner`) and returns it. The same
   * guarantees as claimSubmission, tryLock and record in that order.
   */
  beginChange(begin: { submissionKey: string; at: string; lease: Lease; started: AuditEntry }): Promise<ChangeBeginning>;
  /** The latest `limit` (at most 1000) records, newest first; only `userId`'s when given. */
  latest(limit: number, filter?: { userId?: string }): Promise<AuditRecord[]>;

  /**
   * Claims a submission key (e.g. the modal's view id) once: of any number of
   * concurrent claims, from any instance, exactly one resolves true. Claims
   * are kept a day (see prune). `at` is ISO 8601.
   */
  claimSubmission(key: string, at: string): Promise<boolean>;
  /**
   * Gives a claimed key back. Only for an attempt that provably changed
   * nothing and whose form stays open to be fixed and sent again (the API
   * rejected the parameters with a 422).
   */
  releaseSubmission(key: string): Promise<void>;

  /**
   * Takes the lease on a target until `nowMs + ttlMs`: true when it was free,
   * expired (taken over from a dead owner) or already `owner`'s (renewed);
   * false while another owner's lease is live. Atomic across instances.
   */
  tryLock(target: string, owner: string, nowMs: number, ttlMs: number): Promise<boolean>;
  /** Ends `owner`'s lease on the target; someone else's (a takeover) is left alone. */
  unlock(target: string, owner: string): Promise<void>;

  /**
   * Settles every `started` record whose lease is no longer live at `nowMs`
   * as `interrupted`, enqueuing each post in the same transaction, and
   * returns the records it settled (at most `limit`). However many instances
   * race, each record is settled, returned and enqueued exactly once.
   */
  recoverInterrupted(nowMs: number, limit?: number): Promise<AuditRecord[]>;

  /**
   * Claims up to `limit` due, unsent posts (oldest first) for `owner` until
   * `nowMs + leaseMs`. A claimed post is given to no other claimer while the
   * lease is live (PostgreSQL: FOR UPDATE SKIP LOCKED); after it expires
   * (its sender died) it is due again.
   */
  claimOutbox(owner: string, nowMs: number, leaseMs: number, limit: number): Promise<OutboxItem[]>;
  /** Marks posts sent (whoever holds them: they were sent); returns how many were newly marked. */
  markOutboxSent(ids: readonly number[], nowMs: number): Promise<number>;
  /**
   * Gives `owner`'s claimed posts back, due again at `untilMs`, counting a
   * failed attempt and keeping `error` (no secrets). Posts whose lease was
   * taken over are left alone. Returns how many were deferred.
   */
  deferOutbox(ids: readonly number[], owner: string, untilMs: number, error: string): Promise<number>;
  /** How many posts are waiting, and since when. */
  outboxBacklog(): Promise<OutboxBacklog>;

  /**
   * Retention, in bounded batches (call again while a count equals `batch`):
   * deletes claims older than a day, audit records older than the store's
   * retention days (and their outbox rows), sent outbox rows older than a
   * day, and locks expired more than a day ago.
   */
  prune(nowMs: number, batch?: number): Promise<PruneResult>;

  /** Cheap round trip for readiness; rejects with StoreUnavailableError when the database is unreachable. */
  ping(): Promise<void>;

  /** The freeze in force, or null. */
  currentFreeze(): Promise<Freeze | null>;
  /** Freezes changes; when already frozen, keeps and returns the freeze in force. */
  freeze(freeze: Freeze): Promise<Freeze>;
  /** Lifts the freeze; returns the one lifted, or null when none was in force. */
  unfreeze(): Promise<Freeze | null>;

  /** Stores a new approval request (`requested`). */
  requestApproval(request: ApprovalRequest): Promise<Approval>;
  getApproval(id: string): Promise<Approval | null>;
  /** Remembers the posted message of a request. */
  setApprovalMessage(id: string, messageTs: string): Promise<void>;
  /**
   * Decides a `requested`, unexpired request: the first decisive click wins
   * across instances ({ won: true }); later ones get { won: false } with the
   * request as decided (or null for an unknown id).
   */
  decideApproval(id: string, decision: { status: 'approved' | 'rejected'; by: string; at: string; nowMs: number }): Promise<ApprovalDecision>;
  /** Requests still open at `nowMs`, oldest first. */
  openApprovals(nowMs: number): Promise<Approval[]>;
  /** Settles open requests past their expiry as `expired`, each once across instances, and returns them. */
  expireApprovals(nowMs: number): Promise<Approval[]>;

  /** Closes the database (pool); safe to call twice. */
  close(): Promise<void>;
}
