import { CLOUD_OUTCOMES, type AuditRecord, type CloudOutcome, type NewFollow } from './audit';

export { CLOUD_OUTCOMES, isCloudOutcome, OUTCOME_OF_CLOUD, type CloudOutcome, type FollowSubject, type NewFollow } from './audit';

// Changes the cloud accepted, followed to their end (docs/product.md,
// Following a change to its end; src/follow polls them). A row is written in
// the transaction that settles the change's record as `scheduled`, so no
// accepted change is ever left unfollowed; from then on it holds all that any
// instance needs to go on: where the change's transactions are listed and
// which belong to it, how far it got, when to look next, and where its
// message is. One instance at a time follows a change: the one holding its
// lease, which names its owner and expires, so that another takes over when
// that instance dies. Nothing of the cloud's raw log is ever kept here.

/**
 * Where a followed change stands: accepted, its transaction not seen yet (`scheduled`); its transaction `pending` or
 * `running`; or ended with the cloud's outcome.
 */
export type FollowStatus = 'scheduled' | 'pending' | 'running' | CloudOutcome;

export const FOLLOW_STATUSES: readonly FollowStatus[] = ['scheduled', 'pending', 'running', ...CLOUD_OUTCOMES];

/** How far a followed change got: saved after every poll by the instance following it. */
export interface FollowProgress {
  status: FollowStatus;
  /** The transactions found to run it, in the order found. */
  transactionIds: readonly number[];
  /** The action of the transaction followed now, or the one that failed or was cancelled (in the cloud's words). */
  step: string | null;
  /** What the last read of the target found (locked, built, booted…), never a secret. */
  finalState: Readonly<Record<string, string | number | boolean | null>> | null;
  polls: number;
  intervalMs: number;
  nextPollAtMs: number;
  /** Set when the status is final. */
  endedAtMs: number | null;
  /** What its message was last updated to show (the follower's key of status, step and transactions; `scheduled` as first posted); null: never. */
  told: string | null;
  /** When the reply in its message's thread was posted (once, when it ended). */
  repliedAtMs: number | null;
  /** Failed attempts to update its message or reply (bounded: then given up, logged). */
  tellAttempts: number;
}

export interface FollowedChange extends NewFollow, FollowProgress {
  /** The message that shows it (chat.postMessage's ts in channelId); null until the Slack side has posted it. */
  messageTs: string | null;
  /** The instance following it, and until when (epoch ms); null: nobody (free to take). */
  owner: string | null;
  leaseUntilMs: number | null;
}

export interface Follows {
  /** Starts following a change on its own (the door does it in the transaction that settles its record). */
  start(follow: NewFollow): Promise<void>;
  /** Remembers the message that shows the change (its channel and ts; posted as scheduled), so any instance updates it in place. */
  setMessage(recordId: number, channelId: string, messageTs: string): Promise<void>;
  /**
   * Takes, for `owner` until `nowMs + leaseMs`, up to `limit` followed changes due at `nowMs` (next poll due, not yet
   * told to the end) that nobody else holds a live lease on: theirs, free ones, and those whose owner's lease expired
   * (a dead instance's). Soonest due first. Never the same change to two owners at once (PostgreSQL: FOR UPDATE SKIP
   * LOCKED).
   */
  claimDue(owner: string, nowMs: number, leaseMs: number, limit: number): Promise<FollowedChange[]>;
  /**
   * Saves `owner`'s progress, and keeps its lease until the next poll plus `leaseMs` (it goes on following it); once
   * one of its transactions runs, its audit record's outcome moves from `scheduled` to `running`, in the same
   * transaction. False, and nothing saved, when `owner` no longer holds it (another instance took it over).
   */
  save(recordId: number, owner: string, progress: FollowProgress, leaseMs: number): Promise<boolean>;
  /**
   * Saves `owner`'s final progress (a final status) and, in the same transaction, gives the change's audit record its
   * outcome (OUTCOME_OF_CLOUD: complete is `done`), the cloud's own word, the step it ended on and the transaction ids
   * (queuing its post to the audit channel again, now with them). Returns the
   * record, or null, and nothing written, when `owner` no longer holds it or it had already ended.
   */
  end(recordId: number, owner: string, progress: FollowProgress & { status: CloudOutcome }, leaseMs: number): Promise<AuditRecord | null>;
  /**
   * Keeps `owner`'s lease on the change until `leaseUntilMs` while it works on it (a slow poll, a slow Slack), so that
   * no other instance takes it over meanwhile. False, and nothing changed, when `owner` no longer holds it.
   */
  renew(recordId: number, owner: string, leaseUntilMs: number): Promise<boolean>;
  /**
   * Marks the reply in the change's thread as posted at `atMs`, before it is posted: only by `owner`, and only once
   * (false, nothing changed, when another instance holds it or the mark is there already). Slack has no idempotency
   * key, so this mark is what makes the reply never posted twice; a failed post clears it with the next save.
   */
  markReplied(recordId: number, owner: string, atMs: number): Promise<boolean>;
  /** Gives back `owner`'s leases (a stopping instance), so another instance takes them at once; returns how many. */
  release(owner: string): Promise<number>;
  get(recordId: number): Promise<FollowedChange | null>;
}
