import type { AnyMiddlewareArgs, Middleware } from '@slack/bolt';
import type { Logger } from '../log';
import type { Metrics } from './metrics';

// Global Bolt middleware of the operations side: the ack timer, and Slack's
// retries. Slack redelivers an event (HTTP `X-Slack-Retry-Num`, Socket Mode
// `retry_attempt`) when it missed the ack, possibly to another instance. Every
// first delivery notes its id in the store after the fact (never on the ack
// path); a retry waits for the store's answer and is dropped when the first
// delivery was seen. Form submissions need none of this: the door claims
// each one once.

export interface DeliveryClaims {
  /** Claims a key once, ever; false when it was claimed before. */
  claimSubmission(key: string, at: string): Promise<boolean>;
}

type Body = Record<string, unknown>;

/** What identifies one delivery across retries: the event id, else the trigger id (commands, actions, shortcuts). */
export function deliveryKey(body: Body): string | null {
  if (typeof body.event_id === 'string' && body.event_id !== '') return `delivery:event:${body.event_id}`;
  if (body.type === 'view_submission' || body.type === 'view_closed') return null;
  if (typeof body.trigger_id === 'string' && body.trigger_id !== '') return `delivery:trigger:${body.trigger_id}`;
  return null;
}

function kindOf(args: AnyMiddlewareArgs): string {
  if ('command' in args && args.command) return 'command';
  if ('view' in args && args.view) return 'view';
  if ('shortcut' in args && args.shortcut) return 'shortcut';
  if ('action' in args && args.action) return 'action';
  if ('options' in args && args.options) return 'options';
  return 'event';
}

/** Times each ack (vs_chatops_ack_seconds{kind}) by wrapping the ack the listeners call. */
export function timeAcks(metrics: Metrics, now: () => number = () => performance.now()): Middleware<AnyMiddlewareArgs> {
  return async (args) => {
    const a = args as AnyMiddlewareArgs & { ack?: (...rest: unknown[]) => Promise<void> };
    const original = a.ack;
    if (typeof original === 'function') {
      const started = now();
      const kind = kindOf(args);
      let timed = false;
      a.ack = async (...rest: unknown[]) => {
        try {
          await original(...rest);
        } finally {
          if (!timed) {
            timed = true;
            metrics.ackSeconds.observe({ kind }, (now() - started) / 1000);
          }
        }
      };
    }
    await args.next();
  };
}

/** Drops Slack's retries of deliveries that already arrived (on any instance). */
export function dropRetries(claims: DeliveryClaims, logger: Logger, options: { socketMode: boolean; now?: () => number }): Middleware<AnyMiddlewareArgs> {
  const now = options.now ?? (() => Date.now());
  return async (args) => {
    const body = args.body as unknown as Body;
    const key = deliveryKey(body);
    if (key === null) return args.next();
    const retryNum = (args.context as { retryNum?: unknown }).retryNum;
    const at = new Date(now()).toISOString();
    if (typeof retryNum !== 'number' || retryNum < 1) {
      // A first delivery: noted after the fact, never awaited on the ack path. Over HTTP Slack
      // retries events only; over Socket Mode any envelope.
      if (options.socketMode || key.startsWith('delivery:event:')) claims.claimSubmission(key, at).catch(() => undefined);
      return args.next();
    }
    let fresh: boolean;
    try {
      fresh = await claims.claimSubmission(key, at);
    } catch {
      // The store cannot tell: serve the retry (reads are harmless, and changes are refused while it is down).
      fresh = true;
    }
    if (fresh) return args.next();
    logger.info('Slack retried a delivery that already arrived; not handled again', { retry: retryNum, reason: (args.context as { retryReason?: unknown }).retryReason });
    const ack = (args as { ack?: () => Promise<void> }).ack;
    if (typeof ack === 'function') await ack();
  };
}
