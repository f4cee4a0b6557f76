// Retention: what outlived its use is deleted, in bounded batches, by one
// instance at a time (the sweeps in src/ops). Retention only deletes: it never
// changes a record (recovering interrupted changes is the audit trail's).

export interface PruneResult {
  /** Submission claims older than a day, deleted. */
  claims: number;
  /** Audit records older than the retention, deleted (with their outbox rows). */
  records: number;
  /**
   * Outbox rows sent more than a day ago, locks expired more than a day ago, rate buckets full again, and decided
   * approvals and break-glass windows past the retention, deleted.
   */
  housekeeping: number;
}

export interface Retention {
  /**
   * Deletes, at most `batch` of each per call (call again while a count
   * equals `batch`): claims older than a day, audit records older than the
   * store's retention days (and their outbox rows), sent outbox rows older
   * than a day, leases expired more than a day ago, rate buckets that
   * have filled up again (forgetting one changes no answer), and approvals
   * decided (or expired) and asked for longer ago than the retention.
   */
  prune(nowMs: number, batch?: number): Promise<PruneResult>;
}
