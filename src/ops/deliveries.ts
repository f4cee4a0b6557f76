import type { ReceiverEvent } from '@slack/bolt';
import type { Logger } from '../log';
import type { SubmissionClaims } from '../store';
import type { Metrics } from './metrics';

// The operations side's hooks into Bolt: the ack timer, and Slack's retries. Slack redelivers an event (HTTP `X-Slack-Retry-Num`, Socket Mode
// `retry_attempt`) when it missed the ack, possibly to another instance, and
// possibly before the first delivery's id is stored. Every delivery Slack may
// send again claims its id in the store, and only the one that claims it
// first is handled: a retry waits for the store's answer before anything
// (and is acked and dropped when it lost); a first delivery is acked first
// (its claim is never on the ack path) and its listener waits for the answer
// after the ack, before any work (deliveryClaim, awaited by
// slack/middleware/request.ts). Form submissions need none of this: the door
// claims each one once. A workflow step is claimed by its execution id, which
// Slack keeps across every delivery of it.

/** Where first deliveries are noted: the store's claims (a key is claimed once, ever). */
export type DeliveryClaims = Pick<SubmissionClaims, 'claim'>;

type Body = Record<string, unknown>;

/**
 * What identifies one delivery across retries: a workflow step's execution id (however often, and under whatever
 * event id, Slack delivers a function_executed, the step runs once), else the event id, else the trigger id
 * (commands, actions, shortcuts).
 */
export function deliveryKey(body: Body): string | null {
  const execution = functionExecutionId(body);
  if (execution !== null) return `delivery:event:function:${execution}`;
  if (typeof body.event_id === 'string' && body.event_id !== '') return `delivery:event:${body.event_id}`;
  if (body.type === 'view_submission' || body.type === 'view_closed') return null;
  if (typeof body.trigger_id === 'string' && body.trigger_id !== '') return `delivery:trigger:${body.trigger_id}`;
  return null;
}

/** The function_execution_id of a function_executed event (a workflow step), or null. */
function functionExecutionId(body: Body): string | null {
  const event = body.event as { type?: unknown; function_execution_id?: unknown } | undefined;
  if (body.type !== 'event_callback' || event?.type !== 'function_executed') return null;
  return typeof event.function_execution_id === 'string' && event.function_execution_id !== '' ? event.function_execution_id : null;
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

/** Where dropRetries leaves a first delivery's claim on Bolt's context (one object for every middleware and listener of a delivery). */
const CLAIM = 'vsDeliveryClaim';

/**
 * Whether the listener of this delivery may act, once it has acked: resolves false when another delivery of
 * it (its retry, on any instance) claimed it first; undefined when there is nothing to wait for.
 */
export function deliveryClaim(context: object): Promise<boolean> | undefined {
  return (context as { [CLAIM]?: Promise<boolean> })[CLAIM];
}

export interface DropRetriesOptions {
  socketMode: boolean;
  now?: () => number;
  /** Whether the store answered lately; while it does not, a first delivery does not wait for its claim (which would only fail, late). */
  storeUp?: () => boolean;
}

/**
 * Drops Slack's retries of deliveries that already arrived (on any instance), and first deliveries whose retry was
 * handled first. A wrapper of processEvent rather than a middleware: every middleware is a step of every delivery, and
 * this one has nothing to do for most (a command over HTTP is never retried). A first delivery's claim reaches the
 * listeners on Bolt's context (customProperties); a retry that lost is acked here, and Bolt never sees it.
 */
export function dropRetries(app: EventProcessor, claims: DeliveryClaims, logger: Logger, options: DropRetriesOptions): void {
  const now = options.now ?? (() => Date.now());
  const processEvent = app.processEvent.bind(app);
  app.processEvent = async (event) => {
    const key = deliveryKey(event.body);
    if (key === null) return processEvent(event);
    const retryNum = event.retryNum;
    if (typeof retryNum !== 'number' || retryNum < 1) {
      // A first delivery. Over HTTP Slack retries events only; over Socket Mode any envelope.
      if (!options.socketMode && !key.startsWith('delivery:event:')) return processEvent(event);
      const claimed = claims.claim(key, new Date(now()).toISOString()).then(
        (fresh) => {
          if (!fresh) logger.info('Slack delivered this twice and the other delivery came first; not handled again', { retry: 0 });
          return fresh;
        },
        // The store cannot tell: handle it (reads are harmless, and changes are refused while it is down).
        () => true,
      );
      if (options.storeUp?.() === false) return processEvent(event);
      return processEvent({ ...event, customProperties: { ...event.customProperties, [CLAIM]: claimed } });
    }
    let fresh: boolean;
    try {
      fresh = await claims.claim(key, new Date(now()).toISOString());
    } catch {
      // The store cannot tell: serve the retry (reads are harmless, and changes are refused while it is down).
      fresh = true;
    }
    if (fresh) return processEvent(event);
    logger.info('Slack retried a delivery that already arrived; not handled again', { retry: retryNum, reason: event.retryReason });
    await event.ack();
  };
}
