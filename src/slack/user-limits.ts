import type { Logger } from '../log';
import type { RateCounter } from '../store';
import { createReadLimiter, type ReadLimiter } from './read-limit';

// Per-person limits: reads (VS_READS_PER_USER_PER_MINUTE) and change attempts
// (VS_CHANGES_PER_USER_PER_MINUTE), counted in the store's shared buckets so
// that they hold for the whole deployment: three instances with a limit of 6
// answer 6 of one person's reads, not 18. The needs middleware asks after the
// ack, so the store's round trip is never on it. A refusal is remembered here
// until the time it names (no instance can make a token come sooner), so a
// person hammering costs the store one take per token per instance, not one
// per attempt.
//
// The store is never waited for long, and never needed: when it fails or does
// not answer within `waitMs`, this instance counts on its own (an in-process
// bucket of the same size) and leaves the store alone for `restMs`, so reads
// keep working while the database is down. Meanwhile each instance allows the
// limit by itself.

export type LimitKind = 'reads' | 'changes';

/**
 * Hourly limits of workflow change steps (docs/product.md, Workflow steps): `workflow_requests`, the requests one
 * workflow posts (keyed by its step and channel), and `workflow_calls`, the times one person or user group is called
 * (mentioned) by them.
 */
export type HourlyKind = 'workflow_requests' | 'workflow_calls';

export interface UserLimit {
  readonly perMinute: number;
  /** Takes one for `userId`: 0 when allowed, otherwise the whole seconds (at least 1) until the next one is. Never rejects. */
  take(userId: string): Promise<number>;
}

export interface HourlyLimit {
  readonly perHour: number;
  /** Takes one for `key`: 0 when allowed, otherwise the whole seconds (at least 1) until the next one is. Never rejects. */
  take(key: string): Promise<number>;
}

export type UserLimits = Readonly<Record<LimitKind, UserLimit>> & { readonly hourly: Readonly<Record<HourlyKind, HourlyLimit>> };

export interface UserLimitsDeps {
  perMinute: Readonly<Record<LimitKind, number>>;
  perHour: Readonly<Record<HourlyKind, number>>;
  /** The store's shared buckets; undefined: each instance counts on its own. */
  rates: RateCounter | undefined;
  now: () => number;
  logger: Logger;
  /** The longest wait for the store's answer before counting here. */
  waitMs?: number;
  /** After the store failed, how long it is left alone. */
  restMs?: number;
}

/** A healthy store answers in a few milliseconds; this is far above that, and far below Slack's 3 s for a submission. */
export const SHARED_WAIT_MS = 250;
/** As the store's readiness ping: a failed store is asked again this soon. */
export const STORE_REST_MS = 5000;
const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
/** People remembered as refused, per limit, at most. */
export const MAX_REFUSED = 10_000;

export function createUserLimits(deps: UserLimitsDeps): UserLimits {
  const { rates, now, logger } = deps;
  const waitMs = deps.waitMs ?? SHARED_WAIT_MS;
  const restMs = deps.restMs ?? STORE_REST_MS;
  // One store for both limits: while it rests, both count here.
  let restingUntil = 0;
  let counting: 'shared' | 'here' = 'shared';

  /** `limit` takes of a key per `windowMs`, counted under `kind` in the store's shared buckets. */
  const bucket = (kind: LimitKind | HourlyKind, limit: number, windowMs: number) => {
    const here: ReadLimiter = createReadLimiter(limit, now, windowMs);
    const refusedUntil = new Map<string, number>();
    return {
      async take(userId: string): Promise<number> {
        const t = now();
        const until = refusedUntil.get(userId) ?? 0;
        if (t < until) return wholeSeconds(until - t);
        if (!rates || t < restingUntil) return here.take(userId);
        try {
          const decision = await answerWithin(rates.take(`${kind}:${userId}`, limit, windowMs, t), waitMs);
          if (counting === 'here') {
            counting = 'shared';
            logger.info('per-person limits are counted across instances again');
          }
          if (decision.allowed) return 0;
          // Forgetting them all costs only a take each: it bounds the memory one burst of many people can hold.
          if (refusedUntil.size >= MAX_REFUSED) refusedUntil.clear();
          refusedUntil.set(userId, t + decision.retryInMs);
          return wholeSeconds(decision.retryInMs);
        } catch (error) {
          restingUntil = now() + restMs;
          if (counting === 'shared') {
            counting = 'here';
            logger.warn('the store did not answer: per-person limits are counted by this instance alone until it does', { error, waitMs, restMs });
          }
          return here.take(userId);
        }
      },
    };
  };
  const limit = (kind: LimitKind): UserLimit => ({ perMinute: deps.perMinute[kind], ...bucket(kind, deps.perMinute[kind], MINUTE_MS) });
  const hourly = (kind: HourlyKind): HourlyLimit => ({ perHour: deps.perHour[kind], ...bucket(kind, deps.perHour[kind], HOUR_MS) });
  return {
    reads: limit('reads'),
    changes: limit('changes'),
    hourly: { workflow_requests: hourly('workflow_requests'), workflow_calls: hourly('workflow_calls') },
  };
}

const wholeSeconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/** The answer, or a rejection after `ms`; a late answer (or failure) of `pending` is dropped (race handles both). */
function answerWithin<T>(pending: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([pending, deadline]).finally(() => clearTimeout(timer));
}
