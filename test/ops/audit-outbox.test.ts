import { createOutboxSender, postFailure, type AuditPost, type OutboxEntry, type OutboxStorage, type PostResult } from '../../src/ops/audit-outbox';
import { createMetrics } from '../../src/ops/metrics';
import { createLogger } from '../../src/log';
import type { AuditRecord, ChangeOutcome } from '../../src/store/audit-store';

// The sender against an in-memory outbox with the store's semantics (claim
// until, ack, defer) and a fake clock: what is posted, when, and how often.

interface Row {
  id: number;
  record: AuditRecord;
  attempts: number;
  dueMs: number;
  claimedBy: string | null;
  claimedUntil: number;
  done: boolean;
}

function memoryOutbox() {
  const rows: Row[] = [];
  let failing = false;
  const storage: OutboxStorage & { add(record: AuditRecord, at: number): void; rows: Row[]; fail(on: boolean): void } = {
    rows,
    fail(on) {
      failing = on;
    },
    add(record, at) {
      rows.push({ id: rows.length + 1, record, attempts: 0, dueMs: at, claimedBy: null, claimedUntil: 0, done: false });
    },
    async claimOutbox(owner, nowMs, leaseMs, limit) {
      if (failing) throw new Error('store down');
      const due = rows.filter((r) => !r.done && r.dueMs <= nowMs && (r.claimedBy === null || r.claimedUntil <= nowMs)).slice(0, limit);
      for (const r of due) {
        r.claimedBy = owner;
        r.claimedUntil = nowMs + leaseMs;
      }
      return due.map((r): OutboxEntry => ({ id: r.id, record: r.record, attempts: r.attempts }));
    },
    async markOutboxSent(ids) {
      if (failing) throw new Error('store down');
      const newly = rows.filter((r) => ids.includes(r.id) && !r.done);
      for (const r of newly) r.done = true;
      return newly.length;
    },
    async deferOutbox(ids, owner, untilMs) {
      if (failing) throw new Error('store down');
      const mine = rows.filter((r) => ids.includes(r.id) && r.claimedBy === owner);
      for (const r of mine) {
        r.dueMs = untilMs;
        r.claimedBy = null;
        r.attempts += 1;
      }
      return mine.length;
    },
    async outboxBacklog() {
      return { pending: rows.filter((r) => !r.done).length };
    },
  };
  return storage;
}

let nextId = 1;
function record(outcome: ChangeOutcome, userId = 'U1'): AuditRecord {
  return {
    id: nextId++,
    at: new Date(0).toISOString(),
    userId,
    channelId: 'C1',
    action: 'disk_add',
    target: 'vs:42',
    params: {},
    outcome,
    apiStatus: null,
    durationMs: 1,
    detail: null,
  };
}

function setup(answer: (post: AuditPost) => PostResult = () => ({ ok: true }), extra: { maxRoundMs?: number } = {}) {
  const clock = { ms: 1_000_000 };
  const storage = memoryOutbox();
  const posts: AuditPost[] = [];
  const metrics = createMetrics({ defaults: false });
  const sender = createOutboxSender({
    storage,
    post: async (p) => {
      const result = answer(p);
      if (result.ok) posts.push(p);
      return result;
    },
    owner: 'me',
    batch: 20,
    logger: createLogger({ level: 'error', write: () => undefined }),
    metrics,
    now: () => clock.ms,
    random: () => 1,
    backoffBaseMs: 1000,
    backoffMaxMs: 60_000,
    ...extra,
  });
  return { clock, storage, posts, sender, metrics };
}

const ids = (posts: AuditPost[]) => posts.flatMap((p) => (p.kind === 'record' ? [p.record.id] : p.records.map((r) => r.id)));

describe('audit outbox sender', () => {
  test('posts each record once, in order, and acknowledges it', async () => {
    const { clock, storage, posts, sender, metrics } = setup();
    const records = [record('succeeded'), record('failed'), record('interrupted' as ChangeOutcome)];
    for (const r of records) storage.add(r, clock.ms);
    expect(await sender.runOnce()).toBe(3);
    expect(await sender.runOnce()).toBe(0);
    expect(ids(posts)).toEqual(records.map((r) => r.id));
    expect(storage.rows.every((r) => r.done)).toBe(true);
    expect(await metrics.registry.getSingleMetricAsString('vs_chatops_audit_outbox_backlog')).toMatch(/backlog 0$/m);
  });

  test('a 429 waits for Retry-After, holds back everything else meanwhile, then each record is posted exactly once', async () => {
    let limited = 2;
    const { clock, storage, posts, sender } = setup(() => (limited-- > 0 ? { ok: false, reason: 'ratelimited', retryAfterMs: 30_000 } : { ok: true }));
    const records = [record('succeeded'), record('failed')];
    for (const r of records) storage.add(r, clock.ms);
    await sender.runOnce();
    expect(posts).toHaveLength(0);
    clock.ms += 29_000;
    await sender.runOnce();
    expect(posts).toHaveLength(0);
    clock.ms += 1_000;
    await sender.runOnce(); // second 429
    expect(posts).toHaveLength(0);
    clock.ms += 30_000;
    await sender.runOnce();
    await sender.runOnce();
    expect(ids(posts)).toEqual(records.map((r) => r.id));
    expect(limited).toBeLessThan(0);
  });

  test('other failures back off exponentially and the record still arrives once', async () => {
    let failures = 3;
    const tries: number[] = [];
    const { clock, storage, posts, sender } = setup(() => {
      tries.push(clock.ms);
      return failures-- > 0 ? { ok: false, reason: 'channel_not_found' } : { ok: true };
    });
    storage.add(record('succeeded'), clock.ms);
    for (let i = 0; i < 20 && posts.length === 0; i++) {
      await sender.runOnce();
      clock.ms += 500;
    }
    expect(posts).toHaveLength(1);
    const gaps = tries.slice(1).map((t, i) => t - tries[i]!);
    expect(gaps[1]!).toBeGreaterThan(gaps[0]!);
    expect(gaps[2]!).toBeGreaterThan(gaps[1]!);
    expect(storage.rows[0]!.attempts).toBe(3);
  });

  test('denials are grouped per user: one post per user a minute, the rest summarised in the next', async () => {
    const { clock, storage, posts, sender, metrics } = setup();
    const first = record('denied', 'UMALLORY');
    storage.add(first, clock.ms);
    storage.add(record('denied', 'UOTHER'), clock.ms);
    await sender.runOnce();
    expect(posts.map((p) => p.kind)).toEqual(['record', 'record']);
    const later = [record('denied', 'UMALLORY'), record('denied', 'UMALLORY'), record('denied', 'UMALLORY')];
    const change = record('succeeded', 'UMALLORY');
    for (const r of later) {
      clock.ms += 5_000;
      storage.add(r, clock.ms);
      await sender.runOnce();
    }
    storage.add(change, clock.ms);
    await sender.runOnce();
    // Within the minute: nothing more from UMALLORY's denials, but changes are not held back.
    expect(posts).toHaveLength(3);
    expect(posts[2]).toEqual({ kind: 'record', record: change });
    clock.ms += 60_000;
    await sender.runOnce();
    expect(posts).toHaveLength(4);
    expect(posts[3]).toEqual({ kind: 'denials', userId: 'UMALLORY', records: later });
    expect(storage.rows.every((r) => r.done)).toBe(true);
    expect(await metrics.registry.getSingleMetricAsString('vs_chatops_audit_posts_total')).toMatch(/result="grouped"} 2/);
  });

  test('a post Slack took while the store could not record it is not sent again', async () => {
    const { clock, storage, posts, sender } = setup(() => {
      storage.fail(true); // the store goes down between Slack's answer and the ack
      return { ok: true };
    });
    storage.add(record('succeeded'), clock.ms);
    await expect(sender.runOnce()).rejects.toThrow('store down');
    storage.fail(false);
    clock.ms += 120_000; // the claim has expired meanwhile
    await sender.runOnce();
    await sender.runOnce();
    expect(posts).toHaveLength(1);
    expect(storage.rows[0]!.done).toBe(true);
  });
});

describe('audit outbox sender, slow Slack', () => {
  test('a round stops posting once its time is up and gives the rest back; the next round sends them, each once, in order', async () => {
    const tick = { clock: { ms: 0 } };
    const { clock, storage, posts, sender } = setup(
      () => {
        tick.clock.ms += 400; // each post takes 400 ms of the sender's clock
        return { ok: true };
      },
      { maxRoundMs: 1000 },
    );
    tick.clock = clock;
    const records = Array.from({ length: 5 }, () => record('succeeded'));
    for (const r of records) storage.add(r, clock.ms);
    expect(await sender.runOnce()).toBe(3); // posted at +0, +400, +800; at +1200 the round is over
    expect(storage.rows.filter((r) => !r.done).map((r) => r.claimedBy)).toEqual([null, null]);
    expect(await sender.runOnce()).toBe(2);
    expect(ids(posts)).toEqual(records.map((r) => r.id));
  });
});

describe('postFailure', () => {
  test('a rate-limited error carries Retry-After in ms; platform errors carry their code', () => {
    expect(postFailure({ code: 'slack_webapi_rate_limited_error', retryAfter: 7 })).toEqual({ ok: false, reason: 'ratelimited', retryAfterMs: 7000 });
    expect(postFailure({ code: 'slack_webapi_platform_error', data: { error: 'not_in_channel' } })).toEqual({ ok: false, reason: 'not_in_channel' });
    expect(postFailure(new Error('boom'))).toEqual({ ok: false, reason: 'unexpected error' });
  });
});
