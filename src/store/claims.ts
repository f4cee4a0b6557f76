// Submission claims: a key (a modal's view id, a delivery's event id) is
// acted on once, across instances and restarts. The change door claims each
// submission (in audit.beginChange), the retry filter each first delivery.

export interface SubmissionClaims {
  /**
   * Claims a key once: of any number of concurrent claims, from any instance,
   * exactly one resolves true. Claims are kept a day (see retention).
   * `at` is ISO 8601.
   */
  claim(key: string, at: string): Promise<boolean>;
  /**
   * Gives a claimed key back. Only for an attempt that provably changed
   * nothing and whose form stays open to be fixed and sent again (the API
   * rejected the parameters with a 422).
   */
  release(key: string): Promise<void>;
}
