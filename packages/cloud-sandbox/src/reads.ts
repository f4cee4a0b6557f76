import * as render from './render';
import type { SandboxState } from './state';
import type { SandboxReadRow } from './types';

// What the sandbox answers for each read of the bot's table (READS of
// src/cloud/reads.ts, given to startSandbox as `reads`): a handler per row,
// by the row's name. The route (the row's path, in JSON and XML, paged when the
// row is) and the wire shape (the row's wrappers) come from the row; a handler
// says only which records. A row with no handler here stops the sandbox from
// starting, and does not compile at the call (SandboxReadsFor).

/** What a read asks for: its ids in the path's order, its page, and the query (`detailed`, `per_page`). */
export interface ReadCall {
  ids: number[];
  page: number;
  query: URLSearchParams;
}

export type ReadResult =
  /** A record, or a list of them; `xmlFields`: the only fields the XML form carries, in its order. */
  | { records: render.WireRecord | render.WireRecord[]; xmlFields?: readonly string[] }
  /** What was not found, for the 404: "VirtualMachine 42". */
  | { missing: string };

export type ReadHandler = (state: SandboxState, call: ReadCall) => ReadResult;

const vm = (id: number | undefined) => `VirtualMachine ${id}`;

/** 10 a page, as the API pages them; `per_page` from 1 to 100. */
function page<T>(items: T[], call: ReadCall): T[] {
  const perPage = Math.min(100, Math.max(1, Number(call.query.get('per_page')) || 10));
  return items.slice((call.page - 1) * perPage, call.page * perPage);
}

export const READ_HANDLERS = {
  listFirewallRules: (state, { ids: [id] }) => {
    const server = state.server(id ?? 0);
    return server ? { records: render.firewallRules(server.firewallRules), xmlFields: render.FIREWALL_XML_FIELDS } : { missing: vm(id) };
  },
  listAutoscaling: (state, { ids: [id] }) => {
    const server = state.server(id ?? 0);
    return server ? { records: render.autoscaling(server) } : { missing: vm(id) };
  },
  getServer: (state, { ids: [id] }) => {
    const server = state.server(id ?? 0);
    return server ? { records: render.server(state, server) } : { missing: vm(id) };
  },
  getServerStatus: (state, { ids: [id] }) => {
    const server = state.server(id ?? 0);
    return server ? { records: render.serverStatus(state, server) } : { missing: vm(id) };
  },
  listDisks: (state, { ids: [id] }) => {
    const server = state.server(id ?? 0);
    return server ? { records: server.disks.map((d) => render.disk(state, d)) } : { missing: vm(id) };
  },
  listBackups: (state, { ids: [id] }) => {
    const server = state.server(id ?? 0);
    return server ? { records: state.backupsOf(server).map((b) => render.backup(state, b)) } : { missing: vm(id) };
  },
  getBackup: (state, { ids: [id] }) => {
    const backup = state.backup(id ?? 0);
    return backup ? { records: render.backup(state, backup) } : { missing: `Backup ${id}` };
  },
  listTransactions: (state, call) => {
    const server = state.server(call.ids[0] ?? 0);
    if (!server) return { missing: vm(call.ids[0]) };
    const detailed = call.query.has('detailed');
    return { records: page(state.transactionsOf(server), call).map((t) => render.transaction(t, detailed)) };
  },
  listAccountTransactions: (state, call) => {
    const detailed = call.query.has('detailed');
    return { records: page(state.allTransactions(), call).map((t) => render.transaction(t, detailed)) };
  },
  getTransaction: (state, call) => {
    const transaction = state.transaction(call.ids[0] ?? 0);
    return transaction ? { records: render.transaction(transaction, call.query.has('detailed')) } : { missing: `Transaction ${call.ids[0]}` };
  },
  /** The account's servers, by id: paged by `?page=N&per_page=M` (10 a page, as the API pages them). */
  listServers: (state, call) => {
    const servers = state.serverIds().flatMap((id) => state.server(id) ?? []);
    const pageNumber = Math.max(1, Number(call.query.get('page')) || call.page);
    return { records: page(servers, { ...call, page: pageNumber }).map((server) => render.server(state, server)) };
  },
} satisfies Record<string, ReadHandler>;

/** The reads the sandbox can serve, by the bot's names for them. */
export type SandboxReadName = keyof typeof READ_HANDLERS;

/**
 * The `reads` a caller may pass: a row for every read the sandbox serves, and no row it could not serve. A new row
 * in the bot's table without a handler here makes every startSandbox({ reads: READS }) fail to compile.
 */
export type SandboxReadsFor<R> = R &
  Record<SandboxReadName, SandboxReadRow> & { [K in Exclude<keyof R, SandboxReadName>]: { 'no handler in packages/cloud-sandbox/src/reads.ts': never } };
