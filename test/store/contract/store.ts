import type { ContractStores } from './types';

// The store as a whole: its health check and its end.

export function storeContract({ one, fresh }: ContractStores): void {
  test('ping answers while the database is reachable', async () => {
    const store = await one();
    await expect(store.ping()).resolves.toBeUndefined();
  });

  test('closing twice is harmless', async () => {
    const store = await (await fresh()).open();
    await store.close();
    await expect(store.close()).resolves.toBeUndefined();
  });
}
