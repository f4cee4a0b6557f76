import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { isFinal } from '../changes/outcome';
import type { ChangeOutcome, RecordedAction } from '../store';

// One prom-client registry per bot (tests run several bots in one process).
// Labels take values from closed sets only (subcommand kinds, outcomes,
// operation names, HTTP statuses): never a user id, a channel, a target or a
// secret, which would also make the series count unbounded.

export interface Metrics {
  readonly registry: Registry;
  /** `/vs` commands by subcommand (a kind of the command table) and how they ended (the request's outcome). */
  readonly commands: Counter<'command' | 'outcome'>;
  /** From a request reaching the listeners to its ack being sent, by kind (command, action, view, shortcut). */
  readonly ackSeconds: Histogram<'kind'>;
  /** Cloud API calls by operation and HTTP status (or the error kind when none came: `timeout`, `network`, `no_connection`…). */
  readonly cloudRequests: Counter<'operation' | 'status'>;
  readonly cloudRequestSeconds: Histogram<'operation'>;
  /**
   * Audit records by action (a key of the table of changes, `freeze`, `unfreeze`) and outcome (docs/product.md, One
   * outcome, told the same everywhere), each counted once, when its outcome is final: an accepted change when it ends.
   */
  readonly changes: Counter<'action' | 'outcome'>;
  /** 1 while the store answers, 0 while it is unreachable. */
  readonly storeUp: Gauge;
  /** Audit posts waiting in the outbox (every instance reads it with each store ping; the sender after each round). */
  readonly outboxBacklog: Gauge;
  /** Audit posts by result: `sent`, `retried` (Slack refused or failed; tried again later), `grouped` (a denial folded into a summary). */
  readonly auditPosts: Counter<'result'>;
  /** Followed changes that ended, by action and outcome (`done`, `failed`, `cancelled`, `unknown`): counted by the instance that ended each. */
  readonly changesFollowed: Counter<'action' | 'result'>;
  /** Periodic sweeps run by this instance, by sweep and outcome (`ok`, `error`). */
  readonly sweeps: Counter<'sweep' | 'outcome'>;
  /** 1 while this instance can serve (/readyz 200), 0 while starting or stopping. */
  readonly ready: Gauge;
  /**
   * Answers to requests that did not reach Slack, by request kind and reason: `over_limits` (over Block Kit's limits,
   * not sent), `refused` (Slack would not take it), `expired` (the response_url), `unreachable`.
   */
  readonly answersUndelivered: Counter<'kind' | 'reason'>;
  /** Watch notifications posted, by event (`power`, `lock`, `failures`, `always`; `quiet_summary` for a summary of quiet hours). */
  readonly watchNotifications: Counter<'event'>;
  /** How long a round of the watch poll took (on the instance holding its lease). */
  readonly watchPollSeconds: Histogram;
}

const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createMetrics(options: { defaults?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.defaults !== false) collectDefaultMetrics({ register: registry, prefix: '' });
  const on = { registers: [registry] };
  return {
    registry,
    commands: new Counter({ name: 'vs_chatops_commands_total', help: '/vs commands by subcommand and outcome', labelNames: ['command', 'outcome'], ...on }),
    ackSeconds: new Histogram({
      name: 'vs_chatops_ack_seconds',
      help: 'Time from a request reaching the listeners to its ack',
      labelNames: ['kind'],
      buckets: SECONDS_BUCKETS,
      ...on,
    }),
    cloudRequests: new Counter({
      name: 'vs_chatops_cloud_requests_total',
      help: 'Cloud API requests by operation and status',
      labelNames: ['operation', 'status'],
      ...on,
    }),
    cloudRequestSeconds: new Histogram({
      name: 'vs_chatops_cloud_request_seconds',
      help: 'Cloud API request duration',
      labelNames: ['operation'],
      buckets: SECONDS_BUCKETS,
      ...on,
    }),
    changes: new Counter({
      name: 'vs_chatops_changes_total',
      help: 'Audit records of changes by action and outcome',
      labelNames: ['action', 'outcome'],
      ...on,
    }),
    storeUp: new Gauge({ name: 'vs_chatops_store_up', help: '1 while the store (SQLite or PostgreSQL) answers, 0 while unreachable', ...on }),
    outboxBacklog: new Gauge({ name: 'vs_chatops_audit_outbox_backlog', help: 'Audit posts waiting in the outbox', ...on }),
    auditPosts: new Counter({ name: 'vs_chatops_audit_posts_total', help: 'Audit posts by result (sent, retried, grouped)', labelNames: ['result'], ...on }),
    changesFollowed: new Counter({
      name: 'vs_chatops_changes_followed_total',
      help: 'Followed changes that ended, by action and outcome (done, failed, cancelled, unknown)',
      labelNames: ['action', 'result'],
      ...on,
    }),
    sweeps: new Counter({ name: 'vs_chatops_sweeps_total', help: 'Periodic sweeps run by this instance', labelNames: ['sweep', 'outcome'], ...on }),
    ready: new Gauge({ name: 'vs_chatops_ready', help: '1 while this instance serves (/readyz 200)', ...on }),
    answersUndelivered: new Counter({
      name: 'vs_chatops_answers_undelivered_total',
      help: 'Answers to requests that did not reach Slack, by request kind and reason (over_limits, refused, expired, unreachable)',
      labelNames: ['kind', 'reason'],
      ...on,
    }),
    watchNotifications: new Counter({
      name: 'vs_chatops_watch_notifications_total',
      help: 'Watch notifications posted, by event (power, lock, failures, always; quiet_summary)',
      labelNames: ['event'],
      ...on,
    }),
    watchPollSeconds: new Histogram({
      name: 'vs_chatops_watch_poll_seconds',
      help: 'Rounds of the watch poll (the account read, diffed and told), on the instance holding its lease',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      ...on,
    }),
  };
}

/**
 * The cloud client's observer seam (its RequestDoneObserver): the HTTP status, or the error kind for requests that
 * got none (`timeout`, `network`, `no_connection`…).
 */
export function observeCloudRequest(metrics: Metrics): (operation: string, status: string, seconds: number) => void {
  return (operation, status, seconds) => {
    metrics.cloudRequests.inc({ operation, status });
    metrics.cloudRequestSeconds.observe({ operation }, seconds);
  };
}

/** Counts an audit record once its outcome is final (not in flight, `scheduled` nor `running`: those are counted when they end). */
export function observeChange(metrics: Metrics): (record: { action: RecordedAction; outcome: ChangeOutcome }) => void {
  return ({ action, outcome }) => {
    if (!isFinal(outcome)) return;
    metrics.changes.inc({ action, outcome });
  };
}

/** Counts one `/vs` command once it has ended. */
export function observeCommand(metrics: Metrics): (command: string, outcome: string) => void {
  return (command, outcome) => metrics.commands.inc({ command, outcome });
}
