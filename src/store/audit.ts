import { APPROVAL_OUTCOMES, type ApprovalOutcome } from './approval-states';
import type { Freeze } from './frozen';
import type { Lease } from './leases';

// The audit trail: one record per attempted change, written before anyone is
// told, settled in place when the cloud API answers (docs/product.md, Audit).
// Its callers are the change door (record, beginChange, complete), `/vs audit`,
// its export and the Home tab (latest, count, get) and the recovery sweep
// (recoverInterrupted).

/**
 * The actions the store has records of. The store spells none of them (it
 * imports nothing of src/changes): they are the keys of this interface, which
 * the door fills in by declaration merging from its table of changes (the
 * keys of CHANGES, src/changes/definitions.ts) and the freeze's two records.
 * A change added there is an action here, with nothing written in src/store.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled in by src/changes (declaration merging)
export interface RecordedActions {}
export type RecordedAction = keyof RecordedActions;

/**
 * A request to the cloud API as it goes on the wire: the method, the path
 * relative to VS_API_URL with its format suffix, the body exactly as sent (or
 * null). Never a credential: those are headers, which are not kept.
 */
export interface RecordedRequest {
  method: string;
  path: string;
  body: string | null;
}

/**
 * One vocabulary for records, messages and metrics (docs/product.md, Audit).
 * `started` is written before the cloud API is called and replaced by the
 * final outcome when it answers; a record still `started` whose lease has
 * expired is settled as `interrupted` (the change may or may not have been
 * applied). The outcomes of an approval (`requested` and where each of its
 * steps leads) are its transition table's (approval-states.ts).
 */
export type ChangeOutcome = 'denied' | 'invalid' | 'busy' | 'started' | 'succeeded' | 'failed' | 'applied_unreadable' | 'interrupted' | ApprovalOutcome;

export const CHANGE_OUTCOMES: readonly ChangeOutcome[] = [
  'denied',
  'invalid',
  'busy',
  'started',
  'succeeded',
  'failed',
  'applied_unreadable',
  'interrupted',
  ...APPROVAL_OUTCOMES,
];

// What a record of a change the cloud accepted gains: its cloud outcome once followed, and what is followed from the
// moment it is settled (complete's `follow`). Spelt here, where the record is; follows.ts re-exports them.

/** The cloud's own outcome of an accepted change (docs/product.md, Audit). */
export type CloudOutcome = 'complete' | 'failed' | 'cancelled' | 'unknown';

export const CLOUD_OUTCOMES: readonly CloudOutcome[] = ['complete', 'failed', 'cancelled', 'unknown'];

export const isCloudOutcome = (status: string | null): status is CloudOutcome => CLOUD_OUTCOMES.some((o) => o === status);

/** What a change's transactions are (docs/cloud-api.md, Finding a change's transaction), as its row of changes says. */
export interface FollowSubject {
  /** The server whose transactions are listed; null: the account's (a restore whose server the answer does not name). */
  serverId: number | null;
  /** What its transactions run on: `Disk`, `Backup`, `VirtualMachine`. */
  parentType: string;
  parentId: number;
  /** The actions that belong to it, the one that makes it first (`build_disk`; then `format_disk`, `update_fstab`). */
  actions: readonly string[];
  /** What its final read and its message need besides (the disk's id and size, the backup's disk), never a secret. */
  facts: Readonly<Record<string, string | number | boolean | null>>;
}

/** A change to follow, as the door hands it over with its settled record. */
export interface NewFollow {
  /** The change's audit record (its id is the followed change's). */
  recordId: number;
  action: RecordedAction;
  /** As in its record: `vs:42`, `backup:9`. */
  target: string;
  subject: FollowSubject;
  /** Who asked for it, and who approved it (null: nobody needed to). */
  requestedBy: string;
  approvedBy: string | null;
  /** Where it was asked from: its message is there. */
  channelId: string | null;
  /** The newest transaction id seen before the change was sent; null when that could not be read. */
  baselineId: number | null;
  /** When the cloud accepted it (epoch ms): the follow's limit counts from here. */
  acceptedAtMs: number;
  /** When to look first. */
  nextPollAtMs: number;
  /** The spacing of polls now (it backs off while nothing moves). */
  intervalMs: number;
}

/** What is known once a started change has ended. */
export interface ChangeCompletion {
  outcome: 'succeeded' | 'failed' | 'applied_unreadable';
  apiStatus: number | null;
  durationMs: number;
  detail: string | null;
}

/** The on-call shift a person's role came from (docs/product.md, On call), as a record keeps it; PagerDuty's names. */
export interface OnCallGrant {
  /** The role it gave (VS_ONCALL_ROLE). */
  role: string;
  /** When the shift ends (ISO 8601); null: on call permanently. */
  until: string | null;
  schedule: string | null;
  escalationPolicy: string;
  level: number;
}

export interface AuditEntry {
  /** ISO 8601 time the attempt started. */
  at: string;
  userId: string;
  channelId: string | null;
  action: RecordedAction;
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
  /** The exact request sent to the cloud API (for `requested`, the one that will be); null or absent when none. */
  apiRequest?: RecordedRequest | null;
  /** On every record of an approval request: who asked for the change. */
  requestedBy?: string | null;
  /** On the records of an approval after its decision: who approved or rejected it. */
  decidedBy?: string | null;
  /** The approval request a record belongs to. */
  approvalId?: string | null;
  /** The workflow execution (Wx…) whose step asked for the change, on every record of a workflow's request. */
  workflowExecutionId?: string | null;
  /** The person's role came from being on call: the shift. */
  onCall?: OnCallGrant | null;
  /** The change ran under this break-glass window, without a second person: a use that waits for review. */
  breakGlass?: string | null;
  /**
   * For a `started` record: the owner of the target lease held during the
   * call (the `owner` given to leases.take). Recovery settles the record as
   * `interrupted` once that lease is no longer live. Without it, once no live
   * lease is held on the target at all. Not returned in records.
   */
  leaseOwner?: string | null;
}

/** A record as read back: the store fills in every field of an approval (null when none). */
export interface AuditRecord extends Omit<AuditEntry, 'leaseOwner'> {
  id: number;
  /** A change the cloud accepted, once followed to its end (src/follow): the cloud's own outcome; null before, or when not followed. */
  cloudOutcome?: CloudOutcome | null;
  /** The ids of the transactions that ran it, once followed; null before. */
  transactionIds?: readonly number[] | null;
  /** A break-glass use, once an admin acknowledged it after the incident: who, and when (ISO 8601); null before. */
  reviewedBy?: string | null;
  reviewedAt?: string | null;
}

/**
 * What beginChange did: claimed, leased and recorded the attempt as `started`; or nothing past the claim (`duplicate`,
 * `busy`); or nothing at all, as changes are frozen.
 */
export type ChangeBeginning =
  { outcome: 'started'; record: AuditRecord } | { outcome: 'duplicate' } | { outcome: 'busy' } | { outcome: 'frozen'; freeze: Freeze };

/**
 * The start and the end of a change are here, though they also claim the
 * submission and take or end the lease: they are the two transitions of one
 * record (a claim and a lease exist for its sake), and doing them in the
 * record's transaction is what makes a change one commit to start and one to
 * settle. Recovery is here for the same reason: it is the third way a
 * `started` record is settled, with the same guarantees as complete.
 */
export interface AuditTrail {
  /**
   * Appends one record, durably, and returns it with its id. A record with a
   * final outcome (anything but `started`) is enqueued for the audit channel
   * in the same transaction, when posts are enabled.
   */
  record(entry: AuditEntry): Promise<AuditRecord>;
  /**
   * The start of a change, in one transaction (one commit instead of three):
   * reads the freeze (while changes are frozen, `frozen`, nothing written; a
   * freeze committing meanwhile, on any instance, is waited for and read);
   * claims `submissionKey` (else `duplicate`, nothing written); takes the
   * lease (else `busy`: the claim is kept, nothing else written); records
   * `started` (its lease owner: `lease.owner`) and returns it. The same
   * guarantees as claims.claim, leases.take and record in that order.
   */
  beginChange(begin: { submissionKey: string; at: string; lease: Lease; started: AuditEntry }): Promise<ChangeBeginning>;
  /**
   * Settles a `started` record with its outcome, durably, enqueuing its post,
   * and returns it. Also settles one already recovered as `interrupted` (a
   * late answer is the truth), without a second post: a record is posted
   * once (its post, if not sent yet, says what the record says when it goes
   * out). Throws for any other id.
   * `release`: ends that lease in the same transaction (as leases.release would).
   * `follow`: a change the cloud accepted, followed from then on (follows.start, in the same transaction; its record
   * id is this record's).
   */
  complete(id: number, completion: ChangeCompletion, release?: { target: string; owner: string }, follow?: Omit<NewFollow, 'recordId'>): Promise<AuditRecord>;
  /**
   * Settles every `started` record whose lease is no longer live at `nowMs`
   * as `interrupted`, enqueuing each post in the same transaction, and
   * returns the records it settled (at most `limit`). However many instances
   * race, each record is settled, returned and enqueued exactly once.
   */
  recoverInterrupted(nowMs: number, limit?: number): Promise<AuditRecord[]>;
  /** The latest `limit` (at most 1000) records matching `query`, newest first. */
  latest(limit: number, query?: AuditQuery): Promise<AuditRecord[]>;
  /** How many records match `query` (its offset aside). */
  count(query?: AuditQuery): Promise<number>;
  /** One record by its id; null when there is none (never written, or pruned). */
  get(id: number): Promise<AuditRecord | null>;
}

/**
 * Which records `/vs audit`, its export and the Home tab read (docs/product.md,
 * Audit): at most one of `target`, `userId` and `outcome` (each served by an
 * index on it and the id: migrations.ts), and the window of a page.
 */
export interface AuditQuery {
  /** What the records are about, e.g. `vs:42`, `backup:9`. */
  target?: string;
  /** Whose records: the person each record is about. */
  userId?: string;
  outcome?: ChangeOutcome;
  /** Records with these outcomes are left out (the Home tab leaves out forms that were not valid). */
  notOutcomes?: readonly ChangeOutcome[];
  /** Break-glass uses only (`uses`), or those no admin has acknowledged yet (`unreviewed`). */
  breakGlass?: 'uses' | 'unreviewed';
  /** Records up to this id only: the pages of one listing stay the same while new records are written. */
  maxId?: number;
  /** Records to skip, newest first (a later page). */
  offset?: number;
}
