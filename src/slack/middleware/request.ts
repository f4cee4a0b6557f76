import type { AllMiddlewareArgs, AnyMiddlewareArgs, Context } from '@slack/bolt';
import { deliveryClaim } from '../../ops/deliveries';
import type { ListenerContext, RequestKind, SlackRequest } from '../context';
import { MiddlewareMissingError } from '../errors';
import { responder } from '../response-url';
import { functionEndersOf, stepCompletion } from '../step-completion';

// The first middleware of every listener: it reads who asks from where, acks
// at once what can be acked at once (commands, buttons, shortcuts; a form is
// acked later, with its errors or its outcome; Bolt acks an event itself
// before any middleware runs), stops a delivery whose other copy was handled
// first (Socket Mode: Slack's retries), builds the request every
// listener receives (with a child logger), and writes the one log line per
// request when it is done.

type Args = AnyMiddlewareArgs & AllMiddlewareArgs;

/** What a listener table row adds to the request's log fields (e.g. `{ subcommand: 'firewall' }`). */
export type LogFields = (args: Args) => Record<string, unknown>;

/** The request readRequest built; throws a coded error when it did not run. */
export function requestOf(context: Context): SlackRequest {
  const request = (context as { request?: SlackRequest }).request;
  if (!request) throw new MiddlewareMissingError('readRequest');
  return request;
}

export function readRequest(ctx: ListenerContext, kind: RequestKind, fields: LogFields = () => ({})) {
  return async (args: Args): Promise<void> => {
    const started = ctx.now();
    const facts = factsOf(args);
    if (kind !== 'submission' && 'ack' in args && args.ack) await args.ack();
    // A delivery Slack may send twice acts only if it claimed its id first (src/ops/deliveries.ts): decided after the ack, before any work.
    const claim = deliveryClaim(args.context);
    if (claim && !(await claim)) return;
    const labels = fields(args);
    const log = ctx.logger.child({ user: facts.userId, ...(facts.channelId ? { channel: facts.channelId } : {}), ...labels });
    const enders = functionEndersOf(args);
    const request: SlackRequest = {
      kind,
      ...facts,
      respond: facts.responseUrl ? responder(facts.responseUrl, () => ctx.sandbox) : undefined,
      step: enders ? stepCompletion(enders, log) : undefined,
      client: args.client,
      log,
      outcome: 'failed',
    };
    (args.context as { request?: SlackRequest }).request = request;
    try {
      await args.next();
    } finally {
      log.info(kind, { outcome: request.outcome, ms: Math.round(ctx.now() - started) });
      ctx.onRequestEnded?.({ kind, outcome: request.outcome, labels });
    }
  };
}

function factsOf(args: Args): Pick<SlackRequest, 'userId' | 'channelId' | 'triggerId' | 'responseUrl'> {
  const body = args.body as {
    user_id?: string;
    channel_id?: string;
    response_url?: string;
    trigger_id?: string;
    user?: { id?: string };
    channel?: { id?: string };
    /** An Events API envelope: who and where are the event's. */
    event?: { user?: unknown; channel?: unknown };
  };
  const event = body.event;
  const userId = body.user_id ?? body.user?.id ?? (typeof event?.user === 'string' ? event.user : '');
  const channelId = body.channel_id ?? body.channel?.id ?? (typeof event?.channel === 'string' ? event.channel : null);
  return { userId, channelId: channelId || null, triggerId: body.trigger_id, responseUrl: body.response_url };
}
