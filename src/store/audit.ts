import type { ApprovalOutcome } from './approval-states';
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
 * The outcomes of a change (docs/product.md, One outcome, told the same everywhere), as the audit trail keeps them:
 * one vocabulary for every place a change is shown. Their signs and meanings are src/changes/outcome.ts's; the store
 * spells the words because it keeps them (it imports nothing of src/changes).
 */
export const OUTCOMES = ['requested', 'refused', 'denied', 'withdrawn', 'expired', 'scheduled', 'running', 'done', 'failed', 'cancelled', 'unknown'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/**
 * A change in flight, before it has an outcome of the vocabulary: never shown as such (each reads as `running`).
 * `started`: sent to the cloud API, no answer yet (its lease is held; one whose lease ran out is settled as
 * `unknown` by recovery). `approved`: a second person approved it and it is about to be sent; it is then `started`
 * in place (the approval's record is the change's from there on), or `refused` when it is not sent.
 */
export const IN_FLIGHT = ['started', 'approved'] as const;
export type InFlight = (typeof IN_FLIGHT)[number];

/**
 * What a record's `outcome` holds: an outcome of the vocabulary, or a state in flight. A record's outcome moves with
 * its change: `started` → `scheduled` (the cloud accepted it) → `running` (its transactions run) → `done`, `failed`,
 * `cancelled` or `unknown`; a record of an approval request is `requested`, and each later step is a record of its own
 * (`denied`, `withdrawn`, `expired`; approved: `approved`, which becomes the change's record). The outcomes of an
 * approval's steps are its transition table's (approval-states.ts).
 */
export type ChangeOutcome = Outcome | InFlight;

export const CHANGE_OUTCOMES: readonly ChangeOutcome[] = [...IN_FLIGHT, ...OUTCOMES];

export const isInFlight = (outcome: string): outcome is InFlight => IN_FLIGHT.some((o) => o === outcome);

/** Each step of an approval leads to an outcome of the vocabulary, or to `approved` (in flight): the type checks it. */
type StepsAreOutcomes = Exclude<ApprovalOutcome, ChangeOutcome> extends never ? true : never;
export const APPROVAL_STEPS_ARE_OUTCOMES: StepsAreOutcomes = true;

// What a record of a change the cloud accepted gains: its cloud outcome once followed, and what is followed from the
// moment it is settled (complete's `follow`). Spelt here, where the record is; follows.ts re-exports them.

/** The cloud's own word for how an accepted change ended (its transaction's final status), kept beside the outcome. */
export type CloudOutcome = 'complete' | 'failed' | 'cancelled' | 'unknown';

export const CLOUD_OUTCOMES: readonly CloudOutcome[] = ['complete', 'failed', 'cancelled', 'unknown'];

export const isCloudOutcome = (status: string | null): status is CloudOutcome => CLOUD_OUTCOMES.some((o) => o === status);

/** The outcome of a change whose transactions ended so in the cloud: complete is `done` (its target was read again). */
export const OUTCOME_OF_CLOUD: Readonly<Record<CloudOutcome, Outcome>> = { complete: 'done', failed: 'failed', cancelled: 'cancelled', unknown: 'unknown' };

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

/**
 * What is known once a started change has an answer: `scheduled` (the cloud accepted it), `failed` (the cloud API
 * refused it or failed), `unknown` (applied, but its answer could not be read); or, for an approved change that was
 * never started, `refused` (not sent: its target could not take it, changes were frozen…) or `unknown`.
 */
export interface ChangeCompletion {
  outcome: 'scheduled' | 'failed' | 'unknown' | 'refused';
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
  /** Why it was refused, denied or failed, or what the cloud accepted, in words (the audit's, not the reader's). */
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
  /** The server's label when the record was written (its id is in `target`): "web-1" of "web-1 (VS 42)". */
  serverLabel?: string | null;
  /** The agent (its token's name) that asked, for its owner (`userId`): docs/product.md, Agents ask, people decide. */
  agent?: string;
  /**
   * For a `started` record: the owner of the target lease held during the
   * call (the `owner` given to leases.take). Recovery settles the record as
   * `unknown` (interrupted) once that lease is no longer live. Without it, once no live
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
  /** Once followed to its end: the action of the transaction it ended on (the one that failed, or was cancelled), in the cloud's words. */
  cloudStep?: string | null;
  /** What the record said before the outcomes were those of one vocabulary (migration 10), where that said more: `succeeded`, `busy`… */
  formerOutcome?: string | null;
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
   * Appends one record, durably, and returns it with its id. A record with an
   * outcome (not in flight) is enqueued for the audit channel in the same
   * transaction, when posts are enabled.
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
   * `recordId`: an approved change's record (`approved`), started in place (its outcome, detail, parameters and lease
   * owner from `started`) rather than a new record; a new one when it is no longer `approved`.
   */
  beginChange(begin: { submissionKey: string; at: string; lease: Lease; started: AuditEntry; recordId?: number }): Promise<ChangeBeginning>;
  /**
   * Settles a `started` record with its outcome, durably, enqueuing its post,
   * and returns it. Also settles one already recovered as interrupted (a
   * late answer is the truth), without a second post: a record is posted
   * once (its post, if not sent yet, says what the record says when it goes
   * out); and an `approved` one that was never started (not sent, or its run
   * failed before it was), with its post. Throws for any other id.
   * `release`: ends that lease in the same transaction (as leases.release would).
   * `follow`: a change the cloud accepted, followed from then on (follows.start, in the same transaction; its record
   * id is this record's).
   */
  complete(id: number, completion: ChangeCompletion, release?: { target: string; owner: string }, follow?: Omit<NewFollow, 'recordId'>): Promise<AuditRecord>;
  /**
   * Settles every `started` record whose lease is no longer live at `nowMs`
   * as `unknown` (interrupted: the change may or may not have been applied),
   * and every `approved` one never started within APPROVED_RUN_GRACE_MS (its
   * instance stopped before sending it), enqueuing each post in the same
   * transaction, and returns the records it settled (at most `limit`).
   * However many instances race, each record is settled, returned and
   * enqueued exactly once.
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
 * Audit): at most one of `target`, `userId` and `outcomes` (each served by an
 * index on it and the id: migrations.ts), and the window of a page.
 */
export interface AuditQuery {
  /** What the records are about, e.g. `vs:42`, `backup:9`. */
  target?: string;
  /** Whose records: the person each record is about. */
  userId?: string;
  /**
   * The records of a person's changes and attempts: about them, or of a change they asked for (its requester; an
   * approved change's record is about the one who approved it). `/vs audit @person` and one's own Home tab.
   */
  involving?: string;
  /** Records with one of these outcomes (as kept: `running` is also `started` and `approved`). */
  outcomes?: readonly ChangeOutcome[];
  /** Records with these outcomes are left out (the Home tab leaves out refusals). */
  notOutcomes?: readonly ChangeOutcome[];
  /** Break-glass uses only (`uses`), or those no admin has acknowledged yet (`unreviewed`). */
  breakGlass?: 'uses' | 'unreviewed';
  /**
   * One record per change (the Home tab's latest changes): of an approval request's records, only its newest one that
   * `notOutcomes` leaves in (the request, its claim, its end, or the change it became).
   */
  perChange?: boolean;
  /** Records from this id on only (the refusals since the oldest change a list shows). */
  minId?: number;
  /** Records up to this id only: the pages of one listing stay the same while new records are written. */
  maxId?: number;
  /** Records to skip, newest first (a later page). */
  offset?: number;
}
