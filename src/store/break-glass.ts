import type { AuditEntry, AuditRecord } from './audit';

// Break glass (docs/product.md, On call): a window in which one person's changes that would wait for a second person
// run at once. A window ends at its time or when its owner closes it; at most one of a person's is open at a time,
// across instances. Each change made under one is an audit record flagged with its window (a use), which waits
// until an admin acknowledges it. Opening, closing and acknowledging each write their audit record in the same
// transaction as the change of state.

export interface BreakGlassWindow {
  id: string;
  /** Whose changes it lets through. */
  userId: string;
  /** Where it was opened. */
  channelId: string | null;
  /** Why, as they typed it. */
  reason: string;
  /** ISO 8601. */
  openedAt: string;
  /** When it ends, or ended (epoch ms): its time, or when it was closed early. */
  endsAtMs: number;
  /** Who closed it early; null: it runs, or ran, to its end. */
  endedBy: string | null;
}

export interface BreakGlass {
  /**
   * Opens `window` and writes `recorded` with it, unless one of the same person's is open at `nowMs`: then that one
   * stays as it is, nothing is written, and it is returned (`opened: false`).
   */
  open(window: BreakGlassWindow, nowMs: number, recorded: AuditEntry): Promise<{ opened: boolean; window: BreakGlassWindow; record: AuditRecord | null }>;
  /** The person's window open at `nowMs`, or null. */
  current(userId: string, nowMs: number): Promise<BreakGlassWindow | null>;
  /** Every window open at `nowMs`, soonest to end first. */
  openAt(nowMs: number): Promise<BreakGlassWindow[]>;
  /** Closes the person's window open at `nowMs` (by `by`), writing the record of `recordOf` with it; null, nothing written, when none is open. */
  end(
    userId: string,
    by: string,
    nowMs: number,
    recordOf: (ended: BreakGlassWindow) => AuditEntry,
  ): Promise<{ ended: BreakGlassWindow | null; record: AuditRecord | null }>;
  /**
   * Marks a use (a record of a change made under a window) acknowledged by `by` at `at`, writing the record of
   * `recordOf` with it, once: a second acknowledgement, or a record that is no use, changes and writes nothing. Returns
   * the use as it stands (null: no such record) and whether this call acknowledged it.
   */
  acknowledge(
    recordId: number,
    by: string,
    at: string,
    recordOf: (use: AuditRecord) => AuditEntry,
  ): Promise<{ acknowledged: boolean; use: AuditRecord | null; record: AuditRecord | null }>;
}
