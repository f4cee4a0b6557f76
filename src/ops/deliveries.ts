import type { ReceiverEvent } from '@slack/bolt';
import type { IncomingHttpHeaders } from 'node:http';
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
//
// Replays: a signed request captured on its way can be sent again, as it is,
// while its timestamp is accepted (5 minutes). Every signed delivery over
// HTTP is noted by its signature (its first half; the receiver puts it on
// Bolt's customProperties), and runs once: a second delivery of the same signed
// body is acked and dropped, wherever it lands. On PostgreSQL the note is a
// claim in the store, shared by every instance, waited for after the ack like
// a first delivery's; on SQLite (one instance) it is kept by the process,
// decided before Bolt sees the delivery, without a write per request on the
// event loop. Slack's own retries are still recognised by their event id; a
// retry header is no way around the note (headers are not signed): a retry is
// checked for both.

/** Where first deliveries are noted: the store's claims (a key is claimed once, ever). */
export type DeliveryClaims = Pick<SubmissionClaims, 'claim'>;

const REPLAYED = 'a signed request was delivered again (a replay): acknowledged and not run';

/** Where a signed delivery's customProperties carry its note (SignedDelivery). */
const SIGNED = 'vsSignedDelivery';
/** Slack's rule, as the request guard applies it: a timestamp more than 5 minutes from now is refused. */
const SIGNATURE_WINDOW_MS = 5 * 60_000;

/** A signed delivery, as the receiver notes it: the first half of its signature, and until when the signature is accepted. */
export interface SignedDelivery {
  key: string;
  untilMs: number;
}

/**
 * For the HTTP receiver's customPropertiesExtractor (once Bolt has checked the signature): the delivery's note, from
 * its signature headers. The note is the first half of the signature (128 bits of an HMAC: no two requests share it),
 * never enough to sign anything with; a hash of it would cost a digest per request for nothing more.
 */
export function signedDeliveryOf(headers: IncomingHttpHeaders): Record<string, SignedDelivery> {
  const signature = headers['x-slack-signature'];
  const timestamp = Number(headers['x-slack-request-timestamp']);
  if (typeof signature !== 'string' || signature.length < 35 || !Number.isFinite(timestamp)) return {};
  return { [SIGNED]: { key: `delivery:signed:${signature.slice(3, 35)}`, untilMs: timestamp * 1000 + SIGNATURE_WINDOW_MS } };
}

function signedDelivery(event: ReceiverEvent): SignedDelivery | undefined {
  return (event.customProperties as { [SIGNED]?: SignedDelivery } | undefined)?.[SIGNED];
}

/** Signed deliveries this process has seen, each kept until its signature is no longer accepted (SQLite: one instance). */
export interface SeenSignatures {
  /** True the first time a key is seen. */
  first(delivery: SignedDelivery): boolean;
}

/** Where signed deliveries are noted: by this process, or in the store's claims (every instance). */
export type SignedDeliveries = { inProcess: SeenSignatures } | { inStore: DeliveryClaims };

export function seenSignatures(now: () => number = Date.now): SeenSignatures {
  // Insertion order is nearly expiry order (timestamps are within minutes of now): the oldest go from the front.
  const until = new Map<string, number>();
  return {
    first({ key, untilMs }) {
      const at = now();
      for (const [seen, expires] of until) {
        if (expires >= at) break;
        until.delete(seen);
      }
      if (until.has(key)) return false;
      until.set(key, untilMs);
      return true;
    },
  };
}

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
  /** Where signed deliveries are noted, so that each runs once (over HTTP); unset: replays are not looked for. */
  signed?: SignedDeliveries;
}

/**
 * Drops Slack's retries of deliveries that already arrived (on any instance), first deliveries whose retry was handled
 * first, and second deliveries of a signed body (replays). A wrapper of processEvent rather than a middleware: every
 * middleware is a step of every delivery, and this one has little to do for most. A first delivery's claims reach the
 * listeners on Bolt's context (customProperties); a delivery known to be a repeat is acked here, and Bolt never sees it.
 */
export function dropRetries(app: EventProcessor, claims: DeliveryClaims, logger: Logger, options: DropRetriesOptions): void {
  const now = options.now ?? (() => Date.now());
  const processEvent = app.processEvent.bind(app);
  const inProcess = options.signed && 'inProcess' in options.signed ? options.signed.inProcess : undefined;
  const inStore = options.signed && 'inStore' in options.signed ? options.signed.inStore : undefined;
  const replayed = async (event: ReceiverEvent) => {
    logger.warn(REPLAYED, { retry: event.retryNum ?? 0 });
    await event.ack();
  };
  // The store cannot tell: handle it (reads are harmless, and changes are refused while it is down).
  const claim = (from: DeliveryClaims, key: string) => from.claim(key, new Date(now()).toISOString()).catch(() => true);
  app.processEvent = async (event) => {
    const signed = options.signed ? signedDelivery(event) : undefined;
    const key = deliveryKey(event.body);
    const retryNum = event.retryNum;
    if (typeof retryNum !== 'number' || retryNum < 1) {
      // A first delivery. Decided at once when this process keeps the notes: a replay never reaches Bolt.
      if (signed && inProcess && !inProcess.first(signed)) return replayed(event);
      // Over HTTP Slack retries events only; over Socket Mode any envelope.
      const byKey = key !== null && (options.socketMode || key.startsWith('delivery:event:'));
      const bySignature = signed !== undefined && inStore !== undefined;
      if (!byKey && !bySignature) return processEvent(event);
      const claimed = Promise.all([
        byKey
          ? claim(claims, key).then((fresh) => {
              if (!fresh) logger.info('Slack delivered this twice and the other delivery came first; not handled again', { retry: 0 });
              return fresh;
            })
          : true,
        bySignature
          ? claim(inStore, signed.key).then((fresh) => {
              if (!fresh) logger.warn(REPLAYED, { retry: 0 });
              return fresh;
            })
          : true,
      ]).then(([first, once]) => first && once);
      if (options.storeUp?.() === false) return processEvent(event);
      return processEvent({ ...event, customProperties: { ...event.customProperties, [CLAIM]: claimed } });
    }
    // A retry waits for the store's answers before anything: first, whether what it retries arrived.
    const [fresh, once] = await Promise.all([key === null ? true : claim(claims, key), signed && inStore ? claim(inStore, signed.key) : true]);
    if (!fresh) {
      logger.info('Slack retried a delivery that already arrived; not handled again', { retry: retryNum, reason: event.retryReason });
      await event.ack();
      return;
    }
    // Then whether it is a replay: the retry header is not signed, and is no way around the check.
    if (!once || (signed && inProcess && !inProcess.first(signed))) return replayed(event);
    return processEvent(event);
  };
}
