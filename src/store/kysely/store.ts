import { sql, type Kysely } from 'kysely';
import type { StoreTables } from '../schema';
import type { Store } from '../store';
import { storeError } from '../unavailable';
import { kyselyAgentTokens } from './agent-tokens';
import { kyselyApprovals } from './approvals';
import { kyselyAuditTrail } from './audit';
import { kyselyBreakGlass } from './break-glass';
import { kyselyChangeEvents } from './change-events';
import { kyselyClaims } from './claims';
import { kyselyFollows } from './follows';
import { kyselyFreeze } from './freeze';
import { kyselyLeases } from './leases';
import { kyselyOutbox } from './outbox';
import { kyselyRates } from './rates';
import { kyselyRetention } from './retention';
import { kyselyWatches } from './watches';
import type { Dialect, SliceDeps, StoreOptions } from './rows';

// The store contract in Kysely's typed queries, for both dialects: one file
// per slice, assembled here. Where the dialects differ (row locking, a
// function's name) the slice says so. On SQLite every transaction starts with
// a write, so that two processes on one file queue on SQLite's write lock
// (busy_timeout) instead of failing an upgrade.

export interface StoreHooks {
  /** Runs each call's work; SQLite serialises the handles one process has on one file through it. */
  serialize?: <T>(work: () => Promise<T>) => Promise<T>;
  onClose?: () => Promise<void>;
}

type Guard = <T>(work: () => Promise<T>) => Promise<T>;

/** The slice with each method's work run through `guard`. */
function guarded<S extends object>(slice: S, guard: Guard): S {
  const wrapped: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(slice)) {
    wrapped[name] = typeof method === 'function' ? (...args: unknown[]) => guard(() => (method as (...a: unknown[]) => Promise<unknown>)(...args)) : method;
  }
  return wrapped as S;
}

export function createKyselyStore(db: Kysely<StoreTables>, dialect: Dialect, options: StoreOptions, hooks: StoreHooks = {}): Store {
  let closed: Promise<void> | undefined;
  const serialize = hooks.serialize ?? (<T>(work: () => Promise<T>) => work());
  /** Every method's errors pass through here: an unreachable database becomes StoreUnavailableError. */
  const guard: Guard = async (work) => {
    try {
      return await serialize(work);
    } catch (error) {
      throw storeError(error, dialect);
    }
  };
  const deps: SliceDeps = { db, dialect, options };
  return {
    dialect,
    audit: guarded(kyselyAuditTrail(deps), guard),
    claims: guarded(kyselyClaims(deps), guard),
    leases: guarded(kyselyLeases(deps), guard),
    outbox: guarded(kyselyOutbox(deps), guard),
    retention: guarded(kyselyRetention(deps), guard),
    approvals: guarded(kyselyApprovals(deps), guard),
    freeze: guarded(kyselyFreeze(deps), guard),
    rates: guarded(kyselyRates(deps), guard),
    follows: guarded(kyselyFollows(deps), guard),
    breakGlass: guarded(kyselyBreakGlass(deps), guard),
    changeEvents: guarded(kyselyChangeEvents(deps), guard),
    agentTokens: guarded(kyselyAgentTokens(deps), guard),
    watches: guarded(kyselyWatches(deps), guard),
    ping: () =>
      guard(async () => {
        await sql`select 1`.execute(db);
      }),
    close: () => {
      closed ??= (async () => {
        await db.destroy();
        await hooks.onClose?.();
      })();
      return closed;
    },
  };
}
