import { CHANGES, type ChangeAction, type ChangeCloud, type ChangeParams } from '../../src/changes/definitions';
import type { WireFormat } from '../../src/cloud/codec';
import type { PreparedRequest } from '../../src/cloud/prepared';
import type { Backup, Disk, Server, Transaction } from '../../src/cloud/schemas';

// The cloud API's edge for tests of the change door (src/changes) without HTTP: requests prepared by the changes'
// own rows, in the format of the fake, sent nowhere. Tests over the Bolt app use the sandbox on loopback instead.

/** A server that is on and unlocked: what a power action but a start finds fit. */
export const SERVER_ON = { id: 42, label: 'web-1', booted: true, locked: false, ip_addresses: [] } satisfies Server;

/** The reads a change's inspection makes, answered with `server` (and `transactions`, newest first). */
function reads(server: () => Promise<Server>, transactions: () => Promise<Transaction[]>): Pick<ChangeCloud, 'getServer' | 'listTransactions'> {
  return { getServer: server, listTransactions: transactions };
}

/**
 * A cloud edge in `format` whose every request is answered by `send` (a fake's answer is not checked against the
 * request's shape), and whose server reads answer SERVER_ON.
 */
export function cloudAnswering(send: (request: PreparedRequest) => Promise<unknown>, format: WireFormat = 'json'): ChangeCloud {
  return {
    format,
    send: send as ChangeCloud['send'],
    ...reads(
      () => Promise.resolve(SERVER_ON),
      () => Promise.resolve([]),
    ),
  };
}

type Behaviour<T> = (() => Promise<T>) | undefined;

/**
 * The network edge: a cloud client in `format` that records every request it is asked to send, exactly as prepared,
 * and answers as told; its server reads answer the server it is given (`onServer`; SERVER_ON until then), and are
 * counted in `reads`. `prepare` makes a change's request as the door does.
 */
export function fakeCloud(format: WireFormat = 'json') {
  const calls: PreparedRequest[] = [];
  const readsMade: string[] = [];
  let nextDisk: Behaviour<Disk>;
  let nextRestore: Behaviour<Backup>;
  let server: () => Promise<Server> = () => Promise.resolve(SERVER_ON);
  let transactions: Transaction[] = [];
  async function answer(request: PreparedRequest): Promise<Disk | Backup | Server> {
    calls.push(request);
    if (request.answer.kind === 'object' && request.answer.name === 'virtual_machine') {
      const vsId = Number(/^\/virtual_machines\/(\d+)\//.exec(request.path)?.[1]);
      return { ...(await server()), id: vsId, locked: true };
    }
    if (request.operation === 'add_disk') {
      if (nextDisk) return nextDisk();
      const vsId = Number(/^\/virtual_machines\/(\d+)\//.exec(request.path)?.[1]);
      const size = Number(/disk_size["<>:]+(\d+)/.exec(request.body ?? '')?.[1]);
      return { id: 900 + calls.length, virtual_machine_id: vsId, disk_size: size, disk_type: 'SSD', built: false, locked: true };
    }
    if (nextRestore) return nextRestore();
    return { id: Number(/^\/backups\/(\d+)\//.exec(request.path)?.[1]), target_id: 42, target_type: 'VirtualMachine', disk_id: 7 };
  }
  const cloud: ChangeCloud = {
    ...cloudAnswering(answer, format),
    ...reads(
      () => {
        readsMade.push('server');
        return server();
      },
      () => {
        readsMade.push('transactions');
        return Promise.resolve(transactions);
      },
    ),
  };
  return {
    cloud,
    calls,
    reads: readsMade,
    /** What the server reads answer from now on: a server (its power and lock), or a failure; and its transactions. */
    onServer: (next: Partial<Server> | (() => Promise<Server>), running: Transaction[] = []) => {
      server = typeof next === 'function' ? next : () => Promise.resolve({ ...SERVER_ON, ...next });
      transactions = running;
    },
    prepare: <A extends ChangeAction>(action: A, targetId: number, params: ChangeParams<A>) => CHANGES[action].request.prepare(format, targetId, params),
    onAddDisk: (b: Behaviour<Disk>) => {
      nextDisk = b;
    },
    onRestore: (b: Behaviour<Backup>) => {
      nextRestore = b;
    },
  };
}
