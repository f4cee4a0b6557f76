import { isChangeEnd, type AuditRecord, type ChangeEnd } from '../store';

// How a change ended, in the one vocabulary (docs/product.md, One outcome, told the same everywhere): the one place
// the timeline reads it off a record. A record's outcome is its change's (src/changes/outcome.ts); its ends are the
// store's CHANGE_ENDS, whichever way it got there (followed to its end, refused by the cloud API, its answer
// unreadable, its instance died).

export type { ChangeEnd } from '../store';

/** How the change of a record ended; null while it has not (scheduled, running, in flight), or when it never was one. */
export function endOf(record: Pick<AuditRecord, 'outcome'>): ChangeEnd | null {
  return isChangeEnd(record.outcome) ? record.outcome : null;
}
