import type { ContractStores } from './types';

// Rates: a token bucket per key shared by every instance: `limit` at once,
// then one every `windowMs / limit`, however the takes are spread.

const MINUTE = 60_000;
const T0 = Date.parse('2024-06-01T00:00:00.000Z');

export function ratesContract({ one, instances }: ContractStores): void {
  test('a burst of `limit` is allowed, the next is told when a token is back, and tokens come back evenly', async () => {
    const { rates } = await one();
    for (let i = 0; i < 6; i++) expect(await rates.take('reads:U1', 6, MINUTE, T0)).toEqual({ allowed: true, retryInMs: 0 });
    expect(await rates.take('reads:U1', 6, MINUTE, T0)).toEqual({ allowed: false, retryInMs: 10_000 });
    expect(await rates.take('reads:U1', 6, MINUTE, T0 + 7_500)).toEqual({ allowed: false, retryInMs: 2_500 });
    expect(await rates.take('reads:U1', 6, MINUTE, T0 + 10_000)).toEqual({ allowed: true, retryInMs: 0 });
    expect((await rates.take('reads:U1', 6, MINUTE, T0 + 10_000)).allowed).toBe(false);
    // A whole minute idle fills the bucket again, and never beyond `limit`.
    const later = T0 + 10 * MINUTE;
    for (let i = 0; i < 6; i++) expect((await rates.take('reads:U1', 6, MINUTE, later)).allowed).toBe(true);
    expect((await rates.take('reads:U1', 6, MINUTE, later)).allowed).toBe(false);
  });

  test('keys are counted apart', async () => {
    const { rates } = await one();
    expect((await rates.take('reads:U1', 1, MINUTE, T0)).allowed).toBe(true);
    expect((await rates.take('reads:U1', 1, MINUTE, T0)).allowed).toBe(false);
    expect((await rates.take('reads:U2', 1, MINUTE, T0)).allowed).toBe(true);
    expect((await rates.take('changes:U1', 1, MINUTE, T0)).allowed).toBe(true);
  });

  test('twelve takes spread over three instances at once, with a limit of 6: exactly 6 are allowed', async () => {
    const stores = await instances(3);
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => stores[i % 3]!.rates.take('reads:USPREAD', 6, MINUTE, T0)));
    expect(answers.filter((a) => a.allowed)).toHaveLength(6);
    for (const refused of answers.filter((a) => !a.allowed)) expect(refused.retryInMs).toBe(10_000);
    // Each instance sees the same bucket.
    for (const store of stores) expect((await store.rates.take('reads:USPREAD', 6, MINUTE, T0 + 1)).allowed).toBe(false);
  });

  test('a lower limit applies at once; a time before the last take counts as that time', async () => {
    const { rates } = await one();
    for (let i = 0; i < 2; i++) await rates.take('reads:U1', 10, MINUTE, T0);
    // 8 tokens left, but the limit is now 3: the bucket holds 3 at most.
    for (let i = 0; i < 3; i++) expect((await rates.take('reads:U1', 3, MINUTE, T0)).allowed).toBe(true);
    expect((await rates.take('reads:U1', 3, MINUTE, T0)).allowed).toBe(false);
    // Another instance's clock is a second behind: nothing is refilled, nothing is taken away.
    expect(await rates.take('reads:U1', 3, MINUTE, T0 - 1000)).toEqual({ allowed: false, retryInMs: 20_000 });
    expect((await rates.take('reads:U1', 3, MINUTE, T0 + 20_000)).allowed).toBe(true);
  });

  test('a limit or window below 1 is a mistake, refused without a guess', async () => {
    const { rates } = await one();
    await expect(rates.take('reads:U1', 0, MINUTE, T0)).rejects.toThrow(RangeError);
    await expect(rates.take('reads:U1', 6, 0, T0)).rejects.toThrow(RangeError);
    await expect(rates.take('reads:U1', Number.NaN, MINUTE, T0)).rejects.toThrow(RangeError);
  });
}
