import type { AuditRecord, BreakGlassWindow, Store } from '../../../src/store';
import { entry } from './entries';
import type { ContractStores } from './types';

// Break-glass windows (docs/product.md, On call): one person's open at a time, across instances, ended at their time or
// closed early; the changes made under one are the uses, flagged on their records, each acknowledged once; every step
// written with its record.

const T = 1_000_000;
const opened = entry({ userId: 'UOPER', action: 'breakglass', target: 'changes', outcome: 'done', apiStatus: null, params: { reason: 'db down' } });
const window = (o: Partial<BreakGlassWindow> = {}): BreakGlassWindow => ({
  id: 'W1',
  userId: 'UOPER',
  channelId: 'CINCIDENT',
  reason: 'db down',
  openedAt: new Date(T).toISOString(),
  endsAtMs: T + 60_000,
  endedBy: null,
  ...o,
});
const ended = (w: BreakGlassWindow) => entry({ userId: w.userId, action: 'breakglass_end', target: 'changes', outcome: 'done', apiStatus: null });
const acked = (use: AuditRecord) => entry({ userId: 'UADMIN', action: 'breakglass_ack', target: use.target, outcome: 'done', apiStatus: null });

/** A change started and settled under window `windowId` (a use). */
async function madeUnder(store: Store, windowId: string | null, target = 'vs:42'): Promise<AuditRecord> {
  const started = await store.audit.beginChange({
    submissionKey: `V-${Math.random()}`,
    at: '2024-05-01T10:00:00.000Z',
    lease: { target, owner: 'door', nowMs: 0, ttlMs: 60_000 },
    started: entry({ outcome: 'started', target, breakGlass: windowId }),
  });
  if (started.outcome !== 'started') throw new Error('not started');
  return store.audit.complete(
    started.record.id,
    { outcome: 'failed', apiStatus: 500, durationMs: 5, detail: 'the cloud API failed' },
    { target, owner: 'door' },
  );
}

export function breakGlassContract({ one, instances }: ContractStores): void {
  test('a window is open for its person until its end, and no longer; opening it writes its record', async () => {
    const store = await one();
    const result = await store.breakGlass.open(window(), T, opened);
    expect(result).toEqual({ opened: true, window: window(), record: expect.objectContaining({ action: 'breakglass', userId: 'UOPER' }) });
    expect(await store.breakGlass.current('UOPER', T + 59_999)).toEqual(window());
    expect(await store.breakGlass.current('UOPER', T + 60_000)).toBeNull();
    expect(await store.breakGlass.current('UOTHER', T)).toBeNull();
    expect(await store.breakGlass.openAt(T + 1)).toEqual([window()]);
    expect(await store.breakGlass.openAt(T + 60_000)).toEqual([]);
  });

  test('two instances opening one person’s window at once: one window, one record; the other is told of it', async () => {
    const [a, b] = (await instances(2)) as [Store, Store];
    const results = await Promise.all([a.breakGlass.open(window({ id: 'WA' }), T, opened), b.breakGlass.open(window({ id: 'WB' }), T, opened)]);
    expect(results.filter((r) => r.opened)).toHaveLength(1);
    expect(results[0].window.id).toBe(results[1].window.id);
    expect((await a.audit.latest(10)).filter((r) => r.action === 'breakglass')).toHaveLength(1);
    // Once it has ended, another may open.
    expect((await b.breakGlass.open(window({ id: 'WC', endsAtMs: T + 120_000 }), T + 60_000, opened)).opened).toBe(true);
  });

  test('closed early by its person: ended then, recorded; closing again does nothing', async () => {
    const store = await one();
    await store.breakGlass.open(window(), T, opened);
    const closed = await store.breakGlass.end('UOPER', 'UOPER', T + 10_000, ended);
    expect(closed).toEqual({ ended: window({ endsAtMs: T + 10_000, endedBy: 'UOPER' }), record: expect.objectContaining({ action: 'breakglass_end' }) });
    expect(await store.breakGlass.current('UOPER', T + 10_001)).toBeNull();
    expect(await store.breakGlass.end('UOPER', 'UOPER', T + 20_000, ended)).toEqual({ ended: null, record: null });
  });

  test('a use is flagged with its window; acknowledged once, by whoever is first, with its record; /vs audit breakglass reads them', async () => {
    const [a, b] = (await instances(2)) as [Store, Store];
    const use = await madeUnder(a, 'W1');
    const other = await madeUnder(a, null, 'vs:43');
    expect(use.breakGlass).toBe('W1');
    expect(other.breakGlass).toBeNull();
    expect((await a.audit.latest(10, { breakGlass: 'uses' })).map((r) => r.id)).toEqual([use.id]);
    expect((await a.audit.latest(10, { breakGlass: 'unreviewed' })).map((r) => r.id)).toEqual([use.id]);

    const at = '2024-05-01T12:00:00.000Z';
    const clicks = await Promise.all([a.breakGlass.acknowledge(use.id, 'UADMIN', at, acked), b.breakGlass.acknowledge(use.id, 'UADMIN2', at, acked)]);
    expect(clicks.filter((c) => c.acknowledged)).toHaveLength(1);
    const winner = clicks.find((c) => c.acknowledged)!;
    expect(winner.use).toMatchObject({ id: use.id, reviewedBy: expect.stringMatching(/^UADMIN2?$/), reviewedAt: at });
    expect(winner.record).toMatchObject({ action: 'breakglass_ack' });
    expect(await a.audit.latest(10, { breakGlass: 'unreviewed' })).toEqual([]);
    expect(await a.audit.count({ breakGlass: 'uses' })).toBe(1);
    // A record that is no use is never acknowledged; an unknown one is none.
    expect(await a.breakGlass.acknowledge(other.id, 'UADMIN', at, acked)).toEqual({
      acknowledged: false,
      use: expect.objectContaining({ id: other.id }),
      record: null,
    });
    expect(await a.breakGlass.acknowledge(999_999, 'UADMIN', at, acked)).toEqual({ acknowledged: false, use: null, record: null });
    expect((await a.audit.latest(20)).filter((r) => r.action === 'breakglass_ack')).toHaveLength(1);
  });

  test('windows and change events go with the audit records of their time', async () => {
    const store = await one({ auditRetentionDays: 1, changeEvents: true });
    const day = 24 * 60 * 60_000;
    await store.breakGlass.open(window({ openedAt: new Date(T).toISOString() }), T, entry({ at: new Date(T).toISOString(), action: 'breakglass' }));
    const use = await madeUnder(store, 'W1');
    expect(await store.changeEvents.get(use.id)).not.toBeNull();
    // The use was recorded at 2024-05-01T10:00Z; a day and more after both, everything of theirs is gone.
    const later = Math.max(T, Date.parse(use.at)) + day + 1000;
    await store.retention.prune(later);
    expect(await store.audit.get(use.id)).toBeNull();
    expect(await store.changeEvents.get(use.id)).toBeNull();
    expect(await store.breakGlass.openAt(0)).toEqual([]);
  });

  test('a record keeps the on-call shift its role came from', async () => {
    const store = await one();
    const onCall = { role: 'operator', until: '2024-05-01T18:00:00.000Z', schedule: 'Primary', escalationPolicy: 'Infrastructure', level: 1 };
    const record = await store.audit.record(entry({ onCall }));
    expect(record.onCall).toEqual(onCall);
    expect((await store.audit.get(record.id))?.onCall).toEqual(onCall);
    expect((await store.audit.record(entry())).onCall).toBeNull();
  });
}
