// Rates: a counter per key shared by every instance, so that a limit such as
// VS_READS_PER_USER_PER_MINUTE holds for the whole deployment, not per
// instance. Each key is a token bucket of `limit` tokens refilled evenly over
// `windowMs` (the in-process read limiter's rule): a burst of `limit` is
// allowed at once, then one more every `windowMs / limit`. A key that is
// never taken from holds nothing (retention deletes full buckets).

export interface RateDecision {
  /** True: a token was taken. False: none was left, nothing was changed. */
  allowed: boolean;
  /** When refused: milliseconds until a token is there again (at least 1). 0 when allowed. */
  retryInMs: number;
}

export interface RateCounter {
  /**
   * Takes one token of `key`'s bucket at `nowMs`: one statement, one round
   * trip, atomic across instances (of concurrent takes on an almost empty
   * bucket, only as many as it holds are allowed). `limit` and `windowMs` are
   * the caller's (at least 1, else RangeError) and may change between calls;
   * a time earlier than the bucket's last take counts as that time (clocks of
   * instances differ a little). Keys are any text, e.g. `reads:U123`.
   */
  take(key: string, limit: number, windowMs: number, nowMs: number): Promise<RateDecision>;
}
