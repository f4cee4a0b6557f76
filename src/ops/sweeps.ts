import type { Logger } from '../log';
import type { AuditRecord, AuditTrail, Retention } from '../store';
import type { Metrics } from './metrics';

// The periodic work of the store, run on one instance at a time (periodic.ts):
//   - recovery: a `started` record whose lock has expired (its instance died
//     mid-call) is settled as `unknown` (interrupted); the store queues its audit post in
//     the same transaction, so it is posted once whoever settles it;
//   - retention: audit records older than VS_AUDIT_RETENTION_DAYS and
//     submission claims older than a day are deleted;
//   - the steps other parts add (ops.addSweep), e.g. the expiry of approval
//     requests nobody decided, which the Slack side says in their messages.
// And on every instance, the store's health: a ping each interval, so that
// /readyz and vs_chatops_store_up say `unreachable` during an outage and `ok`
// again when it ends, without a restart.

/** What the sweeps need of the store: recovery (the audit trail's) and retention. */
export interface SweepStore {
  audit: Pick<AuditTrail, 'recoverInterrupted'>;
  retention: Retention;
}

/** A step another part adds to the sweeps' round (its name labels vs_chatops_sweeps_total). */
export interface SweepStep {
  name: string;
  run: () => Promise<unknown>;
}

const PRUNE_BATCH = 1000;
const PRUNE_ROUNDS = 10;

export function sweepJob(deps: {
  store: SweepStore;
  logger: Logger;
  metrics?: Metrics;
  now?: () => number;
  /** Hears of each record settled as interrupted (counts it, wakes the outbox sender). */
  onInterrupted?: (record: AuditRecord) => void;
  /** Run after recovery and retention, each on its own: one failing does not stop the others. Read at each round. */
  steps?: readonly SweepStep[];
}): () => Promise<void> {
  const now = deps.now ?? (() => Date.now());
  const count = (sweep: string, outcome: 'ok' | 'error') => deps.metrics?.sweeps.inc({ sweep, outcome });
  return async () => {
    let failure: Error | undefined;
    const asError = (error: unknown) => (error instanceof Error ? error : new Error(String(error)));
    try {
      const interrupted = await deps.store.audit.recoverInterrupted(now());
      for (const record of interrupted) {
        deps.logger.warn('a change was interrupted: its instance stopped during the cloud call; it may or may not have been applied', {
          record: record.id,
          action: record.action,
          target: record.target,
        });
        deps.onInterrupted?.(record);
      }
      count('recovery', 'ok');
    } catch (error) {
      count('recovery', 'error');
      failure = asError(error);
    }
    try {
      // Bounded batches, a bounded number of them per round: a first run on a year of records does not hold the database.
      for (let i = 0; i < PRUNE_ROUNDS; i++) {
        const pruned = await deps.store.retention.prune(now(), PRUNE_BATCH);
        if (Math.max(pruned.claims, pruned.records, pruned.housekeeping) < PRUNE_BATCH) break;
      }
      count('retention', 'ok');
    } catch (error) {
      count('retention', 'error');
      failure ??= asError(error);
    }
    for (const step of deps.steps ?? []) {
      try {
        await step.run();
        count(step.name, 'ok');
      } catch (error) {
        count(step.name, 'error');
        failure ??= asError(error);
      }
    }
    if (failure !== undefined) throw failure;
  };
}

/** Pings the store and reports what it saw. */
export function storeHealthJob(deps: { ping: () => Promise<void>; report: (state: 'ok' | 'unreachable') => void }): () => Promise<void> {
  return async () => {
    try {
      await deps.ping();
    } catch {
      deps.report('unreachable');
      return;
    }
    deps.report('ok');
  };
}
