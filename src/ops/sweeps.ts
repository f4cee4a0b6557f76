import type { Logger } from '../log';
import type { AuditRecord } from '../store/audit-store';
import type { Metrics } from './metrics';
import type { Readiness } from './readiness';

// The periodic work of the store, run on one instance at a time (periodic.ts):
//   - recovery: a `started` record whose lock has expired (its instance died
//     mid-call) is settled as `interrupted`; the store queues its audit post in
//     the same transaction, so it is posted once whoever settles it;
//   - retention: audit records older than VS_AUDIT_RETENTION_DAYS and
//     submission claims older than a day are deleted.
// And on every instance, the store's health: a ping each interval, so that
// /readyz and vs_chatops_store_up say `unreachable` during an outage and `ok`
// again when it ends, without a restart.

export interface SweepStore {
  /** Settles started records whose target lock expired before `nowMs` as interrupted; returns them. */
  recoverInterrupted(nowMs: number): Promise<AuditRecord[]>;
  /** Deletes audit records older than `auditBefore` and claims older than `claimsBefore` (ISO times). */
  prune(limits: { auditBefore: string; claimsBefore: string }): Promise<unknown>;
}

export const CLAIM_RETENTION_MS = 24 * 60 * 60_000;

export function sweepJob(deps: {
  store: SweepStore;
  retentionDays: number;
  logger: Logger;
  metrics?: Metrics;
  now?: () => number;
  /** Hears of each record settled as interrupted (counts it, wakes the outbox sender). */
  onInterrupted?: (record: AuditRecord) => void;
}): () => Promise<void> {
  const now = deps.now ?? (() => Date.now());
  const count = (sweep: string, outcome: 'ok' | 'error') => deps.metrics?.sweeps.inc({ sweep, outcome });
  return async () => {
    let failure: unknown;
    try {
      const interrupted = await deps.store.recoverInterrupted(now());
      for (const record of interrupted) {
        deps.logger.warn('a change was interrupted: its instance stopped during the cloud call; it may or may not have been applied', { record: record.id, action: record.action, target: record.target });
        deps.onInterrupted?.(record);
      }
      count('recovery', 'ok');
    } catch (error) {
      count('recovery', 'error');
      failure = error;
    }
    try {
      const t = now();
      await deps.store.prune({
        auditBefore: new Date(t - deps.retentionDays * 24 * 60 * 60_000).toISOString(),
        claimsBefore: new Date(t - CLAIM_RETENTION_MS).toISOString(),
      });
      count('retention', 'ok');
    } catch (error) {
      count('retention', 'error');
      failure ??= error;
    }
    if (failure !== undefined) throw failure;
  };
}

/** Pings the store; reports its state to readiness (and so to /readyz and the metric), logging each change. */
export function storeHealthJob(deps: { ping: () => Promise<void>; readiness: Readiness; logger: Logger; onChange?: (state: 'ok' | 'unreachable') => void }): () => Promise<void> {
  return async () => {
    let state: 'ok' | 'unreachable';
    try {
      await deps.ping();
      state = 'ok';
    } catch {
      state = 'unreachable';
    }
    if (deps.readiness.setStore(state)) {
      if (state === 'ok') deps.logger.info('the store answers again; changes are accepted');
      else deps.logger.error('the store is unreachable: reads keep working, changes are refused until it is back');
      deps.onChange?.(state);
    }
  };
}
