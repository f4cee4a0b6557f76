import type { ReceiverEvent } from '@slack/bolt';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Config } from '../config';
import type { Logger } from '../log';
import { OUTCOME_OF_CLOUD, type AuditRecord, type CloudOutcome, type Store } from '../store';
import { createOutboxSender, OUTBOX_DEFAULTS, type PostAudit } from './audit-outbox';
import { dropRetries, timeAcks, type DeliveryClaims, type SignedDeliveries } from './deliveries';
import { observeChange, observeCommand, type Metrics } from './metrics';
import { startPeriodic, type Periodic } from './periodic';
import { createReadiness, metricsRoute, opsRoutes, type OpsRoute, type Readiness } from './readiness';
import { storeHealthJob, sweepJob, type SweepStep, type SweepStore } from './sweeps';
import { watchStore } from './store-watch';

// The operations side of one instance, built by the composition root: metrics,
// readiness, the hooks into Bolt that time acks and drop Slack's retries,
// the audit outbox sender and the periodic sweeps. Everything it needs from
// Slack (posting an audit record) and from the store comes in as functions.

/** The slices ops uses: leases (one instance per job), the outbox, recovery and retention, and ping. */
export type OpsStore = Pick<Store, 'leases' | 'outbox' | 'retention' | 'ping'> & SweepStore;

export interface OpsDeps {
  config: Config;
  logger: Logger;
  /** The one registry, built first by the composition root (the cloud client counts into it too). */
  metrics: Metrics;
  /** Where first deliveries are noted so that Slack's retries are recognised on any instance. */
  claims: DeliveryClaims;
  /** Where signed deliveries are noted so that each runs once (a replay is dropped): the store's claims, or this process's. */
  signed?: SignedDeliveries;
  /** The store's leases, outbox, sweeps and ping; without it there is no periodic work. */
  store?: OpsStore;
  /** Renders and posts to VS_AUDIT_CHANNEL; unset when there is no audit channel (the outbox is not drained). */
  postAudit?: PostAudit;
  /** Names this instance in leases and claims. */
  instanceId?: string;
  now?: () => number;
}

export interface Ops {
  readonly metrics: Metrics;
  readonly readiness: Readiness;
  readonly instanceId: string;
  /** /healthz, /readyz, and /metrics unless VS_METRICS_PORT gives it a server of its own (metricsRoutes). */
  routes(options: { mode: 'http' | 'socket'; sandbox: () => boolean }): OpsRoute[];
  /** What VS_METRICS_PORT's server serves: /metrics alone. */
  metricsRoutes(): OpsRoute[];
  /** Hooks into the Bolt app once it is built: the Slack retry filter, and the ack timer around it. */
  readonly instrument: (app: { processEvent(event: ReceiverEvent): Promise<void> }) => void;
  /** For the door's onRecorded: counts the change, wakes the outbox sender. */
  readonly recorded: (record: AuditRecord) => void;
  /** For the listeners: one request ended so (a `/vs` command is counted by subcommand and outcome). */
  readonly requestEnded: (request: { kind: string; outcome: string; labels: Record<string, unknown>; undelivered?: string }) => void;
  /** Wraps the store so that every answer (or StoreUnavailableError) updates the store's state at once. */
  watch<S extends object>(store: S): S;
  /** What the store just did: answered, or could not be reached. */
  storeSeen(state: 'ok' | 'unreachable'): void;
  /** For the follower's onEnded: counts the change by its cloud outcome, wakes the outbox sender (its record is posted again). */
  readonly followed: (record: AuditRecord, result: CloudOutcome) => void;
  /**
   * Adds a job every instance runs each `intervalMs` once started (the followers' round, which takes its own leases, one
   * per followed change); `stop` runs after its last round, when the instance stops.
   */
  addRound(round: Round): void;
  /**
   * Adds a step to the sweeps (before start): run each round on the one instance holding their lease, after recovery
   * and retention, counted in vs_chatops_sweeps_total{sweep=name} (the expiry of approval requests).
   */
  addSweep(step: SweepStep): void;
  /** Starts the periodic work. */
  start(): void;
  /** Stops the periodic work and gives its leases back. */
  stop(): Promise<void>;
}

/** A job of every instance (addRound). */
export interface Round {
  name: string;
  intervalMs: number;
  run: () => Promise<void>;
  stop?: () => Promise<void>;
}

export const SWEEP_LEASE = 'ops:sweeps';
export const OUTBOX_LEASE = 'ops:audit-outbox';

export function createOps(deps: OpsDeps): Ops {
  const { config, store, logger, metrics } = deps;
  const now = deps.now ?? (() => Date.now());
  const instanceId = deps.instanceId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const log = logger.child({ component: 'ops' });
  const readiness = createReadiness(metrics);
  const countChange = observeChange(metrics);
  const countCommand = observeCommand(metrics);
  const jobs: Periodic[] = [];
  const steps: SweepStep[] = [];
  const rounds: Round[] = [];
  let sender: Periodic | undefined;
  const storeSeen = (state: 'ok' | 'unreachable') => {
    if (!readiness.setStore(state)) return;
    if (state === 'ok') {
      log.info('the store answers again; changes are accepted');
      sender?.wake();
    } else log.error('the store is unreachable: reads keep working, changes are refused until it is back');
  };
  const recorded = (record: AuditRecord) => {
    countChange(record);
    sender?.wake();
  };

  return {
    metrics,
    readiness,
    instanceId,
    routes: (options) => opsRoutes(readiness, metrics, { ...options, metricsApart: config.metricsPort !== null }),
    metricsRoutes: () => [metricsRoute(metrics)],
    instrument: (app) => {
      dropRetries(app, deps.claims, log, {
        socketMode: config.slack.appToken !== undefined,
        now,
        storeUp: () => readiness.store === 'ok',
        signed: deps.signed,
      });
      // Outside the filter: a retry it drops is acked, and timed, as any delivery.
      timeAcks(app, metrics);
    },
    recorded,
    followed: (record, result) => {
      metrics.changesFollowed.inc({ action: record.action, result: OUTCOME_OF_CLOUD[result] });
      countChange(record);
      sender?.wake();
    },
    addRound: (round) => void rounds.push(round),
    requestEnded: ({ kind, outcome, labels, undelivered }) => {
      if (kind === 'command') countCommand(typeof labels.subcommand === 'string' ? labels.subcommand : 'unknown', outcome);
      if (undelivered) metrics.answersUndelivered.inc({ kind, reason: undelivered });
    },
    watch: (s) => watchStore(s, storeSeen),
    storeSeen,
    addSweep: (step) => void steps.push(step),
    start() {
      if (!store) return;
      const o = config.ops;
      const health = startPeriodic({
        name: 'store-health',
        intervalMs: o.storePingMs,
        logger: log,
        now,
        run: async () => {
          await storeHealthJob({ ping: () => store.ping(), report: storeSeen })();
          // Every instance reports the backlog, not only the one sending (which also updates it after each round).
          if (deps.postAudit && readiness.store === 'ok') metrics.outboxBacklog.set((await store.outbox.backlog()).pending);
        },
      });
      jobs.push(health);
      // A lease lives three rounds: a holder that dies is replaced within about that.
      jobs.push(
        startPeriodic({
          name: 'sweeps',
          intervalMs: o.sweepIntervalMs,
          logger: log,
          now,
          lease: { leases: store.leases, name: SWEEP_LEASE, owner: instanceId, ttlMs: 3 * o.sweepIntervalMs },
          run: sweepJob({ store, logger: log, metrics, now, onInterrupted: recorded, steps }),
        }),
      );
      for (const round of rounds) jobs.push(startPeriodic({ name: round.name, intervalMs: round.intervalMs, logger: log, now, run: round.run }));
      if (deps.postAudit) {
        // The lease outlives a round by a margin: a round stops posting at half the lease, and the next
        // one renews it first. Claims outlive both, so a post is never in two senders' hands.
        const leaseMs = Math.max(10_000, 5 * o.outboxPollMs);
        const outbox = createOutboxSender({
          outbox: store.outbox,
          post: deps.postAudit,
          owner: instanceId,
          logger: log.child({ job: 'audit-outbox' }),
          metrics,
          now,
          batch: o.outboxBatch,
          maxRoundMs: leaseMs / 2,
          claimMs: Math.max(OUTBOX_DEFAULTS.claimMs, 2 * leaseMs),
        });
        sender = startPeriodic({
          name: 'audit-outbox',
          intervalMs: o.outboxPollMs,
          logger: log,
          now,
          lease: { leases: store.leases, name: OUTBOX_LEASE, owner: instanceId, ttlMs: leaseMs },
          run: async () => {
            await outbox.runOnce();
          },
        });
        jobs.push(sender);
      }
    },
    async stop() {
      const started = jobs.length > 0;
      await Promise.all(jobs.map((job) => job.stop()));
      jobs.length = 0;
      if (!started) return;
      for (const round of rounds) {
        try {
          await round.stop?.();
        } catch (error) {
          log.warn('a round could not stop cleanly', { round: round.name, error });
        }
      }
    },
  };
}
