import type { AllMiddlewareArgs, AnyMiddlewareArgs, Context } from '@slack/bolt';
import type { Logger } from '../../log';
import type { ListenerContext } from '../context';
import { responder, type Respond } from '../response-url';

// The first middleware of every listener: it reads who asks from where, acks
// at once what can be acked at once (commands, buttons, shortcuts; a form is
// acked later, with its errors or its outcome), gives the request a child
// logger, and writes the one log line per request when it is done.

export type RequestKind = 'command' | 'action' | 'shortcut' | 'submission';

/**
 * How a request ended, in PRODUCT.md's outcomes, plus three that are not
 * outcomes of a change: `not_found` (the id names nothing), `opened` (a
 * form was opened), `duplicate` (a repeated submission, which did nothing).
 */
export type RequestOutcome = 'succeeded' | 'invalid' | 'denied' | 'failed' | 'busy' | 'applied_unreadable' | 'not_found' | 'opened' | 'duplicate';

export interface RequestState {
  kind: RequestKind;
  /** The user who sent it: the only identity trusted. */
  userId: string;
  /** Where it was sent from; null from a global shortcut or a form (a form's channel is read from the form). */
  channelId: string | null;
  triggerId: string | undefined;
  responseUrl: string | undefined;
  /** Answers through the request's response_url; undefined when it has none (shortcuts, forms). */
  respond: Respond | undefined;
  log: Logger;
  /** Set by the needs check or the listener; written in the request's log line. */
  outcome: RequestOutcome;
}

type Args = AnyMiddlewareArgs & AllMiddlewareArgs;

/** What a listener table row adds to the request's log fields (e.g. `{ subcommand: 'firewall' }`). */
export type LogFields = (args: Args) => Record<string, unknown>;

export function requestOf(context: Context): RequestState {
  const state = (context as { request?: RequestState }).request;
  if (!state) throw new Error('the request middleware did not run before this listener');
  return state;
}

export function readRequest(ctx: ListenerContext, kind: RequestKind, fields: LogFields = () => ({})) {
  return async (args: Args): Promise<void> => {
    const started = ctx.now();
    const facts = factsOf(args);
    if (kind !== 'submission' && 'ack' in args && args.ack) await args.ack();
    const labels = fields(args);
    const log = ctx.logger.child({ user: facts.userId, ...(facts.channelId ? { channel: facts.channelId } : {}), ...labels });
    const state: RequestState = {
      kind,
      ...facts,
      respond: facts.responseUrl ? responder(facts.responseUrl, () => ctx.sandbox) : undefined,
      log,
      outcome: 'failed',
    };
    (args.context as { request?: RequestState }).request = state;
    try {
      await args.next();
    } finally {
      log.info(kind, { outcome: state.outcome, ms: Math.round(ctx.now() - started) });
      ctx.onRequestEnded?.({ kind, outcome: state.outcome, labels });
    }
  };
}

function factsOf(args: Args): Pick<RequestState, 'userId' | 'channelId' | 'triggerId' | 'responseUrl'> {
  const body = args.body as {
    user_id?: string;
    channel_id?: string;
    response_url?: string;
    trigger_id?: string;
    user?: { id?: string };
    channel?: { id?: string };
  };
  const userId = body.user_id ?? body.user?.id ?? '';
  const channelId = body.channel_id ?? body.channel?.id ?? null;
  return { userId, channelId: channelId || null, triggerId: body.trigger_id, responseUrl: body.response_url };
}
