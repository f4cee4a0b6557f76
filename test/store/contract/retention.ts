import { DAY_MS } from '../../../src/store/kysely/rows';
import { entry } from './entries';
import type { ContractStores } from './types';

// Retention: what outlived its use goes, in bounded batches; what is still of use stays.

export function retentionContract({ one }: ContractStores): void {
  test('claims go after a day, audit records after the retention with their posts, newer ones stay', async () => {
    const store = await one({ auditRetentionDays: 30 });
    const now = Date.parse('2024-06-01T00:00:00.000Z');
    const iso = (ms: number) => new Date(ms).toISOString();
    await store.claims.claim('old', iso(now - DAY_MS - 1));
    await store.claims.claim('recent', iso(now - DAY_MS + 60_000));
    const old = await store.audit.record(entry({ at: iso(now - 31 * DAY_MS), target: 'vs:old' }));
    const kept = await store.audit.record(entry({ at: iso(now - 29 * DAY_MS), target: 'vs:kept' }));
    const result = await store.retention.prune(now);
    expect(result).toMatchObject({ claims: 1, records: 1 });
    expect(await store.claims.claim('old', iso(now))).toBe(true);
    expect(await store.claims.claim('recent', iso(now))).toBe(false);
    expect((await store.audit.latest(10)).map((r) => r.id)).toEqual([kept.id]);
    // The deleted record's post went with it; the kept one's is still there.
    expect((await store.outbox.claim('a', now, 30_000, 10)).map((p) => p.record.id)).toEqual([kept.id]);
    expect(old.id).not.toBe(kept.id);
    expect(await store.retention.prune(now)).toMatchObject({ claims: 0, records: 0 });
  });

  test('works in bounded batches', async () => {
    const store = await one({ auditRetentionDays: 1 });
    const now = Date.parse('2024-06-01T00:00:00.000Z');
    for (let i = 0; i < 5; i++) await store.audit.record(entry({ at: new Date(now - 3 * DAY_MS + i).toISOString() }));
    expect((await store.retention.prune(now, 2)).records).toBe(2);
    expect((await store.retention.prune(now, 2)).records).toBe(2);
    expect((await store.retention.prune(now, 2)).records).toBe(1);
    expect(await store.audit.latest(10)).toEqual([]);
  });

  test('sent posts and long-dead leases are swept after a day', async () => {
    const store = await one();
    await store.audit.record(entry());
    const [post] = await store.outbox.claim('a', 0, 30_000, 10);
    await store.outbox.markSent([post!.id], 0);
    await store.leases.take('vs:9', 'dead', 0, 1000);
    expect((await store.retention.prune(DAY_MS + 2000)).housekeeping).toBe(2);
    expect(await store.leases.take('vs:9', 'next', DAY_MS + 2000, 1000)).toBe(true);
  });

  test('a rate bucket is forgotten once it is full again, not before', async () => {
    const store = await one();
    const now = Date.parse('2024-06-01T00:00:00.000Z');
    for (let i = 0; i < 3; i++) await store.rates.take('reads:U1', 3, 60_000, now);
    expect(await store.rates.take('reads:U1', 3, 60_000, now)).toEqual({ allowed: false, retryInMs: 20_000 });
    expect((await store.retention.prune(now + 59_999)).housekeeping).toBe(0);
    expect(await store.rates.take('reads:U1', 3, 60_000, now + 20_000)).toEqual({ allowed: true, retryInMs: 0 });
    // Its last take was at +20 s: full again a minute later.
    expect((await store.retention.prune(now + 79_999)).housekeeping).toBe(0);
    expect((await store.retention.prune(now + 80_000)).housekeeping).toBe(1);
    for (let i = 0; i < 3; i++) expect((await store.rates.take('reads:U1', 3, 60_000, now + 80_000)).allowed).toBe(true);
    expect((await store.rates.take('reads:U1', 3, 60_000, now + 80_000)).allowed).toBe(false);
  });
}
