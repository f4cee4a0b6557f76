import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseBody } from './body';
import { validateDiskParams } from './disk-params';
import { SANDBOX_ACCOUNT_ID, SANDBOX_API_KEY, SANDBOX_HEADER } from './identity';
import { isoTimestamp } from './random';
import * as render from './render';
import { defaultSeed } from './seed';
import { SandboxState } from './state';
import type { Sandbox, SandboxOptions, SandboxRequest, WireFormat } from './types';

// The cloud API simulator on node:http: Basic auth, JSON or XML chosen by the
// path suffix (or Accept), the four operations of docs/cloud-api.md and their
// 404/422/403 answers. Everything a request changes lives in SandboxState.

/** Bodies larger than this are refused (413); add-disk bodies are a few hundred bytes. */
const MAX_BODY_BYTES = 1_000_000;
/** The request log is trimmed to the newest entries when it grows past twice this (long-running in-process use). */
const REQUEST_LOG_KEEP = 10_000;

interface Answer {
  status: number;
  body: render.Body;
  headers?: Record<string, string>;
}

interface Call {
  method: string;
  id: number;
  format: WireFormat;
  body: unknown;
}

type Handler = (call: Call) => Answer;

/** `['virtual_machines', ':id', 'firewall_rules']`; `:id` matches an integer segment only. */
interface Route {
  method: 'GET' | 'POST';
  segments: readonly string[];
  handler: Handler;
}

/** Format from the `.json`/`.xml` suffix; without one, Accept decides and JSON is the default. */
function formatOf(pathname: string, accept: string | undefined): { format: WireFormat; path: string } {
  const suffix = /\.(json|xml)$/i.exec(pathname);
  if (suffix) return { format: suffix[1]?.toLowerCase() === 'xml' ? 'xml' : 'json', path: pathname.slice(0, suffix.index) };
  const a = (accept ?? '').toLowerCase();
  const xmlAt = a.search(/\/xml\b/);
  const jsonAt = a.search(/\/json\b/);
  const format = xmlAt >= 0 && (jsonAt < 0 || xmlAt < jsonAt) ? 'xml' : 'json';
  return { format, path: pathname };
}

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/** Constant-time check of `Authorization: Basic …` (hashing first makes the lengths equal). */
function authorized(header: string | undefined, expected: Buffer): boolean | 'missing' {
  const match = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header ?? '');
  if (!match?.[1]) return 'missing';
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  return timingSafeEqual(digest(decoded), expected);
}

function loggedHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (name === 'authorization' || name === 'proxy-authorization' || value === undefined) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** The body as text, or null when it is over MAX_BODY_BYTES. */
function readBody(req: IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(tooLarge ? null : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const accountId = options.accountId ?? SANDBOX_ACCOUNT_ID;
  const apiKey = options.apiKey ?? SANDBOX_API_KEY;
  const expectedCredentials = digest(`${accountId}:${apiKey}`);
  const now = options.now ?? (() => new Date());
  const state = new SandboxState(options.seed ?? defaultSeed(), now);
  const requests: SandboxRequest[] = [];
  let delayMs = checkedDelay(options.delayMs ?? 0);
  const pendingDelays = new Set<NodeJS.Timeout>();
  let closed = false;

  const notFound = (what: string, format: WireFormat): Answer => ({ status: 404, body: render.errorList([`${what} was not found`], format) });

  const routes: Route[] = [
    {
      method: 'POST',
      segments: ['backups', ':id', 'restore'],
      handler: ({ id, format }) => {
        const backup = state.backup(id);
        if (!backup) return notFound(`Backup ${id}`, format);
        const result = state.restore(backup);
        if (result.ok) return { status: 200, body: render.backup(result.backup, format) };
        const why = {
          marked_for_delete: 'it is marked for deletion',
          not_built: 'it is not built yet',
          locked: 'it is locked by another transaction',
        }[result.reason];
        return { status: 403, body: render.errorList([`Backup ${id} could not be processed: ${why}`], format) };
      },
    },
    {
      method: 'GET',
      segments: ['virtual_machines', ':id', 'auto_scaling'],
      handler: ({ id, format }) => {
        const server = state.server(id);
        return server ? { status: 200, body: render.autoscaling(server, format) } : notFound(`VirtualMachine ${id}`, format);
      },
    },
    {
      method: 'POST',
      segments: ['virtual_machines', ':id', 'disks'],
      handler: ({ id, format, body }) => {
        const server = state.server(id);
        if (!server) return notFound(`VirtualMachine ${id}`, format);
        const wrapper = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>).disk : undefined;
        if (wrapper === null || typeof wrapper !== 'object' || Array.isArray(wrapper)) {
          return {
            status: 422,
            body: render.fieldErrors({ disk: ['is required: send the parameters inside a "disk" object (JSON) or a <disk> element (XML)'] }, format),
          };
        }
        const result = validateDiskParams(wrapper as Record<string, unknown>);
        if (!result.ok) return { status: 422, body: render.fieldErrors(result.errors, format) };
        return { status: 201, body: render.disk(state.addDisk(server, result.params), format) };
      },
    },
    {
      method: 'GET',
      segments: ['virtual_machines', ':id', 'firewall_rules'],
      handler: ({ id, format }) => {
        const server = state.server(id);
        return server ? { status: 200, body: render.firewallRules(server.firewallRules, format) } : notFound(`VirtualMachine ${id}`, format);
      },
    },
  ];

  /** The route whose shape matches, with the id; or the methods allowed there (405); or nothing (404). */
  function match(path: string, method: string): { route: Route; id: number } | { allow: string[] } | undefined {
    const parts = path.split('/').filter(Boolean);
    const allow: string[] = [];
    for (const route of routes) {
      if (route.segments.length !== parts.length) continue;
      let id: number | undefined;
      const fits = route.segments.every((segment, i) => {
        const part = parts[i] ?? '';
        if (segment !== ':id') return segment === part;
        if (!/^\d{1,15}$/.test(part)) return false;
        id = Number(part);
        return true;
      });
      if (!fits || id === undefined) continue;
      if (route.method === method) return { route, id };
      allow.push(route.method);
    }
    return allow.length > 0 ? { allow } : undefined;
  }

  function answer(req: IncomingMessage, path: string, format: WireFormat, raw: string | null): { answer: Answer; body: unknown } {
    const auth = authorized(req.headers.authorization, expectedCredentials);
    if (auth !== true) {
      const message = auth === 'missing' ? 'Authentication required: send HTTP Basic auth as <account_id>:<api_key>' : 'Invalid account id or API key';
      return {
        answer: { status: 401, body: render.singleError(message, format), headers: { 'www-authenticate': 'Basic realm="vs-chatops sandbox"' } },
        body: null,
      };
    }
    if (raw === null) return { answer: { status: 413, body: render.errorList(['request body too large'], format) }, body: null };
    const parsed = parseBody(raw, req.headers['content-type']);
    const body = parsed.ok ? parsed.value : null;
    const method = (req.method ?? 'GET').toUpperCase();
    const found = match(path, method);
    if (!found) return { answer: { status: 404, body: render.errorList([`No route matches ${method} ${path}`], format) }, body };
    if ('allow' in found) {
      return { answer: { status: 405, body: render.errorList([`${method} is not allowed here`], format), headers: { allow: found.allow.join(', ') } }, body };
    }
    if (!parsed.ok) return { answer: { status: 422, body: render.fieldErrors({ base: [parsed.message] }, format) }, body };
    return { answer: found.route.handler({ method, id: found.id, format, body }), body };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const at = isoTimestamp(now());
    const pathname = new URL(req.url ?? '/', 'http://sandbox.invalid').pathname;
    const { format, path } = formatOf(pathname, req.headers.accept);
    const raw = await readBody(req);
    let result: { answer: Answer; body: unknown };
    try {
      result = answer(req, path, format, raw);
    } catch {
      result = { answer: { status: 500, body: render.errorList(['internal sandbox error'], format) }, body: null };
    }
    const record: SandboxRequest = {
      method: req.method ?? 'GET',
      path: pathname,
      format,
      headers: loggedHeaders(req),
      body: result.body,
      status: result.answer.status,
      at,
    };
    requests.push(record);
    if (requests.length > 2 * REQUEST_LOG_KEEP) requests.splice(0, requests.length - REQUEST_LOG_KEEP);
    options.onRequest?.(record);
    if (delayMs > 0) await wait(delayMs);
    if (closed || res.destroyed) return;
    const { status, body, headers } = result.answer;
    res.writeHead(status, { 'content-type': body.contentType, 'content-length': Buffer.byteLength(body.text), [SANDBOX_HEADER]: '1', ...headers });
    res.end(body.text);
  }

  function wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        pendingDelays.delete(timer);
        resolve();
      }, ms);
      pendingDelays.add(timer);
    });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(500, { 'content-type': 'application/json; charset=utf-8', [SANDBOX_HEADER]: '1' });
        res.end(JSON.stringify({ errors: ['internal sandbox error'] }));
      }
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    accountId,
    apiKey,
    requests,
    setDelay(ms: number) {
      delayMs = checkedDelay(ms);
    },
    serverIds: () => state.serverIds(),
    reset() {
      requests.length = 0;
      state.reset();
    },
    close() {
      if (closed) return Promise.resolve();
      closed = true;
      for (const timer of pendingDelays) clearTimeout(timer);
      pendingDelays.clear();
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Keep-alive sockets would hold close() open for seconds otherwise.
        server.closeAllConnections();
      });
    },
  };
}

function checkedDelay(ms: number): number {
  if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`sandbox delay must be a non-negative number of milliseconds, got ${ms}`);
  return ms;
}
