import { performance } from 'node:perf_hooks';
import { createChanges, createPolicy, type ChangeAction, type ChangeCloud, type Changes } from '../src/changes';
import type { PreparedRequest } from '../src/cloud/prepared';
import type { Disk } from '../src/cloud/schemas';
import { loadConfig } from '../src/config';
import { createLogger } from '../src/log';
import type { Store } from '../src/store';

// The door's own overhead, as the benchmark measures it for the change path
// (scenario 9a) and for an approval click (scenario 13): the door in the bench
// process over a real store, the cloud API answering at once, and each step
// timed with the time spent in the cloud call taken out. What is left is the
// bot's own work around the call: policy, freeze, claim, lease, records.

export interface DoorBench {
  changes: Changes;
  /** Runs one step through the door: what it returned, and its own overhead (its time minus the cloud call's), in ms. */
  overheadOf: <T>(step: () => Promise<T>) => Promise<{ result: T; overheadMs: number }>;
}

const quiet = createLogger({ level: 'error', write: () => undefined });

/** `admins`: who may do everything; `approvals`: the changes that wait for a second person (VS_APPROVALS). */
export function doorBench(store: Store, options: { admins: readonly string[]; approvals?: readonly ChangeAction[] }): DoorBench {
  let cloudMs = 0;
  // The cloud API answers at once: what is measured is the door's own work around the call.
  const send = (request: PreparedRequest) => {
    const t = performance.now();
    const vsId = Number(/\/virtual_machines\/(\d+)\//.exec(request.path)?.[1]);
    const disk = { id: vsId, virtual_machine_id: vsId, disk_size: 20, disk_type: 'SSD', built: false, locked: true } as Disk;
    cloudMs += performance.now() - t;
    return Promise.resolve(disk);
  };
  // An answer for any request: the door only hands it to the disk row's audit words.
  const unread = () => Promise.reject(new Error('the disk path reads nothing first'));
  const cloud: ChangeCloud = { format: 'json', send: send as ChangeCloud['send'], getServer: unread, listTransactions: unread };
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
