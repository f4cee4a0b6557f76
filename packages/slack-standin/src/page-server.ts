import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { request } from 'undici';
import { readBody, send } from './http';
import { shown } from './functions';
import { controlAct, controlServers } from './sandbox-control';
import type { PersonSide } from './interactions';
import type { StandInEvent, StandInState } from './state';
import { BOT_USER } from './workspace';

// The person's side of the stand-in: the page (static files, no build step),
// its state and event stream (server-sent events), and the endpoints its
// buttons call. Loopback only, and only for pages served from here: a request
// naming another host or coming from another origin is refused (no CORS).

/** What the page needs of the stand-in: what it holds, and a person's side of it. */
export interface PageStandIn extends PersonSide {
  readonly state: StandInState;
  /** What the page says about the workspace's settings. */
  readonly notes: readonly string[];
}

const STATIC: Record<string, string> = {
  '/': 'index.html',
  '/page/app.js': 'app.js',
  '/page/blocks.js': 'blocks.js',
  '/page/style.css': 'style.css',
};
const TYPES: Record<string, string> = { html: 'text/html', js: 'text/javascript', css: 'text/css' };

/** The page's files sit beside src/ in this package, and in its built copy (the bot's dist/node_modules). */
const PAGE_DIR = join(__dirname, '..', 'page');

const files = new Map<string, string>();
function pageFile(name: string): string {
  let text = files.get(name);
  if (text === undefined) {
    text = readFileSync(join(PAGE_DIR, name), 'utf8');
    files.set(name, text);
  }
  return text;
}

/** Why a request must be refused (another host or origin), or null. */
export function refusedOrigin(req: IncomingMessage, origin: string): string | null {
  const port = new URL(origin).port;
  const hosts = [`127.0.0.1:${port}`, `localhost:${port}`];
  if (!hosts.includes(req.headers.host ?? '')) return 'refused: this page answers only http://127.0.0.1:' + port;
  const from = req.headers.origin;
  if (from !== undefined && !hosts.some((h) => from === `http://${h}`)) return 'refused: requests from other origins are not accepted';
  if (req.headers['sec-fetch-site'] === 'cross-site') return 'refused: cross-site request';
  return null;
}

const SECURITY_HEADERS = {
  'content-security-policy': [
    "default-src 'self'",
    "img-src 'self' data:",
    "style-src 'self'",
    "script-src 'self'",
    "connect-src 'self'",
    "frame-ancestors 'none'",
    "form-action 'none'",
    "base-uri 'none'",
  ].join('; '),
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

/** Serves the page and its endpoints; false when the path is not one of them. */
export async function servePage(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  standIn: PageStandIn,
  opsUrl?: () => string | undefined,
): Promise<boolean> {
  const path = url.pathname;
  const name = STATIC[path];
  if (req.method === 'GET' && name) {
    const body = pageFile(name);
    res.writeHead(200, {
      'content-type': `${TYPES[name.split('.').pop()!]}; charset=utf-8`,
      'content-length': String(Buffer.byteLength(body)),
      ...SECURITY_HEADERS,
    });
    res.end(body);
    return true;
  }
  if (req.method === 'GET' && ['/healthz', '/readyz', '/metrics'].includes(path)) {
    const target = opsUrl?.();
    if (!target) {
      send(res, 503, 'application/json', JSON.stringify({ status: 'starting' }));
      return true;
    }
    const answer = await request(target + path);
    const body = await answer.body.text();
    res.writeHead(answer.statusCode, { 'content-type': String(answer.headers['content-type'] ?? 'text/plain') });
    res.end(body);
    return true;
  }
  if (path === '/mcp') {
    // Local mode's MCP endpoint (the bot's /mcp) on the page's own address, where the page tells agents to connect.
    const target = opsUrl?.();
    if (!target) {
      send(res, 503, 'text/plain', 'starting');
      return true;
    }
    await passMcp(req, res, target + path + url.search);
    return true;
  }
  if (path.startsWith('/sandbox-control/')) {
    // The page's control panel (sandbox-control.ts): passed on to the sandbox with the credentials added here.
    const body = await jsonPost(req, res, 16 * 1024);
    if (!body) return true;
    const answer = await controlAct(standIn.state.control, path.slice('/sandbox-control/'.length), body?.server);
    sendJson(res, answer.status, answer.body);
    return true;
  }
  if (req.method === 'GET' && path === '/local/state') {
    sendJson(res, 200, snapshot(standIn));
    return true;
  }
  if (req.method === 'GET' && path === '/local/events') {
    streamEvents(req, res, standIn);
    return true;
  }
  if (!path.startsWith('/local/')) return false;
  const body = await jsonPost(req, res, 256 * 1024);
  if (!body) return true;
  const user = typeof body.user === 'string' ? body.user : '';
  if (!standIn.state.person(user)) {
    sendJson(res, 400, { ok: false, error: 'user_not_found' });
    return true;
  }
  const channel = typeof body.channel === 'string' ? body.channel : undefined;
  if (channel !== undefined && !standIn.state.channel(channel)) {
    sendJson(res, 400, { ok: false, error: 'channel_not_found' });
    return true;
  }
  const str = (k: string) => (typeof body[k] === 'string' ? body[k] : '');
  switch (path) {
    case '/local/command': {
      if (!channel) return badRequest(res, 'channel is required');
      // Typed with or without its command; one the app's manifest does not declare is refused, as Slack refuses it.
      const typed = str('text').trim();
      const named = /^\/\S+/.exec(typed)?.[0];
      const commands = appCommands(standIn.state);
      const command = named ?? commands[0];
      if (!command || !commands.includes(command)) {
        sendJson(res, 200, { ok: false, error: `${named ?? 'a command'} is not a valid command` });
        return true;
      }
      const text = named ? typed.slice(named.length).trim() : typed;
      const { ack } = await standIn.command(user, channel, text.slice(0, 4000), command);
      sendJson(res, 200, { ok: !ack.error, ...(ack.error ? { error: ack.error } : {}) });
      return true;
    }
    case '/local/message': {
      if (!channel) return badRequest(res, 'channel is required');
      const text = str('text').trim().slice(0, 4000);
      if (text === '') return badRequest(res, 'text is required');
      const { ack } = await standIn.post(user, channel, text);
      sendJson(res, 200, { ok: !ack?.error, ...(ack?.error ? { error: ack.error } : {}) });
      return true;
    }
    case '/local/action': {
      const target = str('viewId') ? { viewId: str('viewId') } : channel ? { channel, ts: str('ts') } : undefined;
      if (!target) return badRequest(res, 'channel and ts, or viewId, are required');
      const result = await standIn.click(user, target, str('actionId'), str('blockId') || undefined);
      sendJson(res, 200, {
        ok: !result.error && !result.ack?.error,
        ...(result.error || result.ack?.error ? { error: result.error ?? result.ack?.error } : {}),
      });
      return true;
    }
    case '/local/submit': {
      const values = typeof body.values === 'object' && body.values !== null ? (body.values as Record<string, string | string[] | null>) : {};
      const outcome = await standIn.submit(user, str('viewId'), values);
      sendJson(res, 200, { ok: outcome.outcome !== 'failed', ...outcome, ack: undefined });
      return true;
    }
    case '/local/close':
      await standIn.closeView(user, str('viewId'));
      sendJson(res, 200, { ok: true });
      return true;
    case '/local/shortcut': {
      const ack = await standIn.shortcut(user, str('callbackId'), channel);
      sendJson(res, 200, { ok: !ack.error, ...(ack.error ? { error: ack.error } : {}) });
      return true;
    }
    case '/local/step': {
      // A workflow step run from the Workflows panel: its inputs as typed there, checked as Workflow Builder checks them.
      const entered = typeof body.inputs === 'object' && body.inputs !== null && !Array.isArray(body.inputs) ? (body.inputs as Record<string, unknown>) : {};
      const run = await standIn.runStep(user, str('callbackId'), entered);
      if ('problems' in run) sendJson(res, 200, { ok: false, problems: run.problems });
      else if ('error' in run) sendJson(res, 200, { ok: false, error: run.error });
      else sendJson(res, 200, { ok: !run.ack.error, execution: run.execution, ...(run.ack.error ? { error: run.ack.error } : {}) });
      return true;
    }
    case '/local/home': {
      const ack = await standIn.openHome(user);
      sendJson(res, 200, { ok: !ack.error, home: standIn.state.homes.get(user) ?? null });
      return true;
    }
    default:
      send(res, 404, 'text/plain', 'not found');
      return true;
  }
}

function badRequest(res: ServerResponse, message: string): true {
  sendJson(res, 400, { ok: false, error: message });
  return true;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  send(res, status, 'application/json', JSON.stringify(body));
}

/** The app's slash commands as its manifest declares them; a test's app, told no manifest, has `/vs`. */
function appCommands(s: StandInState): string[] {
  return s.manifest ? s.manifest.slashCommands.map((c) => c.command) : ['/vs'];
}

/** Everything the page shows, for its first paint. */
export function snapshot(standIn: PageStandIn) {
  const s = standIn.state;
  return {
    bot: BOT_USER,
    people: s.people,
    channels: s.channels,
    /** The user groups' @handles by id, for mentions (`<!subteam^S…>`). */
    groups: Object.fromEntries(s.groupHandles),
    messages: s.messages,
    views: [...s.views.values()],
    homes: Object.fromEntries(s.homes),
    refusals: s.refusals.slice(-50),
    notes: standIn.notes,
    /** The control panel whose server links unfurl, for the hint under the message box; null when none. */
    panel: s.panel ?? null,
    /** The servers the page's control panel (sandbox) can act on, by label; null when there is no sandbox to act on. */
    control: controlServers(s.control),
    /** The app's global shortcuts (the shortcut menu), as its manifest declares them. */
    shortcuts: (s.manifest?.shortcuts ?? []).filter((c) => c.type === 'global').map(({ callbackId, name, description }) => ({ callbackId, name, description })),
    /** The app's workflow steps (the Workflows panel's choices) and their runs, newest last, never their tokens. */
    functions: s.manifest?.functions ?? {},
    executions: [...s.executions.values()].slice(-50).map(shown),
    /** The incident tool's timeline (local mode: change events the PagerDuty stand-in received), newest last. */
    timeline: s.timeline.slice(-100),
  };
}

function streamEvents(req: IncomingMessage, res: ServerResponse, standIn: PageStandIn): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
    'x-content-type-options': 'nosniff',
  });
  res.write(': connected\n\n');
  const unsubscribe = standIn.state.subscribe((e: StandInEvent) => {
    res.write(`event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
  });
  const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), 15_000);
  heartbeat.unref();
  req.on('close', () => {
    clearInterval(heartbeat);
    unsubscribe();
  });
}

/** Request headers an MCP client sends that the bot reads; hop-by-hop ones are not passed. */
const MCP_REQUEST_HEADERS = ['authorization', 'content-type', 'accept', 'origin', 'mcp-protocol-version', 'mcp-session-id', 'last-event-id'];
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade']);

/** An MCP call passed through to the bot as it came, its answer (JSON or an event stream) passed back as it goes. */
async function passMcp(req: IncomingMessage, res: ServerResponse, target: string): Promise<void> {
  const headers: Record<string, string> = {};
  for (const name of MCP_REQUEST_HEADERS) {
    const value = req.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  const method = req.method ?? 'GET';
  const answer = await request(target, { method: method as 'GET', headers, ...(method === 'GET' || method === 'HEAD' ? {} : { body: req }) });
  const passed: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(answer.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) passed[name] = value;
  res.writeHead(answer.statusCode, passed);
  for await (const chunk of answer.body) res.write(chunk);
  res.end();
}

/**
 * The JSON object a page's POST carries, or null once it was answered why not (405 for another method, 415 for another
 * type, 400 for a body that is not a JSON object). JSON only: an HTML form elsewhere cannot post here without a
 * preflight it would not pass.
 */
async function jsonPost(req: IncomingMessage, res: ServerResponse, maxBytes: number): Promise<Record<string, unknown> | null> {
  if (req.method !== 'POST') {
    send(res, 405, 'text/plain', 'method not allowed');
    return null;
  }
  if (!String(req.headers['content-type'] ?? '').startsWith('application/json')) {
    send(res, 415, 'text/plain', 'send application/json');
    return null;
  }
  try {
    const body: unknown = JSON.parse(await readBody(req, maxBytes));
    if (body !== null && typeof body === 'object' && !Array.isArray(body)) return body as Record<string, unknown>;
  } catch {
    // answered below
  }
  sendJson(res, 400, { ok: false, error: 'the body is not a JSON object' });
  return null;
}
