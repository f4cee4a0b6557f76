import type { NameIndex } from '../cloud/names';
import type { AgentTokenKeeper } from '../agents/tokens';
import type { WebClient } from '@slack/web-api';
import type { Changes, Policy } from '../changes';
import type { CloudClient } from '../cloud/client.types';
import type { Config } from '../config';
import type { Follower } from '../follow';
import type { Logger } from '../log';
import type { OnCall } from '../oncall';
import type { Store } from '../store';
import type { Tracing } from '../tracing';
import type { WatchKeeper } from '../watch/keeper';
import type { Respond } from './response-url';
import type { StepCompletion } from './step-completion';
import type { UserLimits } from './user-limits';
import type { Workspaces } from './workspaces';

// What every listener receives: the listener context, built once in
// compose.ts, and the request, built for each request by the request
// middleware (middleware/request.ts) before any listener runs.

/** What every listener may use; built once in compose.ts. */
export interface ListenerContext {
  config: Config;
  cloud: CloudClient;
  /** Servers by name: what people type for a server (id, label, hostname, address) → the server (src/cloud/names.ts). */
  names: NameIndex;
  /** The control panel's base URL (VS_PANEL_URL, resolved): links to `<panelUrl>/virtual_machines/<id>` are unfurled. */
  panelUrl: string;
  policy: Policy;
  /** Who is on call now (VS_ONCALL_PROVIDER); unset: on call grants nothing. */
  onCall?: OnCall;
  changes: Changes;
  /**
   * The app's own Web API client (its bot token), for what must outlive a request's own token: a workflow step's
   * request message is posted with it, since Slack ties a message posted with the execution's token, and its buttons,
   * to that execution, whose token ends when the step completes.
   */
  botClient: WebClient;
  /** Remembers where a followed change's message was posted, so that any instance updates it (src/follow). */
  follower: Pick<Follower, 'setMessage'>;
  /** The slices listeners read (`/vs audit`, the Home tab); changes go through `changes`. */
  store: Pick<Store, 'audit' | 'freeze'>;
  logger: Logger;
  /** The cloud API is a sandbox (the built-in one, or one that answers as such): every message says so. Read at render time. */
  sandbox: boolean;
  now: () => number;
  /** Reads and change attempts per person (VS_READS_PER_USER_PER_MINUTE, VS_CHANGES_PER_USER_PER_MINUTE), counted across instances. */
  limits: UserLimits;
  /** The workspaces served (SLACK_TEAM_ID or the bot token's, VS_ALLOWED_TEAMS): a request from any other is refused. */
  workspaces: Workspaces;
  /** Hears how each request ended (the metrics of src/ops); `labels` are the request's log fields (subcommand, action_id…). */
  onRequestEnded?: (request: { kind: string; outcome: string; labels: Record<string, unknown>; undelivered?: string }) => void;
  /** Agents' tokens (docs/product.md, Agents ask, people decide): made, listed and revoked by `/vs agent …`. */
  agentTokens: AgentTokenKeeper;
  /** Traces (OTEL_EXPORTER_OTLP_ENDPOINT): each request is the root span of a trace of its own. None when unset. */
  tracing?: Tracing;
  /** Watches (docs/product.md, Watches: the bot speaks first): made, listed, snoozed and ended by `/vs watch …` and buttons. */
  watches: WatchKeeper;
}

/** What Slack sent: a slash command, a button, a global shortcut, a form submitted, an Events API event, a workflow step (function_executed). */
export type RequestKind = 'command' | 'action' | 'shortcut' | 'submission' | 'event' | 'step';

/**
 * How a request ended, in the outcomes of docs/product.md (Audit), plus three that are not
 * outcomes of a change: `not_found` (the id names nothing), `opened` (a
 * form was opened), `duplicate` (a repeated submission, which did nothing),
 * `limited` (past a per-person limit: nothing was asked or recorded).
 * Written in the request's log line and counted in the metrics.
 */
export type Outcome =
  | 'succeeded'
  | 'invalid'
  | 'denied'
  | 'failed'
  | 'busy'
  | 'applied_unreadable'
  | 'not_found'
  | 'opened'
  | 'duplicate'
  | 'limited'
  | 'requested'
  | 'approved'
  | 'rejected'
  | 'withdrawn';

/** One request as every listener sees it, whatever its kind. */
export interface SlackRequest {
  kind: RequestKind;
  /** The user who sent it: the only identity trusted. Empty for a workflow step: nothing in it proves who started the workflow. */
  userId: string;
  /** Where it was sent from; null from a global shortcut or a form (a form's channel is read from the form). */
  channelId: string | null;
  /** Opens a modal; undefined when Slack gave none. */
  triggerId: string | undefined;
  responseUrl: string | undefined;
  /** Answers through the request's response_url; undefined when it has none (shortcuts, forms, steps). */
  respond: Respond | undefined;
  /** Ends a workflow step (functions.completeSuccess or completeError); undefined for every other request. */
  step: StepCompletion | undefined;
  /** Slack's Web API, authorized for this request's workspace. */
  client: WebClient;
  /** A child logger with the user, the channel and the listener table's labels. */
  log: Logger;
  /** Set by the needs check or from what the listener returns; written in the request's log line. */
  outcome: Outcome;
}
