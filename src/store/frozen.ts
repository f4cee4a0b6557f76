// What a freeze is (docs/product.md "Freeze"): who froze changes, when and
// why. A file of its own, importing nothing: the freeze slice (freeze.ts) and
// the audit trail's start of a change (audit.ts), which reads the freeze in its
// transaction, both name it.

export interface Freeze {
  /** Who froze (Slack user id). */
  by: string;
  /** ISO 8601 time of the freeze. */
  at: string;
  reason: string;
}
