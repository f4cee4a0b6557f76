import { createLogger } from '../../src/log';
import { createOutboxSender, postFailure, type AuditPost, type OutboxSenderOptions, type PostResult } from '../../src/ops/audit-outbox';
import { createMetrics } from '../../src/ops/metrics';
import type { AuditRecord, ChangeOutcome, Outbox, OutboxItem, Store } from '../../src/store';
import { openSqliteStore } from '../../src/store/sqlite';

// The sender's rules, each on its own: posts acknowledged only after Slack
// took them, backoff, Retry-After, the round's time limit, claims that expire,
// one post per user's denials a window. Against the real outbox (SQLite in
// memory) with every call to it recorded, or, where a rule is about the
// entries' attempt counts, a scripted outbox. Time is a fake clock.

const T0 = 1_700_000_000_000;
const quiet = createLogger({ level: 'error', write: () => undefined });

type Call = [method: keyof Outbox, ...args: unknown[]];

/** An outbox that records each call and can be made to fail like an unreachable store. */
function recording(outbox: Outbox) {
  const calls: Call[] = [];
  const state = { failing: false };
  const spy = {} as Outbox;
  for (const method of ['claim', 'markSent', 'defer', 'holdBack', 'backlog'] as const) {
    (spy as unknown as Record<string, unknown>)[method] = async (...args: unknown[]) => {
      calls.push([method, ...args]);
      if (state.failing) throw new Error('store down');
      return (outbox[method] as (...a: unknown[]) => Promise<unknown>)(...args);
    };
  }
  return { spy, calls, state };
}

const stores: Store[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

function setup(answer: (post: AuditPost) => PostResult | Promise<PostResult> = () => ({ ok: true }), extra: Partial<OutboxSenderOptions> = {}) {
  const store = openSqliteStore(':memory:');
  stores.push(store);
  const clock = { ms: T0 };
  const { spy, calls, state } = recording(store.outbox);
  const posts: AuditPost[] = [];
  const logs: string[] = [];
  const metrics = createMetrics({ defaults: false });
  const sender = createOutboxSender({
    outbox: spy,
    post: async (p) => {
      const result = await answer(p);
      if (result.ok) posts.push(p);
      return result;
    },
    owner: 'me',
    batch: 20,
    logger: createLogger({ level: 'debug', write: (line) => logs.push(line) }),
    metrics,
    now: () => clock.ms,
    random: () => 1,
    backoffBaseMs: 1000,
    backoffMaxMs: 60_000,
    ...extra,
  });
  const add = (outcome: ChangeOutcome, userId = 'UOPER', target = 'vs:42') =>
    store.audit.record({
      at: new Date(clock.ms).toISOString(),
      userId,
      channelId: 'C1',
      action: 'disk_add',
      target,
      params: {},
      outcome,
      apiStatus: null,
      durationMs: 1,
      detail: null,
    });
  const count = async (result: string) =>
    (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === 'vs_chatops_audit_posts_total')?.values.find((v) => v.labels.result === result)?.value ??
    0;
  const backlogGauge = async () => (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === 'vs_chatops_audit_outbox_backlog')?.values[0]?.value;
  return { store, clock, calls, state, posts, logs, metrics, sender, add, count, backlogGauge };
}

const ids = (posts: AuditPost[]) => posts.flatMap((p) => (p.kind === 'record' ? [p.record.id] : p.records.map((r) => r.id)));
const callsOf = (calls: Call[], method: Call[0]) => calls.filter((c) => c[0] === method).map((c) => c.slice(1));

describe('the audit outbox sender', () => {
  test('posts each record once, in order, claiming with its owner, clock, claim length and batch, and acknowledging only after Slack took it', async () => {
    const pendingWhenPosted: number[] = [];
    const t = setup(
      async () => {
        pendingWhenPosted.push((await t.store.outbox.backlog()).pending);
        return { ok: true };
      },
      { claimMs: 90_000, batch: 7 },
    );
    const records = [await t.add('done'), await t.add('failed'), await t.add('unknown')];
    expect(await t.sender.runOnce()).toBe(3);
    expect(callsOf(t.calls, 'claim')).toEqual([['me', T0, 90_000, 7]]);
    expect(await t.sender.runOnce()).toBe(0);
    expect(t.posts).toEqual(records.map((record) => ({ kind: 'record', record })));
    // Each post was still pending while Slack was being asked, and acknowledged after.
    expect(pendingWhenPosted).toEqual([3, 2, 1]);
    expect(callsOf(t.calls, 'markSent')).toEqual([
      [[expect.any(Number)], T0],
      [[expect.any(Number)], T0],
      [[expect.any(Number)], T0],
    ]);
    expect(await t.store.outbox.backlog()).toEqual({ pending: 0, oldestAt: null });
    expect(await t.count('sent')).toBe(3);
    expect(await t.count('grouped')).toBe(0);
    expect(await t.backlogGauge()).toBe(0);
  });

  test('a post Slack refused is deferred with backoff, counted and logged; it is sent once when Slack takes it', async () => {
    let failures = 3;
    const t = setup(() => (failures-- > 0 ? { ok: false, reason: 'channel_not_found' } : { ok: true }));
    const record = await t.add('done');
    const waits: number[] = [];
    for (let i = 0; i < 30 && t.posts.length === 0; i++) {
      await t.sender.runOnce();
      const deferred = callsOf(t.calls, 'defer');
      if (deferred.length > waits.length) waits.push((deferred.at(-1)![2] as number) - t.clock.ms);
      t.clock.ms += 500;
    }
    expect(ids(t.posts)).toEqual([record.id]);
    expect(waits).toEqual([1000, 2000, 4000]);
    expect(callsOf(t.calls, 'defer').map((c) => [c[0], c[1], c[3]])).toEqual(Array(3).fill([[expect.any(Number)], 'me', 'channel_not_found']));
    expect(callsOf(t.calls, 'markSent')).toHaveLength(1);
    expect(await t.count('retried')).toBe(3);
    expect(await t.count('sent')).toBe(1);
    const warned = t.logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'Slack did not take an audit post; it is retried later');
    expect(warned.map((l) => [l.records, l.reason, l.retryInMs, l.attempts])).toEqual([
      [[record.id], 'channel_not_found', 1000, 1],
      [[record.id], 'channel_not_found', 2000, 2],
      [[record.id], 'channel_not_found', 4000, 3],
    ]);
    // Between two tries nothing else was asked of Slack: the post was not due.
    expect(await t.backlogGauge()).toBe(0);
  });

  test('a 429 waits for Retry-After, holds back the rest of the batch uncounted, and claims nothing before then', async () => {
    let limited = 1;
    const t = setup(() => (limited-- > 0 ? { ok: false, reason: 'ratelimited', retryAfterMs: 30_000 } : { ok: true }));
    const records = [await t.add('done'), await t.add('failed'), await t.add('refused')];
    expect(await t.sender.runOnce()).toBe(0);
    const [refused, ...deferred] = callsOf(t.calls, 'defer')[0]!;
    const [rest, ...held] = callsOf(t.calls, 'holdBack')[0]!;
    expect(deferred).toEqual(['me', T0 + 30_000, 'ratelimited']);
    expect(held).toEqual(['me', T0 + 30_000]);
    expect([...(refused as number[]), ...(rest as number[])].sort()).toEqual([1, 2, 3]);
    expect(await t.backlogGauge()).toBe(3);

    t.clock.ms = T0 + 29_999;
    const claimsBefore = callsOf(t.calls, 'claim').length;
    expect(await t.sender.runOnce()).toBe(0);
    expect(callsOf(t.calls, 'claim')).toHaveLength(claimsBefore);

    t.clock.ms = T0 + 30_000;
    expect(await t.sender.runOnce()).toBe(3);
    expect(ids(t.posts)).toEqual(records.map((r) => r.id));
    // Only the refused post counted an attempt.
    expect(await t.count('retried')).toBe(1);
  });

  test('a 429 on the last post of a batch holds nothing back', async () => {
    const t = setup(() => ({ ok: false, reason: 'ratelimited', retryAfterMs: 5_000 }));
    await t.add('done');
    await t.sender.runOnce();
    expect(callsOf(t.calls, 'holdBack')).toEqual([]);
    expect(callsOf(t.calls, 'defer')).toHaveLength(1);
  });

  test('a round stops posting when its time is up and holds the rest back, due at once, uncounted; the next round sends them once, in order', async () => {
    const t = setup(
      () => {
        t.clock.ms += 500; // each post takes half a second of the sender's clock
        return { ok: true };
      },
      { maxRoundMs: 1000 },
    );
    const records = [];
    for (let i = 0; i < 4; i++) records.push(await t.add('done'));
    // Posted at +0 and +500; at +1000 the round is over (exactly its time is over).
    expect(await t.sender.runOnce()).toBe(2);
    const held = callsOf(t.calls, 'holdBack');
    expect(held).toEqual([[[expect.any(Number), expect.any(Number)], 'me', T0 + 1000]]);
    expect(await t.sender.runOnce()).toBe(2);
    expect(ids(t.posts)).toEqual(records.map((r) => r.id));
    expect(callsOf(t.calls, 'defer')).toEqual([]);
  });

  test('posts claimed by a sender that died come back to another once its claims expire', async () => {
    const t = setup(() => ({ ok: true }), { claimMs: 60_000 });
    const record = await t.add('done');
    expect(await t.store.outbox.claim('dead', T0, 60_000, 20)).toHaveLength(1);
    t.clock.ms = T0 + 59_999;
    expect(await t.sender.runOnce()).toBe(0);
    t.clock.ms = T0 + 60_000;
    expect(await t.sender.runOnce()).toBe(1);
    expect(ids(t.posts)).toEqual([record.id]);
  });

  test('one user’s denials: one post a window; those inside it are held back and go out as one summary; changes are never held back', async () => {
    const t = setup();
    const first = await t.add('refused', 'UMALLORY');
    const other = await t.add('refused', 'UOTHER');
    await t.sender.runOnce();
    expect(t.posts).toEqual([
      { kind: 'record', record: first },
      { kind: 'record', record: other },
    ]);
    const later: AuditRecord[] = [];
    for (let i = 0; i < 3; i++) {
      t.clock.ms += 5_000;
      later.push(await t.add('refused', 'UMALLORY'));
      await t.sender.runOnce();
    }
    // Each held back until a minute after the first post.
    expect(callsOf(t.calls, 'holdBack').map((c) => c[2])).toEqual([T0 + 60_000, T0 + 60_000, T0 + 60_000]);
    const change = await t.add('done', 'UMALLORY');
    await t.sender.runOnce();
    expect(t.posts).toHaveLength(3);
    expect(t.posts[2]).toEqual({ kind: 'record', record: change });

    t.clock.ms = T0 + 59_999;
    await t.sender.runOnce();
    expect(t.posts).toHaveLength(3);
    t.clock.ms = T0 + 60_000;
    await t.sender.runOnce();
    expect(t.posts[3]).toEqual({ kind: 'denials', userId: 'UMALLORY', records: later });
    expect(await t.count('grouped')).toBe(2);
    expect(await t.count('sent')).toBe(4);
    expect(await t.store.outbox.backlog()).toEqual({ pending: 0, oldestAt: null });

    // A window after that summary, a single denial goes out at once, on its own.
    t.clock.ms = T0 + 120_000;
    const alone = await t.add('refused', 'UMALLORY');
    await t.sender.runOnce();
    expect(t.posts[4]).toEqual({ kind: 'record', record: alone });
    expect(callsOf(t.calls, 'holdBack')).toHaveLength(3);
  });

  test('thousands of one viewer’s denials: a change is posted next round; the denials follow, one post a minute', async () => {
    const t = setup();
    const denied: number[] = [];
    for (let i = 0; i < 2500; i++) denied.push((await t.add('refused', 'UVIEWER', `vs:${i}`)).id);
    await t.sender.runOnce();
    expect(t.posts.map((p) => p.kind)).toEqual(['denials']);

    t.clock.ms += 100;
    const change = await t.add('done', 'UOPER', 'vs:7');
    t.clock.ms += 1000; // the next round
    await t.sender.runOnce();
    expect(t.posts[1]).toEqual({ kind: 'record', record: change });

    // The rest of the denials: rounds every second until the outbox is empty.
    const postedAt = [T0];
    for (let round = 0; round < 600 && (await t.store.outbox.backlog()).pending > 0; round++) {
      t.clock.ms += 1000;
      const before = t.posts.length;
      await t.sender.runOnce();
      if (t.posts.length > before) postedAt.push(t.clock.ms);
    }
    const summaries = t.posts.filter((p) => p.kind === 'denials');
    expect(summaries.length).toBe(3);
    expect(
      postedAt
        .slice(1)
        .map((at, i) => at - postedAt[i]!)
        .every((gap) => gap >= 60_000),
    ).toBe(true);
    expect(ids(summaries).sort((a, b) => a - b)).toEqual(denied);
  });

  test('a post Slack took while the store could not acknowledge it is not sent again: it is acknowledged first in the next round', async () => {
    const t = setup(() => {
      t.state.failing = true; // the store goes down between Slack's answer and the ack
      return { ok: true };
    });
    const record = await t.add('done');
    await expect(t.sender.runOnce()).rejects.toThrow('store down');
    // Still down at the next round: it stays to be acknowledged, nothing is claimed.
    const claims = callsOf(t.calls, 'claim').length;
    await expect(t.sender.runOnce()).rejects.toThrow('store down');
    expect(callsOf(t.calls, 'claim')).toHaveLength(claims);
    t.state.failing = false;
    t.clock.ms += 120_000; // the claim has expired meanwhile
    const from = t.calls.length;
    await t.sender.runOnce();
    expect(t.calls[from]).toEqual(['markSent', [expect.any(Number)], t.clock.ms]);
    await t.sender.runOnce();
    expect(ids(t.posts)).toEqual([record.id]);
    expect(await t.store.outbox.backlog()).toEqual({ pending: 0, oldestAt: null });
  });

  test('without metrics it posts, groups and retries all the same', async () => {
    const t = setup();
    let refuse = true;
    const sender = createOutboxSender({
      outbox: t.store.outbox,
      post: (p) => {
        if (refuse) return Promise.resolve({ ok: false, reason: 'fatal_error' });
        t.posts.push(p);
        return Promise.resolve({ ok: true });
      },
      owner: 'bare',
      batch: 20,
      logger: quiet,
      now: () => t.clock.ms,
      random: () => 1,
    });
    const change = await t.add('done');
    const denials = [await t.add('refused', 'UVIEWER'), await t.add('refused', 'UVIEWER')];
    expect(await sender.runOnce()).toBe(0);
    refuse = false;
    t.clock.ms += 1000;
    expect(await sender.runOnce()).toBe(3);
    expect(t.posts).toEqual([
      { kind: 'record', record: change },
      { kind: 'denials', userId: 'UVIEWER', records: denials },
    ]);
  });

  test('without a clock of its own it claims at the time of day', async () => {
    const store = openSqliteStore(':memory:');
    stores.push(store);
    const { spy, calls } = recording(store.outbox);
    const before = Date.now();
    await createOutboxSender({ outbox: spy, post: () => Promise.resolve({ ok: true }), owner: 'me', batch: 20, logger: quiet }).runOnce();
    const at = callsOf(calls, 'claim')[0]![1];
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(Date.now());
  });

  test('a round with nothing to acknowledge from before starts with its claim', async () => {
    const t = setup();
    await t.sender.runOnce();
    expect(t.calls.map((c) => c[0])).toEqual(['claim', 'backlog']);
  });
});

describe('the audit outbox sender’s backoff', () => {
  /** An outbox that hands out `items` once and records the deferrals. */
  function scripted(items: OutboxItem[]) {
    let given = false;
    const deferred: { ids: readonly number[]; untilMs: number }[] = [];
    const outbox: Outbox = {
      claim: () => {
        const claimed = given ? [] : items;
        given = true;
        return Promise.resolve(claimed);
      },
      markSent: (ids) => Promise.resolve(ids.length),
      defer: (ids, _owner, untilMs) => {
        deferred.push({ ids, untilMs });
        return Promise.resolve(ids.length);
      },
      holdBack: (ids) => Promise.resolve(ids.length),
      backlog: () => Promise.resolve({ pending: items.length, oldestAt: null }),
    };
    return { outbox, deferred };
  }
  const item = (id: number, attempts: number, group: string | null = null): OutboxItem => ({
    id,
    attempts,
    lastError: null,
    group,
    record: {
      id,
      at: new Date(T0).toISOString(),
      userId: 'U1',
      channelId: 'C1',
      action: 'disk_add',
      target: 'vs:1',
      params: {},
      outcome: 'refused',
      apiStatus: null,
      durationMs: 1,
      detail: null,
    },
  });
  /** A sender that Slack refuses every post of, on a scripted outbox handing out `items`; what it posted and deferred. */
  function refused(items: OutboxItem[], options: Partial<OutboxSenderOptions> = {}) {
    const { outbox, deferred } = scripted(items);
    const posted: AuditPost[] = [];
    const sender = createOutboxSender({
      outbox,
      post: (p) => {
        posted.push(p);
        return Promise.resolve({ ok: false, reason: 'fatal_error' });
      },
      owner: 'me',
      batch: 20,
      logger: quiet,
      now: () => T0,
      random: () => 1,
      ...options,
    });
    return { sender, deferred, posted };
  }
  async function waitAfter(items: OutboxItem[], options: { random: number; baseMs?: number; maxMs?: number }): Promise<number> {
    const { sender, deferred } = refused(items, { random: () => options.random, backoffBaseMs: options.baseMs ?? 1000, backoffMaxMs: options.maxMs ?? 60_000 });
    await sender.runOnce();
    expect(deferred).toHaveLength(1);
    return deferred[0]!.untilMs - T0;
  }

  test('base·2ⁿ after the n-th failure, between half and all of it (jitter)', async () => {
    expect(await waitAfter([item(1, 0)], { random: 1 })).toBe(1000);
    expect(await waitAfter([item(1, 0)], { random: 0 })).toBe(500);
    expect(await waitAfter([item(1, 0)], { random: 0.5 })).toBe(750);
    expect(await waitAfter([item(1, 3)], { random: 1 })).toBe(8000);
    expect(await waitAfter([item(1, 0)], { random: 0.5, baseMs: 1001 })).toBe(751);
  });

  test('capped at the maximum, however many failures', async () => {
    expect(await waitAfter([item(1, 6)], { random: 1 })).toBe(60_000);
    expect(await waitAfter([item(1, 6)], { random: 0 })).toBe(30_000);
    expect(await waitAfter([item(1, 40)], { random: 1 })).toBe(60_000);
    expect(await waitAfter([item(1, 1)], { random: 1, maxMs: 1500 })).toBe(1500);
  });

  test('a group waits the backoff of its most-tried post, and is deferred whole', async () => {
    const { sender, deferred, posted } = refused([item(1, 1, 'denials:U1'), item(2, 4, 'denials:U1'), item(3, 0, 'denials:U1')]);
    await sender.runOnce();
    expect(posted.map((p) => p.kind)).toEqual(['denials']);
    expect(deferred).toEqual([{ ids: [1, 2, 3], untilMs: T0 + 16_000 }]);
  });

  test('the defaults: a second, doubling, up to five minutes', async () => {
    const { sender, deferred } = refused([item(1, 0), item(2, 20)], { backoffBaseMs: undefined, backoffMaxMs: undefined });
    await sender.runOnce();
    expect(deferred.map((d) => d.untilMs - T0)).toEqual([1000, 300_000]);
  });
});

describe('postFailure', () => {
  test('a rate-limited error carries Retry-After in ms, at least a second; without one, a second', () => {
    expect(postFailure({ code: 'slack_webapi_rate_limited_error', retryAfter: 7 })).toEqual({ ok: false, reason: 'ratelimited', retryAfterMs: 7000 });
    expect(postFailure({ code: 'slack_webapi_rate_limited_error', retryAfter: 0 })).toEqual({ ok: false, reason: 'ratelimited', retryAfterMs: 1000 });
    expect(postFailure({ code: 'slack_webapi_rate_limited_error', retryAfter: 1.5 })).toEqual({ ok: false, reason: 'ratelimited', retryAfterMs: 1500 });
    expect(postFailure({ code: 'slack_webapi_rate_limited_error' })).toEqual({ ok: false, reason: 'ratelimited', retryAfterMs: 1000 });
    expect(postFailure({ code: 'slack_webapi_rate_limited_error', retryAfter: -3 })).toEqual({ ok: false, reason: 'ratelimited', retryAfterMs: 1000 });
    expect(postFailure({ code: 'slack_webapi_rate_limited_error', retryAfter: Number.POSITIVE_INFINITY })).toEqual({
      ok: false,
      reason: 'ratelimited',
      retryAfterMs: 1000,
    });
    expect(postFailure({ code: 'slack_webapi_rate_limited_error', retryAfter: '9' })).toEqual({ ok: false, reason: 'ratelimited', retryAfterMs: 1000 });
  });

  test('a platform error carries its code; other coded errors their code; anything else is unexpected', () => {
    expect(postFailure({ code: 'slack_webapi_platform_error', data: { error: 'not_in_channel' } })).toEqual({ ok: false, reason: 'not_in_channel' });
    expect(postFailure({ code: 'slack_webapi_platform_error', data: {} })).toEqual({ ok: false, reason: 'slack_webapi_platform_error' });
    expect(postFailure({ code: 'slack_webapi_platform_error' })).toEqual({ ok: false, reason: 'slack_webapi_platform_error' });
    expect(postFailure({ code: 'slack_webapi_request_error', data: { error: 'not_in_channel' } })).toEqual({ ok: false, reason: 'slack_webapi_request_error' });
    expect(postFailure({ code: 'slack_webapi_request_error' })).toEqual({ ok: false, reason: 'slack_webapi_request_error' });
    expect(postFailure(new Error('boom'))).toEqual({ ok: false, reason: 'unexpected error' });
    expect(postFailure(undefined)).toEqual({ ok: false, reason: 'unexpected error' });
    expect(postFailure(null)).toEqual({ ok: false, reason: 'unexpected error' });
  });
});
