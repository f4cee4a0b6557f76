import type { AuditEntry, AuditStore, ApprovalRequest } from '../../src/store/audit-store';
import { DAY_MS, INTERRUPTED_DETAIL, type StoreOptions } from '../../src/store/kysely-store';

// The store contract, once, for every implementation: sqlite-audit-store.test.ts
// and postgres-audit-store.test.ts run it against a real SQLite file and a
// real PostgreSQL server. "Instances" are separate handles (SQLite: separate
// connections to one file; PostgreSQL: separate pools on one database).
// Time is whatever number the test passes: no clock is read.

export interface StoreLocation {
  /** Opens one more handle ("instance") on this location's database. */
  open(options?: Partial<StoreOptions>): Promise<AuditStore>;
}

export interface StoreContractHarness {
  /** A fresh, empty database. */
  fresh(): Promise<StoreLocation>;
  /** Called once after the suite (drop what fresh() made). */
  cleanup?(): Promise<void>;
}

export const entry = (overrides: Partial<AuditEntry> = {}): AuditEntry => ({
  at: '2024-05-01T10:00:00.000Z',
  userId: 'UOPER',
  channelId: 'CINCIDENT',
  action: 'disk_add',
  target: 'vs:42',
  params: { disk_type: 'SSD', disk_size: 20 },
  outcome: 'succeeded',
  apiStatus: 201,
  durationMs: 12,
  detail: null,
  ...overrides,
});

const approvalRequest = (overrides: Partial<ApprovalRequest> = {}): ApprovalRequest => ({
  id: 'A1',
  action: 'backup_restore',
  target: 'backup:9',
  params: { backup_id: 9, reason: 'disk corrupted' },
  channelId: 'CINCIDENT',
  requestedBy: 'UOPER',
  requestedAt: '2024-05-01T10:00:00.000Z',
  expiresAtMs: 10_000,
  reason: 'disk corrupted',
  apiRequest: { method: 'POST', path: '/backups/9/restore.json', body: null },
  ...overrides,
});

export function describeStoreContract(name: string, harness: StoreContractHarness): void {
  describe(`the store contract on ${name}`, () => {
    const opened: AuditStore[] = [];
    /** A fresh database and `count` instances on it. */
    async function instances(count: number, options?: Partial<StoreOptions>): Promise<{ location: StoreLocation; stores: AuditStore[] }> {
      const location = await harness.fresh();
      const stores: AuditStore[] = [];
      for (let i = 0; i < count; i++) stores.push(await track(location.open(options)));
      return { location, stores };
    }
    async function one(options?: Partial<StoreOptions>): Promise<AuditStore> {
      return (await instances(1, options)).stores[0]!;
    }
    async function track(opening: Promise<AuditStore>): Promise<AuditStore> {
      const store = await opening;
      opened.push(store);
      return store;
    }
    // Each test's instances are closed when it ends: pools left open would add up on the shared server.
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((s) => s.close()));
    });
    afterAll(async () => {
      await harness.cleanup?.();
    });

    describe('audit records', () => {
      test('survive closing and reopening, with every field as written', async () => {
        const location = await harness.fresh();
        const store = await location.open();
        const written = await store.record(entry({ detail: 'disk 7 scheduled', params: { label: 'data <x> & "y"', nested: { ok: true }, list: [1, 'two'] } }));
        await store.close();
        const reopened = await track(location.open());
        expect(await reopened.latest(10)).toEqual([written]);
        expect(written).toMatchObject({
          id: expect.any(Number),
          at: '2024-05-01T10:00:00.000Z',
          params: { label: 'data <x> & "y"', nested: { ok: true }, list: [1, 'two'] },
        });
        expect(written.id).toBeGreaterThan(0);
      });

      test('latest(n) gives the newest n records first, bounds silly limits, and filters by user', async () => {
        const store = await one();
        for (let i = 1; i <= 5; i++) await store.record(entry({ target: `vs:${i}`, userId: i % 2 === 0 ? 'UEVEN' : 'UODD' }));
        expect((await store.latest(3)).map((r) => r.target)).toEqual(['vs:5', 'vs:4', 'vs:3']);
        expect(await store.latest(100)).toHaveLength(5);
        expect(await store.latest(0)).toEqual([]);
        expect(await store.latest(-4)).toEqual([]);
        expect(await store.latest(Number.NaN)).toEqual([]);
        expect((await store.latest(10, { userId: 'UEVEN' })).map((r) => r.target)).toEqual(['vs:4', 'vs:2']);
      });

      test('a null channel, a null API status and each outcome of the vocabulary are kept as such', async () => {
        const store = await one();
        await store.record(entry({ channelId: null, apiStatus: null, outcome: 'denied', detail: 'needs operator', params: {} }));
        expect((await store.latest(1))[0]).toMatchObject({ channelId: null, apiStatus: null, outcome: 'denied', detail: 'needs operator', params: {} });
        for (const outcome of ['invalid', 'busy', 'applied_unreadable', 'requested', 'approved', 'rejected', 'expired'] as const) {
          await store.record(entry({ outcome }));
        }
        expect((await store.latest(7)).map((r) => r.outcome).reverse()).toEqual([
          'invalid',
          'busy',
          'applied_unreadable',
          'requested',
          'approved',
          'rejected',
          'expired',
        ]);
      });

      test('a started change is settled in place, once, and the settled outcome survives reopening', async () => {
        const location = await harness.fresh();
        const store = await location.open();
        const started = await store.record(entry({ outcome: 'started', apiStatus: null, detail: 'in progress' }));
        const done = await store.complete(started.id, { outcome: 'succeeded', apiStatus: 201, durationMs: 321.4, detail: 'disk 7 scheduled' });
        expect(done).toMatchObject({
          id: started.id,
          outcome: 'succeeded',
          apiStatus: 201,
          durationMs: 321,
          detail: 'disk 7 scheduled',
          params: started.params,
        });
        await expect(store.complete(started.id, { outcome: 'failed', apiStatus: 500, durationMs: 1, detail: null })).rejects.toThrow(/not a started change/);
        await expect(store.complete(999_999, { outcome: 'failed', apiStatus: 500, durationMs: 1, detail: null })).rejects.toThrow(/not a started change/);
        await store.close();
        const reopened = await track(location.open());
        expect(await reopened.latest(10)).toEqual([expect.objectContaining({ id: started.id, outcome: 'succeeded' })]);
      });

      test('the lease owner of a started record is bookkeeping: it is not handed back in records', async () => {
        const store = await one();
        const started = await store.record(entry({ outcome: 'started', leaseOwner: 'V1#abc' }));
        expect(started).not.toHaveProperty('leaseOwner');
        expect((await store.latest(1))[0]).not.toHaveProperty('leaseOwner');
      });
    });

    describe('submission claims', () => {
      test('a key can be claimed once, even after reopening, unless it is given back', async () => {
        const location = await harness.fresh();
        const store = await location.open();
        expect(await store.claimSubmission('V1', '2024-05-01T10:00:00.000Z')).toBe(true);
        expect(await store.claimSubmission('V1', '2024-05-01T10:00:01.000Z')).toBe(false);
        expect(await store.claimSubmission('V2', '2024-05-01T10:00:01.000Z')).toBe(true);
        await store.close();
        const reopened = await track(location.open());
        expect(await reopened.claimSubmission('V1', '2024-05-01T11:00:00.000Z')).toBe(false);
        await reopened.releaseSubmission('V2');
        expect(await reopened.claimSubmission('V2', '2024-05-01T11:00:00.000Z')).toBe(true);
      });

      test('many concurrent claims of one key from three instances: exactly one wins', async () => {
        const { stores } = await instances(3);
        for (let round = 0; round < 3; round++) {
          const key = `V-race-${round}`;
          const claims = await Promise.all(Array.from({ length: 30 }, (_, i) => stores[i % 3]!.claimSubmission(key, '2024-05-01T10:00:00.000Z')));
          expect(claims.filter(Boolean)).toHaveLength(1);
        }
      });
    });

    describe('target locks (leases)', () => {
      test('a lease keeps others out until it is released or expires, only its owner releases it, and its owner renews it', async () => {
        const store = await one();
        expect(await store.tryLock('vs:42', 'a', 1000, 500)).toBe(true);
        expect(await store.tryLock('vs:42', 'b', 1200, 500)).toBe(false);
        expect(await store.tryLock('vs:43', 'b', 1200, 500)).toBe(true);
        await store.unlock('vs:42', 'b'); // not b's lease: nothing happens
        expect(await store.tryLock('vs:42', 'c', 1300, 500)).toBe(false);
        await store.unlock('vs:42', 'a');
        expect(await store.tryLock('vs:42', 'c', 1300, 500)).toBe(true);
        // c renews at 1700 until 2200: d cannot take it over at 1800 as it could have without the renewal.
        expect(await store.tryLock('vs:42', 'c', 1700, 500)).toBe(true);
        expect(await store.tryLock('vs:42', 'd', 1800, 500)).toBe(false);
        // c dies holding it; once expired, d takes it over and c's late unlock does not free d's lease.
        expect(await store.tryLock('vs:42', 'd', 2199, 500)).toBe(false);
        expect(await store.tryLock('vs:42', 'd', 2200, 500)).toBe(true);
        await store.unlock('vs:42', 'c');
        expect(await store.tryLock('vs:42', 'e', 2300, 500)).toBe(false);
      });

      test('two instances see each other’s claims and leases', async () => {
        const { stores } = await instances(2);
        const [one, two] = stores as [AuditStore, AuditStore];
        expect(await one.claimSubmission('V1', '2024-05-01T10:00:00.000Z')).toBe(true);
        expect(await two.claimSubmission('V1', '2024-05-01T10:00:00.000Z')).toBe(false);
        expect(await one.tryLock('backup:9', 'one', 0, 60_000)).toBe(true);
        expect(await two.tryLock('backup:9', 'two', 1, 60_000)).toBe(false);
        await one.record(entry());
        expect(await two.latest(1)).toHaveLength(1);
      });

      test('many owners racing for one target from three instances: exactly one gets it, also when taking over an expired lease', async () => {
        const { stores } = await instances(3);
        const race = (nowMs: number) => Promise.all(Array.from({ length: 24 }, (_, i) => stores[i % 3]!.tryLock('vs:7', `owner-${nowMs}-${i}`, nowMs, 1000)));
        expect((await race(0)).filter(Boolean)).toHaveLength(1);
        expect((await race(500)).filter(Boolean)).toHaveLength(0);
        expect((await race(1000)).filter(Boolean)).toHaveLength(1);
      });
    });

    describe('the start and end of a change, one transaction each', () => {
      const begin = (store: AuditStore, key: string, target: string, owner: string, nowMs = 0) =>
        store.beginChange({
          submissionKey: key,
          at: '2024-05-01T10:00:00.000Z',
          lease: { target, owner, nowMs, ttlMs: 1000 },
          started: entry({ target, outcome: 'started', apiStatus: null }),
        });

      test('claims, leases and records started at once; a repeat is a duplicate, another change to the target is busy and keeps its claim', async () => {
        const store = await one();
        const first = await begin(store, 'V1', 'vs:42', 'V1#a');
        expect(first).toEqual({ outcome: 'started', record: expect.objectContaining({ outcome: 'started', target: 'vs:42', id: expect.any(Number) }) });
        expect(await store.claimSubmission('V1', '2024-05-01T10:00:00.000Z')).toBe(false);
        expect(await store.tryLock('vs:42', 'someone', 500, 1000)).toBe(false);
        expect(await begin(store, 'V1', 'vs:43', 'V1#b')).toEqual({ outcome: 'duplicate' });
        expect(await begin(store, 'V2', 'vs:42', 'V2#a', 500)).toEqual({ outcome: 'busy' });
        expect(await store.claimSubmission('V2', '2024-05-01T10:00:00.000Z')).toBe(false);
        expect((await store.latest(10)).map((r) => r.id)).toEqual([first.outcome === 'started' ? first.record.id : -1]);
        // Its lease is what recovery goes by.
        expect(await store.recoverInterrupted(999)).toEqual([]);
        expect((await store.recoverInterrupted(1000)).map((r) => r.target)).toEqual(['vs:42']);
      });

      test('completing with the lease ends it in the same transaction', async () => {
        const store = await one();
        const begun = await begin(store, 'V1', 'vs:42', 'V1#a');
        if (begun.outcome !== 'started') throw new Error('not started');
        await store.complete(begun.record.id, { outcome: 'succeeded', apiStatus: 201, durationMs: 5, detail: null }, { target: 'vs:42', owner: 'V1#a' });
        expect(await store.tryLock('vs:42', 'next', 1, 1000)).toBe(true);
        expect((await store.claimOutbox('sender', 1, 30_000, 10)).map((p) => p.record.outcome)).toEqual(['succeeded']);
      });

      test('many deliveries of one submission and many submissions to one target, from three instances: one change starts each time', async () => {
        const { stores } = await instances(3);
        const same = await Promise.all(Array.from({ length: 24 }, (_, i) => begin(stores[i % 3]!, 'V-storm', `vs:${i}`, `storm-${i}`)));
        expect(same.filter((b) => b.outcome === 'started')).toHaveLength(1);
        expect(same.filter((b) => b.outcome === 'duplicate')).toHaveLength(23);
        const contended = await Promise.all(Array.from({ length: 24 }, (_, i) => begin(stores[i % 3]!, `V-${i}`, 'vs:7', `owner-${i}`)));
        expect(contended.filter((b) => b.outcome === 'started')).toHaveLength(1);
        expect(contended.filter((b) => b.outcome === 'busy')).toHaveLength(23);
        expect(await stores[0]!.latest(100)).toHaveLength(2);
      });
    });

    describe('recovery of interrupted changes', () => {
      test('a started record is settled as interrupted once its lease has expired, returned and posted once, and a late answer still settles it', async () => {
        const store = await one();
        expect(await store.tryLock('vs:42', 'V1#a', 1000, 5000)).toBe(true);
        const started = await store.record(entry({ outcome: 'started', apiStatus: null, detail: 'the cloud API call is in progress', leaseOwner: 'V1#a' }));
        expect(await store.recoverInterrupted(5999)).toEqual([]);
        const [settled, ...rest] = await store.recoverInterrupted(6000);
        expect(rest).toEqual([]);
        expect(settled).toMatchObject({ id: started.id, outcome: 'interrupted', detail: INTERRUPTED_DETAIL, target: 'vs:42', userId: 'UOPER' });
        expect(await store.recoverInterrupted(7000)).toEqual([]);
        expect((await store.latest(1))[0]).toMatchObject({ id: started.id, outcome: 'interrupted' });
        const posts = await store.claimOutbox('sender', 7000, 30_000, 10);
        expect(posts.map((p) => [p.record.id, p.record.outcome])).toEqual([[started.id, 'interrupted']]);
        // The instance was only slow, not dead: its answer is the truth, and is posted too.
        const late = await store.complete(started.id, { outcome: 'succeeded', apiStatus: 201, durationMs: 9000, detail: 'disk 7 scheduled' });
        expect(late.outcome).toBe('succeeded');
        await store.markOutboxSent(
          posts.map((p) => p.id),
          7000,
        );
        expect((await store.claimOutbox('sender', 8000, 30_000, 10)).map((p) => p.record.outcome)).toEqual(['succeeded']);
      });

      test('a lease that is still live, renewed or taken over by a new change keeps or releases the right records', async () => {
        const store = await one();
        await store.tryLock('vs:1', 'old', 0, 1000);
        const old = await store.record(entry({ target: 'vs:1', outcome: 'started', leaseOwner: 'old' }));
        await store.tryLock('vs:2', 'live', 0, 1000);
        const live = await store.record(entry({ target: 'vs:2', outcome: 'started', leaseOwner: 'live' }));
        await store.tryLock('vs:2', 'live', 900, 1000); // renewed until 1900
        // At 1500 'old' expired and a new change took vs:1 over: the old record is orphaned, the new one is not.
        expect(await store.tryLock('vs:1', 'new', 1500, 1000)).toBe(true);
        const taken = await store.record(entry({ target: 'vs:1', outcome: 'started', leaseOwner: 'new' }));
        expect((await store.recoverInterrupted(1500)).map((r) => r.id)).toEqual([old.id]);
        // A record written without an owner is orphaned once no live lease is held on its target at all.
        const ownerless = await store.record(entry({ target: 'vs:3', outcome: 'started' }));
        await store.tryLock('vs:3', 'someone', 1500, 1000);
        expect(await store.recoverInterrupted(1600)).toEqual([]);
        // At 2500 every lease has run out.
        expect((await store.recoverInterrupted(2500)).map((r) => r.id)).toEqual([live.id, taken.id, ownerless.id]);
      });

      test('two instances racing to recover: each record is settled, returned and posted exactly once', async () => {
        const { stores } = await instances(2);
        const [a, b] = stores as [AuditStore, AuditStore];
        const ids: number[] = [];
        for (let i = 0; i < 20; i++) {
          await a.tryLock(`vs:${i}`, `owner-${i}`, 0, 1000);
          ids.push((await a.record(entry({ target: `vs:${i}`, outcome: 'started', leaseOwner: `owner-${i}` }))).id);
        }
        const results = await Promise.all([
          a.recoverInterrupted(5000, 7),
          b.recoverInterrupted(5000, 7),
          a.recoverInterrupted(5000, 7),
          b.recoverInterrupted(5000, 7),
        ]);
        const more = await Promise.all([a.recoverInterrupted(5000), b.recoverInterrupted(5000)]);
        const settled = [...results, ...more].flat().map((r) => r.id);
        expect(settled.sort((x, y) => x - y)).toEqual(ids);
        const posts = await a.claimOutbox('sender', 5000, 30_000, 100);
        expect(posts.map((p) => p.record.id).sort((x, y) => x - y)).toEqual(ids);
      });
    });

    describe('the audit outbox', () => {
      test('final records are enqueued with the record, started ones are not; a claimed post is given to no one else until its lease expires', async () => {
        const { stores } = await instances(2);
        const [a, b] = stores as [AuditStore, AuditStore];
        const denied = await a.record(entry({ outcome: 'denied' }));
        await a.record(entry({ outcome: 'started' }));
        expect(await a.outboxBacklog()).toEqual({ pending: 1, oldestAt: denied.at });
        const claimed = await a.claimOutbox('a', 1000, 30_000, 10);
        expect(claimed).toEqual([{ id: expect.any(Number), record: denied, attempts: 0, lastError: null }]);
        expect(await b.claimOutbox('b', 2000, 30_000, 10)).toEqual([]);
        // a died without acknowledging: after its lease, b gets the post.
        const retaken = await b.claimOutbox('b', 31_000, 30_000, 10);
        expect(retaken.map((p) => p.id)).toEqual([claimed[0]!.id]);
        expect(await b.markOutboxSent([retaken[0]!.id], 31_500)).toBe(1);
        expect(await b.markOutboxSent([retaken[0]!.id], 31_600)).toBe(0);
        expect(await a.claimOutbox('a', 100_000, 30_000, 10)).toEqual([]);
        expect(await a.outboxBacklog()).toEqual({ pending: 0, oldestAt: null });
      });

      test('a deferred post waits until its time, counts the attempt and keeps the error; only the post’s holder defers it', async () => {
        const store = await one();
        const record = await store.record(entry({ outcome: 'failed', apiStatus: 500 }));
        const [post] = await store.claimOutbox('a', 0, 30_000, 10);
        expect(await store.deferOutbox([post!.id], 'someone-else', 60_000, 'not mine')).toBe(0);
        expect(await store.deferOutbox([post!.id], 'a', 60_000, 'Slack answered 429 (Retry-After 60 s)')).toBe(1);
        expect(await store.claimOutbox('a', 59_999, 30_000, 10)).toEqual([]);
        const [again] = await store.claimOutbox('b', 60_000, 30_000, 10);
        expect(again).toEqual({ id: post!.id, record, attempts: 1, lastError: 'Slack answered 429 (Retry-After 60 s)' });
        await store.deferOutbox([again!.id], 'b', 61_000, 'x'.repeat(5000));
        const [third] = await store.claimOutbox('b', 61_000, 30_000, 10);
        expect(third!.attempts).toBe(2);
        expect(third!.lastError!.length).toBeLessThanOrEqual(1000);
      });

      test('posts come oldest first, at most `limit` per claim', async () => {
        const store = await one();
        const ids: number[] = [];
        for (let i = 0; i < 5; i++) ids.push((await store.record(entry({ target: `vs:${i}` }))).id);
        const first = await store.claimOutbox('a', 0, 30_000, 2);
        const second = await store.claimOutbox('a', 0, 30_000, 10);
        expect(first.map((p) => p.record.id)).toEqual(ids.slice(0, 2));
        expect(second.map((p) => p.record.id)).toEqual(ids.slice(2));
        expect(await store.claimOutbox('a', 0, 30_000, 0)).toEqual([]);
      });

      test('two instances claiming concurrently: every post is claimed and sent exactly once', async () => {
        const { stores } = await instances(2);
        const ids: number[] = [];
        for (let i = 0; i < 60; i++) ids.push((await stores[0]!.record(entry({ target: `vs:${i}`, outcome: i % 3 === 0 ? 'denied' : 'succeeded' }))).id);
        const sent: number[] = [];
        const sender = async (store: AuditStore, owner: string) => {
          for (;;) {
            const batch = await store.claimOutbox(owner, 1000, 30_000, 7);
            if (batch.length === 0) return;
            sent.push(...batch.map((p) => p.record.id));
            await store.markOutboxSent(
              batch.map((p) => p.id),
              1000,
            );
          }
        };
        await Promise.all([sender(stores[0]!, 'a'), sender(stores[1]!, 'b'), sender(stores[0]!, 'c'), sender(stores[1]!, 'd')]);
        expect(sent.sort((x, y) => x - y)).toEqual(ids);
      });

      test('with posts disabled (no audit channel), nothing is enqueued', async () => {
        const store = await one({ auditPosts: false });
        const started = await store.record(entry({ outcome: 'started' }));
        await store.record(entry({ outcome: 'denied' }));
        await store.complete(started.id, { outcome: 'succeeded', apiStatus: 201, durationMs: 1, detail: null });
        expect(await store.claimOutbox('a', 0, 30_000, 10)).toEqual([]);
        expect(await store.outboxBacklog()).toEqual({ pending: 0, oldestAt: null });
      });

      test('pending posts survive reopening', async () => {
        const location = await harness.fresh();
        const store = await location.open();
        const record = await store.record(entry());
        await store.claimOutbox('a', 0, 30_000, 10); // claimed, then the instance stops
        await store.close();
        const reopened = await track(location.open());
        expect((await reopened.claimOutbox('b', 30_000, 30_000, 10)).map((p) => p.record)).toEqual([record]);
      });
    });

    describe('retention', () => {
      test('claims go after a day, audit records after the retention with their posts, newer ones stay', async () => {
        const store = await one({ auditRetentionDays: 30 });
        const now = Date.parse('2024-06-01T00:00:00.000Z');
        const iso = (ms: number) => new Date(ms).toISOString();
        await store.claimSubmission('old', iso(now - DAY_MS - 1));
        await store.claimSubmission('recent', iso(now - DAY_MS + 60_000));
        const old = await store.record(entry({ at: iso(now - 31 * DAY_MS), target: 'vs:old' }));
        const kept = await store.record(entry({ at: iso(now - 29 * DAY_MS), target: 'vs:kept' }));
        const result = await store.prune(now);
        expect(result).toMatchObject({ claims: 1, records: 1 });
        expect(await store.claimSubmission('old', iso(now))).toBe(true);
        expect(await store.claimSubmission('recent', iso(now))).toBe(false);
        expect((await store.latest(10)).map((r) => r.id)).toEqual([kept.id]);
        // The deleted record's post went with it; the kept one's is still there.
        expect((await store.claimOutbox('a', now, 30_000, 10)).map((p) => p.record.id)).toEqual([kept.id]);
        expect(old.id).not.toBe(kept.id);
        expect(await store.prune(now)).toMatchObject({ claims: 0, records: 0 });
      });

      test('works in bounded batches', async () => {
        const store = await one({ auditRetentionDays: 1 });
        const now = Date.parse('2024-06-01T00:00:00.000Z');
        for (let i = 0; i < 5; i++) await store.record(entry({ at: new Date(now - 3 * DAY_MS + i).toISOString() }));
        expect((await store.prune(now, 2)).records).toBe(2);
        expect((await store.prune(now, 2)).records).toBe(2);
        expect((await store.prune(now, 2)).records).toBe(1);
        expect(await store.latest(10)).toEqual([]);
      });

      test('sent posts and long-dead leases are swept after a day', async () => {
        const store = await one();
        await store.record(entry());
        const [post] = await store.claimOutbox('a', 0, 30_000, 10);
        await store.markOutboxSent([post!.id], 0);
        await store.tryLock('vs:9', 'dead', 0, 1000);
        expect((await store.prune(DAY_MS + 2000)).housekeeping).toBe(2);
        expect(await store.tryLock('vs:9', 'next', DAY_MS + 2000, 1000)).toBe(true);
      });
    });

    describe('health, freeze, approvals, closing', () => {
      test('ping answers while the database is reachable', async () => {
        const store = await one();
        await expect(store.ping()).resolves.toBeUndefined();
      });

      test('a freeze is kept until lifted; freezing again keeps the first', async () => {
        const location = await harness.fresh();
        const store = await location.open();
        expect(await store.currentFreeze()).toBeNull();
        const first = { by: 'UADMIN', at: '2024-05-01T10:00:00.000Z', reason: 'incident 42' };
        expect(await store.freeze(first)).toEqual(first);
        expect(await store.freeze({ by: 'UOTHER', at: '2024-05-01T11:00:00.000Z', reason: 'again' })).toEqual(first);
        await store.close();
        const reopened = await track(location.open());
        expect(await reopened.currentFreeze()).toEqual(first);
        expect(await reopened.unfreeze()).toEqual(first);
        expect(await reopened.unfreeze()).toBeNull();
        expect(await reopened.currentFreeze()).toBeNull();
      });

      test('an approval request is decided once, by the first decisive click across instances', async () => {
        const { stores } = await instances(2);
        const [a, b] = stores as [AuditStore, AuditStore];
        const requested = await a.requestApproval(approvalRequest());
        expect(requested).toMatchObject({
          id: 'A1',
          status: 'requested',
          decidedBy: null,
          decidedAt: null,
          messageTs: null,
          params: { backup_id: 9, reason: 'disk corrupted' },
          apiRequest: { method: 'POST', path: '/backups/9/restore.json', body: null },
        });
        await a.setApprovalMessage('A1', '1714557600.000100');
        expect(await b.openApprovals(5000)).toEqual([{ ...requested, messageTs: '1714557600.000100' }]);
        const clicks = await Promise.all([
          a.decideApproval('A1', { status: 'approved', by: 'UADMIN1', at: '2024-05-01T10:01:00.000Z', nowMs: 5000 }),
          b.decideApproval('A1', { status: 'rejected', by: 'UADMIN2', at: '2024-05-01T10:01:00.000Z', nowMs: 5000 }),
          b.decideApproval('A1', { status: 'approved', by: 'UADMIN3', at: '2024-05-01T10:01:00.000Z', nowMs: 5000 }),
        ]);
        const winners = clicks.filter((c) => c.won);
        expect(winners).toHaveLength(1);
        const decided = winners[0]!.approval;
        for (const loser of clicks.filter((c) => !c.won)) expect(loser.approval).toEqual(decided);
        expect(await a.getApproval('A1')).toEqual(decided);
        expect(await a.openApprovals(5000)).toEqual([]);
        expect(await a.decideApproval('missing', { status: 'approved', by: 'U1', at: '2024-05-01T10:01:00.000Z', nowMs: 5000 })).toEqual({
          won: false,
          approval: null,
        });
      });

      test('an approval request past its expiry cannot be decided, and is expired once', async () => {
        const { stores } = await instances(2);
        const [a, b] = stores as [AuditStore, AuditStore];
        await a.requestApproval(approvalRequest({ id: 'A2', expiresAtMs: 10_000 }));
        await a.requestApproval(approvalRequest({ id: 'A3', expiresAtMs: 20_000 }));
        expect((await a.decideApproval('A2', { status: 'approved', by: 'UADMIN', at: '2024-05-01T10:01:00.000Z', nowMs: 10_000 })).won).toBe(false);
        const expired = await Promise.all([a.expireApprovals(10_000), b.expireApprovals(10_000)]);
        expect(expired.flat().map((x) => [x.id, x.status])).toEqual([['A2', 'expired']]);
        expect((await a.openApprovals(10_000)).map((x) => x.id)).toEqual(['A3']);
      });

      test('closing twice is harmless', async () => {
        const location = await harness.fresh();
        const store = await location.open();
        await store.close();
        await expect(store.close()).resolves.toBeUndefined();
      });
    });
  });
}
