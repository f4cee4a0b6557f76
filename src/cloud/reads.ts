import type { z } from 'zod';
import { AutoscalingSlot, Backup, Disk, FirewallRule, ListedServer, ServerStatus, Transaction } from './schemas';
import { listOf, recordOf, Responses, type ListShape, type ObjectShape, type ResponseShape } from './shapes';

// The reads of the cloud API, one row each (docs/cloud-api.md). The client's
// read methods (their names, arguments and answers), the operation names its
// metrics carry, the XML elements read as lists and the sandbox's read routes
// all follow from these rows; one generic read path (client.ts) serves them:
// single-flight, retried, within the read connections, frozen. Adding a read is
// a row here (and its schema, in schemas.ts, if the record is new).

export interface ReadRow {
  /** As named in metrics and logs (`vs_chatops_cloud_requests_total{operation}`). */
  readonly operation: string;
  /** Relative to VS_API_URL, without the format suffix; each `:name` segment is an id argument of the method, in order. */
  readonly path: string;
  /** What it answers with, read by the same schema from JSON and XML. */
  readonly answer: ResponseShape;
  /** Elements inside its records that are lists (XML may leave type="array" out). */
  readonly xmlLists?: readonly string[];
  /**
   * Paged: the method takes `{ page, perPage }` after its ids. `true`: as transactions are (docs/cloud-api.md,
   * Transactions), `…/page/2.json?per_page=20`; `'query'`: as the account's servers are, `….json?page=2&per_page=100`.
   */
  readonly paged?: true | 'query';
  /** The row read instead when the cloud answers 404 for this path (an older cloud without it); its answer is read by this row's shape. */
  readonly insteadWhenMissing?: string;
  /**
   * The last answer of each of its paths is kept (its text's SHA-256 and what it decoded to, frozen through): an
   * answer of the same text is not decoded again, the same value is given back. For a list read over and over and
   * mostly unchanged (the watch reads the account's servers every interval): an unchanged page costs a digest, no
   * parsing and no schema check, and the name index sees the same records again.
   */
  readonly keepsLast?: true;
}

/** Which page of a paged read: `…/page/2` and `?per_page=20`; the cloud's first page, of its own size, when absent. */
export interface ReadPage {
  page?: number;
  perPage?: number;
}

export const READS = {
  listFirewallRules: {
    operation: 'list_firewall_rules',
    path: '/virtual_machines/:vsId/firewall_rules',
    answer: listOf('firewall_rules', 'firewall_rule', FirewallRule),
  },
  listAutoscaling: {
    operation: 'list_autoscaling',
    path: '/virtual_machines/:vsId/auto_scaling',
    answer: listOf('auto_scaling_configurations', 'auto_scaling_configuration', AutoscalingSlot),
  },
  getServer: {
    operation: 'get_server',
    path: '/virtual_machines/:vsId',
    answer: Responses.server,
    xmlLists: ['ip_addresses'],
  },
  getServerStatus: {
    operation: 'get_server_status',
    path: '/virtual_machines/:vsId/status',
    answer: recordOf('virtual_machine', ServerStatus),
    insteadWhenMissing: 'getServer',
  },
  listDisks: {
    operation: 'list_disks',
    path: '/virtual_machines/:vsId/disks',
    answer: listOf('disks', 'disk', Disk),
  },
  listBackups: {
    operation: 'list_backups',
    path: '/virtual_machines/:vsId/backups',
    answer: listOf('backups', 'backup', Backup),
  },
  getBackup: {
    operation: 'get_backup',
    path: '/backups/:backupId',
    answer: Responses.backup,
  },
  listTransactions: {
    operation: 'list_transactions',
    path: '/virtual_machines/:vsId/transactions',
    answer: listOf('transactions', 'transaction', Transaction),
    paged: true,
  },
  listAccountTransactions: {
    operation: 'list_account_transactions',
    path: '/transactions',
    answer: listOf('transactions', 'transaction', Transaction),
    paged: true,
  },
  getTransaction: {
    operation: 'get_transaction',
    path: '/transactions/:transactionId',
    answer: Responses.transaction,
  },
  /**
   * The account's servers (docs/cloud-api.md, The account's servers): paged on newer clouds, the whole list on older
   * ones, which ignore the page. Read from the listed server's allow-list (what the name index and the watch use):
   * never a password. The name index and the watch's poll read it.
   */
  listServers: {
    operation: 'list_servers',
    path: '/virtual_machines',
    answer: listOf('virtual_machines', 'virtual_machine', ListedServer),
    xmlLists: ['ip_addresses'],
    paged: 'query',
    keepsLast: true,
  },
} as const satisfies Record<string, ReadRow>;

export type ReadName = keyof typeof READS;
/** The reads' names in metrics and logs. */
export type ReadOperation = (typeof READS)[ReadName]['operation'];

/** Elements the XML reader takes as lists even without type="array": every list a read answers with, and the lists inside records. */
export const XML_LIST_ELEMENTS: readonly string[] = [
  ...new Set(
    Object.values(READS as Record<string, ReadRow>).flatMap((row) => [...(row.answer.kind === 'list' ? [row.answer.listName] : []), ...(row.xmlLists ?? [])]),
  ),
];

/** What a caller gets: shared with every caller of the same read in flight, so frozen (lists shallowly, records deeply). */
export type Frozen<T> = T extends readonly (infer U)[] ? ReadonlyArray<Frozen<U>> : T extends object ? { readonly [K in keyof T]: Frozen<T[K]> } : T;

/** The id arguments of a path: one number per `:name` segment, in order. */
type IdsOf<P extends string> = P extends `${string}/:${string}/${infer Rest}`
  ? [id: number, ...IdsOf<`/${Rest}`>]
  : P extends `${string}/:${string}`
    ? [id: number]
    : [];

type ArgsOf<R extends ReadRow> = R extends { paged: true | 'query' } ? [...IdsOf<R['path']>, page?: ReadPage] : IdsOf<R['path']>;

type AnswerOf<S extends ResponseShape> = S extends ListShape<infer T> ? Frozen<z.output<T>[]> : S extends ObjectShape<infer T> ? Frozen<z.output<T>> : never;

/** One method per row, named as the row: `listDisks(vsId)`, `getBackup(backupId)`, `listTransactions(vsId, { page })`. Every failure is a CloudError. */
export type ReadMethods = { [K in ReadName]: (...args: ArgsOf<(typeof READS)[K]>) => Promise<AnswerOf<(typeof READS)[K]['answer']>> };

// A row read instead must be a row, answering under the same wrapper, or its answer could not be read by the other's shape.
for (const [name, row] of Object.entries(READS as Record<string, ReadRow>)) {
  if (row.insteadWhenMissing === undefined) continue;
  const instead = (READS as Record<string, ReadRow>)[row.insteadWhenMissing];
  if (instead === undefined || instead.answer.kind !== 'object' || row.answer.kind !== 'object' || instead.answer.name !== row.answer.name) {
    throw new Error(`READS.${name}.insteadWhenMissing must name a read answering with the same record, not "${row.insteadWhenMissing}"`);
  }
}
