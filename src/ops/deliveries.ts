import type { AnyMiddlewareArgs, Middleware, ReceiverEvent } from '@slack/bolt';
import type { Logger } from '../log';
import type { SubmissionClaims } from '../store';
import type { Metrics } from './metrics';

// The operations side's hooks into Bolt: the ack timer, and Slack's retries. Slack redelivers an event (HTTP `X-Slack-Retry-Num`, Socket Mode
// `retry_attempt`) when it missed the ack, possibly to another instance. Every
// first delivery notes its id in the store after the fact (never on the ack
// path); a retry waits for the store's answer and is dropped when the first
// delivery was seen. Form submissions need none of this: the door claims
// each one once.

/** Where first deliveries are noted: the store's claims (a key is claimed once, ever). */
export type DeliveryClaims = Pick<SubmissionClaims, 'claim'>;

type Body = Record<string, unknown>;

/** What identifies one delivery across retries: the event id, else the trigger id (commands, actions, shortcuts). */
export function deliveryKey(body: Body): string | null {
  if (typeof body.event_id === 'string' && body.event_id !== '') return `delivery:event:${body.event_id}`;
  if (body.type === 'view_submission' || body.type === 'view_closed') return null;
  if (typeof body.trigger_id === 'string' && body.trigger_id !== '') return `delivery:trigger:${body.trigger_id}`;
  return null;
}

function kindOf(body: Body): string {
  if (typeof body.command === 'string') return 'command';
  switch (body.type) {
    case 'view_submission':
    case 'view_closed':
      return 'view';
    case 'block_actions':
      return 'action';
    case 'shortcut':
    case 'message_action':
      return 'shortcut';
    case 'block_suggestion':
      return 'options';
    default:
      return 'event';
  }
}

/** The seam between a receiver and the app: every delivery passes through processEvent with its ack. */
interface EventProcessor {
  processEvent(event: ReceiverEvent): Promise<void>;
}

/**
 * Times each ack (vs_chatops_ack_seconds{kind}): from the receiver handing
 * the delivery to the app (signature checked, body read) to the ack being
 * sent, in HTTP and Socket Mode alike. Middleware cannot do it: Bolt gives
 * each middleware a copy of the arguments, so a wrapped ack would not reach
 * the listener.
 */
export function timeAcks(app: EventProcessor, metrics: Metrics, now: () => number = () => performance.now()): void {
  const processEvent = app.processEvent.bind(app);
  app.processEvent = (event) => {
    const started = now();
    const kind = kindOf(event.body);
    let timed = false;
    const ack = event.ack;
    return processEvent({
      ...event,
      ack: async (response) => {
        try {
          await ack(response);
        } finally {
          if (!timed) {
            timed = true;
            metrics.ackSeconds.observe({ kind }, (now() - started) / 1000);
          }
        }
      },
    });
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
      if (options.socketMode || key.startsWith('delivery:event:')) claims.claim(key, at).catch(() => undefined);
      return args.next();
    }
    let fresh: boolean;
    try {
      fresh = await claims.claim(key, at);
    } catch {
      // The store cannot tell: serve the retry (reads are harmless, and changes are refused while it is down).
      fresh = true;
    }
    if (fresh) return args.next();
    logger.info('Slack retried a delivery that already arrived; not handled again', {
      retry: retryNum,
      reason: (args.context as { retryReason?: unknown }).retryReason,
    });
    const ack = (args as { ack?: () => Promise<void> }).ack;
    if (typeof ack === 'function') await ack();
  };
}
