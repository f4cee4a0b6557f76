import type { Store } from '../../../src/store';
import type { ContractStores } from './types';

// Leases: one owner at a time, until released or expired; renewed by their owner.

export function leasesContract({ one, instances }: ContractStores): void {
  test('a lease keeps others out until it is released or expires, only its owner releases it, and its owner renews it', async () => {
    const { leases } = await one();
    expect(await leases.take('vs:42', 'a', 1000, 500)).toBe(true);
    expect(await leases.take('vs:42', 'b', 1200, 500)).toBe(false);
    expect(await leases.take('vs:43', 'b', 1200, 500)).toBe(true);
    await leases.release('vs:42', 'b'); // not b's lease: nothing happens
    expect(await leases.take('vs:42', 'c', 1300, 500)).toBe(false);
    await leases.release('vs:42', 'a');
    expect(await leases.take('vs:42', 'c', 1300, 500)).toBe(true);
    // c renews at 1700 until 2200: d cannot take it over at 1800 as it could have without the renewal.
    expect(await leases.take('vs:42', 'c', 1700, 500)).toBe(true);
    expect(await leases.take('vs:42', 'd', 1800, 500)).toBe(false);
    // c dies holding it; once expired, d takes it over and c's late release does not free d's lease.
    expect(await leases.take('vs:42', 'd', 2199, 500)).toBe(false);
    expect(await leases.take('vs:42', 'd', 2200, 500)).toBe(true);
    await leases.release('vs:42', 'c');
    expect(await leases.take('vs:42', 'e', 2300, 500)).toBe(false);
  });

  test("extend moves its owner's lease forward, expired or not, unless taken over; it never makes a lease that is not there", async () => {
    const { leases } = await one();
    expect(await leases.take('vs:42', 'a', 1000, 500)).toBe(true);
    expect(await leases.extend('vs:42', 'a', 1400, 500)).toBe(true); // until 1900
    expect(await leases.take('vs:42', 'b', 1800, 500)).toBe(false);
    // Expired at 1900, but nobody took it: still a's to extend.
    expect(await leases.extend('vs:42', 'a', 2000, 500)).toBe(true); // until 2500
    expect(await leases.take('vs:42', 'b', 2400, 500)).toBe(false);
    expect(await leases.extend('vs:42', 'b', 2400, 500)).toBe(false); // not b's
    // Released: extending brings nothing back.
    await leases.release('vs:42', 'a');
    expect(await leases.extend('vs:42', 'a', 2450, 500)).toBe(false);
    expect(await leases.take('vs:42', 'b', 2450, 500)).toBe(true);
    // Taken over once expired: the old owner cannot extend it.
    expect(await leases.extend('vs:42', 'a', 3000, 500)).toBe(false);
    expect(await leases.take('vs:42', 'c', 2900, 500)).toBe(false);
  });

  test('two instances see each other’s leases', async () => {
    const [one, two] = (await instances(2)) as [Store, Store];
    expect(await one.leases.take('backup:9', 'one', 0, 60_000)).toBe(true);
    expect(await two.leases.take('backup:9', 'two', 1, 60_000)).toBe(false);
  });

  test('many owners racing for one target from three instances: exactly one gets it, also when taking over an expired lease', async () => {
    const stores = await instances(3);
    const race = (nowMs: number) => Promise.all(Array.from({ length: 24 }, (_, i) => stores[i % 3]!.leases.take('vs:7', `owner-${nowMs}-${i}`, nowMs, 1000)));
    expect((await race(0)).filter(Boolean)).toHaveLength(1);
    expect((await race(500)).filter(Boolean)).toHaveLength(0);
    expect((await race(1000)).filter(Boolean)).toHaveLength(1);
  });
}
