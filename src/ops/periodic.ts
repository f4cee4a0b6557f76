import type { Logger } from '../log';
import type { Leases } from '../store';

// A job that runs every `intervalMs` (or sooner when woken), optionally on one
// instance at a time: it runs only while this instance holds a lease in the
// store, renewed on each round. The lease outlives a round by a margin, so a
// dead holder is replaced once its lease expires; a stopped one gives it back.

export interface PeriodicOptions {
  name: string;
  intervalMs: number;
  run: () => Promise<void>;
  logger: Logger;
  /** Set: one instance at a time, the one holding this lease. */
  lease?: { leases: Pick<Leases, 'take' | 'release'>; name: string; owner: string; ttlMs: number };
  now?: () => number;
}

export interface Periodic {
  /** Runs a round soon (if this instance holds the lease). */
  wake(): void;
  /** Whether the last round held the lease (always true without one). */
  readonly leading: boolean;
  /** Waits for the running round, gives the lease back. */
  stop(): Promise<void>;
}

export function startPeriodic(options: PeriodicOptions): Periodic {
  const now = options.now ?? (() => Date.now());
  const log = options.logger;
  let stopped = false;
  let leading = options.lease === undefined;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let failing = false;

  const schedule = (ms: number) => {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(tick, ms);
    timer.unref();
  };

  async function round(): Promise<void> {
    const lease = options.lease;
    if (lease) {
      try {
        const held = await lease.leases.take(lease.name, lease.owner, now(), lease.ttlMs);
        if (held !== leading) log.info(held ? 'took the lease; running here' : 'another instance holds the lease', { job: options.name });
        leading = held;
      } catch {
        // The store is unreachable: nobody can hold the lease; the store monitor reports the outage.
        leading = false;
        return;
      }
      if (!leading) return;
    }
    try {
      await options.run();
      if (failing) log.info('periodic job works again', { job: options.name });
      failing = false;
    } catch (error) {
      if (!failing) log.warn('periodic job failed; it runs again on its next round', { job: options.name, error });
      failing = true;
    }
  }

  function tick(): void {
    timer = undefined;
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = round().finally(() => {
      running = undefined;
      if (again) {
        again = false;
        schedule(0);
      } else schedule(options.intervalMs);
    });
  }

  schedule(0);
  return {
    wake() {
      if (stopped) return;
      if (running) again = true;
      else schedule(0);
    },
    get leading() {
      return leading;
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running?.catch(() => undefined);
      const lease = options.lease;
      if (lease && leading) await lease.leases.release(lease.name, lease.owner).catch(() => undefined);
      leading = false;
    },
  };
}
