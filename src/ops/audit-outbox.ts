import type { Logger } from '../log';
import type { AuditRecord } from '../store/audit-store';
import type { Metrics } from './metrics';

// Sends the outbox of audit posts to VS_AUDIT_CHANNEL. The store writes an
// outbox entry with each settled audit record, in the same transaction, so a
// record is never without its post; this sender drains it:
//   - entries are claimed for a while (a dead sender's claims come back);
//   - an entry is acknowledged only after Slack took the post, so a repeat
//     happens only if the instance dies between Slack's answer and the ack;
//   - a refusal or failure defers the entry with exponential backoff, a 429
//     for Slack's Retry-After (and nothing else is sent meanwhile);
//   - denials are grouped per user: at most one post per user a window
//     (a minute), the ones that come inside it wait and go out as one summary.
// One instance sends at a time (a lease, see periodic.ts): Slack's rate limit
// is per channel, and the per-user window then holds across instances.

export interface OutboxEntry {
  id: number;
  record: AuditRecord;
  /** Failed attempts so far. */
  attempts: number;
}

/** What the sender needs of the store's outbox (the store contract's methods of the same names). */
export interface OutboxStorage {
  /** Due entries (oldest first), claimed by `owner` until `nowMs + leaseMs`. */
  claimOutbox(owner: string, nowMs: number, leaseMs: number, limit: number): Promise<OutboxEntry[]>;
  /** Slack took them: they are done. */
  markOutboxSent(ids: readonly number[], nowMs: number): Promise<number>;
  /** Not now: `owner`'s entries are due again at `untilMs`, `error` kept as the reason. */
  deferOutbox(ids: readonly number[], owner: string, untilMs: number, error: string): Promise<number>;
  /** Entries not yet sent. */
  outboxBacklog(): Promise<{ pending: number }>;
}

/** One post: a record, or one user's denials summarised. */
export type AuditPost = { kind: 'record'; record: AuditRecord } | { kind: 'denials'; userId: string; records: readonly AuditRecord[] };

export type PostResult = { ok: true } | { ok: false; reason: string; retryAfterMs?: number };

/** Renders and posts (given by the composition root: the renderer lives in slack/blocks). */
export type PostAudit = (post: AuditPost) => Promise<PostResult>;

export interface OutboxSenderOptions {
  storage: OutboxStorage;
  post: PostAudit;
  owner: string;
  logger: Logger;
  metrics?: Metrics;
  now?: () => number;
  /** Entries claimed per round. */
  batch: number;
  /** How long a claim lasts before another sender may take the entry. */
  claimMs?: number;
  /**
   * A round stops posting after this long and gives the rest back for the next round, so that
   * it ends well within the sender's lease (a slow Slack must not let a second sender start).
   */
  maxRoundMs?: number;
  /** Denials by one user: one post per window. */
  denialWindowMs?: number;
  /** Backoff after the n-th failure: base·2ⁿ, capped, with jitter. */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  random?: () => number;
}

export interface OutboxSender {
  /** One round: claim, post, acknowledge or defer. Resolves with how many entries were acknowledged. */
  runOnce(): Promise<number>;
}

/** The reason kept on posts a round had no time left for (not a failure). */
export const ROUND_OVER = 'not sent: the round ran out of time; sent in the next one';

/** The reason kept on denials waiting for their user's window (not a failure). */
export const GROUPED = 'grouped: one denial post per user a minute';

export const OUTBOX_DEFAULTS = {
  claimMs: 60_000,
  maxRoundMs: 5_000,
  denialWindowMs: 60_000,
  backoffBaseMs: 1000,
  backoffMaxMs: 5 * 60_000,
} as const;

export function createOutboxSender(options: OutboxSenderOptions): OutboxSender {
  const { storage, post, owner, metrics } = options;
  const now = options.now ?? (() => Date.now());
  const random = options.random ?? Math.random;
  const { batch } = options;
  const claimMs = options.claimMs ?? OUTBOX_DEFAULTS.claimMs;
  const maxRoundMs = options.maxRoundMs ?? OUTBOX_DEFAULTS.maxRoundMs;
  const windowMs = options.denialWindowMs ?? OUTBOX_DEFAULTS.denialWindowMs;
  const baseMs = options.backoffBaseMs ?? OUTBOX_DEFAULTS.backoffBaseMs;
  const maxMs = options.backoffMaxMs ?? OUTBOX_DEFAULTS.backoffMaxMs;
  const log = options.logger;
  /** When each user's last denial post went out (this sender's memory; a new sender may post one more). */
  const lastDenialPost = new Map<string, number>();
  /** Posted but not yet acknowledged (the store failed): acknowledged before anything else is sent. */
  let unacked: number[] = [];
  /** Slack said 429: nothing is sent before this. */
  let pausedUntil = 0;

  const backoff = (attempts: number) => {
    const ms = Math.min(maxMs, baseMs * 2 ** Math.min(attempts, 30));
    return Math.round(ms / 2 + (random() * ms) / 2);
  };

  async function ack(ids: number[]): Promise<void> {
    try {
      await storage.markOutboxSent(ids, now());
    } catch (error) {
      // Slack has it; remember, so that it is not sent again while the store is back in a moment.
      unacked.push(...ids);
      throw error;
    }
  }

  function forget(): void {
    const cutoff = now() - windowMs;
    for (const [user, at] of lastDenialPost) if (at <= cutoff) lastDenialPost.delete(user);
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
      const entries = await storage.claimOutbox(owner, start, claimMs, batch);
      let acknowledged = 0;
      // In record order; one user's denials travel together, at the place of the first.
      const units: OutboxEntry[][] = [];
      const denialsOf = new Map<string, OutboxEntry[]>();
      for (const entry of entries) {
        if (entry.record.outcome !== 'denied') {
          units.push([entry]);
          continue;
        }
        const group = denialsOf.get(entry.record.userId);
        if (group) group.push(entry);
        else {
          const fresh = [entry];
          denialsOf.set(entry.record.userId, fresh);
          units.push(fresh);
        }
      }

      for (let i = 0; i < units.length; i++) {
        if (now() - start >= maxRoundMs) {
          // Out of time: the rest is due again at once, for the next round (which renews the lease first).
          await storage.deferOutbox(
            units
              .slice(i)
              .flat()
              .map((e) => e.id),
            owner,
            now(),
            ROUND_OVER,
          );
          break;
        }
        const unit = units[i]!;
        const ids = unit.map((e) => e.id);
        const first = unit[0]!.record;
        const denial = first.outcome === 'denied';
        if (denial) {
          const last = lastDenialPost.get(first.userId);
          if (last !== undefined && now() - last < windowMs) {
            await storage.deferOutbox(ids, owner, last + windowMs, GROUPED);
            continue;
          }
        }
        const result = await post(
          denial && unit.length > 1 ? { kind: 'denials', userId: first.userId, records: unit.map((e) => e.record) } : { kind: 'record', record: first },
        );
        if (result.ok) {
          if (denial) lastDenialPost.set(first.userId, now());
          metrics?.auditPosts.inc({ result: 'sent' });
          if (unit.length > 1) metrics?.auditPosts.inc({ result: 'grouped' }, unit.length - 1);
          await ack(ids);
          acknowledged += ids.length;
          continue;
        }
        // Slack refused or failed: this one waits its backoff; on a 429 everything waits Retry-After.
        metrics?.auditPosts.inc({ result: 'retried' });
        const attempts = Math.max(...unit.map((e) => e.attempts));
        const wait = result.retryAfterMs ?? backoff(attempts);
        log.warn('Slack did not take an audit post; it is retried later', {
          records: unit.map((e) => e.record.id),
          reason: result.reason,
          retryInMs: wait,
          attempts: attempts + 1,
        });
        await storage.deferOutbox(ids, owner, now() + wait, result.reason);
        if (result.retryAfterMs !== undefined) {
          pausedUntil = now() + result.retryAfterMs;
          const rest = units
            .slice(i + 1)
            .flat()
            .map((e) => e.id);
          if (rest.length > 0) await storage.deferOutbox(rest, owner, pausedUntil, 'held back: Slack asked to wait (429)');
          break;
        }
      }
      metrics?.outboxBacklog.set((await storage.outboxBacklog()).pending);
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
    const seconds = typeof e.retryAfter === 'number' && Number.isFinite(e.retryAfter) && e.retryAfter >= 0 ? e.retryAfter : 1;
    return { ok: false, reason: 'ratelimited', retryAfterMs: Math.max(1000, seconds * 1000) };
  }
  if (e.code === 'slack_webapi_platform_error' && typeof e.data?.error === 'string') return { ok: false, reason: e.data.error };
  if (typeof e.code === 'string') return { ok: false, reason: e.code };
  return { ok: false, reason: 'unexpected error' };
}
