import type { PollSeen, ServerSeen, Watch } from '../../src/store/watches';
import { EVERY_SERVER } from '../../src/store/watches';
import { diffBlind, diffServers, diffTransactions, powerOf, serverOfTransaction, type DiffInput, type ServerReading } from '../../src/watch/diff';

// The watch's decisions (docs/product.md, Watches: the bot speaks first), one situation at a time: what the poll last
// saw, what it reads now and the channels' watches give what is saved and what is told. The clock is the `nowMs` each
// diff is given.

const T0 = Date.parse('2026-12-06T09:00:00Z');
const MIN = 60_000;
const LOCK_MS = 10 * MIN;

function watch(channelId: string, serverId: number, events: Watch['events'] = ['power', 'lock', 'failures'], snoozedUntilMs: number | null = null): Watch {
  return { channelId, serverId, events, createdBy: 'U1', createdAtMs: T0, snoozedUntilMs };
}

function server(id: number, fields: Partial<ServerReading> = {}): ServerReading {
  return { id, label: `web-${id}`, booted: true, suspended: false, recovery_mode: false, locked: false, ...fields };
}

/** Runs diffs one after the other, carrying what was saved as seen, as the poll does through the store. */
function poller(watches: Watch[]) {
  let seen = new Map<number, ServerSeen>();
  let first = true;
  return (now: ServerReading[], nowMs: number) => {
    const input: DiffInput = { before: seen, now, watches, baseline: first, nowMs, lockMs: LOCK_MS };
    const diff = diffServers(input);
    first = false;
    seen = new Map(seen);
    for (const s of diff.seen) seen.set(s.serverId, s);
    for (const id of diff.gone) seen.delete(id);
    return diff;
  };
}

describe('watch diff', () => {
  test('power from the record: recovery and suspension before booted', () => {
    expect(powerOf(server(1))).toBe('on');
    expect(powerOf(server(1, { booted: false }))).toBe('off');
    expect(powerOf(server(1, { suspended: true }))).toBe('suspended');
    expect(powerOf(server(1, { recovery_mode: true, suspended: true }))).toBe('recovery');
  });

  test('the first read is the baseline: saved, never told', () => {
    const poll = poller([watch('C1', 42)]);
    const diff = poll([server(42, { booted: false, locked: true })], T0);
    expect(diff.notices).toEqual([]);
    expect(diff.seen).toEqual([{ serverId: 42, label: 'web-42', power: 'off', lockedSinceMs: T0, lockTold: false }]);
  });

  test('power on → off is told once to the watching channel, and not again while unchanged', () => {
    const poll = poller([watch('C1', 42), watch('C2', 7)]);
    poll([server(42), server(7)], T0);
    const off = poll([server(42, { booted: false }), server(7)], T0 + MIN);
    expect(off.notices).toEqual([
      { channelId: 'C1', serverId: 42, label: 'web-42', kind: 'power_off', event: 'power', state: 'off', from: 'on', key: `watch:C1:42:power_off:${T0 + MIN}` },
    ]);
    expect(off.seen.map((s) => [s.serverId, s.power])).toEqual([[42, 'off']]);
    expect(poll([server(42, { booted: false }), server(7)], T0 + 2 * MIN).notices).toEqual([]);
    const on = poll([server(42), server(7)], T0 + 3 * MIN);
    expect(on.notices.map((n) => [n.kind, n.from])).toEqual([['power_on', 'off']]);
  });

  test('suspended and recovery are power news too', () => {
    const poll = poller([watch('C1', 42, ['power'])]);
    poll([server(42)], T0);
    expect(poll([server(42, { suspended: true })], T0 + MIN).notices.map((n) => n.kind)).toEqual(['power_suspended']);
    expect(poll([server(42, { recovery_mode: true })], T0 + 2 * MIN).notices.map((n) => n.kind)).toEqual(['power_recovery']);
    expect(poll([server(42)], T0 + 3 * MIN).notices.map((n) => [n.kind, n.from])).toEqual([['power_on', 'recovery']]);
  });

  test('a watch told only failures hears no power news; `all` in a channel that also watches the server tells once', () => {
    const poll = poller([watch('C1', 42, ['failures']), watch('C2', 42, ['power']), watch('C2', EVERY_SERVER, ['power'])]);
    poll([server(42)], T0);
    expect(poll([server(42, { booted: false })], T0 + MIN).notices.map((n) => n.channelId)).toEqual(['C2']);
  });

  test('a snoozed watch is not told, and the change is not told later either', () => {
    const poll = poller([watch('C1', 42, ['power'], T0 + 30 * MIN)]);
    poll([server(42)], T0);
    const off = poll([server(42, { booted: false })], T0 + MIN);
    expect(off.notices).toEqual([]);
    expect(off.seen.map((s) => s.power)).toEqual(['off']);
    expect(poll([server(42, { booted: false })], T0 + 31 * MIN).notices).toEqual([]);
  });

  test('a lock is told once it outlasts the lock minutes, and its end after that; a short lock is never told', () => {
    const poll = poller([watch('C1', 42, ['lock'])]);
    poll([server(42)], T0);
    expect(poll([server(42, { locked: true })], T0 + MIN).notices).toEqual([]);
    expect(poll([server(42, { locked: true })], T0 + 5 * MIN).notices).toEqual([]);
    const long = poll([server(42, { locked: true })], T0 + 11 * MIN);
    expect(long.notices.map((n) => [n.kind, n.key])).toEqual([['lock_long', `watch:C1:42:lock_long:${T0 + MIN}`]]);
    expect(poll([server(42, { locked: true })], T0 + 20 * MIN).notices).toEqual([]);
    expect(poll([server(42)], T0 + 21 * MIN).notices.map((n) => [n.kind, n.state])).toEqual([['lock_end', 'unlocked']]);

    expect(poll([server(42, { locked: true })], T0 + 22 * MIN).notices).toEqual([]);
    expect(poll([server(42)], T0 + 23 * MIN).notices).toEqual([]);
  });

  test('a server gone from the list is told to every watch of it, whatever its events, and forgotten', () => {
    const poll = poller([watch('C1', 42, ['failures']), watch('C2', 7)]);
    poll([server(42), server(7)], T0);
    const gone = poll([server(7)], T0 + MIN);
    expect(gone.gone).toEqual([42]);
    expect(gone.notices.map((n) => [n.channelId, n.kind, n.event, n.key])).toEqual([['C1', 'gone', 'always', 'watch:C1:42:gone']]);
    expect(poll([server(7)], T0 + 2 * MIN).notices).toEqual([]);
  });

  test('the same change read by two instances gets the same key (the cloud says when it changed)', () => {
    const a = poller([watch('C1', 42)]);
    const b = poller([watch('C1', 42)]);
    a([server(42)], T0);
    b([server(42)], T0);
    const changed = T0 + 30_000;
    const ka = a([server(42, { booted: false, updatedAtMs: changed })], T0 + MIN).notices[0]?.key;
    const kb = b([server(42, { booted: false, updatedAtMs: changed })], T0 + MIN + 5000).notices[0]?.key;
    expect(ka).toBe(`watch:C1:42:power_off:${changed}`);
    expect(kb).toBe(ka);
  });
});

describe('watch diff: failures and blindness', () => {
  const NEVER: PollSeen = { txCursor: null, txMax: null, txOpen: [], blindSinceMs: null, blindTold: false };
  const tx = (id: number, status: string, serverId = 42, action = 'reboot_virtual_machine') => ({
    id,
    action,
    status,
    parent_type: 'VirtualMachine',
    parent_id: serverId,
  });
  const labels = new Map([[42, 'web-42']]);

  test('the baseline tells no failure but keeps running transactions open; a failure after it is told once, whoever started it', () => {
    const watches = [watch('C1', 42, ['failures']), watch('C2', 42, ['power'])];
    const first = diffTransactions({ before: NEVER, now: [tx(10, 'failed'), tx(11, 'running'), tx(12, 'complete')], watches, labels, nowMs: T0 });
    expect(first.notices).toEqual([]);
    expect(first.seen).toMatchObject({ txCursor: 10, txMax: 12, txOpen: [11] });

    const second = diffTransactions({
      before: first.seen,
      now: [tx(11, 'failed'), tx(12, 'complete'), tx(13, 'failed', 42, 'stop_virtual_machine'), tx(14, 'failed', 7)],
      watches,
      labels,
      nowMs: T0 + MIN,
    });
    expect(second.notices).toEqual([
      {
        channelId: 'C1',
        serverId: 42,
        label: 'web-42',
        kind: 'failed',
        event: 'failures',
        state: 'failed',
        transaction: { id: 11, action: 'reboot_virtual_machine' },
        key: 'watch:C1:42:failed:11',
      },
      {
        channelId: 'C1',
        serverId: 42,
        label: 'web-42',
        kind: 'failed',
        event: 'failures',
        state: 'failed',
        transaction: { id: 13, action: 'stop_virtual_machine' },
        key: 'watch:C1:42:failed:13',
      },
    ]);
    expect(second.seen).toMatchObject({ txCursor: 14, txMax: 14, txOpen: [] });
    expect(diffTransactions({ before: second.seen, now: [tx(13, 'failed'), tx(14, 'failed', 7)], watches, labels, nowMs: T0 + 2 * MIN }).notices).toEqual([]);
  });

  test("a disk's transaction is the server's when the cloud names the server it concerns", () => {
    expect(
      serverOfTransaction({
        id: 1,
        action: 'format_disk',
        status: 'failed',
        parent_type: 'Disk',
        parent_id: 7,
        associated_object_type: 'VirtualMachine',
        associated_object_id: 42,
      }),
    ).toBe(42);
    expect(serverOfTransaction({ id: 1, action: 'format_disk', status: 'failed', parent_type: 'Disk', parent_id: 7 })).toBeNull();
  });

  test('blind for the blind minutes: told once to each watching channel, and once when it sees again; a short blindness never', () => {
    const watches = [watch('C1', 42), watch('C1', 7), watch('C2', EVERY_SERVER, ['failures'])];
    const blindMs = 5 * MIN;
    let seen: PollSeen = { ...NEVER, txCursor: 1, txMax: 1 };
    const step = (readable: boolean, nowMs: number) => {
      const d = diffBlind({ before: seen, readable, watches, nowMs, blindMs });
      seen = d.seen;
      return d.notices.map((n) => [n.channelId, n.kind, n.key]);
    };
    expect(step(false, T0)).toEqual([]);
    expect(step(true, T0 + MIN)).toEqual([]);
    expect(step(false, T0 + 2 * MIN)).toEqual([]);
    expect(step(false, T0 + 7 * MIN)).toEqual([
      ['C1', 'blind', `watch:C1:blind:${T0 + 2 * MIN}`],
      ['C2', 'blind', `watch:C2:blind:${T0 + 2 * MIN}`],
    ]);
    expect(step(false, T0 + 8 * MIN)).toEqual([]);
    expect(step(true, T0 + 9 * MIN)).toEqual([
      ['C1', 'sees_again', `watch:C1:sees_again:${T0 + 2 * MIN}`],
      ['C2', 'sees_again', `watch:C2:sees_again:${T0 + 2 * MIN}`],
    ]);
    expect(seen).toMatchObject({ blindSinceMs: null, blindTold: false });
  });
});
