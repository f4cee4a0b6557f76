import type { Logger } from '../log';
import type { Leases } from '../store';

// While a change's cloud API call runs, the door keeps its target lease: it is
// moved forward every third of VS_LOCK_TTL_MS. So however slow the call, a
// live instance's change is never taken for a dead one's (settled as
// `interrupted` while it still runs, another change let in on its target);
// the TTL only says how soon a dead instance's change is recovered. When the
// instance dies (or stalls, or cannot reach the store for a whole TTL), the
// renewals stop and the lease runs out as before; should that change then
// complete, its record takes the outcome and is still posted once
// (AuditTrail.complete). A renewal that lands after the change released its
// lease changes nothing: leases.extend never makes a lease that is not there.

export interface LeaseKeeper {
  /** No renewal after this one. */
  stop(): void;
}

export function keepLease(
  leases: Pick<Leases, 'extend'>,
  lease: { target: string; owner: string },
  ttlMs: number,
  now: () => number,
  log: Pick<Logger, 'warn' | 'error'>,
): LeaseKeeper {
  const everyMs = Math.max(1, Math.floor(ttlMs / 3));
  let stopped = false;
  let failing = false;
  let timer: NodeJS.Timeout | undefined;

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => void renew(), everyMs);
    timer.unref();
  };
  const renew = async () => {
    try {
      const kept = await leases.extend(lease.target, lease.owner, now(), ttlMs);
      failing = false;
      if (!kept && !stopped) {
        // Taken over after it ran out (renewals failed for a whole TTL): renewing is no use any more.
        log.error('the target lock ran out and was taken during the cloud API call: another change to this target may run meanwhile', { ttlMs });
        return;
      }
    } catch (error) {
      if (!failing && !stopped) log.warn('could not renew the target lock during the cloud API call; trying again', { error, ttlMs });
      failing = true;
    }
    schedule();
  };
  schedule();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
