import type { ApprovalStatus, ApprovalStep } from './approval-states';
import type { AuditEntry, AuditRecord, RecordedAction, RecordedRequest } from './audit';

// Approvals: a change that waits for a second person (docs/product.md
// "Approvals"). Its states and the steps between them are one table
// (approval-states.ts); each step here is one conditional update, from the
// states the table lets it leave, in one transaction with its audit record
// (and the record's audit post): asked for (with the submission's claim),
// claimed (a workflow's request: the first claim wins, across instances),
// decided (the first decisive click wins, across instances), withdrawn by its
// requester, expired (each once, across instances). The records' words are the
// caller's: it passes the entry, or a function of the approval as it stands
// once the step is taken.

export type { ApprovalStatus } from './approval-states';

/** The cloud a request was prepared for: VS_API_URL (`sandbox` for the built-in one) and VS_ACCOUNT_ID. */
export interface CloudAccount {
  apiUrl: string;
  accountId: string;
}

/** A change waiting for a second person. */
export interface ApprovalRequest {
  /** Unique, e.g. a UUID; the buttons' value. */
  id: string;
  action: RecordedAction;
  target: string;
  /** The validated parameters the change will run with. */
  params: Record<string, unknown>;
  /** Where the request is posted. */
  channelId: string;
  /** Who asked for the change; empty while a workflow's request awaits its requester. */
  requestedBy: string;
  /** ISO 8601. */
  requestedAt: string;
  expiresAtMs: number;
  reason: string | null;
  /** The exact API request it will send (method, path, body), for the message. */
  apiRequest: RecordedRequest;
  /** The cloud it will be sent to; null for a request stored before it was kept (such a request is never sent). */
  cloud?: CloudAccount | null;
  /** The workflow execution (Wx…) whose step asked for it; absent or null for a person's request. */
  workflowExecutionId?: string | null;
  /** The agent (its token's name) that asked for it, for its owner (`requestedBy`); absent or null for a person's request. */
  agent?: string;
  /** A workflow asked for it: it starts `awaiting_requester`, not `requested`. */
  awaitingRequester?: boolean;
}

export interface Approval extends Omit<ApprovalRequest, 'awaitingRequester' | 'cloud'> {
  cloud: CloudAccount | null;
  status: ApprovalStatus;
  /** Who approved or rejected it (or withdrew it: its requester). */
  decidedBy: string | null;
  /** ISO 8601. */
  decidedAt: string | null;
  /** Why it was rejected, when the one who denied it said. */
  decisionReason: string | null;
  /** The posted request message, once known (to update it in place). */
  messageTs: string | null;
}

/** How the store settles a decision: the first decisive click wins, across instances; the winner's record is written with it. */
export type ApprovalDecision = { won: true; approval: Approval; record?: AuditRecord } | { won: false; approval: Approval | null };

/** What asking did: stored the request and its `requested` record, or nothing (the submission was claimed before). */
export type ApprovalAsked = { outcome: 'requested'; approval: Approval; record: AuditRecord } | { outcome: 'duplicate' };

export interface Approvals {
  /**
   * In one transaction: claims `submissionKey` (else `duplicate`, nothing
   * written), stores the request as `requested`, and records `requested`.
   */
  ask(ask: { submissionKey: string; at: string; request: ApprovalRequest; requested: AuditEntry }): Promise<ApprovalAsked>;
  /** Stores a new approval request (`requested`), with no claim and no record. */
  request(request: ApprovalRequest): Promise<Approval>;
  get(id: string): Promise<Approval | null>;
  /** Remembers the posted message of a request. */
  setMessage(id: string, messageTs: string): Promise<void>;
  /**
   * Approves or rejects (`step`) a request the table lets that step leave, unexpired at `nowMs`: the first decisive
   * click wins across instances ({ won: true }, with the record of `recordOf` written in the same transaction); later
   * ones get { won: false } with the request as decided (or null for an unknown id), and nothing is written.
   */
  decide(
    id: string,
    decision: { step: 'approve' | 'reject'; by: string; at: string; nowMs: number; reason?: string | null },
    recordOf?: (decided: Approval) => AuditEntry,
  ): Promise<ApprovalDecision>;
  /**
   * Withdraws a request by its requester (`by`), while the table lets it be withdrawn and it is unexpired; as decide,
   * the first step to commit wins, with its record; anyone else's, or a later one, changes nothing.
   */
  withdraw(id: string, withdrawal: { by: string; at: string; nowMs: number }, recordOf?: (withdrawn: Approval) => AuditEntry): Promise<ApprovalDecision>;
  /**
   * Makes a workflow's request, one the table lets be claimed and unexpired, someone's (`by`): it becomes `requested`, asked
   * for by them at `at`, open until `expiresAtMs`. The first claim wins across instances ({ won: true }, with the
   * record of `recordOf` written in the same transaction); later ones get { won: false } with the request as it
   * stands (or null for an unknown id), and nothing is written.
   */
  claim(
    id: string,
    claim: { by: string; at: string; nowMs: number; expiresAtMs: number },
    recordOf?: (claimed: Approval) => AuditEntry,
  ): Promise<ApprovalDecision>;
  /**
   * Requests the table lets take `step` at `nowMs`, unexpired, oldest first: by default those a second person may
   * decide (`approve`); `claim`, a workflow's requests nobody has claimed yet.
   */
  open(nowMs: number, step?: ApprovalStep): Promise<Approval[]>;
  /**
   * Settles requests the table lets expire, past their expiry, as `expired`, each once across
   * instances, each with the record of `recordOf` in the same transaction,
   * and returns them (with their records), soonest expiry first.
   */
  expire(nowMs: number, recordOf?: (expired: Approval) => AuditEntry): Promise<ExpiredApproval[]>;
}

export interface ExpiredApproval extends Approval {
  /** The `expired` record written with it, when asked for. */
  record?: AuditRecord;
}
