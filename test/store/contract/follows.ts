import type { FollowProgress, NewFollow, Store } from '../../../src/store';
import { entry } from './entries';
import type { ContractStores } from './types';

// Followed changes: started with the settle of their record, taken by one owner at a time under a lease that
// expires, their progress saved by that owner only, ended once with the record's cloud outcome (posted again).

const LEASE_MS = 30_000;

/** What the door hands over of a disk added to VS 42, accepted at 1000 ms and due at 6000. */
const FOLLOW: Omit<NewFollow, 'recordId'> = {
  action: 'disk_add',
  target: 'vs:42',
  subject: { serverId: 42, parentType: 'Disk', parentId: 110, actions: ['build_disk', 'format_disk'], facts: { diskSize: 20 } },
  requestedBy: 'UOPER',
  approvedBy: 'UADMIN',
  channelId: 'CINCIDENT',
  baselineId: 6,
  acceptedAtMs: 1000,
  nextPollAtMs: 6000,
  intervalMs: 5000,
};

/** A change accepted at `at` (its record written first), to follow from `nextPollAtMs`. */
async function accepted(store: Store, overrides: Partial<Omit<NewFollow, 'recordId'>> = {}): Promise<number> {
  const started = await store.audit.beginChange({
    submissionKey: `V-${Math.random()}`,
    at: '2024-05-01T10:00:00.000Z',
    lease: { target: overrides.target ?? 'vs:42', owner: 'door', nowMs: 0, ttlMs: 60_000 },
    started: entry({ outcome: 'started', target: overrides.target ?? 'vs:42' }),
  });
  if (started.outcome !== 'started') throw new Error('not started');
  const record = await store.audit.complete(
    started.record.id,
    { outcome: 'scheduled', apiStatus: 201, durationMs: 5, detail: 'disk 110 (20 GB) on VS 42' },
    { target: overrides.target ?? 'vs:42', owner: 'door' },
    { ...FOLLOW, ...overrides },
  );
  return record.id;
}

const progress = (overrides: Partial<FollowProgress> = {}): FollowProgress => ({
  status: 'running',
  transactionIds: [7],
  step: 'build_disk',
  finalState: null,
  polls: 1,
  intervalMs: 5000,
  nextPollAtMs: 11_000,
  endedAtMs: null,
  told: 'scheduled',
  repliedAtMs: null,
  tellAttempts: 0,
  ...overrides,
});

export function followsContract({ one, instances }: ContractStores): void {
  test('a change settled as accepted is followed from then on, with all any instance needs to go on, and survives reopening', async () => {
    const [a, b] = (await instances(2)) as [Store, Store];
    const id = await accepted(a);
    const followed = await b.follows.get(id);
    expect(followed).toEqual({
      ...FOLLOW,
      recordId: id,
      messageTs: null,
      status: 'scheduled',
      transactionIds: [],
      step: null,
      finalState: null,
      polls: 0,
      owner: null,
      leaseUntilMs: null,
      endedAtMs: null,
      told: null,
      repliedAtMs: null,
      tellAttempts: 0,
    });
    await b.follows.setMessage(id, 'CINCIDENT', '1714557600.000200');
    expect(await a.follows.get(id)).toMatchObject({ channelId: 'CINCIDENT', messageTs: '1714557600.000200', told: 'scheduled' });
    expect(await a.follows.get(id + 1000)).toBeNull();
    // The record says what the cloud accepted; its cloud outcome is not known yet.
    expect((await a.audit.latest(1))[0]).toMatchObject({ id, outcome: 'scheduled', cloudOutcome: null, transactionIds: null });
  });

  test('one owner at a time: a due change is taken by one, kept by its saves, and taken over once its lease expires', async () => {
    const store = await one();
    const id = await accepted(store);
    expect(await store.follows.claimDue('a', 5999, LEASE_MS, 10)).toEqual([]);
    expect((await store.follows.claimDue('a', 6000, LEASE_MS, 10)).map((f) => [f.recordId, f.owner, f.leaseUntilMs])).toEqual([[id, 'a', 36_000]]);
    // Still due, but a's: b cannot take it.
    expect(await store.follows.claimDue('b', 7000, LEASE_MS, 10)).toEqual([]);
    // Pending, its record is still scheduled; running, it is running (as the record's outcome says from then on).
    expect(await store.follows.save(id, 'a', progress({ status: 'pending' }), LEASE_MS)).toBe(true);
    expect(await store.audit.get(id)).toMatchObject({ outcome: 'scheduled' });
    expect(await store.follows.save(id, 'a', progress(), LEASE_MS)).toBe(true);
    expect(await store.audit.get(id)).toMatchObject({ outcome: 'running' });
    const saved = { status: 'running', transactionIds: [7], step: 'build_disk', polls: 1, nextPollAtMs: 11_000, leaseUntilMs: 41_000 };
    expect(await store.follows.get(id)).toMatchObject(saved);
    // Due at 11 000 and a's until 41 000: a takes it again, b does not.
    expect(await store.follows.claimDue('b', 11_000, LEASE_MS, 10)).toEqual([]);
    expect(await store.follows.claimDue('a', 11_000, LEASE_MS, 10)).toHaveLength(1);
    // a dies holding it: once its lease is over, b takes it over, and a's late save changes nothing.
    expect(await store.follows.claimDue('b', 40_999, LEASE_MS, 10)).toEqual([]);
    expect((await store.follows.claimDue('b', 41_000, LEASE_MS, 10)).map((f) => f.owner)).toEqual(['b']);
    expect(await store.follows.save(id, 'a', progress({ polls: 9 }), LEASE_MS)).toBe(false);
    expect(await store.follows.get(id)).toMatchObject({ polls: 1, owner: 'b' });
  });

  test('its owner keeps the lease while it works (a slow poll): nobody takes it over meanwhile; a former owner cannot renew', async () => {
    const store = await one();
    const id = await accepted(store);
    await store.follows.claimDue('a', 6000, LEASE_MS, 10);
    expect(await store.follows.renew(id, 'a', 60_000)).toBe(true);
    expect(await store.follows.claimDue('b', 40_000, LEASE_MS, 10)).toEqual([]);
    expect((await store.follows.claimDue('b', 60_000, LEASE_MS, 10)).map((f) => f.owner)).toEqual(['b']);
    expect(await store.follows.renew(id, 'a', 200_000)).toBe(false);
    expect(await store.follows.get(id)).toMatchObject({ owner: 'b', leaseUntilMs: 90_000 });
  });

  test('the reply is marked once, by its owner, before it is posted: a second mark, or another instance, is refused', async () => {
    const [a, b] = (await instances(2)) as [Store, Store];
    const id = await accepted(a);
    await a.follows.claimDue('a', 6000, LEASE_MS, 10);
    expect(await b.follows.markReplied(id, 'b', 7000)).toBe(false);
    const marks = await Promise.all([a.follows.markReplied(id, 'a', 7000), b.follows.markReplied(id, 'a', 7001)]);
    expect(marks.sort()).toEqual([false, true]);
    expect((await a.follows.get(id))!.repliedAtMs).toBeGreaterThanOrEqual(7000);
    // Marked, it is never due again: no instance takes it to reply.
    expect(await b.follows.claimDue('b', 100_000, LEASE_MS, 10)).toEqual([]);
  });

  test('a stopping owner gives its changes back: another takes them at once', async () => {
    const store = await one();
    const id = await accepted(store);
    await store.follows.claimDue('a', 6000, LEASE_MS, 10);
    expect(await store.follows.release('a')).toBe(1);
    expect((await store.follows.claimDue('b', 6001, LEASE_MS, 10)).map((f) => f.recordId)).toEqual([id]);
  });

  test('soonest due first, at most `limit`; a change told to its end is never due again', async () => {
    const store = await one();
    const late = await accepted(store, { nextPollAtMs: 9000 });
    const soon = await accepted(store, { nextPollAtMs: 7000 });
    const third = await accepted(store, { nextPollAtMs: 8000 });
    expect((await store.follows.claimDue('a', 10_000, LEASE_MS, 2)).map((f) => f.recordId)).toEqual([soon, third]);
    const toldToTheEnd = progress({ status: 'complete', nextPollAtMs: 10_000, endedAtMs: 10_000, told: 'complete', repliedAtMs: 10_000 });
    await store.follows.save(soon, 'a', toldToTheEnd, LEASE_MS);
    expect((await store.follows.claimDue('a', 20_000, LEASE_MS, 10)).map((f) => f.recordId)).toEqual([third, late]);
  });

  test('ending gives the record its outcome (failed in the cloud), its last step and the transaction ids, posted again; once, only by its owner', async () => {
    const store = await one();
    const id = await accepted(store);
    await store.outbox.markSent(
      (await store.outbox.claim('sender', 0, 1000, 10)).map((p) => p.id),
      1,
    );
    await store.follows.claimDue('a', 6000, LEASE_MS, 10);
    const final = progress({ status: 'failed', transactionIds: [7, 8], step: 'format_disk', endedAtMs: 12_000, nextPollAtMs: 12_000 });
    expect(await store.follows.end(id, 'b', { ...final, status: 'failed' }, LEASE_MS)).toBeNull();
    const record = await store.follows.end(id, 'a', { ...final, status: 'failed' }, LEASE_MS);
    expect(record).toMatchObject({ id, outcome: 'failed', cloudOutcome: 'failed', cloudStep: 'format_disk', transactionIds: [7, 8] });
    expect(await store.follows.end(id, 'a', { ...final, status: 'complete' }, LEASE_MS)).toBeNull();
    expect((await store.audit.latest(1))[0]).toMatchObject({ outcome: 'failed', cloudOutcome: 'failed', transactionIds: [7, 8] });
    expect(await store.follows.get(id)).toMatchObject({ status: 'failed', step: 'format_disk', endedAtMs: 12_000 });
    const posts = await store.outbox.claim('sender', 13_000, 1000, 10);
    expect(posts.map((p) => [p.record.id, p.record.outcome, p.record.cloudOutcome])).toEqual([[id, 'failed', 'failed']]);
  });

  test('complete in the cloud is done, cancelled cancelled, no longer followed unknown', async () => {
    const store = await one();
    for (const [status, outcome] of [
      ['complete', 'done'],
      ['cancelled', 'cancelled'],
      ['unknown', 'unknown'],
    ] as const) {
      const id = await accepted(store);
      await store.follows.claimDue('a', 6000, LEASE_MS, 10);
      const record = await store.follows.end(id, 'a', { ...progress({ endedAtMs: 12_000 }), status }, LEASE_MS);
      expect(record).toMatchObject({ id, outcome, cloudOutcome: status, cloudStep: 'build_disk' });
    }
  });

  test('three instances claiming the same due changes at once: each is taken by exactly one', async () => {
    const stores = await instances(3);
    const ids = await Promise.all(Array.from({ length: 12 }, () => accepted(stores[0]!)));
    const taken = await Promise.all(Array.from({ length: 9 }, (_, i) => stores[i % 3]!.follows.claimDue(`owner-${i}`, 6000, LEASE_MS, 4)));
    const all = taken.flat().map((f) => f.recordId);
    expect(all.sort((x, y) => x - y)).toEqual([...ids].sort((x, y) => x - y));
  });

  test('a followed change goes with its audit record when retention deletes it', async () => {
    const store = await one({ auditRetentionDays: 1 });
    const id = await accepted(store);
    await store.retention.prune(Date.parse('2024-05-03T10:00:00.000Z'));
    expect(await store.follows.get(id)).toBeNull();
  });
}
