import type { AuditRecord, ChangeCompletion, NewFollow, Store } from '../../../src/store';
import { entry } from './entries';
import type { ContractStores } from './types';

// The outbox of change events (docs/product.md, On call: the incident's timeline): queued in the transaction in which a
// change ends (`failed` or `unknown` when the cloud API answered, a change interrupted, a follow ended, a change written
// ended), once per record, never for a change still under way nor one not sent; claimed by one sender at a time under a
// lease that expires; sent, deferred with its attempt counted, held back untried, or set aside as undeliverable.

const EVENTS = { changeEvents: true };
const FOLLOW: Omit<NewFollow, 'recordId'> = {
  action: 'power_reboot',
  target: 'vs:42',
  subject: { serverId: 42, parentType: 'VirtualMachine', parentId: 42, actions: ['reboot_virtual_machine'], facts: {} },
  requestedBy: 'UOPER',
  approvedBy: 'UADMIN',
  channelId: 'CINCIDENT',
  baselineId: 6,
  acceptedAtMs: 1000,
  nextPollAtMs: 6000,
  intervalMs: 5000,
};

async function started(store: Store, target = 'vs:42'): Promise<AuditRecord> {
  const begun = await store.audit.beginChange({
    submissionKey: `V-${Math.random()}`,
    at: '2024-05-01T10:00:00.000Z',
    lease: { target, owner: 'door', nowMs: 0, ttlMs: 60_000 },
    started: entry({ outcome: 'started', target, action: 'power_reboot' }),
  });
  if (begun.outcome !== 'started') throw new Error('not started');
  return begun.record;
}
const settle = (store: Store, r: AuditRecord, outcome: ChangeCompletion['outcome'], follow?: Omit<NewFollow, 'recordId'>) =>
  store.audit.complete(
    r.id,
    { outcome, apiStatus: outcome === 'failed' ? 500 : 201, durationMs: 5, detail: null },
    { target: r.target, owner: 'door' },
    follow,
  );
const final = {
  transactionIds: [7],
  step: null,
  finalState: null,
  polls: 2,
  intervalMs: 5000,
  nextPollAtMs: 20_000,
  endedAtMs: 15_000,
  told: null,
  repliedAtMs: null,
  tellAttempts: 0,
};

export function changeEventsContract({ one, instances }: ContractStores): void {
  test('queued when a change ends, never while it is under way; a followed one when its follow ends, with where its message is', async () => {
    const store = await one(EVENTS);
    const failed = await settle(store, await started(store, 'vs:43'), 'failed');
    const unreadable = await settle(store, await started(store, 'vs:44'), 'unknown');
    const accepted = await settle(store, await started(store), 'scheduled', FOLLOW);
    await store.audit.record(entry({ outcome: 'refused', apiStatus: null }));
    expect(await store.changeEvents.get(failed.id)).toEqual({ attempts: 0, lastError: null, sentAtMs: null, undeliverableAtMs: null });
    expect(await store.changeEvents.get(unreadable.id)).not.toBeNull();
    expect(await store.changeEvents.get(accepted.id)).toBeNull();
    expect(await store.changeEvents.backlog()).toEqual({ pending: 2, undeliverable: 0 });

    await store.follows.setMessage(accepted.id, 'CINCIDENT', '1700000000.000100');
    const [held] = await store.follows.claimDue('follower', 10_000, 30_000, 1);
    expect(held?.recordId).toBe(accepted.id);
    await store.follows.end(accepted.id, 'follower', { ...final, status: 'complete' }, 30_000);
    const items = await store.changeEvents.claim('sender', 20_000, 60_000, 10);
    expect(items.map((i) => i.record.id)).toEqual([failed.id, unreadable.id, accepted.id]);
    const ended = items.find((i) => i.record.id === accepted.id)!;
    expect(ended).toMatchObject({
      message: { channelId: 'CINCIDENT', ts: '1700000000.000100' },
      endedAtMs: 15_000,
      record: { outcome: 'done', cloudOutcome: 'complete', transactionIds: [7] },
    });
    expect(items.find((i) => i.record.id === failed.id)).toMatchObject({ message: null, endedAtMs: null, record: { outcome: 'failed' } });
  });

  test('a change written ended (not sent: its target could not be read) is queued with its record; a freeze, a refusal, one not sent are not', async () => {
    const store = await one(EVENTS);
    const apiRequest = { method: 'POST', path: '/virtual_machines/42/reboot.json', body: null };
    const unread = await store.audit.record(entry({ action: 'power_reboot', outcome: 'failed', apiStatus: 503, apiRequest }));
    await store.audit.record(entry({ action: 'power_reboot', outcome: 'refused', apiStatus: null, apiRequest }));
    // A freeze is `done` as written, but no change of a server: it sends no request.
    await store.audit.record(entry({ action: 'freeze', target: 'changes', outcome: 'done', apiStatus: null, params: { reason: 'deploy' } }));
    // An approved change not sent (its target could not take it): `refused` on its own record, no end.
    const approved = await store.audit.record(entry({ action: 'power_reboot', outcome: 'approved', apiStatus: null, apiRequest }));
    await store.audit.complete(approved.id, { outcome: 'refused', apiStatus: null, durationMs: 5, detail: 'not sent' });
    expect((await store.changeEvents.claim('sender', 1000, 60_000, 10)).map((i) => [i.record.id, i.record.outcome])).toEqual([[unread.id, 'failed']]);
  });

  test('an approved change whose run broke off is queued as it is settled unknown, once', async () => {
    const store = await one(EVENTS);
    const approved = await store.audit.record(entry({ action: 'power_reboot', outcome: 'approved', apiStatus: null }));
    await store.audit.complete(approved.id, { outcome: 'unknown', apiStatus: null, durationMs: 5, detail: 'its run failed' });
    expect(await store.changeEvents.get(approved.id)).toEqual({ attempts: 0, lastError: null, sentAtMs: null, undeliverableAtMs: null });
    expect(await store.changeEvents.backlog()).toEqual({ pending: 1, undeliverable: 0 });
  });

  test('a change interrupted is queued with its interruption, and its late answer queues nothing more', async () => {
    const store = await one(EVENTS);
    const r = await started(store);
    const [interrupted] = await store.audit.recoverInterrupted(120_000);
    expect(interrupted?.id).toBe(r.id);
    await settle(store, r, 'failed');
    expect(await store.changeEvents.backlog()).toEqual({ pending: 1, undeliverable: 0 });
  });

  test('none are queued when change events are off', async () => {
    const store = await one();
    await settle(store, await started(store), 'failed');
    expect(await store.changeEvents.backlog()).toEqual({ pending: 0, undeliverable: 0 });
  });

  test('claimed by one sender at a time across instances; a dead sender’s come back when its lease ends; sent once', async () => {
    const [a, b, c] = (await instances(3, EVENTS)) as [Store, Store, Store];
    for (let i = 0; i < 12; i++) await settle(a, await started(a, `vs:${100 + i}`), 'failed');
    const claims = await Promise.all([a, b, c].map((s, i) => s.changeEvents.claim(`sender-${i}`, 1000, 60_000, 5)));
    const ids = claims.flat().map((item) => item.id);
    expect(ids).toHaveLength(12);
    expect(new Set(ids).size).toBe(12);
    // sender-1 and sender-2 send theirs; sender-0 dies: its events come back to another once its lease is over, not before.
    for (const item of [...claims[1]!, ...claims[2]!]) expect(await c.changeEvents.markSent(item.id, 20_000)).toBe(true);
    expect(await b.changeEvents.claim('sender-1', 30_000, 60_000, 20)).toEqual([]);
    const back = await b.changeEvents.claim('sender-1', 61_001, 60_000, 20);
    expect(back.map((item) => item.id).sort()).toEqual(claims[0]!.map((item) => item.id).sort());
    for (const item of back) expect(await b.changeEvents.markSent(item.id, 70_000)).toBe(true);
    expect(await c.changeEvents.markSent(back[0]!.id, 70_001)).toBe(false);
    expect(await a.changeEvents.backlog()).toEqual({ pending: 0, undeliverable: 0 });
    expect(await a.changeEvents.claim('sender-0', 200_000, 60_000, 20)).toEqual([]);
  });

  test('deferred: due again later, its attempt and error kept; held back: untried; given up: never claimed again', async () => {
    const store = await one(EVENTS);
    const one1 = await settle(store, await started(store, 'vs:1'), 'failed');
    const one2 = await settle(store, await started(store, 'vs:2'), 'failed');
    const one3 = await settle(store, await started(store, 'vs:3'), 'failed');
    const [x, y, z] = await store.changeEvents.claim('s', 1000, 60_000, 10);
    expect(await store.changeEvents.defer(x!.id, 'other', 9000, 'HTTP 429')).toBe(false);
    expect(await store.changeEvents.defer(x!.id, 's', 9000, 'HTTP 429')).toBe(true);
    expect(await store.changeEvents.holdBack([y!.id], 's', 9000)).toBe(1);
    expect(await store.changeEvents.giveUp(z!.id, 's', 2000, 'HTTP 400: Event object is invalid')).toBe(true);
    expect(await store.changeEvents.claim('s', 8999, 60_000, 10)).toEqual([]);
    const again = await store.changeEvents.claim('s', 9000, 60_000, 10);
    expect(again.map((i) => [i.record.id, i.attempts, i.lastError])).toEqual([
      [one1.id, 1, 'HTTP 429'],
      [one2.id, 0, null],
    ]);
    expect(await store.changeEvents.get(one3.id)).toEqual({
      attempts: 1,
      lastError: 'HTTP 400: Event object is invalid',
      sentAtMs: null,
      undeliverableAtMs: 2000,
    });
    expect(await store.changeEvents.backlog()).toEqual({ pending: 2, undeliverable: 1 });
  });
}
