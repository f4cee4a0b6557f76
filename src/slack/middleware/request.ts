import type { AllMiddlewareArgs, AnyMiddlewareArgs, Context } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { deliveryClaim } from '../../ops/deliveries';
import type { Logger } from '../../log';
import type { TraceSpan } from '../../tracing';
import type { ListenerContext, Outcome, RequestKind, SlackRequest } from '../context';
import { MiddlewareMissingError } from '../errors';
import { isSlackResponseUrl, responder, type Respond } from '../response-url';
import type { Undelivered } from '../send';
import { functionEndersOf, stepCompletion, type StepCompletion } from '../step-completion';
import { refusedWorkspace } from './workspace';

// The first middleware of every listener: it reads who asks from where, acks
// at once what can be acked at once (commands, buttons, shortcuts; a form is
// acked later, with its errors or its outcome; Bolt acks an event itself
// before any middleware runs), stops a delivery whose other copy was handled
// first (Slack's retries, replays), builds the request every listener
// receives (with a child logger, built when first used), refuses a request
// from a workspace the bot does not serve (middleware/workspace.ts), and
// writes the one log line per request when it is done.

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
  const serve = async (args: Args, span?: TraceSpan): Promise<void> => {
    const started = ctx.now();
    const facts = factsOf(args);
    if (kind !== 'submission' && 'ack' in args && args.ack) await args.ack();
    // A delivery sent twice (Slack's retry, a replay) acts only if it claimed its id first (src/ops/deliveries.ts): decided after the ack, before any work.
    const claim = deliveryClaim(args.context);
    if (claim && !(await claim)) {
      // Another delivery of it ran (a retry handled first, a replay): a form is acked here, with nothing.
      if (kind === 'submission' && 'ack' in args && args.ack) await args.ack();
      span?.set({ 'vs.outcome': 'duplicate' });
      return;
    }
    const labels = fields(args);
    const request = new ListenerRequest(kind, facts, args, ctx, {
      user: facts.userId,
      ...(facts.channelId ? { channel: facts.channelId } : {}),
      ...labels,
    });
    (args.context as { request?: SlackRequest }).request = request;
    try {
      // Nothing of a request from a workspace the bot does not serve goes further (src/slack/workspaces.ts).
      if (await refusedWorkspace(ctx, request, args)) return;
      await args.next();
    } finally {
      request.ended(Math.round(ctx.now() - started));
      const { undeliveredAnswer: undelivered } = request;
      ctx.onRequestEnded?.({ kind, outcome: request.outcome, labels, ...(undelivered ? { undelivered } : {}) });
      span?.set({ 'vs.outcome': request.outcome });
      if (request.outcome === 'failed') span?.failed();
    }
  };
  const tracing = ctx.tracing;
  if (!tracing?.on) return serve;
  // Each request the root of a trace of its own: who, where and which row, by id; never what was typed or sent.
  return (args: Args) => {
    const facts = factsOf(args);
    // The row's labels, when they can be read yet (serve reads them again, and tells a missing middleware apart).
    let labels: Record<string, unknown> = {};
    try {
      labels = fields(args);
    } catch {
      // named by serve's own call
    }
    const attributes: Record<string, string | number | boolean | undefined> = {
      'vs.request.kind': kind,
      'slack.user_id': facts.userId || undefined,
      'slack.channel_id': facts.channelId ?? undefined,
    };
    for (const [key, value] of Object.entries(labels))
      if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') attributes[`vs.${key}`] = value;
    const row = Object.values(labels).find((value) => typeof value === 'string');
    // The row's name (ids in it, a restore button's backup, as `#`): spans of one kind of request share a name.
    const name = typeof row === 'string' ? `${kind} ${row.replace(/[0-9]+/g, '#')}` : kind;
    return tracing.root(name, { kind: 'server', attributes }, (span) => serve(args, span));
  };
}

/**
 * The request a listener gets. Its child logger is built when a line is first written through it: most requests
 * write only the closing line, which carries the same fields, and a child costs as much as a line.
 */
class ListenerRequest implements SlackRequest {
  readonly userId: string;
  readonly channelId: string | null;
  readonly triggerId: string | undefined;
  readonly responseUrl: string | undefined;
  readonly respond: Respond | undefined;
  readonly step: StepCompletion | undefined;
  readonly client: WebClient;
  outcome: Outcome = 'failed';
  /** Why its answer did not reach Slack, when it did not (reply.ts tells it). */
  undeliveredAnswer: Undelivered | undefined;
  private childLog: Logger | undefined;

  constructor(
    readonly kind: RequestKind,
    facts: Facts,
    args: Args,
    private readonly ctx: ListenerContext,
    /** The fields of every line about it: who, where, and the listener table's labels. */
    private readonly bindings: Record<string, unknown>,
  ) {
    this.userId = facts.userId;
    this.channelId = facts.channelId;
    this.triggerId = facts.triggerId;
    const apiUrl = ctx.config.slack.apiUrl;
    // A response_url that is not Slack's is dropped here, before anything can post to it or keep it (a form's metadata).
    const responseUrl = facts.responseUrl !== undefined && isSlackResponseUrl(facts.responseUrl, apiUrl) ? facts.responseUrl : undefined;
    if (facts.responseUrl !== undefined && responseUrl === undefined)
      this.log.warn("dropped the request's response_url: it is not Slack's, so nothing is posted to it");
    this.responseUrl = responseUrl;
    this.respond = responseUrl ? responder(responseUrl, apiUrl, () => ctx.sandbox) : undefined;
    this.client = args.client;
    const enders = functionEndersOf(args);
    // A workflow step's ending logs through the request's logger (a step is rare: its child is built at once).
    this.step = enders ? stepCompletion(enders, this.log) : undefined;
  }

  get log(): Logger {
    return (this.childLog ??= this.ctx.logger.child(this.bindings));
  }

  /** Hears that its answer did not reach Slack (src/slack/reply.ts). */
  undelivered(why: Undelivered): void {
    this.undeliveredAnswer ??= why;
  }

  /** The one line of the request, with how it ended: an answer nobody got is never a success. */
  ended(ms: number): void {
    if (this.undeliveredAnswer && this.outcome === 'succeeded') this.outcome = 'failed';
    const fields = { outcome: this.outcome, ...(this.undeliveredAnswer ? { undelivered: this.undeliveredAnswer } : {}), ms };
    if (this.childLog) this.childLog.info(this.kind, fields);
    else this.ctx.logger.info(this.kind, { ...this.bindings, ...fields });
  }
}

type Facts = Pick<SlackRequest, 'userId' | 'channelId' | 'triggerId' | 'responseUrl'>;

function factsOf(args: Args): Facts {
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
