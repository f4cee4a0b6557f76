import { performance } from 'node:perf_hooks';
import { createChanges, createPolicy, type ChangeAction, type ChangeCloud, type ChangeReads, type Changes } from '../src/changes';
import type { PreparedRequest } from '../src/cloud/prepared';
import type { Server } from '../src/cloud/schemas';
import { loadConfig } from '../src/config';
import { createLogger } from '../src/log';
import type { Store } from '../src/store';

// The door's own overhead, as the benchmark measures it for the change path
// (scenario 9a), for an approval click (scenario 13) and for the power path,
// followed (scenario 15a): the door in the bench process over a real store, the
// cloud API answering at once, and each step timed with the time spent in the
// cloud calls taken out. What is left is the bot's own work around the calls:
// policy, freeze, claim, lease, records (and, followed, the followed change
// written with the settled record).

export interface DoorBench {
  changes: Changes;
  /** Runs one step through the door: what it returned, and its own overhead (its time minus the cloud call's), in ms. */
  overheadOf: <T>(step: () => Promise<T>) => Promise<{ result: T; overheadMs: number }>;
}

const quiet = createLogger({ level: 'error', write: () => undefined });

/**
 * `admins`: who may do everything; `approvals`: the changes that wait for a second person (VS_APPROVALS); `follow`:
 * every change the cloud accepts is followed (the newest transaction id read first, the followed change written with
 * the settled record), as the bot composes it.
 */
export function doorBench(store: Store, options: { admins: readonly string[]; approvals?: readonly ChangeAction[]; follow?: boolean }): DoorBench {
  let cloudMs = 0;
  /** A cloud call answered at once, its (tiny) time counted as the cloud's. */
  const answered = <T>(answer: () => T): Promise<T> => {
    const t = performance.now();
    const value = answer();
    cloudMs += performance.now() - t;
    return Promise.resolve(value);
  };
  // The cloud API answers at once: what is measured is the door's own work around the call. A disk added, or a server
  // (on, locked by the action it now runs) for a power action.
  const send = (request: PreparedRequest) =>
    answered(() => {
      const vsId = Number(/\/virtual_machines\/(\d+)\//.exec(request.path)?.[1]);
      if (request.path.endsWith('/disks.json')) return { id: vsId, virtual_machine_id: vsId, disk_size: 20, disk_type: 'SSD', built: false, locked: true };
      return { id: vsId, label: 'bench', booted: true, locked: true } as Server;
    });
  // The server as it stands, before a power action: on, and unlocked.
  const getServer = (vsId: number) => answered(() => ({ id: vsId, label: 'bench', booted: true, locked: false, ip_addresses: [] }));
  const noTransactions = () => answered(() => [] as never[]);
  const unread = () => Promise.reject(new Error('no backup is read here'));
  const cloud = { format: 'json', send, getServer, listTransactions: noTransactions, getBackup: unread } as unknown as ChangeCloud;
  // What the door reads for following: the newest transaction id (none here).
  const reads = { listTransactions: noTransactions, listAccountTransactions: noTransactions } as unknown as ChangeReads;
  const policy = createPolicy(
    { admins: [...options.admins], operators: [], viewers: null, mutationChannels: null, groupCacheMs: 60_000, workflowReads: 'viewers' },
    { membersOf: () => Promise.resolve([]) },
  );
  const config = loadConfig({});
  const changes = createChanges({
    cloud,
    cloudAccount: { apiUrl: config.cloud.url, accountId: config.cloud.accountId },
    store,
    policy,
    logger: quiet,
    lockTtlMs: config.ops.lockTtlMs,
    ...(options.approvals ? { approvals: { actions: options.approvals, ttlMs: 60 * 60_000 } } : {}),
    ...(options.follow ? { follow: { intervalMs: 5000, reads } } : {}),
  });
  return {
    changes,
    overheadOf: async (step) => {
      const before = cloudMs;
      const t = performance.now();
      const result = await step();
      return { result, overheadMs: performance.now() - t - (cloudMs - before) };
    },
  };
}
