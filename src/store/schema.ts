import type { Generated } from 'kysely';

// The tables as both dialects hand them to JavaScript. PostgreSQL's pool is
// set up (postgres.ts) to read bigint as number, timestamptz as an ISO string
// and json as its text, so that one typed implementation serves both.

export interface AuditRecordsTable {
  id: Generated<number>;
  /** ISO 8601 (SQLite: text; PostgreSQL: timestamptz). */
  at: string;
  user_id: string;
  channel_id: string | null;
  action: string;
  target: string;
  /** JSON text. */
  params: string;
  outcome: string;
  api_status: number | null;
  duration_ms: number;
  detail: string | null;
  /** The target lease held while `started`. */
  lease_owner: string | null;
  /** JSON text { method, path, body } of the request sent to the cloud API. Since version 4. */
  api_request: string | null;
  /** Who asked for the change of an approval request. Since version 4. */
  requested_by: string | null;
  /** Who approved or rejected it. Since version 4. */
  decided_by: string | null;
  /** The approval request the record belongs to. Since version 4. */
  approval_id: string | null;
  /** The workflow execution (Wx…) a workflow step's request belongs to. Since version 6. */
  workflow_execution_id: string | null;
  /** The cloud's outcome of an accepted change, once followed (complete, failed, cancelled, unknown). Since version 9. */
  cloud_outcome: string | null;
  /** JSON text: the ids of the transactions that ran it. Since version 9. */
  transaction_ids: string | null;
  /** The action of the transaction a followed change ended on (the one that failed, or was cancelled). Since version 10. */
  cloud_step: string | null;
  /** What the record's outcome was before version 10 (one vocabulary), where it said more than its outcome now. */
  former_outcome: string | null;
  /** JSON text: the on-call shift the role came from (OnCallGrant). Since version 11. */
  on_call: string | null;
  /** The break-glass window the change ran under, without a second person. Since version 11. */
  break_glass: string | null;
  /** The server's label when the record was written. Since version 12. */
  server_label: string | null;
  /** Who acknowledged a break-glass use after the incident, and when. Since version 11. */
  reviewed_by: string | null;
  reviewed_at: string | null;
  /** The agent (its token's name) that asked, for its owner (`user_id`). Since version 12. */
  agent: string | null;
}

/** A break-glass window (docs/product.md, On call): one person's changes run without a second person until it ends. Since version 11. */
export interface BreakGlassWindowsTable {
  id: string;
  user_id: string;
  channel_id: string | null;
  reason: string;
  opened_at: string;
  /** When it ends (or ended: set to the time `/vs breakglass end` closed it). */
  ends_at_ms: number;
  /** Who closed it early; null: it runs, or ran, to its end. */
  ended_by: string | null;
}

/** Change events waiting for PagerDuty (src/timeline): one per change that ended, claimed under a lease. Since version 11. */
export interface ChangeEventsTable {
  id: Generated<number>;
  record_id: number;
  next_attempt_at_ms: number;
  attempts: Generated<number>;
  last_error: string | null;
  lease_owner: string | null;
  lease_expires_at_ms: number | null;
  sent_at_ms: number | null;
  /** PagerDuty refused it as invalid (400): never sent again. */
  undeliverable_at_ms: number | null;
}

/** A change the cloud accepted, followed to its end (src/follow). Since version 9. */
export interface FollowedChangesTable {
  record_id: number;
  action: string;
  target: string;
  /** JSON text: where its transactions are and which belong to it (FollowSubject). */
  subject: string;
  requested_by: string;
  approved_by: string | null;
  channel_id: string | null;
  message_ts: string | null;
  /** The newest transaction id seen before the change was sent; null when it could not be read. */
  baseline_id: number | null;
  accepted_at_ms: number;
  status: string;
  /** JSON text: number[]. */
  transaction_ids: string;
  step: string | null;
  /** JSON text: what the last read of the target found. */
  final_state: string | null;
  polls: Generated<number>;
  interval_ms: number;
  next_poll_at_ms: number;
  owner: string | null;
  lease_until_ms: number | null;
  ended_at_ms: number | null;
  /** What its message was last updated to show (a key of status, step and transactions). */
  told: string | null;
  replied_at_ms: number | null;
  tell_attempts: Generated<number>;
}

export interface SubmissionsTable {
  key: string;
  /** ISO 8601. */
  at: string;
}

export interface LocksTable {
  target: string;
  owner: string;
  expires_at_ms: number;
}

export interface AuditOutboxTable {
  id: Generated<number>;
  record_id: number;
  next_attempt_at_ms: number;
  attempts: Generated<number>;
  last_error: string | null;
  lease_owner: string | null;
  lease_expires_at_ms: number | null;
  sent_at_ms: number | null;
  /** Posts of one group go out as one (`denials:<user id>`); null: a post of its own. Since version 3. */
  group_key: string | null;
}

/** At most one row (id = 1) while frozen. */
export interface FreezeTable {
  id: number;
  frozen_by: string;
  frozen_at: string;
  reason: string;
}

export interface ApprovalsTable {
  id: string;
  action: string;
  target: string;
  /** JSON text. */
  params: string;
  channel_id: string;
  requested_by: string;
  requested_at: string;
  expires_at_ms: number;
  reason: string | null;
  /** JSON text: { method, path, body }. */
  api_request: string;
  status: string;
  decided_by: string | null;
  decided_at: string | null;
  message_ts: string | null;
  /** The workflow execution (Wx…) that asked for it, for a workflow step's request. Since version 6. */
  workflow_execution_id: string | null;
  /** VS_API_URL when it was asked for (the cloud it is sent to); null before version 8. */
  cloud_api_url: string | null;
  /** VS_ACCOUNT_ID when it was asked for; null before version 8. */
  cloud_account_id: string | null;
  /** Why it was rejected, when the one who denied it said. Since version 8. */
  decision_reason: string | null;
  /** The agent (its token's name) that asked, for its owner (`requested_by`). Since version 12. */
  agent: string | null;
}

/** A token an agent connects with (src/agents): only its SHA-256 hash is kept. Since version 12. */
export interface AgentTokensTable {
  /** Hex SHA-256 of the token. */
  hash: string;
  name: string;
  /** Who made it: the agent acts for them. */
  owner: string;
  created_at: string;
  expires_at_ms: number;
  revoked_by: string | null;
  revoked_at: string | null;
}

/** A token bucket per key (rates.ts); a missing row is a full bucket. Since version 3. */
export interface RateBucketsTable {
  key: string;
  /** Tokens left at `at_ms` (fractional: the bucket refills evenly). */
  tokens: number;
  /** The last take. */
  at_ms: number;
  /** When the bucket is full again (retention deletes it from then on). */
  full_at_ms: number;
  /** 1 when the last take was allowed, 0 when refused. */
  allowed: number;
}

export interface StoreTables {
  audit_records: AuditRecordsTable;
  submissions: SubmissionsTable;
  locks: LocksTable;
  audit_outbox: AuditOutboxTable;
  change_freeze: FreezeTable;
  approvals: ApprovalsTable;
  rate_buckets: RateBucketsTable;
  followed_changes: FollowedChangesTable;
  break_glass_windows: BreakGlassWindowsTable;
  change_events: ChangeEventsTable;
  agent_tokens: AgentTokensTable;
  watches: WatchesTable;
  watch_servers: WatchServersTable;
  watch_poll: WatchPollTable;
  watch_quiet: WatchQuietTable;
  watch_held: WatchHeldTable;
  watch_notices: WatchNoticesTable;
}

/** A channel's watch of a server (server_id 0: every server). Since version 14. */
export interface WatchesTable {
  channel_id: string;
  server_id: number;
  /** Comma-separated WatchEvent names. */
  events: string;
  created_by: string;
  created_at_ms: number;
  snoozed_until_ms: number | null;
}

/** What the watch poll last saw of a server. Since version 14. */
export interface WatchServersTable {
  server_id: number;
  label: string | null;
  power: string;
  locked_since_ms: number | null;
  lock_told: number;
}

/** What the watch poll last saw of the account (one row, name `account`). Since version 14. */
export interface WatchPollTable {
  name: string;
  tx_cursor: number | null;
  tx_max: number | null;
  /** Comma-separated transaction ids. */
  tx_open: string;
  blind_since_ms: number | null;
  blind_told: number;
}

/** Quiet hours of a channel, in minutes of the day. Since version 14. */
export interface WatchQuietTable {
  channel_id: string;
  start_min: number;
  end_min: number;
}

/** News held by quiet hours. Since version 14. */
export interface WatchHeldTable {
  id: Generated<number>;
  channel_id: string;
  server_id: number;
  label: string | null;
  kind: string;
  state: string;
  at_ms: number;
}

/** Notifications posted (a key each), so that each is posted once across instances. Since version 14. */
export interface WatchNoticesTable {
  key: string;
  /** When it was claimed (or claimed again after a dead instance's claim). */
  at_ms: number;
  /** When it was told; null while only claimed. Since version 15. */
  told_ms: number | null;
}
