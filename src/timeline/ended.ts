import type { AuditRecord } from '../store';

// How a change ended, in the one vocabulary (docs/product.md, One outcome, told the same everywhere): the one place
// the timeline reads it off a record. The store says it in two fields today (the record's own outcome, and the cloud's
// once followed); once src/changes has the one outcome of a record, this is where it is taken instead.

/** The ends a change event tells (docs/product.md, On call: every change that ends). */
export type ChangeEnd = 'done' | 'failed' | 'cancelled' | 'unknown';

/** How the change of a record ended; null while it has not (or it is no change the cloud was asked for). */
export function endOf(record: Pick<AuditRecord, 'outcome' | 'cloudOutcome'>): ChangeEnd | null {
  switch (record.cloudOutcome) {
    case 'complete':
      return 'done';
    case 'failed':
    case 'cancelled':
    case 'unknown':
      return record.cloudOutcome;
    default:
      break;
  }
  switch (record.outcome) {
    // The cloud API refused it (or did not answer): failed, whatever the status.
    case 'failed':
      return 'failed';
    // Applied, its answer unreadable; or its instance died mid-call: look in the control panel.
    case 'applied_unreadable':
    case 'interrupted':
      return 'unknown';
    default:
      return null;
  }
}
