import { EVERY_SERVER, type NewFollow, type Store, type Watch } from '../../../src/store';
import { entry } from './entries';
import type { ContractStores } from './types';

// Watches (docs/product.md, Watches): a channel's watches, bounded per channel, snoozed; what the poll last saw of the
// servers and the account; quiet hours and the news they hold, taken once; notices posted once across instances.

const watch = (o: Partial<Watch> = {}): Watch => ({
  channelId: 'CINC',
  serverId: 42,
  events: ['power', 'lock', 'failures'],
  createdBy: 'UOPER',
  createdAtMs: 1000,
  snoozedUntilMs: null,
  ...o,
});

export function watchesContract({ one, instances, fresh }: ContractStores): void {
  test('a channel watches servers up to its limit; watching one again changes what it tells; unwatching ends it', async () => {
    const store = await one();
    expect(await store.watches.add(watch(), 2)).toEqual({ outcome: 'added', count: 1 });
    expect(await store.watches.add(watch({ serverId: EVERY_SERVER, events: ['failures'] }), 2)).toEqual({ outcome: 'added', count: 2 });
    expect(await store.watches.add(watch({ serverId: 43 }), 2)).toEqual({ outcome: 'full', count: 2 });
    expect(await store.watches.add(watch({ channelId: 'COTHER', serverId: 43 }), 2)).toEqual({ outcome: 'added', count: 1 });
    expect(await store.watches.add(watch({ events: ['failures'] }), 2)).toEqual({ outcome: 'updated', count: 2 });
    expect(await store.watches.ofChannel('CINC')).toEqual([watch({ serverId: EVERY_SERVER, events: ['failures'] }), watch({ events: ['failures'] })]);
    expect(await store.watches.remove('CINC', 42)).toBe(true);
    expect(await store.watches.remove('CINC', 42)).toBe(false);
    expect((await store.watches.all()).map((w) => [w.channelId, w.serverId])).toEqual([
      ['CINC', 0],
      ['COTHER', 43],
    ]);
  });

  test('a snooze holds a watched server until its time; an unwatched one cannot be snoozed', async () => {
    const store = await one();
    await store.watches.add(watch(), 50);
    expect(await store.watches.snooze('CINC', 42, 5000)).toBe(true);
    expect(await store.watches.snooze('CINC', 43, 5000)).toBe(false);
    expect((await store.watches.ofChannel('CINC'))[0]?.snoozedUntilMs).toBe(5000);
  });

  test('three instances adding to one channel at once never pass its limit', async () => {
    const stores = await instances(3);
    const results = await Promise.all(Array.from({ length: 9 }, (_, i) => stores[i % 3]!.watches.add(watch({ serverId: 100 + i }), 4)));
    expect(results.filter((r) => r.outcome === 'added')).toHaveLength(4);
    expect(await stores[0]!.watches.ofChannel('CINC')).toHaveLength(4);
  });

  test('what the poll saw of servers and of the account is kept, survives reopening, and forgets servers gone', async () => {
    const location = await fresh();
    const store = await location.open();
    expect(await store.watches.poll()).toEqual({ txCursor: null, txMax: null, txOpen: [], blindSinceMs: null, blindTold: false });
    await store.watches.saveServers(
      [
        { serverId: 42, label: 'web-1', power: 'on', lockedSinceMs: null, lockTold: false },
        { serverId: 43, label: null, power: 'off', lockedSinceMs: 9000, lockTold: true },
      ],
      [],
    );
    await store.watches.savePoll({ txCursor: 10, txMax: 14, txOpen: [12, 14], blindSinceMs: 7000, blindTold: true });
    await store.watches.saveServers([{ serverId: 42, label: 'web-1', power: 'off', lockedSinceMs: null, lockTold: false }], [43]);
    await store.close();
    const again = await location.open();
    expect(await again.watches.servers()).toEqual([{ serverId: 42, label: 'web-1', power: 'off', lockedSinceMs: null, lockTold: false }]);
    expect(await again.watches.poll()).toEqual({ txCursor: 10, txMax: 14, txOpen: [12, 14], blindSinceMs: 7000, blindTold: true });
  });

  test('quiet hours per channel; held news are taken once, oldest first', async () => {
    const [a, b] = await instances(2);
    await a!.watches.setQuiet('CINC', { startMin: 22 * 60, endMin: 7 * 60 });
    await a!.watches.setQuiet('COTHER', { startMin: 60, endMin: 120 });
    await a!.watches.setQuiet('COTHER', null);
    expect(await b!.watches.quiet()).toEqual([{ channelId: 'CINC', startMin: 1320, endMin: 420 }]);
    await a!.watches.hold({ channelId: 'CINC', serverId: 42, label: 'web-1', kind: 'power_on', state: 'on', atMs: 2000 });
    await a!.watches.hold({ channelId: 'CINC', serverId: 42, label: 'web-1', kind: 'power_off', state: 'off', atMs: 1000 });
    expect(await b!.watches.holding()).toEqual(['CINC']);
    const [first, second] = await Promise.all([a!.watches.takeHeld('CINC'), b!.watches.takeHeld('CINC')]);
    const taken = first.length > 0 ? first : second;
    expect(first.length === 0 || second.length === 0).toBe(true);
    expect(taken.map((n) => n.kind)).toEqual(['power_off', 'power_on']);
    expect(await a!.watches.holding()).toEqual([]);
  });

  test('a notice is claimed once across instances, and again once given back', async () => {
    const stores = await instances(3);
    const claims = await Promise.all(Array.from({ length: 12 }, (_, i) => stores[i % 3]!.watches.claimNotice('CINC:42:power:5', 1000, 60_000)));
    expect(claims.filter(Boolean)).toHaveLength(1);
    await stores[1]!.watches.releaseNotice('CINC:42:power:5');
    expect(await stores[2]!.watches.claimNotice('CINC:42:power:5', 2000, 60_000)).toBe(true);
  });

  test('a claim never told is taken over once it is older than the stale time, by one instance; a told one never', async () => {
    const stores = await instances(3);
    expect(await stores[0]!.watches.claimNotice('CINC:42:power:6', 1000, 60_000)).toBe(true);
    expect(await stores[1]!.watches.claimNotice('CINC:42:power:6', 60_999, 60_000)).toBe(false);
    const late = await Promise.all(stores.map((s) => s.watches.claimNotice('CINC:42:power:6', 61_000, 60_000)));
    expect(late.filter(Boolean)).toHaveLength(1);
    await stores[2]!.watches.noticeTold('CINC:42:power:6', 61_500);
    expect(await stores[0]!.watches.claimNotice('CINC:42:power:6', 10_000_000, 60_000)).toBe(false);
  });

  test('the servers of changes the bot follows, by channel: those still followed and those ended since a time', async () => {
    const store = await one();
    const running = await followed(store, { target: 'vs:42', channelId: 'CINC' });
    // A restore: its target is the backup, its subject names the server.
    await followed(store, { target: 'backup:9', channelId: 'COTHER', subject: { ...SUBJECT, serverId: 47, parentType: 'Backup', parentId: 9 } });
    await followed(store, { target: 'vs:43', channelId: null });
    const byChannel = async (sinceMs: number) => (await store.watches.following(sinceMs)).map((f) => `${f.channelId}:${f.serverId}`).sort();
    expect(await byChannel(0)).toEqual(['CINC:42', 'COTHER:47']);
    const [taken] = await store.follows.claimDue('i1', 10_000, 30_000, 10);
    expect(taken).toBeDefined();
    const ended = { status: 'complete' as const, transactionIds: [7], step: null, finalState: null, polls: 1, intervalMs: 5000, nextPollAtMs: 0 };
    await store.follows.end(running, 'i1', { ...ended, endedAtMs: 20_000, told: null, repliedAtMs: null, tellAttempts: 0 }, 30_000);
    expect(await byChannel(20_000)).toEqual(['CINC:42', 'COTHER:47']);
    expect(await byChannel(20_001)).toEqual(['COTHER:47']);
  });
}

const SUBJECT: NewFollow['subject'] = { serverId: 42, parentType: 'VirtualMachine', parentId: 42, actions: ['stop_virtual_machine'], facts: {} };

/** A change accepted and followed from then on (its record written first), as the door leaves it. */
async function followed(store: Store, o: Partial<Omit<NewFollow, 'recordId'>>): Promise<number> {
  const target = o.target ?? 'vs:42';
  const started = await store.audit.beginChange({
    submissionKey: `W-${Math.random()}`,
    at: '2024-05-01T10:00:00.000Z',
    lease: { target, owner: 'door', nowMs: 0, ttlMs: 60_000 },
    started: entry({ outcome: 'started', target, action: 'power_shutdown' }),
  });
  if (started.outcome !== 'started') throw new Error('not started');
  const record = await store.audit.complete(
    started.record.id,
    { outcome: 'scheduled', apiStatus: 201, durationMs: 5, detail: null },
    { target, owner: 'door' },
    {
      action: 'power_shutdown',
      target,
      subject: SUBJECT,
      requestedBy: 'UOPER',
      approvedBy: null,
      channelId: 'CINC',
      baselineId: 6,
      acceptedAtMs: 1000,
      nextPollAtMs: 6000,
      intervalMs: 5000,
      ...o,
    },
  );
  return record.id;
}
