import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// A loopback fake of the Slack Web API (pointed at with SLACK_API_URL) and of
// response_url endpoints. It records every call so tests assert on what the
// bot actually sent, and lets a test script failures per method.

export interface SlackCall {
  method: string;
  /** Form or JSON arguments as sent. */
  args: Record<string, unknown>;
  token: string | undefined;
  at: number;
}

export interface ResponsePost {
  /** The id in /response/:id. */
  id: string;
  body: Record<string, unknown>;
  at: number;
}

type MethodHandler = (args: Record<string, unknown>) => { status?: number; headers?: Record<string, string>; body: unknown } | undefined;

export interface SlackFake {
  /** Base URL of the Web API, with a trailing slash, for SLACK_API_URL. */
  apiUrl: string;
  /** A fresh response_url the bot will post to. */
  responseUrl(id?: string): string;
  calls: SlackCall[];
  responses: ResponsePost[];
  callsTo(method: string): SlackCall[];
  /** Replace the answer of one Web API method (return undefined to fall back to the default). */
  on(method: string, handler: MethodHandler): void;
  /** Sets members of a user group for usergroups.users.list. */
  setGroup(groupId: string, users: string[]): void;
  /** Makes a response_url answer with this status (e.g. 404 for an expired one). */
  failResponseUrl(status: number): void;
  /** Resolves once `count` posts reached response_urls (or rejects after timeoutMs). */
  waitForResponses(count: number, timeoutMs?: number): Promise<ResponsePost[]>;
  /** Resolves once `count` calls of `method` were made. */
  waitForCalls(method: string, count: number, timeoutMs?: number): Promise<SlackCall[]>;
  reset(): void;
  close(): Promise<void>;
}

export async function startSlackFake(): Promise<SlackFake> {
  const calls: SlackCall[] = [];
  const responses: ResponsePost[] = [];
  const handlers = new Map<string, MethodHandler>();
  const groups = new Map<string, string[]>();
  let responseUrlStatus = 200;
  let responseCounter = 0;
  const waiters = new Set<() => void>();
  const notify = () => waiters.forEach((w) => w());

  const defaults: Record<string, MethodHandler> = {
    'auth.test': () => ({ body: { ok: true, user_id: 'UBOT', bot_id: 'BBOT', team_id: 'T1', user: 'vs-chatops', team: 'Test' } }),
    'chat.postMessage': (a) => ({ body: { ok: true, channel: a.channel, ts: `${Date.now() / 1000}`, message: { text: a.text } } }),
    'chat.postEphemeral': () => ({ body: { ok: true, message_ts: `${Date.now() / 1000}` } }),
    'views.open': (a) => ({ body: { ok: true, view: { id: `V${calls.length}`, ...(parseMaybeJson(a.view) as object) } } }),
    'views.update': (a) => ({ body: { ok: true, view: { id: a.view_id, ...(parseMaybeJson(a.view) as object) } } }),
    'usergroups.users.list': (a) => {
      const users = groups.get(String(a.usergroup));
      return users ? { body: { ok: true, users } } : { body: { ok: false, error: 'no_such_subteam' } };
    },
  };

  const server: Server = createServer((req, res) => {
    void handle(req, res).catch((e) => {
      res.statusCode = 500;
      res.end(String(e));
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const raw = await readBody(req);
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname.startsWith('/response/')) {
      const body = parseMaybeJson(raw) as Record<string, unknown>;
      if (responseUrlStatus !== 200) {
        res.statusCode = responseUrlStatus;
        res.end('expired_url');
        return;
      }
      responses.push({ id: url.pathname.slice('/response/'.length), body, at: Date.now() });
      notify();
      res.setHeader('content-type', 'text/plain');
      res.end('ok');
      return;
    }
    if (url.pathname.startsWith('/api/')) {
      const method = url.pathname.slice('/api/'.length);
      const args = parseArgs(raw, req.headers['content-type']);
      const token = (req.headers.authorization ?? '').replace(/^Bearer /, '') || (args.token as string | undefined);
      calls.push({ method, args, token, at: Date.now() });
      notify();
      const answer = handlers.get(method)?.(args) ?? defaults[method]?.(args) ?? { body: { ok: true } };
      res.statusCode = answer.status ?? 200;
      for (const [k, v] of Object.entries(answer.headers ?? {})) res.setHeader(k, v);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(answer.body));
      return;
    }
    res.statusCode = 404;
    res.end();
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;

  const waitFor = <T>(check: () => T | undefined, what: string, timeoutMs: number) =>
    new Promise<T>((resolve, reject) => {
      const done = check();
      if (done !== undefined) return resolve(done);
      const timer = setTimeout(() => {
        waiters.delete(waiter);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      const waiter = () => {
        const result = check();
        if (result !== undefined) {
          clearTimeout(timer);
          waiters.delete(waiter);
          resolve(result);
        }
      };
      waiters.add(waiter);
    });

  return {
    apiUrl: `${base}/api/`,
    responseUrl: (id) => `${base}/response/${id ?? `r${++responseCounter}`}`,
    calls,
    responses,
    callsTo: (method) => calls.filter((c) => c.method === method),
    on: (method, handler) => void handlers.set(method, handler),
    setGroup: (groupId, users) => void groups.set(groupId, users),
    failResponseUrl: (status) => {
      responseUrlStatus = status;
    },
    waitForResponses: (count, timeoutMs = 5000) =>
      waitFor(() => (responses.length >= count ? responses.slice(0, count) : undefined), `${count} response_url posts (got ${responses.length})`, timeoutMs),
    waitForCalls: (method, count, timeoutMs = 5000) =>
      waitFor(() => {
        const matching = calls.filter((c) => c.method === method);
        return matching.length >= count ? matching : undefined;
      }, `${count} calls to ${method}`, timeoutMs),
    reset: () => {
      calls.length = 0;
      responses.length = 0;
      handlers.clear();
      responseUrlStatus = 200;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parseArgs(raw: string, contentType: string | undefined): Record<string, unknown> {
  if (contentType?.includes('application/json')) return parseMaybeJson(raw) as Record<string, unknown>;
  const args: Record<string, unknown> = {};
  for (const [k, v] of new URLSearchParams(raw)) args[k] = parseMaybeJson(v);
  return args;
}

function parseMaybeJson(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const t = v.trim();
  if (!(t.startsWith('{') || t.startsWith('['))) return v;
  try {
    return JSON.parse(t);
  } catch {
    return v;
  }
}
