import type { Config } from '../config';
import type { Logger } from '../log';
import { SCHEMA_VERSION } from './migrations';
import { openPostgresStore } from './postgres';
import { openSqliteStore } from './sqlite';
import type { Store } from './store';

// The store: its contract (store.ts, one file per slice) and the one way the
// composition root opens it. Callers import the contract from here.

export type { Store } from './store';
export type {
  AuditEntry,
  AuditQuery,
  AuditRecord,
  AuditTrail,
  ChangeBeginning,
  ChangeCompletion,
  ChangeOutcome,
  InFlight,
  OnCallGrant,
  Outcome,
  RecordedAction,
  RecordedRequest,
} from './audit';
export { CHANGE_OUTCOMES, IN_FLIGHT, isInFlight, OUTCOMES } from './audit';
export type { AgentToken, AgentTokens } from './agent-tokens';
export type { SubmissionClaims } from './claims';
export type { Lease, Leases } from './leases';
export type { Outbox, OutboxBacklog, OutboxItem } from './outbox';
export type { PruneResult, Retention } from './retention';
export type { Approval, ApprovalAsked, ApprovalDecision, ApprovalRequest, Approvals, CloudAccount, ExpiredApproval } from './approvals';
export type { ApprovalStatus } from './approval-states';
export type { ChangeFreeze, Freeze } from './freeze';
export type { BreakGlass, BreakGlassWindow } from './break-glass';
export type { ChangeEnd, ChangeEventBacklog, ChangeEventItem, ChangeEvents, ChangeEventState } from './change-events';
export { CHANGE_ENDS, isChangeEnd } from './change-events';
export { APPROVAL_OUTCOMES, APPROVAL_STATUSES, APPROVAL_STEPS, fromStates, mayTake, OPEN_STATUSES, RECORDED_AS, recordedOutcome } from './approval-states';
export type { ApprovalOutcome, ApprovalStep, ClosedStatus, OpenStatus } from './approval-states';
export type { RateCounter, RateDecision } from './rates';
export type { CloudOutcome, FollowedChange, FollowProgress, Follows, FollowStatus, FollowSubject, NewFollow } from './follows';
export { CLOUD_OUTCOMES, FOLLOW_STATUSES, isCloudOutcome, OUTCOME_OF_CLOUD } from './follows';
export type { FollowedServer, HeldNews, PollSeen, Power, QuietHours, ServerSeen, Watch, WatchEvent, Watches } from './watches';
export { EVERY_SERVER, WATCH_EVENTS } from './watches';
export { isStoreUnavailable, STORE_UNAVAILABLE, StoreUnavailableError } from './unavailable';
export { deferStore, type DeferredStore } from './deferred';
export { openStoreWhenReachable, type StoreWaitOptions } from './wait';

/**
 * The store the configuration asks for: PostgreSQL when DATABASE_URL is set
 * (several instances), otherwise SQLite at VS_DB_PATH (one instance), its
 * slices assembled over one database (kysely/store.ts). Runs the migrations
 * (one instance at a time) before it resolves. Rejects with
 * StoreUnavailableError when the database cannot be reached (start-up tries
 * again: openStoreWhenReachable), with ConfigError when VS_DB_PATH or
 * DATABASE_URL cannot work.
 */
export async function openStore(config: Config, logger: Logger): Promise<Store> {
  const log = logger.child({ component: 'store' });
  const common = {
    // Posts are queued only where someone sends them: with VS_AUDIT_CHANNEL set.
    auditPosts: config.auditChannel !== undefined,
    auditRetentionDays: config.ops.auditRetentionDays,
    // Change events are queued only where they are sent: with VS_PAGERDUTY_ROUTING_KEY set (or local mode's stand-in).
    changeEvents: config.pagerDuty.routingKey !== null,
  };
  if (config.databaseUrl) {
    const store = await openPostgresStore(config.databaseUrl, { ...common, maxConnections: config.dbMaxConnections, logger: log });
    log.info('store ready', { dialect: 'postgres', schemaVersion: SCHEMA_VERSION, maxConnections: config.dbMaxConnections });
    return store;
  }
  const store = openSqliteStore(config.dbPath, { ...common, logger: log });
  log.info('store ready', { dialect: 'sqlite', schemaVersion: SCHEMA_VERSION, path: config.dbPath });
  return store;
}
