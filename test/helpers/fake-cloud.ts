import { CHANGES, type ChangeAction, type ChangeCloud, type ChangeParams } from '../../src/changes/definitions';
import type { WireFormat } from '../../src/cloud/codec';
import type { PreparedRequest } from '../../src/cloud/prepared';
import type { Backup, Disk } from '../../src/cloud/schemas';

// The cloud API's edge for tests of the change door (src/changes) without HTTP: requests prepared by the changes'
// own rows, in the format of the fake, sent nowhere. Tests over the Bolt app use the sandbox on loopback instead.

/** A cloud edge in `format` whose every request is answered by `send` (a fake's answer is not checked against the request's shape). */
export function cloudAnswering(send: (request: PreparedRequest) => Promise<unknown>, format: WireFormat = 'json'): ChangeCloud {
  return { format, send: send as ChangeCloud['send'] };
}

type Behaviour<T> = (() => Promise<T>) | undefined;

/**
 * The network edge: a cloud client in `format` that records every request it is asked to send, exactly as prepared,
 * and answers as told. `prepare` makes a change's request as the door does.
 */
export function fakeCloud(format: WireFormat = 'json') {
  const calls: PreparedRequest[] = [];
  let nextDisk: Behaviour<Disk>;
  let nextRestore: Behaviour<Backup>;
  async function answer(request: PreparedRequest): Promise<Disk | Backup> {
    calls.push(request);
    if (request.operation === 'add_disk') {
      if (nextDisk) return nextDisk();
      const vsId = Number(/^\/virtual_machines\/(\d+)\//.exec(request.path)?.[1]);
      const size = Number(/disk_size["<>:]+(\d+)/.exec(request.body ?? '')?.[1]);
      return { id: 900 + calls.length, virtual_machine_id: vsId, disk_size: size, disk_type: 'SSD', built: false, locked: true };
    }
    if (nextRestore) return nextRestore();
    return { id: Number(/^\/backups\/(\d+)\//.exec(request.path)?.[1]), target_id: 42, target_type: 'VirtualMachine', disk_id: 7 };
  }
  const cloud = cloudAnswering(answer, format);
  return {
    cloud,
    calls,
    prepare: <A extends ChangeAction>(action: A, targetId: number, params: ChangeParams<A>) => CHANGES[action].request.prepare(format, targetId, params),
    onAddDisk: (b: Behaviour<Disk>) => {
      nextDisk = b;
    },
    onRestore: (b: Behaviour<Backup>) => {
      nextRestore = b;
    },
  };
}
