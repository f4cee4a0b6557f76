import type { Store } from '../../../src/store';
import { entry } from './entries';
import type { ContractStores } from './types';

// The outbox: a post for each final record, claimed under a lease, marked
// sent, deferred after a failure or held back unsent. One user's denials are
// a group, claimed whole as one post, after every post of its own.

export function outboxContract({ fresh, one, instances }: ContractStores): void {
  test('final records are enqueued with the record, started ones are not; a claimed post is given to no one else until its lease expires', async () => {
    const [a, b] = (await instances(2)) as [Store, Store];
    const failed = await a.audit.record(entry({ outcome: 'failed', apiStatus: 500 }));
    await a.audit.record(entry({ outcome: 'started' }));
    expect(await a.outbox.backlog()).toEqual({ pending: 1, oldestAt: failed.at });
    const claimed = await a.outbox.claim('a', 1000, 30_000, 10);
    expect(claimed).toEqual([{ id: expect.any(Number), record: failed, attempts: 0, lastError: null, group: null }]);
    expect(await b.outbox.claim('b', 2000, 30_000, 10)).toEqual([]);
    // a died without acknowledging: after its lease, b gets the post.
    const retaken = await b.outbox.claim('b', 31_000, 30_000, 10);
    expect(retaken.map((p) => p.id)).toEqual([claimed[0]!.id]);
    expect(await b.outbox.markSent([retaken[0]!.id], 31_500)).toBe(1);
    expect(await b.outbox.markSent([retaken[0]!.id], 31_600)).toBe(0);
    expect(await a.outbox.claim('a', 100_000, 30_000, 10)).toEqual([]);
    expect(await a.outbox.backlog()).toEqual({ pending: 0, oldestAt: null });
  });

  test('a deferred post waits until its time, counts the attempt and keeps the error; only the post’s holder defers it', async () => {
    const store = await one();
    const record = await store.audit.record(entry({ outcome: 'failed', apiStatus: 500 }));
    const [post] = await store.outbox.claim('a', 0, 30_000, 10);
    expect(await store.outbox.defer([post!.id], 'someone-else', 60_000, 'not mine')).toBe(0);
    expect(await store.outbox.defer([post!.id], 'a', 60_000, 'Slack answered 429 (Retry-After 60 s)')).toBe(1);
    expect(await store.outbox.claim('a', 59_999, 30_000, 10)).toEqual([]);
    const [again] = await store.outbox.claim('b', 60_000, 30_000, 10);
    expect(again).toEqual({ id: post!.id, record, attempts: 1, lastError: 'Slack answered 429 (Retry-After 60 s)', group: null });
    await store.outbox.defer([again!.id], 'b', 61_000, 'x'.repeat(5000));
    const [third] = await store.outbox.claim('b', 61_000, 30_000, 10);
    expect(third!.attempts).toBe(2);
    expect(third!.lastError!.length).toBeLessThanOrEqual(1000);
  });

  test('a post held back waits until its time with nothing counted and its last error kept; only the post’s holder holds it back', async () => {
    const store = await one();
    await store.audit.record(entry());
    const [post] = await store.outbox.claim('a', 0, 30_000, 10);
    await store.outbox.defer([post!.id], 'a', 1000, 'ratelimited');
    const [tried] = await store.outbox.claim('a', 1000, 30_000, 10);
    expect(await store.outbox.holdBack([tried!.id], 'someone-else', 90_000)).toBe(0);
    expect(await store.outbox.holdBack([tried!.id], 'a', 90_000)).toBe(1);
    expect(await store.outbox.claim('a', 89_999, 30_000, 10)).toEqual([]);
    const [held] = await store.outbox.claim('a', 90_000, 30_000, 10);
    expect(held).toMatchObject({ id: post!.id, attempts: 1, lastError: 'ratelimited' });
    expect(await store.outbox.holdBack([], 'a', 0)).toBe(0);
  });

  test('posts come oldest first, at most `limit` per claim', async () => {
    const store = await one();
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push((await store.audit.record(entry({ target: `vs:${i}` }))).id);
    const first = await store.outbox.claim('a', 0, 30_000, 2);
    const second = await store.outbox.claim('a', 0, 30_000, 10);
    expect(first.map((p) => p.record.id)).toEqual(ids.slice(0, 2));
    expect(second.map((p) => p.record.id)).toEqual(ids.slice(2));
    expect(await store.outbox.claim('a', 0, 30_000, 0)).toEqual([]);
  });

  test('one user’s refusals take one place in a claim however many they are, after every post of its own; groups come oldest first', async () => {
    const store = await one();
    const viewer: number[] = [];
    for (let i = 0; i < 120; i++) viewer.push((await store.audit.record(entry({ userId: 'UVIEWER', outcome: 'refused', target: `vs:${i}` }))).id);
    const other = await store.audit.record(entry({ userId: 'UOTHER', outcome: 'refused' }));
    const change = await store.audit.record(entry({ userId: 'UOPER', outcome: 'done' }));
    const failure = await store.audit.record(entry({ userId: 'UOPER', outcome: 'failed', apiStatus: 500 }));
    expect((await store.outbox.backlog()).pending).toBe(123);

    const first = await store.outbox.claim('a', 0, 30_000, 3);
    expect(first.slice(0, 2).map((p) => [p.record.id, p.group])).toEqual([
      [change.id, null],
      [failure.id, null],
    ]);
    expect(first.slice(2).map((p) => p.record.id)).toEqual(viewer);
    expect(new Set(first.slice(2).map((p) => p.group))).toEqual(new Set(['denials:UVIEWER']));
    const second = await store.outbox.claim('a', 0, 30_000, 3);
    expect(second.map((p) => [p.record.id, p.group])).toEqual([[other.id, 'denials:UOTHER']]);
  });

  test('a group is claimed up to `groupLimit` posts at a time, oldest first', async () => {
    const store = await one();
    const ids: number[] = [];
    for (let i = 0; i < 25; i++) ids.push((await store.audit.record(entry({ userId: 'UVIEWER', outcome: 'refused' }))).id);
    expect((await store.outbox.claim('a', 0, 30_000, 5, 10)).map((p) => p.record.id)).toEqual(ids.slice(0, 10));
    expect((await store.outbox.claim('a', 0, 30_000, 5, 10)).map((p) => p.record.id)).toEqual(ids.slice(10, 20));
    expect((await store.outbox.claim('a', 0, 30_000, 5, 10)).map((p) => p.record.id)).toEqual(ids.slice(20));
  });

  test('a change recorded while a user’s refusals are held back is claimed at once; the group comes back whole when its time comes', async () => {
    const store = await one();
    const early = await store.audit.record(entry({ userId: 'UVIEWER', outcome: 'refused' }));
    const held = await store.outbox.claim('a', 0, 30_000, 20);
    await store.outbox.holdBack(
      held.map((p) => p.id),
      'a',
      60_000,
    );
    const late = await store.audit.record(entry({ userId: 'UVIEWER', outcome: 'refused' }));
    const change = await store.audit.record(entry({ userId: 'UOPER' }));
    // The late denial is due, the early one is not: the change first, then what is due of the group.
    const due = await store.outbox.claim('a', 1000, 30_000, 20);
    expect(due.map((p) => p.record.id)).toEqual([change.id, late.id]);
    await store.outbox.markSent(
      due.map((p) => p.id),
      1000,
    );
    expect((await store.outbox.claim('a', 59_999, 30_000, 20)).map((p) => p.record.id)).toEqual([]);
    expect((await store.outbox.claim('a', 60_000, 30_000, 20)).map((p) => p.record.id)).toEqual([early.id]);
  });

  test('two instances claiming concurrently: every post is claimed and sent exactly once', async () => {
    const stores = await instances(2);
    const ids: number[] = [];
    for (let i = 0; i < 60; i++) {
      const denied = i % 3 === 0;
      ids.push((await stores[0]!.audit.record(entry({ target: `vs:${i}`, outcome: denied ? 'refused' : 'done', userId: `U${i % 4}` }))).id);
    }
    const sent: number[] = [];
    const sender = async (store: Store, owner: string) => {
      for (;;) {
        const batch = await store.outbox.claim(owner, 1000, 30_000, 7, 3);
        if (batch.length === 0) return;
        sent.push(...batch.map((p) => p.record.id));
        await store.outbox.markSent(
          batch.map((p) => p.id),
          1000,
        );
      }
    };
    await Promise.all([sender(stores[0]!, 'a'), sender(stores[1]!, 'b'), sender(stores[0]!, 'c'), sender(stores[1]!, 'd')]);
    expect(sent.sort((x, y) => x - y)).toEqual(ids);
  });

  test('with posts disabled (no audit channel), nothing is enqueued', async () => {
    const store = await one({ auditPosts: false });
    const started = await store.audit.record(entry({ outcome: 'started' }));
    await store.audit.record(entry({ outcome: 'refused' }));
    await store.audit.complete(started.id, { outcome: 'scheduled', apiStatus: 201, durationMs: 1, detail: null });
    expect(await store.outbox.claim('a', 0, 30_000, 10)).toEqual([]);
    expect(await store.outbox.backlog()).toEqual({ pending: 0, oldestAt: null });
  });

  test('pending posts survive reopening', async () => {
    const location = await fresh();
    const store = await location.open();
    const record = await store.audit.record(entry());
    await store.outbox.claim('a', 0, 30_000, 10); // claimed, then the instance stops
    await store.close();
    const reopened = await location.open();
    expect((await reopened.outbox.claim('b', 30_000, 30_000, 10)).map((p) => p.record)).toEqual([record]);
  });
}
