import type { ContractStores } from './types';

// Submission claims: a key is acted on once, across instances and restarts, unless given back.

export function claimsContract({ fresh, instances }: ContractStores): void {
  test('a key can be claimed once, even after reopening, unless it is given back', async () => {
    const location = await fresh();
    const store = await location.open();
    expect(await store.claims.claim('V1', '2024-05-01T10:00:00.000Z')).toBe(true);
    expect(await store.claims.claim('V1', '2024-05-01T10:00:01.000Z')).toBe(false);
    expect(await store.claims.claim('V2', '2024-05-01T10:00:01.000Z')).toBe(true);
    await store.close();
    const reopened = await location.open();
    expect(await reopened.claims.claim('V1', '2024-05-01T11:00:00.000Z')).toBe(false);
    await reopened.claims.release('V2');
    expect(await reopened.claims.claim('V2', '2024-05-01T11:00:00.000Z')).toBe(true);
  });

  test('many concurrent claims of one key from three instances: exactly one wins', async () => {
    const stores = await instances(3);
    for (let round = 0; round < 3; round++) {
      const key = `V-race-${round}`;
      const claims = await Promise.all(Array.from({ length: 30 }, (_, i) => stores[i % 3]!.claims.claim(key, '2024-05-01T10:00:00.000Z')));
      expect(claims.filter(Boolean)).toHaveLength(1);
    }
  });
}
