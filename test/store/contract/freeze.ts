import type { ContractStores } from './types';

// The freeze: at most one, kept across restarts until lifted.

export function freezeContract({ fresh }: ContractStores): void {
  test('a freeze is kept until lifted; freezing again keeps the first', async () => {
    const location = await fresh();
    const store = await location.open();
    expect(await store.freeze.current()).toBeNull();
    const first = { by: 'UADMIN', at: '2024-05-01T10:00:00.000Z', reason: 'incident 42' };
    expect(await store.freeze.start(first)).toEqual(first);
    expect(await store.freeze.start({ by: 'UOTHER', at: '2024-05-01T11:00:00.000Z', reason: 'again' })).toEqual(first);
    await store.close();
    const reopened = await location.open();
    expect(await reopened.freeze.current()).toEqual(first);
    expect(await reopened.freeze.lift()).toEqual(first);
    expect(await reopened.freeze.lift()).toBeNull();
    expect(await reopened.freeze.current()).toBeNull();
  });
}
