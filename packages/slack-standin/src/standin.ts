import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EXECUTION_TOKEN_TTL_MS, type Execution } from './functions';
import type { AppManifest } from './manifest';
import type { SandboxControl } from './sandbox-control';
import { createInteractions, type ExecutionOptions, type PersonSide } from './interactions';
import { readBody, readBytes, send } from './http';
import { refusedOrigin, servePage } from './page-server';
import {
  StandInState,
  type ArrivedMessage,
  type ChannelMessage,
  type Json,
  type OpenView,
  type PanelHint,
  type ResponsePost,
  type SlackCall,
  type TimelineEntry,
} from './state';
import { createWebApi, MAX_UPLOAD_BYTES, typeOf, type WebApiAnswer } from './web-api';
import { CHANNELS, ONCALL_GROUP, PEOPLE, type Channel, type Person } from './workspace';

// The one stand-in for Slack, used by local mode, the tests and the benchmark.
// One loopback HTTP server holds Slack's two faces: the Web API the bot calls
// (/api/<method>) with the response_urls it posts to (/response/<id>), and the
// person's side (the page and its /local/ endpoints), which sends the bot
// signed requests. Everything is recorded for tests to read; faults (429,
// ok:false, slow answers) can be injected per method.

export type MethodHandler = (args: Json) => WebApiAnswer | undefined;

/** A scripted misbehaviour of one Web API method. */
/** The name `fault()` takes for posts to response_urls (they are not a Web API method). */
const RESPONSE_URL = 'response_url';

export interface Fault {
  /** HTTP status; 429 answers `ratelimited` with Retry-After. */
  status?: number;
  retryAfterSeconds?: number;
  /** Answer `{ ok: false, error }`. */
  error?: string;
  /** Answer only after this long (the right answer unless `error` or `status` says otherwise). */
  delayMs?: number;
  /** How many calls it applies to; every call when unset. */
  times?: number;
}

export interface SlackStandInOptions {
  port?: number;
  /** Loopback by default; the page is never meant for other machines. */
  host?: string;
  /** Web API calls must carry it (invalid_auth otherwise); unset: any token. */
  botToken?: string;
  /** Requests to the bot are signed with it; generated when unset. */
  signingSecret?: string;
  /** The bot's /slack/events, if known now (else connect()). */
  eventsUrl?: string;
  /** Refuse ids Slack would not know (local mode). Tests that build their own payloads use lenient mode. Default true. */
  strict?: boolean;
  /** Serve the page and its endpoints at / (local mode). */
  page?: boolean;
  /** Where /healthz, /readyz and /metrics are passed on to (the bot's own port), so PORT answers them in local mode. */
  opsUrl?: () => string | undefined;
  people?: readonly Person[];
  channels?: readonly Channel[];
  /** The control panel whose links the app unfurls: its host is the app's unfurl domain; the page names its links. */
  panel?: PanelHint;
  /** The sandbox the page's control panel acts on (local mode; setControl once it listens). */
  control?: SandboxControl;
  /** User groups and their members; the on-call group by default. */
  groups?: Record<string, string[]>;
  triggerTtlMs?: number;
  /** Keep the bodies of response_url posts (default); the benchmark keeps only arrival times. */
  keepBodies?: boolean;
  /** What the page says about this workspace's settings (local mode: which changes wait for a second person). */
  notes?: readonly string[];
  /** The app as its manifest declares it (readManifest); unset: a test's app, whose shortcuts and steps are taken as they come. */
  manifest?: AppManifest;
  now?: () => number;
}

export interface SlackStandIn extends PersonSide {
  /** The page's notes about this workspace (options.notes). */
  readonly notes: readonly string[];
  /** http://127.0.0.1:<port> */
  readonly origin: string;
  /** Base URL of the Web API, with a trailing slash, for SLACK_API_URL. */
  readonly apiUrl: string;
  readonly signingSecret: string;
  readonly state: StandInState;
  readonly calls: SlackCall[];
  readonly responses: ResponsePost[];
  /** When each response_url was first posted to (performance.now()), by id. */
  readonly arrivals: Map<string, ArrivedMessage>;
  /** Posts to a response_url already posted to. */
  readonly duplicates: number;
  /** A response_url not tied to any message (tests building their own payloads). */
  readonly responseUrl: (id?: string) => string;
  callsTo(method: string): SlackCall[];
  /** Replaces the answer of one Web API method (return undefined to fall back to the default). */
  on(method: string, handler: MethodHandler): void;
  /** Makes a Web API method, or every post to a response_url (`'response_url'`: 400 `invalid_blocks` unless said), misbehave. */
  fault(method: string, fault: Fault): void;
  setGroup(groupId: string, users: string[]): void;
  /** Sets who is in a channel (conversations.members, users.conversations), adding the channel if it is new. */
  setChannelMembers(channelId: string, members: readonly string[]): void;
  /** Makes every response_url answer with this status (e.g. 404 for an expired one). */
  failResponseUrl(status: number): void;
  waitForResponses(count: number, timeoutMs?: number): Promise<ResponsePost[]>;
  waitForCalls(method: string, count: number, timeoutMs?: number): Promise<SlackCall[]>;
  /** The first post to this response_url id, once it arrives; undefined after `timeoutMs`. */
  arrival(id: string, timeoutMs: number): Promise<ArrivedMessage | undefined>;
  /** Resolves once every id arrived, or after `timeoutMs` with how many are missing. */
  waitForArrivals(ids: Iterable<string>, timeoutMs: number): Promise<number>;
  /** Points deliveries at the bot. */
  connect(eventsUrl: string): void;
  /** Sets the control panel whose links the app unfurls (its host becomes the app's one unfurl domain). */
  setPanel(panel: PanelHint): void;
  /** Tells the stand-in the app as its manifest declares it (readManifest): its slash commands, shortcuts and workflow steps. */
  setManifest(manifest: AppManifest): void;
  /** Sets the sandbox the page's control panel acts on (its credentials stay here, never sent to the page). */
  setControl(control: SandboxControl): void;
  /** Adds an entry to the incident tool's timeline the page shows (local mode: a change event PagerDuty's stand-in received). */
  addTimelineEntry(entry: TimelineEntry): void;
  /**
   * Builds the function_executed Slack sends for one run of a step (the event_callback envelope, for a test to sign
   * and send) and remembers the execution, so that its completion is checked and recorded as Slack would.
   */
  functionExecuted(
    callbackId: string,
    inputs: Record<string, unknown>,
    options?: ExecutionOptions,
  ): { envelope: Record<string, unknown>; execution: Execution };
  /** Resolves once the execution has completed (outputs) or failed (error); rejects after `timeoutMs`. */
  waitForExecution(id: string, timeoutMs?: number): Promise<Execution>;

  // A person's side (PersonSide: command, click, submit, closeView, shortcut, openHome), and what that person sees.
  /** Messages of a channel as `user` sees them. */
  messagesIn(channel: string, user?: string): ChannelMessage[];
  /** The view on top of `user`'s modal stack. */
  viewOf(user: string): OpenView | undefined;

  /** Forgets recorded calls, posts, scripted answers and faults. */
  reset(): void;
  close(): Promise<void>;
}

export async function startSlackStandIn(options: SlackStandInOptions = {}): Promise<SlackStandIn> {
  const strict = options.strict ?? true;
  const now = options.now ?? (() => Date.now());
  const signingSecret = options.signingSecret ?? randomBytes(24).toString('hex');
  const state = new StandInState(options.people ?? PEOPLE, options.channels ?? CHANNELS, now, options.keepBodies ?? true);
  for (const [id, users] of Object.entries(options.groups ?? { [ONCALL_GROUP.id]: [...ONCALL_GROUP.members] })) state.groups.set(id, users);
  state.groupHandles.set(ONCALL_GROUP.id, ONCALL_GROUP.handle);
  const setPanel = (panel: PanelHint) => {
    state.panel = { url: panel.url, servers: [...panel.servers] };
    state.unfurlDomains = [new URL(panel.url).hostname];
  };
  if (options.panel) setPanel(options.panel);
  if (options.manifest) state.manifest = structuredClone(options.manifest);
  if (options.control) state.control = options.control;
  let eventsUrl = options.eventsUrl;
  let origin = '';
  const handlers = new Map<string, MethodHandler>();
  const faults = new Map<string, Fault>();
  let responseUrlStatus = 200;
  let minted = 0;

  const webApi = createWebApi(state, { strict, triggerTtlMs: options.triggerTtlMs ?? 3000, origin: () => origin });
  const interactions = createInteractions(state, {
    strict,
    signingSecret,
    origin: () => origin,
    eventsUrl: () => eventsUrl,
    ackTimeoutMs: 3000,
    responseUrlUses: 5,
    responseUrlTtlMs: 30 * 60_000,
  });

  async function answerWebApi(method: string, args: Json, token: string | undefined): Promise<WebApiAnswer> {
    const call: SlackCall = { method, args, token, at: now() };
    state.recordCall(call);
    const fault = faults.get(method);
    if (fault) {
      if (fault.times !== undefined && --fault.times <= 0) faults.delete(method);
      if (fault.delayMs) await new Promise((r) => setTimeout(r, fault.delayMs));
    }
    const answer = ((): WebApiAnswer => {
      // A token issued for one execution of a step works until the step completes, and 15 minutes at most.
      const execution = state.executionOfToken(token);
      if (execution) {
        if (execution.state !== 'running') return { body: { ok: false, error: 'token_revoked' } };
        if (now() - execution.startedAt > EXECUTION_TOKEN_TTL_MS) return { body: { ok: false, error: 'token_expired' } };
      } else if (options.botToken !== undefined && token !== options.botToken) return { body: { ok: false, error: token ? 'invalid_auth' : 'not_authed' } };
      if (fault?.status === 429)
        return { status: 429, headers: { 'retry-after': String(fault.retryAfterSeconds ?? 30) }, body: { ok: false, error: 'ratelimited' } };
      if (fault?.status) return { status: fault.status, body: { ok: false, error: fault.error ?? 'fatal_error' } };
      if (fault?.error) return { body: { ok: false, error: fault.error } };
      return handlers.get(method)?.(args) ?? webApi(method, args);
    })();
    call.ok = answer.body.ok === true;
    if (typeof answer.body.error === 'string') call.error = answer.body.error;
    return answer;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    if (options.page) {
      const refusal = refusedOrigin(req, origin);
      if (refusal) return send(res, 403, 'text/plain', refusal);
    }
    if (url.pathname.startsWith('/api/')) {
      const raw = await readBody(req);
      const args = parseArgs(raw, req.headers['content-type'], url.searchParams);
      const token = (req.headers.authorization ?? '').replace(/^Bearer\s*/, '') || (typeof args.token === 'string' ? args.token : undefined);
      const answer = await answerWebApi(url.pathname.slice('/api/'.length), args, token);
      res.writeHead(answer.status ?? 200, { 'content-type': 'application/json; charset=utf-8', ...answer.headers });
      res.end(JSON.stringify(answer.body));
      return;
    }
    // A file's bytes, posted to the URL files.getUploadURLExternal gave (as raw bytes, or the one file of a multipart form).
    if (url.pathname.startsWith('/upload/v1/') && req.method === 'POST') {
      const key = url.pathname.slice('/upload/v1/'.length);
      const file = [...state.files.values()].find((f) => f.uploadKey === key && f.bytes === undefined);
      if (!file) return send(res, 404, 'text/plain', 'upload url not found');
      const raw = await readBytes(req, MAX_UPLOAD_BYTES);
      file.bytes = fileInForm(raw, req.headers['content-type']) ?? raw;
      return send(res, 200, 'text/plain', `OK - ${file.bytes.length}`);
    }
    // A shared file's download, as its message links it.
    if (url.pathname.startsWith('/files/') && req.method === 'GET') {
      const [id = ''] = url.pathname.slice('/files/'.length).split('/');
      const file = state.files.get(id);
      if (!file?.bytes || file.sharedIn.length === 0) return send(res, 404, 'text/plain', 'file not found');
      res.writeHead(200, {
        'content-type': `${typeOf(file.filename).mimetype}; charset=utf-8`,
        'content-length': String(file.bytes.length),
        'content-disposition': `attachment; filename="${file.filename.replace(/["\\\r\n]/g, '_')}"`,
        'x-content-type-options': 'nosniff',
        'cache-control': 'no-store',
      });
      res.end(file.bytes);
      return;
    }
    if (url.pathname.startsWith('/response/') && req.method === 'POST') {
      const raw = await readBody(req);
      if (responseUrlStatus !== 200) return send(res, responseUrlStatus, 'text/plain', 'expired_url');
      // fault('response_url', …): Slack refusing a post as it does, with a status and a word (400 invalid_blocks by default).
      const fault = faults.get(RESPONSE_URL);
      if (fault) {
        if (fault.times !== undefined && --fault.times <= 0) faults.delete(RESPONSE_URL);
        const error = fault.error ?? 'invalid_blocks';
        state.refuse({ source: RESPONSE_URL, error, messages: [] });
        return send(res, fault.status ?? 400, 'text/plain', error);
      }
      let body: Json;
      try {
        body = JSON.parse(raw) as Json;
      } catch {
        return send(res, 400, 'text/plain', 'invalid_payload');
      }
      const answer = interactions.respond(url.pathname.slice('/response/'.length), body);
      return send(res, answer.status, 'text/plain', answer.text);
    }
    if (options.page && (await servePage(req, res, url, standIn, options.opsUrl))) return;
    send(res, 404, 'text/plain', 'not found');
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) send(res, 500, 'text/plain', error instanceof Error ? error.message : String(error));
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const standIn: SlackStandIn = {
    origin,
    apiUrl: `${origin}/api/`,
    signingSecret,
    notes: options.notes ?? [],
    state,
    calls: state.calls,
    responses: state.responses,
    arrivals: state.arrivals,
    get duplicates() {
      return state.duplicates;
    },
    responseUrl: (id) => `${origin}/response/${id ?? `r${++minted}`}`,
    callsTo: (method) => state.calls.filter((c) => c.method === method),
    on: (method, handler) => void handlers.set(method, handler),
    fault: (method, fault) => void faults.set(method, { ...fault }),
    setGroup: (groupId, users) => void state.groups.set(groupId, users),
    setChannelMembers: (channelId, members) => state.setMembers(channelId, members),
    failResponseUrl: (status) => {
      responseUrlStatus = status;
    },
    waitForResponses: (count, timeoutMs = 5000) =>
      state.waitFor(
        () => (state.responses.length >= count ? state.responses.slice(0, count) : undefined),
        () => `${count} response_url posts (got ${state.responses.length})`,
        timeoutMs,
      ),
    waitForCalls: (method, count, timeoutMs = 5000) =>
      state.waitFor(
        () => {
          const matching = state.calls.filter((c) => c.method === method);
          return matching.length >= count ? matching : undefined;
        },
        () => `${count} calls to ${method}`,
        timeoutMs,
      ),
    arrival: (id, timeoutMs) =>
      state
        .waitFor(
          () => state.arrivals.get(id),
          () => `response_url ${id}`,
          timeoutMs,
        )
        .catch(() => undefined),
    waitForArrivals(ids, timeoutMs) {
      const wanted = [...ids];
      const missing = () => wanted.reduce((n, id) => (state.arrivals.has(id) ? n : n + 1), 0);
      return new Promise<number>((resolve) => {
        if (missing() === 0) return resolve(0);
        const finish = () => {
          clearTimeout(timer);
          clearInterval(poll);
          resolve(missing());
        };
        const timer = setTimeout(finish, timeoutMs);
        // Checked a few times a second rather than on every arrival: cheap under load.
        const poll = setInterval(() => missing() === 0 && finish(), 50);
      });
    },
    connect(url) {
      eventsUrl = url;
    },
    setPanel,
    setManifest(manifest) {
      state.manifest = structuredClone(manifest);
    },
    setControl(control) {
      state.control = control;
    },
    addTimelineEntry: (entry) => state.addTimelineEntry(entry),
    functionExecuted: (callbackId, inputs, executionOptions) => interactions.functionExecuted(callbackId, inputs, executionOptions),
    waitForExecution: (id, timeoutMs = 5000) =>
      state.waitFor(
        () => {
          const execution = state.executions.get(id);
          return execution && execution.state !== 'running' ? execution : undefined;
        },
        () => `execution ${id} to complete`,
        timeoutMs,
      ),
    runStep: (user, callbackId, entered) => interactions.runStep(user, callbackId, entered),
    command: (user, channel, text, name) => interactions.command(user, channel, text, name),
    async click(user, target, actionId, blockId) {
      if ('viewId' in target) {
        // A modal, or a Home tab (only its owner sees it, so only its owner clicks in it).
        const home = state.homeView(target.viewId);
        const view = state.views.get(target.viewId) ?? (home && (!strict || home.user === user) ? home : undefined);
        return view ? interactions.clickInView(user, view, actionId, blockId) : { error: 'no such view' };
      }
      const message = state.visibleIn(target.channel, user).find((m) => m.ts === target.ts);
      return message ? interactions.clickInMessage(user, message, actionId, blockId) : { error: 'no such message' };
    },
    submit: (user, viewId, values) => interactions.submit(user, viewId, values),
    async closeView(user, viewId) {
      await interactions.closeView(user, viewId);
    },
    shortcut: (user, callbackId, channel) => interactions.shortcut(user, callbackId, channel),
    openHome: (user) => interactions.openHome(user),
    post: (user, channel, text) => interactions.post(user, channel, text),
    messagesIn: (channel, user) => state.visibleIn(channel, user),
    viewOf(user) {
      const stack = state.stacks.get(user) ?? [];
      return state.views.get(stack[stack.length - 1] ?? '');
    },
    reset() {
      state.calls.length = 0;
      state.responses.length = 0;
      state.arrivals.clear();
      state.duplicates = 0;
      state.refusals.length = 0;
      state.deliveries.length = 0;
      handlers.clear();
      faults.clear();
      responseUrlStatus = 200;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return standIn;
}

/** Web API arguments: JSON, or a form whose JSON-looking values (blocks, view) are parsed as Slack does. */
function parseArgs(raw: string, contentType: string | undefined, query: URLSearchParams): Json {
  if (contentType?.includes('application/json')) {
    try {
      const parsed: unknown = JSON.parse(raw);
      return typeof parsed === 'object' && parsed !== null ? (parsed as Json) : {};
    } catch {
      return {};
    }
  }
  const args: Json = {};
  for (const [k, v] of query) args[k] = parseMaybeJson(v);
  for (const [k, v] of new URLSearchParams(raw)) args[k] = parseMaybeJson(v);
  return args;
}

function parseMaybeJson(v: string): unknown {
  const t = v.trim();
  if (!(t.startsWith('{') || t.startsWith('['))) return v;
  try {
    return JSON.parse(t);
  } catch {
    return v;
  }
}

/** The one file of a multipart form (what Slack's SDKs post to an upload URL); null when the body is not one. */
function fileInForm(body: Buffer, contentType: string | undefined): Buffer | null {
  const boundary = /multipart\/form-data;.*boundary="?([^";]+)"?/i.exec(contentType ?? '')?.[1];
  if (!boundary) return null;
  const start = body.indexOf(`--${boundary}`);
  const headersEnd = start < 0 ? -1 : body.indexOf('\r\n\r\n', start);
  const end = headersEnd < 0 ? -1 : body.indexOf(`\r\n--${boundary}`, headersEnd);
  return end < 0 ? null : body.subarray(headersEnd + 4, end);
}
