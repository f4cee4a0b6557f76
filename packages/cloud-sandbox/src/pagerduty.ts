import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// A stand-in for the two PagerDuty APIs the bot uses (the repository's docs/product.md, On call): its REST API's
// people and on-call entries (`GET /users?query=`, `GET /oncalls`, paged with limit/offset/more, a read-only key in
// `Authorization: Token token=…`) and its Events API's change events (`POST /v2/change/enqueue`: 202, or 400 for an
// invalid event). One loopback server holds both, so a bot points VS_PAGERDUTY_API_URL and VS_PAGERDUTY_EVENTS_URL at
// the same origin. Local mode, the tests and the benchmark use it; it pages nobody and keeps what it received in memory.

/** The stand-in's own schedule and escalation policy, which local mode's settings name. */
export const PAGERDUTY_STANDIN = {
  scheduleId: 'PSTANDIN1',
  scheduleName: 'Infrastructure primary',
  escalationPolicyId: 'PSTANDINEP',
  escalationPolicyName: 'Infrastructure',
} as const;

export interface PagerDutyUser {
  /** PagerDuty's id (`P…`). */
  id: string;
  name: string;
  email: string;
}

/** One on-call entry: who, through which schedule (null: the policy names them directly) at which level, since and until when (null: permanent). */
export interface PagerDutyOnCall {
  userId: string;
  schedule: { id: string; summary: string } | null;
  escalationPolicy: { id: string; summary: string };
  level: number;
  start: string | null;
  end: string | null;
}

/** A change event as it arrived: its body, parsed, and when (the stand-in's clock, ISO 8601). */
export interface ReceivedChangeEvent {
  receivedAt: string;
  body: Record<string, unknown>;
}

export interface PagerDutyRequest {
  method: string;
  path: string;
  query: string;
  /** What the answer was (after any scripted failure); 0 while it is not answered yet. */
  status: number;
}

export interface PagerDutyStandInOptions {
  port?: number;
  /** The REST API's key; unset: any key is taken (but one must be sent). */
  token?: string;
  /** The routing key change events must carry; unset: any 32-character key. */
  routingKey?: string;
  users?: readonly PagerDutyUser[];
  /** Who is on call, or a function of the clock (a rotation). */
  oncalls?: readonly PagerDutyOnCall[] | ((now: Date) => readonly PagerDutyOnCall[]);
  /** Every answer waits this long first. */
  delayMs?: number;
  now?: () => Date;
  /** Hears of each change event accepted (local mode shows them on its page). */
  onEvent?: (event: ReceivedChangeEvent) => void;
}

export interface PagerDutyStandIn {
  /** http://127.0.0.1:<port>: the REST API's and the Events API's base URL alike. */
  readonly url: string;
  readonly requests: PagerDutyRequest[];
  /** The change events accepted (202), oldest first. */
  readonly events: ReceivedChangeEvent[];
  setUsers(users: readonly PagerDutyUser[]): void;
  setOnCall(oncalls: readonly PagerDutyOnCall[] | ((now: Date) => readonly PagerDutyOnCall[])): void;
  setDelay(ms: number): void;
  /** The REST API answers this status to every request (0: answers again). */
  failRest(status: number): void;
  /** The next change events get these statuses, in order (429, 500, 400…); after them, 202 again. */
  answerEvents(...statuses: number[]): void;
  /** Forgets requests, events and scripted answers; the users and on-call entries given at start come back. */
  reset(): void;
  close(): Promise<void>;
}

const DEFAULT_LIMIT = 25;
const MAX_LIMIT = 100;
const MAX_EVENT_BYTES = 512 * 1024;

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** A page of `items` as PagerDuty's classic pagination answers it. */
function paged<T>(items: readonly T[], query: URLSearchParams, key: string): Record<string, unknown> {
  const limit = Math.min(MAX_LIMIT, Math.max(1, Number(query.get('limit') ?? DEFAULT_LIMIT) || DEFAULT_LIMIT));
  const offset = Math.max(0, Number(query.get('offset') ?? 0) || 0);
  const page = items.slice(offset, offset + limit);
  return { [key]: page, limit, offset, more: offset + limit < items.length, total: query.get('total') === 'true' ? items.length : null };
}

/** `name[]=a&name[]=b` (or `name=a,b`). */
function listParam(query: URLSearchParams, name: string): string[] {
  return [...query.getAll(`${name}[]`), ...query.getAll(name).flatMap((v) => v.split(','))].filter((v) => v !== '');
}

/** Whether an entry is on call at some moment of [since, until] (null ends: permanent). */
function overlaps(entry: PagerDutyOnCall, sinceMs: number, untilMs: number): boolean {
  const start = entry.start === null ? -Infinity : Date.parse(entry.start);
  const end = entry.end === null ? Infinity : Date.parse(entry.end);
  return start <= untilMs && end > sinceMs;
}

/** Problems of a change event's body, as the Events API v2 reports them (400). */
function eventProblems(body: unknown, routingKey: string | undefined): string[] {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return ['Event object is invalid'];
  const event = body as Record<string, unknown>;
  const problems: string[] = [];
  const key = event.routing_key;
  if (typeof key !== 'string' || key.length !== 32) problems.push("'routing_key' is invalid");
  else if (routingKey !== undefined && key !== routingKey) problems.push("'routing_key' is not an integration key of any service");
  const payload = event.payload;
  if (payload === null || typeof payload !== 'object') return [...problems, "'payload' is missing or invalid"];
  const p = payload as Record<string, unknown>;
  if (typeof p.summary !== 'string' || p.summary === '') problems.push("'payload.summary' is missing");
  else if (p.summary.length > 1024) problems.push("'payload.summary' must be at most 1024 characters");
  if (p.timestamp !== undefined && (typeof p.timestamp !== 'string' || !Number.isFinite(Date.parse(p.timestamp))))
    problems.push("'payload.timestamp' is invalid");
  if (p.custom_details !== undefined && (p.custom_details === null || typeof p.custom_details !== 'object'))
    problems.push("'payload.custom_details' is invalid");
  if (event.links !== undefined && !Array.isArray(event.links)) problems.push("'links' must be a list");
  return problems;
}

function readBody(req: IncomingMessage, max: number): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= max) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > max ? null : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export async function startPagerDutyStandIn(options: PagerDutyStandInOptions = {}): Promise<PagerDutyStandIn> {
  const now = options.now ?? (() => new Date());
  const expectedToken = options.token === undefined ? undefined : digest(options.token);
  let users: readonly PagerDutyUser[] = options.users ?? [];
  let oncalls = options.oncalls ?? [];
  let delayMs = options.delayMs ?? 0;
  let restFailure = 0;
  let eventAnswers: number[] = [];
  const requests: PagerDutyRequest[] = [];
  const events: ReceivedChangeEvent[] = [];

  const userById = (id: string) => users.find((u) => u.id === id);
  const entriesNow = () => (typeof oncalls === 'function' ? oncalls(now()) : oncalls);

  function rest(req: IncomingMessage, url: URL): { status: number; body: unknown } {
    const match = /^Token token=(.+)$/.exec(req.headers.authorization ?? '');
    if (!match?.[1] || (expectedToken && !timingSafeEqual(digest(match[1]), expectedToken)))
      return { status: 401, body: { error: { message: 'Unauthorized', code: 2006 } } };
    if (restFailure > 0) return { status: restFailure, body: { error: { message: 'The stand-in was told to fail', code: 2001 } } };
    const query = url.searchParams;
    if (url.pathname === '/users') {
      const q = (query.get('query') ?? '').toLowerCase();
      const found = users.filter((u) => q === '' || u.email.toLowerCase().includes(q) || u.name.toLowerCase().includes(q));
      return {
        status: 200,
        body: paged(
          found.map((u) => ({ id: u.id, type: 'user', name: u.name, email: u.email, summary: u.name })),
          query,
          'users',
        ),
      };
    }
    if (url.pathname === '/oncalls') {
      const schedules = listParam(query, 'schedule_ids');
      const policies = listParam(query, 'escalation_policy_ids');
      const people = listParam(query, 'user_ids');
      const since = query.has('since') ? Date.parse(query.get('since')!) : now().getTime();
      const until = query.has('until') ? Date.parse(query.get('until')!) : since;
      if (!Number.isFinite(since) || !Number.isFinite(until)) return { status: 400, body: { error: { message: 'Invalid Input Provided', code: 2001 } } };
      const found = entriesNow().filter(
        (e) =>
          (schedules.length === 0 || (e.schedule !== null && schedules.includes(e.schedule.id))) &&
          (policies.length === 0 || policies.includes(e.escalationPolicy.id)) &&
          (people.length === 0 || people.includes(e.userId)) &&
          overlaps(e, since, until),
      );
      const shown = found.map((e) => ({
        user: { id: e.userId, type: 'user_reference', summary: userById(e.userId)?.name ?? e.userId },
        schedule: e.schedule === null ? null : { id: e.schedule.id, type: 'schedule_reference', summary: e.schedule.summary },
        escalation_policy: { id: e.escalationPolicy.id, type: 'escalation_policy_reference', summary: e.escalationPolicy.summary },
        escalation_level: e.level,
        start: e.start,
        end: e.end,
      }));
      return { status: 200, body: paged(shown, query, 'oncalls') };
    }
    return { status: 404, body: { error: { message: 'Not Found', code: 2100 } } };
  }

  async function enqueue(req: IncomingMessage): Promise<{ status: number; body: unknown }> {
    const text = await readBody(req, MAX_EVENT_BYTES);
    if (text === null) return { status: 413, body: { status: 'invalid event', message: 'Request too large' } };
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return { status: 400, body: { status: 'invalid event', message: 'Event object is invalid', errors: ['Malformed JSON'] } };
    }
    const scripted = eventAnswers.shift();
    if (scripted !== undefined && scripted !== 202)
      return { status: scripted, body: { status: 'error', message: `the stand-in was told to answer ${scripted}` } };
    const problems = eventProblems(parsed, options.routingKey);
    if (problems.length > 0) return { status: 400, body: { status: 'invalid event', message: 'Event object is invalid', errors: problems } };
    const received = { receivedAt: now().toISOString(), body: parsed as Record<string, unknown> };
    events.push(received);
    options.onEvent?.(received);
    return { status: 202, body: { status: 'success', message: 'Change event processed' } };
  }

  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://stand-in');
      // Logged as it arrives (its status once answered): a caller that gave up waiting was still heard.
      const logged: PagerDutyRequest = { method: req.method ?? '', path: url.pathname, query: url.search, status: 0 };
      requests.push(logged);
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      let answer: { status: number; body: unknown };
      if (req.method === 'POST' && url.pathname === '/v2/change/enqueue') answer = await enqueue(req);
      else if (req.method === 'GET') answer = rest(req, url);
      else answer = { status: 405, body: { error: { message: 'Method Not Allowed' } } };
      logged.status = answer.status;
      if (!res.destroyed) send(res, answer.status, answer.body);
    })().catch((error: unknown) => {
      if (!res.headersSent) send(res, 500, { error: { message: String(error) } });
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    events,
    setUsers: (next) => void (users = next),
    setOnCall: (next) => void (oncalls = next),
    setDelay: (ms) => void (delayMs = ms),
    failRest: (status) => void (restFailure = status),
    answerEvents: (...statuses) => void eventAnswers.push(...statuses),
    reset() {
      requests.length = 0;
      events.length = 0;
      eventAnswers = [];
      restFailure = 0;
      delayMs = options.delayMs ?? 0;
      users = options.users ?? [];
      oncalls = options.oncalls ?? [];
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Local mode's rota: `person` on call in the stand-in's schedule (level 1) for the whole of today (UTC), every day, so
 * that someone is on call whenever the page is opened.
 */
export function dailyShift(userId: string): (now: Date) => PagerDutyOnCall[] {
  return (now) => {
    const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
    const end = new Date(start.getTime() + 24 * 60 * 60 * 1000);
    return [
      {
        userId,
        schedule: { id: PAGERDUTY_STANDIN.scheduleId, summary: PAGERDUTY_STANDIN.scheduleName },
        escalationPolicy: { id: PAGERDUTY_STANDIN.escalationPolicyId, summary: PAGERDUTY_STANDIN.escalationPolicyName },
        level: 1,
        start: start.toISOString(),
        end: end.toISOString(),
      },
    ];
  };
}
