import { startSandbox, type Sandbox, type SandboxOptions } from '../src';

// The sandbox as this package's tests start it: on a free loopback port, serving the reads of the cloud API
// reference (docs/cloud-api.md at the repository root) as the bot's table of reads declares them. The bot's own
// table is served to the bot's own client in the repository's tests (test/cloud/sandbox-answers.test.ts); here the
// package stands alone. A handler of src/reads.ts without its row here does not compile.

/** The reads of docs/cloud-api.md: each one's path (`:name` segments are ids), its answer's wrappers, whether it is paged. */
export const API_READS = {
  listFirewallRules: { path: '/virtual_machines/:vsId/firewall_rules', answer: { kind: 'list', listName: 'firewall_rules', itemName: 'firewall_rule' } },
  listAutoscaling: {
    path: '/virtual_machines/:vsId/auto_scaling',
    answer: { kind: 'list', listName: 'auto_scaling_configurations', itemName: 'auto_scaling_configuration' },
  },
  getServer: { path: '/virtual_machines/:vsId', answer: { kind: 'object', name: 'virtual_machine' } },
  getServerStatus: { path: '/virtual_machines/:vsId/status', answer: { kind: 'object', name: 'virtual_machine' } },
  listDisks: { path: '/virtual_machines/:vsId/disks', answer: { kind: 'list', listName: 'disks', itemName: 'disk' } },
  listBackups: { path: '/virtual_machines/:vsId/backups', answer: { kind: 'list', listName: 'backups', itemName: 'backup' } },
  getBackup: { path: '/backups/:backupId', answer: { kind: 'object', name: 'backup' } },
  listTransactions: { path: '/virtual_machines/:vsId/transactions', answer: { kind: 'list', listName: 'transactions', itemName: 'transaction' }, paged: true },
  listAccountTransactions: { path: '/transactions', answer: { kind: 'list', listName: 'transactions', itemName: 'transaction' }, paged: true },
  getTransaction: { path: '/transactions/:transactionId', answer: { kind: 'object', name: 'transaction' } },
  listServers: { path: '/virtual_machines', answer: { kind: 'list', listName: 'virtual_machines', itemName: 'virtual_machine' }, paged: 'query' },
} as const;

/** A sandbox of one test's own, serving API_READS (close it in `finally`). */
export const startTestSandbox = (options: SandboxOptions = {}): Promise<Sandbox> => startSandbox({ reads: API_READS, port: 0, ...options });

/** A sandbox for the enclosing describe block (or file): started before its tests, closed after them, back to its seed before each unless `reset` is false. */
export function useSandbox(options: SandboxOptions = {}, { reset = true } = {}): Sandbox {
  const sandbox = {} as Sandbox;
  beforeAll(async () => {
    Object.assign(sandbox, await startTestSandbox(options));
  });
  afterAll(() => sandbox.close());
  if (reset) beforeEach(() => sandbox.reset());
  return sandbox;
}
