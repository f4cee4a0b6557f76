// Reads per user: a token bucket of `perMinute` reads, refilled evenly over a
// minute. One person (or one script with a user's token) clicking Next in a
// loop cannot keep the read connections busy for everyone else.

export interface ReadLimiter {
  /** Takes one read for `userId`: 0 when allowed, otherwise the whole seconds until the next one is. */
  take(userId: string): number;
}

/** Buckets kept at most; full ones (idle users) are dropped first when it is reached. */
const MAX_USERS = 10_000;

/** `perMinute` takes of a key refilled over `windowMs` (a minute, unless said: workflow limits count by the hour). */
export function createReadLimiter(perMinute: number, now: () => number, windowMs = 60_000): ReadLimiter {
  const buckets = new Map<string, { tokens: number; at: number }>();
  const refillPerMs = perMinute / windowMs;
  const refill = (b: { tokens: number; at: number }, t: number) => {
    b.tokens = Math.min(perMinute, b.tokens + (t - b.at) * refillPerMs);
    b.at = t;
  };
  return {
    take(userId) {
      const t = now();
      let bucket = buckets.get(userId);
      if (!bucket) {
        if (buckets.size >= MAX_USERS) {
          for (const [id, b] of buckets) {
            refill(b, t);
            if (b.tokens >= perMinute) buckets.delete(id);
          }
        }
        bucket = { tokens: perMinute, at: t };
        buckets.set(userId, bucket);
      }
      refill(bucket, t);
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return 0;
      }
      return Math.max(1, Math.ceil((1 - bucket.tokens) / refillPerMs / 1000));
    },
  };
}
