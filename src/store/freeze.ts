import type { AuditEntry, AuditRecord } from './audit';
import type { Freeze } from './frozen';

// The freeze: while one is in force, changes are refused (docs/product.md,
// "Freeze"). At most one at a time, shared by every instance, read afresh by
// every check (one row). Freezing and lifting write their audit record in the
// same transaction as the change of state.

export type { Freeze } from './frozen';

export interface ChangeFreeze {
  /** The freeze in force, or null. */
  current(): Promise<Freeze | null>;
  /**
   * Freezes changes and, when this call froze them, writes `recorded` with
   * it; when already frozen, keeps the freeze in force, writes nothing, and
   * returns it (`started: false`).
   */
  start(freeze: Freeze, recorded?: AuditEntry): Promise<{ started: boolean; freeze: Freeze; record: AuditRecord | null }>;
  /** Lifts the freeze, writing the record of `recordOf` with it; `lifted` is the one lifted, or null when none was in force (nothing written). */
  lift(recordOf?: (lifted: Freeze) => AuditEntry): Promise<{ lifted: Freeze | null; record: AuditRecord | null }>;
}
