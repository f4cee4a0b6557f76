import { Counter, type Registry } from 'prom-client';
import type { Logger } from '../log';
import type { ChangeEventItem, ChangeEvents } from '../store';
import { changeEventOf, type EventFacts } from './change-event';
import type { SendChangeEvent } from './events-api';

// Sends the outbox of change events to PagerDuty (docs/product.md, On call: the incident's timeline). Every instance
// runs a round: it claims due events under a lease of its own (the store gives each to one sender at a time, and a
// dead sender's back once its lease ends), sends each, and then acknowledges it (202), defers it with backoff (429,
// 5xx, no answer; a 429 pauses this sender for its Retry-After), or sets it aside as undeliverable (PagerDuty refused
// the event itself). An event repeats only if its instance dies between PagerDuty's 202 and the acknowledgement.

/** People's names and the change's link, for one event (the Slack side: users.info, chat.getPermalink). Never rejects. */
export type EventFactsOf = (item: ChangeEventItem) => Promise<EventFacts>;

export interface ChangeEventSenderOptions {
  events: ChangeEvents;
  send: SendChangeEvent;
  facts: EventFactsOf;
  owner: string;
  logger: Logger;
  now?: () => number;
  /** Events claimed per round. */
  batch?: number;
  /** How long a claim lasts before another sender may take the event: longer than a round of sends. */
  claimMs?: number;
  /** Backoff after the n-th failure: base·2ⁿ, capped, with jitter; a 429 waits at least `rateLimitedMs`. */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  rateLimitedMs?: number;
  random?: () => number;
  /** Counts events by result in vs_chatops_change_events_total. */
  registry?: Registry;
}

export const CHANGE_EVENT_DEFAULTS = {
  batch: 20,
  claimMs: 5 * 60_000,
  backoffBaseMs: 5_000,
  backoffMaxMs: 10 * 60_000,
  // PagerDuty asks for minutes after a 429.
  rateLimitedMs: 60_000,
} as const;

export interface ChangeEventSender {
  /** One round: claim, send, then acknowledge, defer or set aside each. Resolves with how many were sent. */
  runOnce(): Promise<number>;
}

export function createChangeEventSender(options: ChangeEventSenderOptions): ChangeEventSender {
  const { events, send, facts, owner } = options;
  const log = options.logger;
  const now = options.now ?? (() => Date.now());
  const random = options.random ?? Math.random;
  const d = { ...CHANGE_EVENT_DEFAULTS, ...definedOf(options) };
  const counted = options.registry
    ? new Counter({
        name: 'vs_chatops_change_events_total',
        help: 'PagerDuty change events by result (sent, retried, undeliverable)',
        labelNames: ['result'],
        registers: [options.registry],
      })
    : undefined;
  /** PagerDuty said 429: nothing is sent before this. */
  let pausedUntil = 0;
  const backoff = (attempts: number) => {
    const ms = Math.min(d.backoffMaxMs, d.backoffBaseMs * 2 ** Math.min(attempts, 30));
    return Math.round(ms / 2 + (random() * ms) / 2);
  };

  async function one(item: ChangeEventItem): Promise<boolean> {
    const event = changeEventOf(item, await facts(item));
    if (event === null) {
      // A record that has not ended was queued (it cannot be, by the store's contract): nothing to tell, never retried.
      await events.giveUp(item.id, owner, now(), 'the change had not ended');
      return false;
    }
    const sent = await send(event);
    if (sent.result === 'sent') {
      await events.markSent(item.id, now());
      counted?.inc({ result: 'sent' });
      return true;
    }
    if (sent.result === 'undeliverable') {
      log.error('PagerDuty refused a change event; it is not sent again', { record: item.record.id, reason: sent.reason });
      await events.giveUp(item.id, owner, now(), sent.reason);
      counted?.inc({ result: 'undeliverable' });
      return false;
    }
    const wait = sent.retryAfterMs ?? (/^HTTP 429/.test(sent.reason) ? Math.max(d.rateLimitedMs, backoff(item.attempts)) : backoff(item.attempts));
    log.warn('PagerDuty did not take a change event; it is sent again later', { record: item.record.id, reason: sent.reason, retryInMs: wait });
    await events.defer(item.id, owner, now() + wait, sent.reason);
    counted?.inc({ result: 'retried' });
    if (/^HTTP 429/.test(sent.reason)) pausedUntil = now() + wait;
    return false;
  }

  return {
    async runOnce() {
      if (now() < pausedUntil) return 0;
      const claimed = await events.claim(owner, now(), d.claimMs, d.batch);
      let sentCount = 0;
      for (let i = 0; i < claimed.length; i++) {
        if (now() < pausedUntil) {
          // Paused by a 429 meanwhile: the rest wait for the pause, untried (not counted as attempts).
          await events.holdBack(
            claimed.slice(i).map((rest) => rest.id),
            owner,
            pausedUntil,
          );
          break;
        }
        if (await one(claimed[i]!)) sentCount += 1;
      }
      return sentCount;
    },
  };
}

/** The options given, without the unset ones (so that defaults stay). */
function definedOf(o: ChangeEventSenderOptions): Partial<typeof CHANGE_EVENT_DEFAULTS> {
  const picked: Record<string, number> = {};
  for (const key of Object.keys(CHANGE_EVENT_DEFAULTS) as (keyof typeof CHANGE_EVENT_DEFAULTS)[]) {
    const value = o[key];
    if (typeof value === 'number') picked[key] = value;
  }
  return picked;
}
