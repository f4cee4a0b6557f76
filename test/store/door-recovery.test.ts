import { createChanges } from '../../src/changes/changes';
import type { Policy } from '../../src/changes/policy';
import type { Disk } from '../../src/cloud/schemas';
import { openSqliteStore } from '../../src/store/sqlite';

// The door and the store together: a change whose instance never hears back
// from the cloud API stays `started` while its lease lives, and is settled as
// `interrupted` once it has expired, even when a newer change to the same
// server holds the lock by then (the record names the lease it ran under).

const policy: Policy = {
  changeRolesConfigured: true,
  roleOf: () => Promise.resolve('admin'),
  can: () => Promise.resolve({ allowed: true, action: 'disk_add', role: 'admin', needed: 'operator', denial: null }),
  allows: () => [],
};

test('a change left hanging is settled as interrupted once its own lease expires, not before, and not the newer one', async () => {
  const store = openSqliteStore(':memory:');
  let clock = 1_000_000;
  const hanging = new Promise<Disk>(() => undefined);
  const changes = createChanges({
    store,
    policy,
    now: () => clock,
    lockTtlMs: 1000,
    cloud: { addDisk: () => hanging, restoreBackup: () => new Promise(() => undefined) },
  });
  try {
    void changes.submit({ userId: 'UOPER', channelId: 'C1', submissionKey: 'V1' }, 'disk_add', 42, { disk_type: 'SSD', disk_size: '20' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const [first] = await store.audit.latest(1);
    expect(first).toMatchObject({ outcome: 'started', target: 'vs:42' });
    expect(await store.audit.recoverInterrupted(clock + 999)).toEqual([]);

    // The lease ran out; a newer change to VS 42 takes the lock over and hangs too.
    clock += 1500;
    void changes.submit({ userId: 'UOPER', channelId: 'C1', submissionKey: 'V2' }, 'disk_add', 42, { disk_type: 'SSD', disk_size: '30' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const [second] = await store.audit.latest(1);
    expect(second).toMatchObject({ outcome: 'started', target: 'vs:42', params: { disk_size: 30 } });

    const recovered = await store.audit.recoverInterrupted(clock);
    expect(recovered.map((r) => [r.id, r.outcome])).toEqual([[first!.id, 'interrupted']]);
    expect((await store.audit.latest(1))[0]).toMatchObject({ id: second!.id, outcome: 'started' });
  } finally {
    await store.close();
  }
});
