import type { AgentTokens } from './agent-tokens';
import type { AuditTrail } from './audit';
import type { Approvals } from './approvals';
import type { BreakGlass } from './break-glass';
import type { ChangeEvents } from './change-events';
import type { SubmissionClaims } from './claims';
import type { ChangeFreeze } from './freeze';
import type { Follows } from './follows';
import type { Leases } from './leases';
import type { Outbox } from './outbox';
import type { RateCounter } from './rates';
import type { Retention } from './retention';
import type { Watches } from './watches';

// The store: everything instances must share, in slices named for what they
// hold, behind one database. SQLite (one instance) and PostgreSQL (several)
// implement every slice with the same typed queries (src/store/kysely/, one
// file per slice) and pass the same contract suite (test/store/contract/, one
// part per slice). openStore (index.ts) assembles them.
//
// A caller asks for the slices it uses, e.g. `Pick<Store, 'audit' | 'claims'>`,
// so its type says what it touches and a test can hand it just those.
//
// Every method is asynchronous; every write is durable once its promise
// resolves; any method may reject with StoreUnavailableError (unavailable.ts)
// when the database cannot be reached. The store has no clock: every method
// that depends on time takes `nowMs` (epoch milliseconds) from the caller, so
// tests drive time and instances agree on whatever clock the caller trusts;
// `at` strings are ISO 8601.

export interface Store {
  /** `sqlite` or `postgres`: for logs, readiness and metrics. */
  readonly dialect: 'sqlite' | 'postgres';
  /** Audit records, and the start and end of a change. */
  readonly audit: AuditTrail;
  /** Submission and delivery keys, acted on once. */
  readonly claims: SubmissionClaims;
  /** Target locks and job leases. */
  readonly leases: Leases;
  /** Audit posts waiting for VS_AUDIT_CHANNEL. */
  readonly outbox: Outbox;
  /** Deletion of what outlived its use. */
  readonly retention: Retention;
  /** Changes waiting for a second person. */
  readonly approvals: Approvals;
  /** The freeze on changes. */
  readonly freeze: ChangeFreeze;
  /** Per-key rate limits shared by every instance. */
  readonly rates: RateCounter;
  /** Changes the cloud accepted, followed to their end under a lease. */
  readonly follows: Follows;
  /** Break-glass windows, and the review of what was changed under them. */
  readonly breakGlass: BreakGlass;
  /** Change events waiting for PagerDuty's incident timeline. */
  readonly changeEvents: ChangeEvents;
  /** Tokens of AI agents (src/agents), kept as hashes. */
  readonly agentTokens: AgentTokens;
  /** Watches of servers, what their poll last saw, quiet hours, notices posted once. */
  readonly watches: Watches;
  /** Cheap round trip for readiness; rejects with StoreUnavailableError when the database is unreachable. */
  ping(): Promise<void>;
  /** Closes the database (pool); safe to call twice. */
  close(): Promise<void>;
}
