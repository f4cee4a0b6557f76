import { sql } from 'kysely';
import type { RateCounter } from '../rates';
import { wholeMs, type SliceDeps } from './rows';

// A token bucket per key in one row, taken from in one upsert: a new key's
// bucket is inserted full minus the token taken; an existing one is refilled
// for the time since its last take (never more than `limit`) and, if a whole
// token is there, loses it. The row's `allowed` says which it was, so that
// the one statement answers. Every SET expression reads the row as it was.

export function kyselyRates({ db, dialect }: SliceDeps): RateCounter {
  const [least, greatest] = dialect === 'postgres' ? ['least', 'greatest'] : ['min', 'max'];
  return {
    take: async (key, limit, windowMs, nowMs) => {
      if (!(limit >= 1) || !(windowMs >= 1)) throw new RangeError('a rate needs a limit and a window of at least 1');
      const capacity = Math.floor(limit);
      const window = wholeMs(windowMs);
      const now = wholeMs(nowMs);
      const perMs = capacity / window;
      // Typed parameters: PostgreSQL would otherwise infer integers from the columns beside them.
      const float = (n: number) => sql<number>`cast(${n} as double precision)`;
      const at = sql<number>`${sql.raw(greatest)}(rate_buckets.at_ms, cast(${now} as bigint))`;
      const refilled = sql<number>`${sql.raw(least)}(${float(capacity)}, rate_buckets.tokens + (${at} - rate_buckets.at_ms) * ${float(perMs)})`;
      const row = await db
        .insertInto('rate_buckets')
        .values({ key, tokens: capacity - 1, at_ms: now, full_at_ms: now + window, allowed: 1 })
        .onConflict((oc) =>
          oc.column('key').doUpdateSet({
            tokens: sql<number>`case when ${refilled} >= 1 then ${refilled} - 1 else ${refilled} end`,
            at_ms: at,
            // Full again a window after the last take at the latest: from then on retention may forget it.
            full_at_ms: sql<number>`${at} + cast(${window} as bigint)`,
            allowed: sql<number>`case when ${refilled} >= 1 then 1 else 0 end`,
          }),
        )
        .returning(['tokens', 'allowed'])
        .executeTakeFirstOrThrow();
      if (Number(row.allowed) === 1) return { allowed: true, retryInMs: 0 };
      return { allowed: false, retryInMs: Math.max(1, Math.ceil((1 - Number(row.tokens)) / perMs)) };
    },
  };
}
