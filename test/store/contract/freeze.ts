import type { Freeze, Store } from '../../../src/store';
import { entry } from './entries';
import type { ContractStores } from './types';

// The freeze: at most one, kept across restarts until lifted, each change of state written with its record.

const frozeEntry = entry({ userId: 'UADMIN', action: 'freeze', target: 'changes', outcome: 'done', apiStatus: null, params: { reason: 'incident 42' } });
const liftedEntry = (lifted: Freeze) =>
  entry({ userId: 'UADMIN2', action: 'unfreeze', target: 'changes', outcome: 'done', apiStatus: null, detail: lifted.reason });

export function freezeContract({ fresh, instances }: ContractStores): void {
  test('a freeze is kept until lifted; freezing again keeps the first; each change of state is recorded with it', async () => {
    const location = await fresh();
    const store = await location.open();
    expect(await store.freeze.current()).toBeNull();
    const first = { by: 'UADMIN', at: '2024-05-01T10:00:00.000Z', reason: 'incident 42' };
    const started = await store.freeze.start(first, frozeEntry);
    expect(started).toEqual({ started: true, freeze: first, record: expect.objectContaining({ action: 'freeze', userId: 'UADMIN' }) });
    expect(await store.freeze.start({ by: 'UOTHER', at: '2024-05-01T11:00:00.000Z', reason: 'again' }, frozeEntry)).toEqual({
      started: false,
      freeze: first,
      record: null,
    });
    await store.close();
    const reopened = await location.open();
    expect(await reopened.freeze.current()).toEqual(first);
    const lifted = await reopened.freeze.lift(liftedEntry);
    expect(lifted).toEqual({ lifted: first, record: expect.objectContaining({ action: 'unfreeze', userId: 'UADMIN2', detail: 'incident 42' }) });
    expect(await reopened.freeze.lift(liftedEntry)).toEqual({ lifted: null, record: null });
    expect(await reopened.freeze.current()).toBeNull();
    expect((await reopened.audit.latest(10)).map((r) => r.action)).toEqual(['unfreeze', 'freeze']);
  });

  test('two instances freezing at once: one freeze, one record; every instance reads it at once', async () => {
    const [a, b] = (await instances(2)) as [Store, Store];
    const results = await Promise.all([
      a.freeze.start({ by: 'UADMIN', at: '2024-05-01T10:00:00.000Z', reason: 'one' }, frozeEntry),
      b.freeze.start({ by: 'UADMIN2', at: '2024-05-01T10:00:00.000Z', reason: 'two' }, frozeEntry),
    ]);
    expect(results.filter((r) => r.started)).toHaveLength(1);
    expect(results[0].freeze).toEqual(results[1].freeze);
    expect(await b.freeze.current()).toEqual(results[0].freeze);
    expect(await a.audit.latest(10)).toHaveLength(1);
  });
}
