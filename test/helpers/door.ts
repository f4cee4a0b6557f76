import { createChanges, type ChangesDeps } from '../../src/changes/changes';
import { createPolicy, type Policy } from '../../src/changes/policy';
import type { WireFormat } from '../../src/cloud/codec';
import type { Config } from '../../src/config';
import { createLogger } from '../../src/log';
import type { AuditRecord, Store } from '../../src/store';
import { openSqliteStore } from '../../src/store/sqlite';
import { fakeCloud } from './fake-cloud';

// The change door (src/changes) built as the bot builds it, for tests of the
// door without Slack: the real policy, SQLite in memory, the fake cloud edge
// (requests prepared by the real client's code, sent nowhere), on a clock the
// test moves.

/** Where the door's clock starts: 2023-11-14T22:13:20Z. */
export const T0 = 1_700_000_000_000;

/** The cloud the door's requests are prepared for (and sent to): VS_API_URL and VS_ACCOUNT_ID. */
export const CLOUD_ACCOUNT = { apiUrl: 'https://cloud.example.com/api', accountId: 'acct-1' };

/** A policy that lets anyone make any change as an admin: for tests of what the door does once the policy said yes. */
export const ALLOW_ALL: Policy = {
  changeRolesConfigured: true,
  workflowsMayRead: true,
  roleOf: () => Promise.resolve('admin'),
  standing: () => Promise.resolve({ role: 'admin', configured: 'admin' }),
  can: (_userId, action) => Promise.resolve({ allowed: true, action, role: 'admin', needed: 'operator', denial: null }),
  allows: () => [],
  holders: () => [],
};

export interface DoorOptions extends Partial<ChangesDeps> {
  roles: Config['roles'];
  /** The members of each user group named in `roles`, read at each look-up: a test may change them (a role lost). */
  groups?: Record<string, string[]>;
  /** VS_API_FORMAT of the requests the fake cloud prepares. */
  format?: WireFormat;
}

export type Door = ReturnType<typeof openDoor>;

/**
 * A door over its own store (close `door.store` after the test). `calls` are the requests sent to the cloud, `recorded`
 * the records the door told of, `logLines` what it logged; `advance(ms)` moves its clock. Options past `roles`,
 * `groups` and `format` replace the door's parts (a policy, onRecorded, approvals…).
 */
export function openDoor({ roles, groups = {}, format, ...parts }: DoorOptions) {
  const fake = fakeCloud(format);
  const store: Store = openSqliteStore(':memory:');
  const logLines: string[] = [];
  const logger = createLogger({ level: 'debug', write: (line) => logLines.push(line) });
  let clock = T0;
  const now = () => clock;
  const recorded: AuditRecord[] = [];
  const deps: ChangesDeps = {
    cloud: fake.cloud,
    cloudAccount: CLOUD_ACCOUNT,
    store,
    policy: createPolicy(roles, { membersOf: async (id) => groups[id] ?? [] }, { now, logger }),
    now,
    logger,
    onRecorded: (record) => recorded.push(record),
    lockTtlMs: 60_000,
    ...parts,
  };
  return {
    ...fake,
    store,
    groups,
    deps,
    changes: createChanges(deps),
    recorded,
    logLines,
    now,
    advance: (ms: number) => {
      clock += ms;
    },
    /** The same door over a store whose audit trail's `methods` are replaced (a store failing at one step). */
    withAudit: (methods: Partial<Store['audit']>) => createChanges({ ...deps, store: { ...store, audit: { ...store.audit, ...methods } } }),
  };
}
