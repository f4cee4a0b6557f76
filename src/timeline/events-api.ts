import { Agent, request } from 'undici';
import type { ChangeEventBody } from './change-event';

// PagerDuty's Events API v2, its one call the bot makes: `POST /v2/change/enqueue` with the routing key in the body
// (no auth header). 202 is taken; 400 (and the other answers that say the event itself is wrong) is never sent again;
// 429, 5xx and network errors are tried again later, 429 after its Retry-After when it gives one. What a failure says
// never holds the routing key: only the status and PagerDuty's own words.

export type EventSent =
  | { result: 'sent' }
  | { result: 'retry'; reason: string; retryAfterMs?: number }
  /** PagerDuty refused the event itself: sending it again would be refused again. */
  | { result: 'undeliverable'; reason: string };

export type SendChangeEvent = (event: ChangeEventBody) => Promise<EventSent>;

export interface EventsApiOptions {
  /** VS_PAGERDUTY_EVENTS_URL, without a trailing slash. */
  eventsUrl: string;
  routingKey: string;
  timeoutMs?: number;
}

export const EVENTS_TIMEOUT_MS = 10_000;
/** Statuses that say the event is wrong, not the moment: never tried again. */
const REFUSED_FOR_GOOD = new Set([400, 413, 422]);

/** PagerDuty's words about a refusal, bounded and on one line; never the body we sent. */
function refusalWords(body: unknown): string {
  if (body === null || typeof body !== 'object') return '';
  const o = body as { message?: unknown; errors?: unknown };
  const errors = Array.isArray(o.errors) ? o.errors.filter((e): e is string => typeof e === 'string') : [];
  const words = [typeof o.message === 'string' ? o.message : '', ...errors].filter(Boolean).join('; ');
  return words.replace(/\s+/g, ' ').slice(0, 300);
}

export function pagerDutyEvents(options: EventsApiOptions): { send: SendChangeEvent; close(): Promise<void> } {
  const timeoutMs = options.timeoutMs ?? EVENTS_TIMEOUT_MS;
  const agent = new Agent({ connect: { timeout: timeoutMs }, keepAliveTimeout: 30_000, connections: 4 });
  const url = `${options.eventsUrl}/v2/change/enqueue`;
  return {
    async send(event) {
      let response;
      try {
        response = await request(url, {
          method: 'POST',
          dispatcher: agent,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ routing_key: options.routingKey, ...event }),
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (error) {
        const name = error instanceof Error ? error.name : 'error';
        return { result: 'retry', reason: /timeout/i.test(name) ? `no answer within ${timeoutMs} ms` : 'PagerDuty could not be reached' };
      }
      const status = response.statusCode;
      let body: unknown = null;
      try {
        body = await response.body.json();
      } catch {
        await response.body.dump().catch(() => undefined);
      }
      if (status >= 200 && status < 300) return { result: 'sent' };
      const said = refusalWords(body);
      const reason = `HTTP ${status}${said ? `: ${said}` : ''}`;
      if (REFUSED_FOR_GOOD.has(status)) return { result: 'undeliverable', reason };
      const retryAfter = Number(response.headers['retry-after']);
      return { result: 'retry', reason, ...(status === 429 && Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfterMs: retryAfter * 1000 } : {}) };
    },
    close: () => agent.close(),
  };
}
