// The freeze: while one is in force, changes are refused (PRODUCT.md
// "Freeze"). At most one at a time, shared by every instance.

export interface Freeze {
  /** Who froze (Slack user id). */
  by: string;
  /** ISO 8601 time of the freeze. */
  at: string;
  reason: string;
}

export interface ChangeFreeze {
  /** The freeze in force, or null. */
  current(): Promise<Freeze | null>;
  /** Freezes changes; when already frozen, keeps and returns the freeze in force. */
  start(freeze: Freeze): Promise<Freeze>;
  /** Lifts the freeze; returns the one lifted, or null when none was in force. */
  lift(): Promise<Freeze | null>;
}
