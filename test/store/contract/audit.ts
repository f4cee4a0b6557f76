import { OUTCOMES, type AuditRecord, type Store } from '../../../src/store';
import { APPROVED_RUN_GRACE_MS, INTERRUPTED_DETAIL, NEVER_STARTED_DETAIL } from '../../../src/store/kysely/audit';
import { entry } from './entries';
import type { ContractStores } from './types';

// The audit trail: records as written, the start and end of a change (one
// transaction each), and recovery of changes whose instance died.

export function auditContract({ fresh, one, instances }: ContractStores): void {
  describe('records', () => {
    test('survive closing and reopening, with every field as written', async () => {
      const location = await fresh();
      const store = await location.open();
      const written = await store.audit.record(
        entry({ detail: 'disk 7 (20 GB) on VS 42', params: { label: 'data <x> & "y"', nested: { ok: true }, list: [1, 'two'] } }),
      );
      await store.close();
      const reopened = await location.open();
      expect(await reopened.audit.latest(10)).toEqual([written]);
      expect(written).toMatchObject({
        id: expect.any(Number),
        at: '2024-05-01T10:00:00.000Z',
        params: { label: 'data <x> & "y"', nested: { ok: true }, list: [1, 'two'] },
      });
      expect(written.id).toBeGreaterThan(0);
    });

    test('keep the exact API request, the requester, the decider and the approval; null when a record has none', async () => {
      const store = await one();
      const body = '<?xml version="1.0" encoding="UTF-8"?><disk><label>a &amp; "b"</label></disk>';
      const written = await store.audit.record(
        entry({ apiRequest: { method: 'POST', path: '/virtual_machines/42/disks.xml', body }, requestedBy: 'UOPER', decidedBy: 'UADMIN', approvalId: 'A1' }),
      );
      const plain = await store.audit.record(entry());
      expect(await store.audit.latest(2)).toEqual([plain, written]);
      expect(written).toMatchObject({
        apiRequest: { method: 'POST', path: '/virtual_machines/42/disks.xml', body },
        requestedBy: 'UOPER',
        decidedBy: 'UADMIN',
        approvalId: 'A1',
      });
      expect(plain).toMatchObject({ apiRequest: null, requestedBy: null, decidedBy: null, approvalId: null });
    });

    test('latest(n) gives the newest n records first, bounds silly limits, and filters by user', async () => {
      const store = await one();
      for (let i = 1; i <= 5; i++) await store.audit.record(entry({ target: `vs:${i}`, userId: i % 2 === 0 ? 'UEVEN' : 'UODD' }));
      expect((await store.audit.latest(3)).map((r) => r.target)).toEqual(['vs:5', 'vs:4', 'vs:3']);
      expect(await store.audit.latest(100)).toHaveLength(5);
      expect(await store.audit.latest(0)).toEqual([]);
      expect(await store.audit.latest(-4)).toEqual([]);
      expect(await store.audit.latest(Number.NaN)).toEqual([]);
      expect((await store.audit.latest(10, { userId: 'UEVEN' })).map((r) => r.target)).toEqual(['vs:4', 'vs:2']);
    });

    test('latest(n, query) reads a filter (target, person, outcome), leaves out outcomes, pages below an anchor; count() says how many match', async () => {
      const store = await one();
      const written: AuditRecord[] = [];
      for (let i = 1; i <= 12; i++) {
        written.push(
          await store.audit.record(
            entry({
              target: i % 3 === 0 ? 'backup:9' : 'vs:42',
              userId: i % 2 === 0 ? 'UEVEN' : 'UODD',
              outcome: i % 4 === 0 ? 'failed' : i % 5 === 0 ? 'refused' : 'done',
            }),
          ),
        );
      }
      const ids = (records: { id: number }[]) => records.map((r) => written.findIndex((w) => w.id === r.id) + 1);
      expect(ids(await store.audit.latest(10, { target: 'backup:9' }))).toEqual([12, 9, 6, 3]);
      expect(ids(await store.audit.latest(2, { userId: 'UEVEN' }))).toEqual([12, 10]);
      expect(ids(await store.audit.latest(10, { outcomes: ['failed'] }))).toEqual([12, 8, 4]);
      expect(ids(await store.audit.latest(10, { outcomes: ['failed', 'refused'] }))).toEqual([12, 10, 8, 5, 4]);
      expect(await store.audit.latest(10, { outcomes: [] })).toEqual([]);
      expect(ids(await store.audit.latest(4, { notOutcomes: ['refused', 'failed'] }))).toEqual([11, 9, 7, 6]);
      expect(ids(await store.audit.latest(10, { minId: written[8]!.id, userId: 'UODD' }))).toEqual([11, 9]);
      // The pages of one listing: up to its newest record, then the next ones.
      const anchor = written[9]!.id;
      expect(ids(await store.audit.latest(3, { maxId: anchor }))).toEqual([10, 9, 8]);
      expect(ids(await store.audit.latest(3, { maxId: anchor, offset: 3 }))).toEqual([7, 6, 5]);
      expect(ids(await store.audit.latest(3, { target: 'vs:42', maxId: anchor, offset: 2 }))).toEqual([7, 5, 4]);
      expect(await store.audit.count()).toBe(12);
      expect(await store.audit.count({ target: 'vs:42' })).toBe(8);
      expect(await store.audit.count({ userId: 'UODD', outcomes: ['done'] })).toBe(5);
      expect(await store.audit.count({ outcomes: ['refused'], minId: written[6]!.id })).toBe(1);
      expect(await store.audit.count({ target: 'vs:1' })).toBe(0);
    });

    test('get(id) reads one record whole; null for an id it does not hold', async () => {
      const store = await one();
      const written = await store.audit.record(entry({ apiRequest: { method: 'POST', path: '/backups/9/restore.json', body: null }, requestedBy: 'UOPER' }));
      expect(await store.audit.get(written.id)).toEqual(written);
      expect(await store.audit.get(written.id + 1)).toBeNull();
      expect(await store.audit.get(0)).toBeNull();
      expect(await store.audit.get(Number.NaN)).toBeNull();
    });

    test('a null channel, a null API status and each outcome of the vocabulary are kept as such', async () => {
      const store = await one();
      await store.audit.record(entry({ channelId: null, apiStatus: null, outcome: 'refused', detail: 'needs operator', params: {} }));
      expect((await store.audit.latest(1))[0]).toMatchObject({ channelId: null, apiStatus: null, outcome: 'refused', detail: 'needs operator', params: {} });
      for (const outcome of OUTCOMES) await store.audit.record(entry({ outcome }));
      expect((await store.audit.latest(OUTCOMES.length)).map((r) => r.outcome).reverse()).toEqual([...OUTCOMES]);
      expect((await store.audit.latest(1))[0]).toMatchObject({ cloudOutcome: null, cloudStep: null, formerOutcome: null, transactionIds: null });
    });

    test('a started change is settled in place, once, and the settled outcome survives reopening', async () => {
      const location = await fresh();
      const store = await location.open();
      const started = await store.audit.record(entry({ outcome: 'started', apiStatus: null, detail: 'in progress' }));
      const done = await store.audit.complete(started.id, { outcome: 'scheduled', apiStatus: 201, durationMs: 321.4, detail: 'disk 7 (20 GB) on VS 42' });
      expect(done).toMatchObject({
        id: started.id,
        outcome: 'scheduled',
        apiStatus: 201,
        durationMs: 321,
        detail: 'disk 7 (20 GB) on VS 42',
        params: started.params,
      });
      await expect(store.audit.complete(started.id, { outcome: 'failed', apiStatus: 500, durationMs: 1, detail: null })).rejects.toThrow(
        /not a started change/,
      );
      await expect(store.audit.complete(999_999, { outcome: 'failed', apiStatus: 500, durationMs: 1, detail: null })).rejects.toThrow(/not a started change/);
      await store.close();
      const reopened = await location.open();
      expect(await reopened.audit.latest(10)).toEqual([expect.objectContaining({ id: started.id, outcome: 'scheduled' })]);
    });

    test('the lease owner of a started record is bookkeeping: it is not handed back in records', async () => {
      const store = await one();
      const started = await store.audit.record(entry({ outcome: 'started', leaseOwner: 'V1#abc' }));
      expect(started).not.toHaveProperty('leaseOwner');
      expect((await store.audit.latest(1))[0]).not.toHaveProperty('leaseOwner');
    });

    test('perChange lists one record per change: of an approval, its newest record left in; refusals left out are not its newest', async () => {
      const store = await one();
      const direct = await store.audit.record(entry({ target: 'vs:1', outcome: 'done' }));
      await store.audit.record(entry({ target: 'vs:2', outcome: 'refused' }));
      await store.audit.record(entry({ target: 'backup:9', outcome: 'requested', approvalId: 'A1' }));
      const waiting = await store.audit.record(entry({ target: 'backup:8', outcome: 'requested', approvalId: 'A2' }));
      const ran = await store.audit.record(entry({ target: 'backup:9', outcome: 'failed', approvalId: 'A1', decidedBy: 'UADMIN' }));
      // Someone clicking Approve on their own request afterwards: refused, not the request's state.
      await store.audit.record(entry({ target: 'backup:8', outcome: 'refused', approvalId: 'A2' }));
      const listed = await store.audit.latest(10, { notOutcomes: ['refused'], perChange: true });
      expect(listed.map((r) => r.id)).toEqual([ran.id, waiting.id, direct.id]);
      expect(await store.audit.count({ notOutcomes: ['refused'], perChange: true })).toBe(3);
      // Without it, every record is listed.
      expect(await store.audit.latest(10)).toHaveLength(6);
    });

    test('involving a person: the records about them and those of the changes they asked for', async () => {
      const store = await one();
      const asked = await store.audit.record(entry({ userId: 'UOPER', outcome: 'requested', requestedBy: 'UOPER', approvalId: 'A1' }));
      const approved = await store.audit.record(entry({ userId: 'UADMIN', outcome: 'done', requestedBy: 'UOPER', decidedBy: 'UADMIN', approvalId: 'A1' }));
      const own = await store.audit.record(entry({ userId: 'UOPER', outcome: 'refused' }));
      await store.audit.record(entry({ userId: 'UOTHER', outcome: 'done' }));
      expect((await store.audit.latest(10, { involving: 'UOPER' })).map((r) => r.id)).toEqual([own.id, approved.id, asked.id]);
      expect((await store.audit.latest(10, { involving: 'UADMIN' })).map((r) => r.id)).toEqual([approved.id]);
      expect(await store.audit.count({ involving: 'UOPER', notOutcomes: ['refused'], perChange: true })).toBe(1);
    });

    test('one instance reads what another wrote', async () => {
      const [one, two] = (await instances(2)) as [Store, Store];
      const written = await one.audit.record(entry());
      expect(await two.audit.latest(1)).toEqual([written]);
    });
  });

  describe('the start and end of a change, one transaction each', () => {
    const begin = (store: Store, key: string, target: string, owner: string, nowMs = 0) =>
      store.audit.beginChange({
        submissionKey: key,
        at: '2024-05-01T10:00:00.000Z',
        lease: { target, owner, nowMs, ttlMs: 1000 },
        started: entry({ target, outcome: 'started', apiStatus: null }),
      });

    test('claims, leases and records started at once; a repeat is a duplicate, another change to the target is busy and keeps its claim', async () => {
      const store = await one();
      const first = await begin(store, 'V1', 'vs:42', 'V1#a');
      expect(first).toMatchObject({ outcome: 'started', record: { outcome: 'started', target: 'vs:42' } });
      expect(first.outcome === 'started' && first.record.id).toBeGreaterThan(0);
      expect(await store.claims.claim('V1', '2024-05-01T10:00:00.000Z')).toBe(false);
      expect(await store.leases.take('vs:42', 'someone', 500, 1000)).toBe(false);
      expect(await begin(store, 'V1', 'vs:43', 'V1#b')).toEqual({ outcome: 'duplicate' });
      expect(await begin(store, 'V2', 'vs:42', 'V2#a', 500)).toEqual({ outcome: 'busy' });
      expect(await store.claims.claim('V2', '2024-05-01T10:00:00.000Z')).toBe(false);
      expect((await store.audit.latest(10)).map((r) => r.id)).toEqual([first.outcome === 'started' ? first.record.id : -1]);
      // Its lease is what recovery goes by.
      expect(await store.audit.recoverInterrupted(999)).toEqual([]);
      expect((await store.audit.recoverInterrupted(1000)).map((r) => r.target)).toEqual(['vs:42']);
    });

    test('while changes are frozen (by any instance) nothing starts: no claim, no lease, no record; once lifted, it starts', async () => {
      const [store, other] = (await instances(2)) as [Store, Store];
      const freeze = { by: 'UADMIN', at: '2024-05-01T09:00:00.000Z', reason: 'incident 42' };
      await other.freeze.start(freeze);
      expect(await begin(store, 'V1', 'vs:42', 'V1#a')).toEqual({ outcome: 'frozen', freeze });
      expect(await store.audit.latest(10)).toEqual([]);
      expect(await store.leases.take('vs:42', 'someone', 0, 1000)).toBe(true);
      await store.leases.release('vs:42', 'someone');
      await other.freeze.lift();
      expect(await begin(store, 'V1', 'vs:42', 'V1#a')).toMatchObject({ outcome: 'started' });
    });

    test('completing with the lease ends it in the same transaction', async () => {
      const store = await one();
      const begun = await begin(store, 'V1', 'vs:42', 'V1#a');
      if (begun.outcome !== 'started') throw new Error('not started');
      await store.audit.complete(begun.record.id, { outcome: 'scheduled', apiStatus: 201, durationMs: 5, detail: null }, { target: 'vs:42', owner: 'V1#a' });
      expect(await store.leases.take('vs:42', 'next', 1, 1000)).toBe(true);
      expect((await store.outbox.claim('sender', 1, 30_000, 10)).map((p) => p.record.outcome)).toEqual(['scheduled']);
    });

    test("an approved change starts on its approval's record, in place, keeping who approved it; a record no longer approved gets a new one", async () => {
      const store = await one();
      const approved = await store.audit.record(entry({ userId: 'UADMIN', outcome: 'approved', requestedBy: 'UOPER', decidedBy: 'UADMIN', approvalId: 'A1' }));
      // Nothing is posted of a change in flight.
      expect(await store.outbox.claim('sender', 0, 30_000, 10)).toEqual([]);
      const begun = await store.audit.beginChange({
        submissionKey: 'approval:A1',
        at: '2024-05-01T10:00:05.000Z',
        lease: { target: 'vs:42', owner: 'approval:A1#x', nowMs: 0, ttlMs: 1000 },
        started: entry({ userId: 'UOPER', outcome: 'started', apiStatus: null, detail: 'in progress', params: { disk_size: 30 } }),
        recordId: approved.id,
      });
      expect(begun).toMatchObject({
        outcome: 'started',
        record: {
          id: approved.id,
          userId: 'UADMIN',
          outcome: 'started',
          detail: 'in progress',
          decidedBy: 'UADMIN',
          approvalId: 'A1',
          params: { disk_size: 30 },
        },
      });
      // Its lease is recovery's, as any started change's.
      expect((await store.audit.recoverInterrupted(1000)).map((r) => r.id)).toEqual([approved.id]);
      const again = await store.audit.beginChange({
        submissionKey: 'approval:A2',
        at: '2024-05-01T10:00:05.000Z',
        lease: { target: 'vs:43', owner: 'approval:A2#x', nowMs: 0, ttlMs: 1000 },
        started: entry({ target: 'vs:43', outcome: 'started' }),
        recordId: approved.id,
      });
      expect(again.outcome === 'started' && again.record.id).toBeGreaterThan(approved.id);
    });

    test('an approved change that is not sent settles its record (refused), posted once; an approved one never started is recovered as unknown', async () => {
      const store = await one();
      const approved = await store.audit.record(entry({ outcome: 'approved', approvalId: 'A1', at: '2024-05-01T10:00:00.000Z' }));
      const refused = await store.audit.complete(approved.id, { outcome: 'refused', apiStatus: null, durationMs: 3, detail: 'not sent: VS 42 is off' });
      expect(refused).toMatchObject({ id: approved.id, outcome: 'refused', detail: 'not sent: VS 42 is off' });
      expect((await store.outbox.claim('sender', 0, 30_000, 10)).map((p) => [p.record.id, p.record.outcome])).toEqual([[approved.id, 'refused']]);
      const stuck = await store.audit.record(entry({ outcome: 'approved', approvalId: 'A2', at: '2024-05-01T10:00:00.000Z' }));
      const at = Date.parse('2024-05-01T10:00:00.000Z');
      expect(await store.audit.recoverInterrupted(at + APPROVED_RUN_GRACE_MS - 1)).toEqual([]);
      expect(await store.audit.recoverInterrupted(at + APPROVED_RUN_GRACE_MS + 1)).toEqual([
        expect.objectContaining({ id: stuck.id, outcome: 'unknown', detail: NEVER_STARTED_DETAIL }),
      ]);
    });

    test('many deliveries of one submission and many submissions to one target, from three instances: one change starts each time', async () => {
      const stores = await instances(3);
      const same = await Promise.all(Array.from({ length: 24 }, (_, i) => begin(stores[i % 3]!, 'V-storm', `vs:${i}`, `storm-${i}`)));
      expect(same.filter((b) => b.outcome === 'started')).toHaveLength(1);
      expect(same.filter((b) => b.outcome === 'duplicate')).toHaveLength(23);
      const contended = await Promise.all(Array.from({ length: 24 }, (_, i) => begin(stores[i % 3]!, `V-${i}`, 'vs:7', `owner-${i}`)));
      expect(contended.filter((b) => b.outcome === 'started')).toHaveLength(1);
      expect(contended.filter((b) => b.outcome === 'busy')).toHaveLength(23);
      expect(await stores[0]!.audit.latest(100)).toHaveLength(2);
    });
  });

  describe('recovery of interrupted changes', () => {
    test('a started record is settled as unknown (interrupted) once its lease has expired, returned and posted once; a late answer settles it', async () => {
      const store = await one();
      expect(await store.leases.take('vs:42', 'V1#a', 1000, 5000)).toBe(true);
      const started = await store.audit.record(entry({ outcome: 'started', apiStatus: null, detail: 'the cloud API call is in progress', leaseOwner: 'V1#a' }));
      expect(await store.audit.recoverInterrupted(5999)).toEqual([]);
      const [settled, ...rest] = await store.audit.recoverInterrupted(6000);
      expect(rest).toEqual([]);
      expect(settled).toMatchObject({ id: started.id, outcome: 'unknown', detail: INTERRUPTED_DETAIL, target: 'vs:42', userId: 'UOPER' });
      expect(await store.audit.recoverInterrupted(7000)).toEqual([]);
      expect((await store.audit.latest(1))[0]).toMatchObject({ id: started.id, outcome: 'unknown' });
      const posts = await store.outbox.claim('sender', 7000, 30_000, 10);
      expect(posts.map((p) => [p.record.id, p.record.outcome])).toEqual([[started.id, 'unknown']]);
      // The instance was only slow, not dead: its answer is the truth, kept in the record; the audit channel has had its post.
      const late = await store.audit.complete(started.id, { outcome: 'scheduled', apiStatus: 201, durationMs: 9000, detail: 'disk 7 (20 GB) on VS 42' });
      expect(late.outcome).toBe('scheduled');
      expect((await store.audit.latest(1))[0]).toMatchObject({ id: started.id, outcome: 'scheduled', detail: 'disk 7 (20 GB) on VS 42' });
      await store.outbox.markSent(
        posts.map((p) => p.id),
        7000,
      );
      expect(await store.outbox.claim('sender', 8000, 30_000, 10)).toEqual([]);
    });

    test('a late answer to an interrupted change whose post is still waiting goes out once, saying what the record says by then', async () => {
      const store = await one();
      const started = await store.audit.record(entry({ outcome: 'started', apiStatus: null, detail: 'in progress', leaseOwner: 'V1#a' }));
      expect((await store.audit.recoverInterrupted(1000)).map((r) => r.id)).toEqual([started.id]);
      await store.audit.complete(started.id, { outcome: 'failed', apiStatus: 500, durationMs: 9000, detail: 'the cloud API failed' });
      expect((await store.outbox.claim('sender', 2000, 30_000, 10)).map((p) => [p.record.id, p.record.outcome])).toEqual([[started.id, 'failed']]);
    });

    test('a lease that is still live, renewed or taken over by a new change keeps or releases the right records', async () => {
      const store = await one();
      await store.leases.take('vs:1', 'old', 0, 1000);
      const old = await store.audit.record(entry({ target: 'vs:1', outcome: 'started', leaseOwner: 'old' }));
      await store.leases.take('vs:2', 'live', 0, 1000);
      const live = await store.audit.record(entry({ target: 'vs:2', outcome: 'started', leaseOwner: 'live' }));
      await store.leases.take('vs:2', 'live', 900, 1000); // renewed until 1900
      // At 1500 'old' expired and a new change took vs:1 over: the old record is orphaned, the new one is not.
      expect(await store.leases.take('vs:1', 'new', 1500, 1000)).toBe(true);
      const taken = await store.audit.record(entry({ target: 'vs:1', outcome: 'started', leaseOwner: 'new' }));
      expect((await store.audit.recoverInterrupted(1500)).map((r) => r.id)).toEqual([old.id]);
      // A record written without an owner is orphaned once no live lease is held on its target at all.
      const ownerless = await store.audit.record(entry({ target: 'vs:3', outcome: 'started' }));
      await store.leases.take('vs:3', 'someone', 1500, 1000);
      expect(await store.audit.recoverInterrupted(1600)).toEqual([]);
      // At 2500 every lease has run out.
      expect((await store.audit.recoverInterrupted(2500)).map((r) => r.id)).toEqual([live.id, taken.id, ownerless.id]);
    });

    test('two instances racing to recover: each record is settled, returned and posted exactly once', async () => {
      const [a, b] = (await instances(2)) as [Store, Store];
      const ids: number[] = [];
      for (let i = 0; i < 20; i++) {
        await a.leases.take(`vs:${i}`, `owner-${i}`, 0, 1000);
        ids.push((await a.audit.record(entry({ target: `vs:${i}`, outcome: 'started', leaseOwner: `owner-${i}` }))).id);
      }
      const results = await Promise.all([
        a.audit.recoverInterrupted(5000, 7),
        b.audit.recoverInterrupted(5000, 7),
        a.audit.recoverInterrupted(5000, 7),
        b.audit.recoverInterrupted(5000, 7),
      ]);
      const more = await Promise.all([a.audit.recoverInterrupted(5000), b.audit.recoverInterrupted(5000)]);
      const settled = [...results, ...more].flat().map((r) => r.id);
      expect(settled.sort((x, y) => x - y)).toEqual(ids);
      const posts = await a.outbox.claim('sender', 5000, 30_000, 100);
      expect(posts.map((p) => p.record.id).sort((x, y) => x - y)).toEqual(ids);
    });
  });
}
