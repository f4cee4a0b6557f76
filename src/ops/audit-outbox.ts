import type { Logger } from '../log';
import type { AuditRecord, Outbox, OutboxItem } from '../store';
import type { Metrics } from './metrics';

// Sends the outbox of audit posts to VS_AUDIT_CHANNEL. The store writes an
// outbox entry with each settled audit record, in the same transaction, so a
// record is never without its post; this sender drains it:
//   - entries are claimed for a while (a dead sender's claims come back);
//   - an entry is acknowledged only after Slack took the post, so a repeat
//     happens only if the instance dies between Slack's answer and the ack;
//   - a refusal or failure defers the entry with exponential backoff, a 429
//     for Slack's Retry-After (and nothing else is sent meanwhile);
//   - a group (one user's denials, claimed together by the store, after every
//     other post) goes out as one post, at most one a window (a minute); what
//     comes inside the window is held back and goes out as one summary after.
// One instance sends at a time (a lease, see periodic.ts): Slack's rate limit
// is per channel, and the window then holds across instances.

/** One post: a record, or one user's denials summarised. */
export type AuditPost = { kind: 'record'; record: AuditRecord } | { kind: 'denials'; userId: string; records: readonly AuditRecord[] };

export type PostResult = { ok: true } | { ok: false; reason: string; retryAfterMs?: number };

/** Renders and posts (given by the composition root: the renderer lives in slack/blocks). */
export type PostAudit = (post: AuditPost) => Promise<PostResult>;

export interface OutboxSenderOptions {
  /** The store's outbox slice. */
  outbox: Outbox;
  post: PostAudit;
  owner: string;
  logger: Logger;
  metrics?: Metrics;
  now?: () => number;
  /** Posts claimed per round (a group counts as one). */
  batch: number;
  /** How long a claim lasts before another sender may take the entry. */
  claimMs?: number;
  /**
   * A round stops posting after this long and gives the rest back for the next round, so that
   * it ends well within the sender's lease (a slow Slack must not let a second sender start).
   */
  maxRoundMs?: number;
  /** A group (one user's denials): one post per window. */
  denialWindowMs?: number;
  /** Backoff after the n-th failure: base·2ⁿ, capped, with jitter. */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  random?: () => number;
}

export interface OutboxSender {
  /** One round: claim, post, acknowledge, defer or hold back. Resolves with how many entries were acknowledged. */
  runOnce(): Promise<number>;
}

export const OUTBOX_DEFAULTS = {
  claimMs: 60_000,
  maxRoundMs: 5_000,
  denialWindowMs: 60_000,
  backoffBaseMs: 1000,
  backoffMaxMs: 5 * 60_000,
} as const;

/** Claimed entries in the order claimed, one group's entries together: each unit is one post. */
function postsOf(items: readonly OutboxItem[]): OutboxItem[][] {
  const units: OutboxItem[][] = [];
  const groups = new Map<string, OutboxItem[]>();
  for (const item of items) {
    if (item.group === null) {
      units.push([item]);
      continue;
    }
    const unit = groups.get(item.group);
    if (unit) unit.push(item);
    else {
      const fresh = [item];
      groups.set(item.group, fresh);
      units.push(fresh);
    }
  }
  return units;
}

const idsOf = (units: readonly OutboxItem[][]) => units.flat().map((e) => e.id);

export function createOutboxSender(options: OutboxSenderOptions): OutboxSender {
  const { outbox, post, owner, metrics } = options;
  const now = options.now ?? (() => Date.now());
  const random = options.random ?? Math.random;
  const { batch } = options;
  const claimMs = options.claimMs ?? OUTBOX_DEFAULTS.claimMs;
  const maxRoundMs = options.maxRoundMs ?? OUTBOX_DEFAULTS.maxRoundMs;
  const windowMs = options.denialWindowMs ?? OUTBOX_DEFAULTS.denialWindowMs;
  const baseMs = options.backoffBaseMs ?? OUTBOX_DEFAULTS.backoffBaseMs;
  const maxMs = options.backoffMaxMs ?? OUTBOX_DEFAULTS.backoffMaxMs;
  const log = options.logger;
  /** When each group's last post went out, while its window lasts (this sender's memory; a new sender may post one more). */
  const lastGroupPost = new Map<string, number>();
  /** Posted but not yet acknowledged (the store failed): acknowledged before anything else is sent. */
  let unacked: number[] = [];
  /** Slack said 429: nothing is sent before this. */
  let pausedUntil = 0;

  /** Half to all of base·2ⁿ, capped: senders that failed together do not retry together. */
  const backoff = (attempts: number) => {
    const ms = Math.min(maxMs, baseMs * 2 ** Math.min(attempts, 30));
    return Math.round(ms / 2 + (random() * ms) / 2);
  };

  async function ack(ids: number[]): Promise<void> {
    try {
      await outbox.markSent(ids, now());
    } catch (error) {
      // Slack has it; remember, so that it is not sent again while the store is back in a moment.
      unacked.push(...ids);
      throw error;
    }
  }

  /** Each round forgets the windows that are over: a group still here is inside its window. */
  function forget(): void {
    const cutoff = now() - windowMs;
    for (const [group, at] of lastGroupPost) if (at <= cutoff) lastGroupPost.delete(group);
  }

  return {
    async runOnce() {
      if (unacked.length > 0) {
        const ids = unacked;
        unacked = [];
        await ack(ids);
      }
      const start = now();
      if (start < pausedUntil) return 0;
      forget();
      const units = postsOf(await outbox.claim(owner, start, claimMs, batch));
      let acknowledged = 0;

      for (let i = 0; i < units.length; i++) {
        if (now() - start >= maxRoundMs) {
          // Out of time: the rest is due again at once, for the next round (which renews the lease first).
          await outbox.holdBack(idsOf(units.slice(i)), owner, now());
          break;
        }
        const unit = units[i]!;
        const ids = unit.map((e) => e.id);
        const first = unit[0]!;
        if (first.group !== null) {
          const last = lastGroupPost.get(first.group);
          if (last !== undefined) {
            // Inside the group's window: held back until it ends, then sent as one summary.
            await outbox.holdBack(ids, owner, last + windowMs);
            continue;
          }
        }
        const records = unit.map((e) => e.record);
        const result = await post(unit.length > 1 ? { kind: 'denials', userId: first.record.userId, records } : { kind: 'record', record: first.record });
        if (result.ok) {
          if (first.group !== null) lastGroupPost.set(first.group, now());
          metrics?.auditPosts.inc({ result: 'sent' });
          metrics?.auditPosts.inc({ result: 'grouped' }, unit.length - 1);
          await ack(ids);
          acknowledged += ids.length;
          continue;
        }
        // Slack refused or failed: this one waits its backoff; on a 429 everything waits Retry-After.
        metrics?.auditPosts.inc({ result: 'retried' });
        const attempts = Math.max(...unit.map((e) => e.attempts));
        const wait = result.retryAfterMs ?? backoff(attempts);
        log.warn('Slack did not take an audit post; it is retried later', {
          records: records.map((r) => r.id),
          reason: result.reason,
          retryInMs: wait,
          attempts: attempts + 1,
        });
        await outbox.defer(ids, owner, now() + wait, result.reason);
        if (result.retryAfterMs !== undefined) {
          pausedUntil = now() + result.retryAfterMs;
          const rest = idsOf(units.slice(i + 1));
          if (rest.length > 0) await outbox.holdBack(rest, owner, pausedUntil);
          break;
        }
      }
      metrics?.outboxBacklog.set((await outbox.backlog()).pending);
      return acknowledged;
    },
  };
}

/**
 * A Web API failure as a PostResult: a 429 carries Retry-After (seconds, on
 * the error of @slack/web-api as `retryAfter`); anything else is retried with
 * backoff, a permanent refusal (channel_not_found, not_in_channel) included,
 * since the operator can fix it and every record must still arrive.
 */
export function postFailure(error: unknown): Extract<PostResult, { ok: false }> {
  const e = (error ?? {}) as { code?: unknown; retryAfter?: unknown; data?: { error?: unknown }; message?: unknown };
  if (e.code === 'slack_webapi_rate_limited_error') {
    // Less than a second (none, negative, not a number) waits a second.
    const seconds = Number.isFinite(e.retryAfter) ? Number(e.retryAfter) : 1;
    return { ok: false, reason: 'ratelimited', retryAfterMs: Math.max(1000, seconds * 1000) };
  }
  if (e.code === 'slack_webapi_platform_error' && typeof e.data?.error === 'string') return { ok: false, reason: e.data.error };
  if (typeof e.code === 'string') return { ok: false, reason: e.code };
  return { ok: false, reason: 'unexpected error' };
}
