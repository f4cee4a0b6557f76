import type { AuditEntry, AuditRecord, Outcome } from './audit';

// The outbox of change events for the incident's timeline (docs/product.md, On call; src/timeline sends them). The
// store queues one in the same transaction in which a change reaches its end (a follow that ended, an API failure, an
// answer that could not be read, a change interrupted, one not sent as its target could not be read), so none is ever
// lost, and at most one per record (a unique index). Senders on every instance claim them under a lease that names its
// owner and expires, so each is in one sender's hands at a time; an event is acknowledged once PagerDuty took it,
// deferred when it asked to wait or could not be reached, and set aside as undeliverable when it refused the event
// itself.

/** The outcomes that end a change (docs/product.md, On call: every change that ends), each told as a change event. */
export const CHANGE_ENDS = ['done', 'failed', 'cancelled', 'unknown'] as const satisfies readonly Outcome[];
export type ChangeEnd = (typeof CHANGE_ENDS)[number];

export const isChangeEnd = (outcome: string): outcome is ChangeEnd => CHANGE_ENDS.some((end) => end === outcome);

/**
 * Whether a record ends a change as it is written: a request to the cloud (its `apiRequest`) with an end for its
 * outcome (the door's `failed` when the target could not be read first). A freeze or break glass is no change of a
 * server (no request), and a refusal no end.
 */
export const endsAsWritten = (entry: Pick<AuditEntry, 'outcome' | 'apiRequest'>): boolean => !!entry.apiRequest && isChangeEnd(entry.outcome);

export interface ChangeEventItem {
  /** The outbox row's id. */
  id: number;
  /** The change's record, as it is now. */
  record: AuditRecord;
  /** Where the change's message is (its followed message, or its approval request's); null when none is known. */
  message: { channelId: string; ts: string } | null;
  /** When a followed change ended (epoch ms); null for one that ended when the cloud API answered. */
  endedAtMs: number | null;
  /** Failed attempts so far. */
  attempts: number;
  lastError: string | null;
}

/** Where one change's event stands (tests, operators). */
export interface ChangeEventState {
  attempts: number;
  lastError: string | null;
  sentAtMs: number | null;
  undeliverableAtMs: number | null;
}

export interface ChangeEventBacklog {
  /** Not sent yet (due or waiting their backoff). */
  pending: number;
  /** Refused by PagerDuty as invalid: never sent. */
  undeliverable: number;
}

export interface ChangeEvents {
  /**
   * Claims up to `limit` due, unsent events for `owner` until `nowMs + leaseMs`, oldest first: none is claimed by two
   * owners while a lease is live (PostgreSQL: FOR UPDATE SKIP LOCKED); a dead sender's come back once it expires.
   */
  claim(owner: string, nowMs: number, leaseMs: number, limit: number): Promise<ChangeEventItem[]>;
  /** Marks an event sent (whoever holds it: it was sent); false when it already was. */
  markSent(id: number, nowMs: number): Promise<boolean>;
  /** Gives `owner`'s claimed event back after a failed attempt: due again at `untilMs`, the attempt counted, `error` kept. */
  defer(id: number, owner: string, untilMs: number, error: string): Promise<boolean>;
  /** Gives `owner`'s claimed events back unsent and untried (PagerDuty asked to wait): due again at `untilMs`, nothing counted. */
  holdBack(ids: readonly number[], owner: string, untilMs: number): Promise<number>;
  /** Sets `owner`'s claimed event aside for good: PagerDuty refused it (`error` kept). */
  giveUp(id: number, owner: string, nowMs: number, error: string): Promise<boolean>;
  backlog(): Promise<ChangeEventBacklog>;
  /** The event of one record, or null when none was queued. */
  get(recordId: number): Promise<ChangeEventState | null>;
}
