import { createChanges } from '../../src/changes/changes';
import type { Disk } from '../../src/cloud/schemas';
import { createLogger } from '../../src/log';
import type { Store } from '../../src/store';
import { openSqliteStore } from '../../src/store/sqlite';
import { ALLOW_ALL, CLOUD_ACCOUNT } from '../helpers/door';
import { cloudAnswering } from '../helpers/fake-cloud';

// The door and the store together: a change whose instance never hears back
// from the cloud API stays `started` while its lease lives, and is settled as
// `interrupted` once it has expired, even when a newer change to the same
// server holds the lock by then (the record names the lease it ran under).

test('a change left hanging is settled as unknown (interrupted) once its own lease expires, not before, and not the newer one', async () => {
  const store = openSqliteStore(':memory:');
  let clock = 1_000_000;
  const hanging = new Promise<Disk>(() => undefined);
  const changes = createChanges({
    store,
    cloudAccount: CLOUD_ACCOUNT,
    policy: ALLOW_ALL,
    now: () => clock,
    lockTtlMs: 1000,
    // Every request hangs: its instance never hears back.
    cloud: cloudAnswering(() => hanging),
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
    expect(recovered.map((r) => [r.id, r.outcome])).toEqual([[first!.id, 'unknown']]);
    expect((await store.audit.latest(1))[0]).toMatchObject({ id: second!.id, outcome: 'started' });
  } finally {
    await store.close();
  }
});

describe('a change slower than its lock lives (VS_LOCK_TTL_MS), on a fake clock', () => {
  const TTL_MS = 1000;
  const goodForm = { disk_type: 'SSD', disk_size: '20' };
  beforeEach(() => {
    // Only the clock and timers are faked: the store's own promises run as usual.
    jest.useFakeTimers({ now: 1_000_000, doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
  });
  afterEach(() => jest.useRealTimers());

  /** The door over a store with audit posts on; the cloud call answers when the test says. */
  function slowChange(leases?: (real: Store['leases']) => Store['leases']) {
    const store = openSqliteStore(':memory:', { auditPosts: true });
    let answer!: (disk: Disk) => void;
    const call = new Promise<Disk>((resolve) => (answer = resolve));
    const logs: string[] = [];
    const changes = createChanges({
      store: leases ? { ...store, leases: leases(store.leases) } : store,
      cloudAccount: CLOUD_ACCOUNT,
      policy: ALLOW_ALL,
      now: () => Date.now(),
      lockTtlMs: TTL_MS,
      logger: createLogger({ level: 'warn', write: (line) => logs.push(line) }),
      cloud: cloudAnswering(() => call),
    });
    const result = changes.submit({ userId: 'UOPER', channelId: 'C1', submissionKey: `V${Math.random()}` }, 'disk_add', 42, goodForm);
    const disk: Disk = { id: 7, virtual_machine_id: 42, disk_size: 20, disk_type: 'SSD', built: false, locked: true };
    return { store, result, answer: () => answer(disk), logs };
  }
  const startedRecord = async (store: Store) => {
    for (let i = 0; i < 100 && (await store.audit.latest(1)).length === 0; i++) await new Promise((resolve) => setImmediate(resolve));
    return (await store.audit.latest(1))[0];
  };

  test('its instance keeps the lock while the call runs: no sweep settles it as interrupted, and its outcome is posted once', async () => {
    const { store, result, answer } = slowChange();
    try {
      expect(await startedRecord(store)).toMatchObject({ outcome: 'started' });
      // Five lifetimes of the lock pass while the cloud API is still answering.
      for (let i = 0; i < 5; i++) {
        await jest.advanceTimersByTimeAsync(TTL_MS);
        expect(await store.audit.recoverInterrupted(Date.now())).toEqual([]);
      }
      // Nobody else may change the server meanwhile.
      expect(await store.leases.take('vs:42', 'another-change', Date.now(), TTL_MS)).toBe(false);
      answer();
      expect((await result).outcome).toBe('succeeded');
      const posts = await store.outbox.claim('sender', Date.now(), 30_000, 10);
      expect(posts.map((p) => p.record.outcome)).toEqual(['scheduled']);
      // The lock is released, and a renewal that comes late does not bring it back.
      await jest.advanceTimersByTimeAsync(TTL_MS);
      expect(await store.leases.take('vs:42', 'another-change', Date.now(), TTL_MS)).toBe(true);
    } finally {
      await store.close();
    }
  });

  test('when the lock could not be kept, the sweep settles it as interrupted; its late answer is recorded and not posted a second time', async () => {
    // The store refuses every renewal (as when the instance stalls or cannot write for a whole lifetime of the lock).
    const { store, result, answer, logs } = slowChange((real) => ({ ...real, extend: () => Promise.reject(new Error('renewals fail')) }));
    try {
      const started = await startedRecord(store);
      await jest.advanceTimersByTimeAsync(TTL_MS);
      expect((await store.audit.recoverInterrupted(Date.now())).map((r) => [r.id, r.outcome])).toEqual([[started!.id, 'unknown']]);
      const [interrupted, ...none] = await store.outbox.claim('sender', Date.now(), 30_000, 10);
      expect(none).toEqual([]);
      expect(interrupted!.record.outcome).toBe('unknown');
      await store.outbox.markSent([interrupted!.id], Date.now());

      answer();
      expect((await result).outcome).toBe('succeeded');
      expect((await store.audit.latest(1))[0]).toMatchObject({ id: started!.id, outcome: 'scheduled' });
      await jest.advanceTimersByTimeAsync(TTL_MS);
      expect(await store.outbox.claim('sender', Date.now(), 30_000, 10)).toEqual([]);
      expect(logs.filter((l) => l.includes('could not renew the target lock'))).toHaveLength(1);
    } finally {
      await store.close();
    }
  });
});
