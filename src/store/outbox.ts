import type { AuditRecord } from './audit';

// The outbox of audit posts to VS_AUDIT_CHANNEL. The audit trail enqueues a
// post in the same transaction as each final record, so a record is never
// without its post; the sender (src/ops/audit-outbox.ts) drains it under a
// claim that expires, acknowledging a post only once Slack took it.
//
// Denials are grouped: one user's denials form one group (docs/product.md, Audit: at most
// one denial post per user a minute), and a claim takes a whole group as one
// post. Posts of other records are claimed before any group, so a real
// change's post never waits behind anyone's denials, and however many denials
// one user piles up, they take one place in a batch.

/** One audit post waiting in the outbox, claimed by one sender under a lease. */
export interface OutboxItem {
  /** The outbox row's id (mark sent, defer and hold back by it). */
  id: number;
  /** The record to post, as it is now. */
  record: AuditRecord;
  /** Failed attempts so far (deferrals). */
  attempts: number;
  /** Why the last failed attempt failed, if one did. */
  lastError: string | null;
  /** Items of one group (one user's denials) are sent as one post; null: a post of its own. */
  group: string | null;
}

export interface OutboxBacklog {
  /** Posts not yet sent (due or deferred). */
  pending: number;
  /** `at` of the oldest pending post's record; null when none is pending. */
  oldestAt: string | null;
}

/** A group's items per claim, at most (a summary of a thousand denials is still one post). */
export const DEFAULT_GROUP_LIMIT = 1000;

export interface Outbox {
  /**
   * Claims due, unsent posts for `owner` until `nowMs + leaseMs`: up to
   * `limit` of them, a group counting as one. First the posts of their own,
   * oldest first; then, while there is room, whole groups, the one with the
   * oldest post first, each with up to `groupLimit` of its due posts (oldest
   * first). Returned in that order, a group's items together.
   *
   * A claimed post is given to no other claimer while the lease is live
   * (PostgreSQL: FOR UPDATE SKIP LOCKED); after it expires (its sender died)
   * it is due again.
   */
  claim(owner: string, nowMs: number, leaseMs: number, limit: number, groupLimit?: number): Promise<OutboxItem[]>;
  /** Marks posts sent (whoever holds them: they were sent); returns how many were newly marked. */
  markSent(ids: readonly number[], nowMs: number): Promise<number>;
  /**
   * Gives `owner`'s claimed posts back after a failed attempt: due again at
   * `untilMs`, the attempt counted, `error` kept (no secrets). Posts whose
   * lease was taken over are left alone. Returns how many were deferred.
   */
  defer(ids: readonly number[], owner: string, untilMs: number, error: string): Promise<number>;
  /**
   * Gives `owner`'s claimed posts back unsent and untried (their group's
   * window is not over, the round ran out of time, Slack asked to wait):
   * due again at `untilMs`, nothing counted. Returns how many were held back.
   */
  holdBack(ids: readonly number[], owner: string, untilMs: number): Promise<number>;
  /** How many posts are waiting, and since when. */
  backlog(): Promise<OutboxBacklog>;
}
