import type { RecordedAction } from './audit';

// Approvals: a change that waits for a second person (PRODUCT.md
// "Approvals"). The first decisive click wins, across instances.

export type ApprovalStatus = 'requested' | 'approved' | 'rejected' | 'expired';

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

/** How the store settles a decision: the first decisive click wins, across instances. */
export type ApprovalDecision = { won: true; approval: Approval } | { won: false; approval: Approval | null };

export interface Approvals {
  /** Stores a new approval request (`requested`). */
  request(request: ApprovalRequest): Promise<Approval>;
  get(id: string): Promise<Approval | null>;
  /** Remembers the posted message of a request. */
  setMessage(id: string, messageTs: string): Promise<void>;
  /**
   * Decides a `requested`, unexpired request: the first decisive click wins
   * across instances ({ won: true }); later ones get { won: false } with the
   * request as decided (or null for an unknown id).
   */
  decide(id: string, decision: { status: 'approved' | 'rejected'; by: string; at: string; nowMs: number }): Promise<ApprovalDecision>;
  /** Requests still open at `nowMs`, oldest first. */
  open(nowMs: number): Promise<Approval[]>;
  /** Settles open requests past their expiry as `expired`, each once across instances, and returns them. */
  expire(nowMs: number): Promise<Approval[]>;
}
