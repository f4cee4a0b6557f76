// The states of an approval request and the steps between them, in one table
// (docs/product.md "Approvals"):
//
//   awaiting_requester ─claim─▶ requested ─approve─▶ approved
//            │                      ├──reject──▶ rejected
//            │                      ├─withdraw─▶ withdrawn
//            └────────expire────────┴──expire──▶ expired
//
// A person's request starts `requested`; a workflow step's starts
// `awaiting_requester` (nothing in a workflow proves who started it) until
// someone claims it. Everything else follows from the table: the store's
// conditional update of each step takes the states it may leave from here (a
// step from any other state changes nothing), the door asks which step a click
// is, the audit's outcomes of an approval are those of the states the steps
// lead to (RECORDED_AS), and the renderers word every closed state (the compiler asks for a new one).
// It imports nothing: the store and the door both read it.

/** Every state a request can be in. */
export const APPROVAL_STATUSES = ['awaiting_requester', 'requested', 'approved', 'rejected', 'withdrawn', 'expired'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/** Each step a request can take: the states it may leave, and the state it leads to. */
export const APPROVAL_STEPS = {
  /** A workflow's request, taken by the first person allowed to make the change: its requester from then on. */
  claim: { from: ['awaiting_requester'], to: 'requested' },
  /** By a second person who holds the role the change needs; the change then runs once. */
  approve: { from: ['requested'], to: 'approved' },
  /** By a second person (Deny), with an optional reason. */
  reject: { from: ['requested'], to: 'rejected' },
  /** By its requester, while it is open. */
  withdraw: { from: ['requested'], to: 'withdrawn' },
  /** By the sweeps, once its time is up and nobody claimed or decided it. */
  expire: { from: ['awaiting_requester', 'requested'], to: 'expired' },
} as const satisfies Record<string, { from: readonly ApprovalStatus[]; to: ApprovalStatus }>;

export type ApprovalStep = keyof typeof APPROVAL_STEPS;

/** The states a step may leave from. */
export type OpenStatus = (typeof APPROVAL_STEPS)[ApprovalStep]['from'][number];
/** The states no step leaves: the request is closed, and its message says how. */
export type ClosedStatus = Exclude<ApprovalStatus, OpenStatus>;

/** Every state some step leaves: the request is still open (or awaits its requester). */
export const OPEN_STATUSES: readonly OpenStatus[] = [...new Set(Object.values(APPROVAL_STEPS).flatMap((step) => step.from))];

/**
 * The outcome of the record each state is written with (docs/product.md, One outcome, told the same everywhere): a
 * request waiting is `requested`, one a second person rejected `denied`; an approved one is `approved`, a change in
 * flight whose record is the change's from then on (src/store/audit.ts).
 */
export const RECORDED_AS = {
  awaiting_requester: 'requested',
  requested: 'requested',
  approved: 'approved',
  rejected: 'denied',
  withdrawn: 'withdrawn',
  expired: 'expired',
} as const satisfies Record<ApprovalStatus, string>;

/** The outcomes of an approval's audit records: asked for, and where each step led. */
export type ApprovalOutcome = (typeof RECORDED_AS)[ApprovalStatus];

/** The outcome of the record of a step: that of the state it leads to. */
export const recordedOutcome = (step: ApprovalStep): ApprovalOutcome => RECORDED_AS[APPROVAL_STEPS[step].to];

/** Whether `step` may be taken from `status`. */
export function mayTake(step: ApprovalStep, status: string): boolean {
  return (APPROVAL_STEPS[step].from as readonly string[]).includes(status);
}

/** The states `step` may leave from, for a store's conditional update. */
export function fromStates(step: ApprovalStep): readonly OpenStatus[] {
  return APPROVAL_STEPS[step].from;
}

/** Every outcome an approval's records can have, in the table's order. */
export const APPROVAL_OUTCOMES: readonly ApprovalOutcome[] = [...new Set(APPROVAL_STATUSES.map((status) => RECORDED_AS[status]))];
