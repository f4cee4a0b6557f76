import type { Logger } from '../log';
import type { Store } from './store';
import { isStoreUnavailable } from './unavailable';

// Start-up waits for the database instead of exiting: a deploy during a
// database failover must not crash-loop. Each try that finds the database
// unreachable is one log line (what failed, when the next try is) and the
// next comes after a growing pause (1 s doubling to 30 s, with jitter, so
// instances started together do not knock together). Anything else (the
// configuration is wrong, a migration fails) ends the wait with its error.

export interface StoreWaitOptions {
  /** Opens the store once (connects and migrates); rejects with StoreUnavailableError while the database is unreachable. */
  open: () => Promise<Store>;
  logger: Pick<Logger, 'info' | 'warn'>;
  /** Aborted: the instance is stopping; the wait ends at once and resolves undefined. */
  signal: AbortSignal;
  /** Hears of each try that found the database unreachable (readiness names the store). */
  onUnreachable?: () => void;
  /** The pause after the n-th failed try (1, 2, …). */
  delayMs?: (attempt: number) => number;
  /** Waits `ms` unless `signal` is aborted first; tests pass one they step by hand. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

export const FIRST_DELAY_MS = 1000;
export const MAX_DELAY_MS = 30_000;

/** 1 s, 2 s, 4 s … 30 s, each within ±20 % so that instances started together spread out. */
export function backoffMs(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling * (0.8 + 0.4 * random()));
}

/** Resolves after `ms`, or at once when `signal` is aborted. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * Opens the store, trying again while its database is unreachable. Resolves
 * with the store, or undefined when `signal` was aborted first (a store that
 * opens after that is closed). Rejects with any error that is not
 * "unreachable" (a configuration problem, a failed migration).
 */
export async function openStoreWhenReachable(options: StoreWaitOptions): Promise<Store | undefined> {
  const { signal, logger } = options;
  const delayMs = options.delayMs ?? ((attempt: number) => backoffMs(attempt));
  const sleep = options.sleep ?? abortableSleep;
  for (let attempt = 1; !signal.aborted; attempt++) {
    let store: Store | undefined;
    try {
      store = await untilAborted(options.open(), signal);
    } catch (error) {
      if (!isStoreUnavailable(error)) throw error;
      const pauseMs = delayMs(attempt);
      options.onUnreachable?.();
      logger.warn(`waiting for the store: ${error.message} Next try in ${seconds(pauseMs)}; /readyz answers 503 until then`, {
        try: attempt,
        nextTryInMs: pauseMs,
        cause: describeCause(error.cause),
      });
      await sleep(pauseMs, signal);
      continue;
    }
    if (store === undefined) return undefined;
    if (attempt > 1) logger.info('the store answers; start-up goes on', { tries: attempt });
    return store;
  }
  return undefined;
}

/** The try's result, or undefined once `signal` is aborted (the try goes on: whatever it opens is closed). */
function untilAborted(opening: Promise<Store>, signal: AbortSignal): Promise<Store | undefined> {
  const closeLate = () =>
    opening.then(
      (late) => late.close().catch(() => undefined),
      () => undefined,
    );
  return new Promise<Store | undefined>((resolve, reject) => {
    const onAbort = () => {
      void closeLate();
      resolve(undefined);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    opening.then(
      (store) => {
        signal.removeEventListener('abort', onAbort);
        resolve(store);
      },
      (error: Error) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function seconds(ms: number): string {
  const s = Math.max(1, Math.round(ms / 1000));
  return `${s} s`;
}

/** The driver's own words (a host and port, an SQLSTATE; never a password: pg does not quote it, and the logger masks it). */
function describeCause(cause: unknown): string | undefined {
  if (typeof cause !== 'object' || cause === null) return undefined;
  const { code, message } = cause as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' && message !== '' ? message : undefined;
  if (typeof code === 'string') return text ? `${code}: ${text}` : code;
  return text;
}
