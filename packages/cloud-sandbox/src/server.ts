import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseBody } from './body';
import { validateDiskParams } from './disk-params';
import { SANDBOX_ACCOUNT_ID, SANDBOX_API_KEY, SANDBOX_HEADER } from './identity';
import { panelPage, panelPageId } from './panel';
import { isoTimestamp } from './random';
import * as render from './render';
import { READ_HANDLERS, type ReadHandler, type SandboxReadsFor } from './reads';
import { defaultSeed } from './seed';
import { SandboxState, type PowerAction } from './state';
import type {
  PanelAct,
  PanelActResult,
  Sandbox,
  SandboxDisk,
  SandboxOptions,
  SandboxReadRow,
  SandboxReads,
  SandboxRequest,
  SandboxServer,
  WireFormat,
} from './types';

// The cloud API simulator on node:http: Basic auth, JSON or XML chosen by the
// path suffix (or Accept), the reads of the bot's table (one route per row,
// src/reads.ts), the changes of docs/cloud-api.md (add a disk, restore a
// backup, the power actions) and their 404/422/403 answers. Everything a
// request changes lives in SandboxState; the changes then run as transactions
// on the sandbox's clock (src/transactions.ts). A browser's GET of a server's
// page is its control panel's (src/panel.ts): readable without credentials.

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
  /** The path's ids, in order. */
  ids: number[];
  /** The page of a paged read (`…/page/2`); 1 otherwise. */
  page: number;
  query: URLSearchParams;
  format: WireFormat;
  body: unknown;
}

type Handler = (call: Call) => Answer;

/** `['virtual_machines', ':id', 'firewall_rules']`; `:id` matches an integer segment only. */
interface Route {
  method: 'GET' | 'POST' | 'DELETE';
  segments: readonly string[];
  handler: Handler;
}

/** Segments of a path template, each `:name` an id: `/backups/:backupId` → `['backups', ':id']`. */
const segmentsOf = (path: string): string[] =>
  path
    .split('/')
    .filter(Boolean)
    .map((segment) => (segment.startsWith(':') ? ':id' : segment));

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

/** The route of each read, from its row: GET its path (and, when paged, its `/page/N`), answered by the handler of its name. */
function readRoutes(reads: SandboxReads, state: SandboxState, notFound: (what: string, format: WireFormat) => Answer): Route[] {
  return Object.entries(reads).flatMap(([name, row]: [string, SandboxReadRow]) => {
    const handler = (READ_HANDLERS as Record<string, ReadHandler | undefined>)[name];
    if (handler === undefined) throw new Error(`the sandbox has no handler for the read ${name}: add one to packages/cloud-sandbox/src/reads.ts`);
    const serve: Handler = (call) => {
      const result = handler(state, call);
      if ('missing' in result) return notFound(result.missing, call.format);
      return { status: 200, body: render.answer(row.answer, result.records, call.format, result.xmlFields) };
    };
    const segments = segmentsOf(row.path);
    const route: Route = { method: 'GET', segments, handler: serve };
    return row.paged === true ? [route, { method: 'GET', segments: [...segments, 'page', ':id'], handler: serve }] : [route];
  });
}

const POWER_ACTIONS: readonly PowerAction[] = ['startup', 'shutdown', 'stop', 'reboot'];

/** What a power action the state does not allow is told (404, as the API answers). */
const POWER_REFUSALS: Record<PowerAction, string> = {
  startup: 'cannot be started: it is already on',
  shutdown: 'cannot be shut down: it is off',
  stop: 'cannot be stopped: it is off',
  reboot: 'cannot be rebooted: it is off',
};

/** `{"mode": "recovery"}` (or `<mode>recovery</mode>`): the recovery image; anything else in `mode` is refused. */
/** A backup's note, from `{"backup": {"note": …}}` or `<backup><note>…</note></backup>`; null when none. */
function backupNote(body: unknown): string | null {
  const fields = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const inner = fields.backup;
  const note = inner !== null && typeof inner === 'object' ? (inner as Record<string, unknown>).note : undefined;
  return typeof note === 'string' && note !== '' ? note : null;
}

function rebootMode(body: unknown): { recovery: boolean } | { problem: string } {
  const fields = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const inner = fields.virtual_machine;
  const mode = (inner !== null && typeof inner === 'object' ? (inner as Record<string, unknown>).mode : undefined) ?? fields.mode;
  if (mode === undefined || mode === null || mode === '') return { recovery: false };
  return mode === 'recovery' ? { recovery: true } : { problem: 'must be recovery, or left out for a normal reboot' };
}

/**
 * Starts the simulator. `reads`: the reads it serves, one route per row: the bot's table of reads (READS of
 * src/cloud/reads.ts), each answered in JSON and XML by the handler of the same name (src/reads.ts here).
 */
export async function startSandbox<R extends SandboxReads>(options: SandboxOptions & { reads: SandboxReadsFor<R> }): Promise<Sandbox> {
  const accountId = options.accountId ?? SANDBOX_ACCOUNT_ID;
  const apiKey = options.apiKey ?? SANDBOX_API_KEY;
  const expectedCredentials = digest(`${accountId}:${apiKey}`);
  const now = options.now ?? (() => new Date());
  const state = new SandboxState(options.seed ?? defaultSeed(), now, options.transactionMs);
  const requests: SandboxRequest[] = [];
  let delayMs = checkedDelay(options.delayMs ?? 0);
  const pendingDelays = new Set<NodeJS.Timeout>();
  let closed = false;

  const notFound = (what: string, format: WireFormat): Answer => ({ status: 404, body: render.errorList([`${what} was not found`], format) });
  const idOf = (call: Call) => call.ids[0] ?? 0;

  const takeBackup = (server: SandboxServer, disk: SandboxDisk, body: unknown, format: WireFormat): Answer => {
    const result = state.takeBackup(server, disk, backupNote(body));
    if (result.ok) return { status: 201, body: render.answer({ kind: 'object', name: 'backup' }, render.backup(state, result.backup), format) };
    if (result.reason === 'locked')
      return { status: 422, body: render.errorList([`Disk ${disk.id} is locked: ${result.transaction.action} is running on it`], format) };
    return { status: 422, body: render.errorList([`Disk ${disk.id} is not built yet`], format) };
  };

  const routes: Route[] = [
    ...readRoutes(options.reads, state, notFound),
    {
      method: 'POST',
      segments: ['backups', ':id', 'restore'],
      handler: ({ ids, format }) => {
        const id = ids[0] ?? 0;
        const backup = state.backup(id);
        if (!backup) return notFound(`Backup ${id}`, format);
        const result = state.restore(backup);
        if (result.ok) return { status: 200, body: render.answer({ kind: 'object', name: 'backup' }, render.backup(state, result.backup), format) };
        const why = {
          marked_for_delete: 'it is marked for deletion',
          not_built: 'it is not built yet',
          locked: 'it is locked by another transaction',
        }[result.reason];
        return { status: 403, body: render.errorList([`Backup ${id} could not be processed: ${why}`], format) };
      },
    },
    {
      method: 'POST',
      segments: ['virtual_machines', ':id', 'disks'],
      handler: (call) => {
        const { format, body } = call;
        const server = state.server(idOf(call));
        if (!server) return notFound(`VirtualMachine ${idOf(call)}`, format);
        const wrapper = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>).disk : undefined;
        if (wrapper === null || typeof wrapper !== 'object' || Array.isArray(wrapper)) {
          return {
            status: 422,
            body: render.fieldErrors({ disk: ['is required: send the parameters inside a "disk" object (JSON) or a <disk> element (XML)'] }, format),
          };
        }
        const result = validateDiskParams(wrapper as Record<string, unknown>);
        if (!result.ok) return { status: 422, body: render.fieldErrors(result.errors, format) };
        const disk = state.addDisk(server, result.params);
        return { status: 201, body: render.answer({ kind: 'object', name: 'disk' }, render.disk(state, disk), format) };
      },
    },
    // docs/cloud-api.md, Take a backup: under the server; older clouds take it under /settings, by the disk alone.
    {
      method: 'POST',
      segments: ['virtual_machines', ':id', 'disks', ':id', 'backups'],
      handler: ({ ids, format, body }) => {
        const server = state.server(ids[0] ?? 0);
        if (!server) return notFound(`VirtualMachine ${ids[0] ?? 0}`, format);
        const found = state.diskOf(ids[1] ?? 0);
        if (!found || found.server.id !== server.id) return notFound(`Disk ${ids[1] ?? 0}`, format);
        return takeBackup(found.server, found.disk, body, format);
      },
    },
    {
      method: 'POST',
      segments: ['settings', 'disks', ':id', 'backups'],
      handler: ({ ids, format, body }) => {
        const found = state.diskOf(ids[0] ?? 0);
        if (!found) return notFound(`Disk ${ids[0] ?? 0}`, format);
        return takeBackup(found.server, found.disk, body, format);
      },
    },
    // docs/cloud-api.md, Firewall rules: add one (201, at the end of its interface's list; 422 for invalid fields).
    {
      method: 'POST',
      segments: ['virtual_machines', ':id', 'firewall_rules'],
      handler: ({ ids, format, body }) => {
        const server = state.server(ids[0] ?? 0);
        if (!server) return notFound(`VirtualMachine ${ids[0] ?? 0}`, format);
        const outer = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>).firewall_rule : undefined;
        const f = outer !== null && typeof outer === 'object' && !Array.isArray(outer) ? (outer as Record<string, unknown>) : {};
        const text = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
        const errors: Record<string, string[]> = {};
        const command = text(f.command).toUpperCase();
        if (command !== 'ACCEPT' && command !== 'DROP') errors.command = ['must be ACCEPT or DROP'];
        const protocol = text(f.protocol).toUpperCase();
        if (protocol !== 'TCP' && protocol !== 'UDP') errors.protocol = ['must be TCP or UDP'];
        const nic = Number(text(f.network_interface_id));
        if (!Number.isSafeInteger(nic) || nic <= 0) errors.network_interface_id = ['is required'];
        const port = text(f.port);
        if (!/^[0-9,:]*$/.test(port)) errors.port = ['is invalid'];
        const address = text(f.address);
        if (!/^[0-9a-fA-F.:/-]*$/.test(address)) errors.address = ['is invalid'];
        if (Object.keys(errors).length > 0) return { status: 422, body: render.fieldErrors(errors, format) };
        const added = state.addFirewallRule(server, {
          network_interface_id: nic,
          address: address || null,
          port: port || null,
          protocol: protocol as 'TCP' | 'UDP',
          command: command as 'ACCEPT' | 'DROP',
        });
        return { status: 201, body: render.answer({ kind: 'object', name: 'firewall_rule' }, { ...added }, format) };
      },
    },
    // docs/cloud-api.md, Firewall rules: remove one (204; 404 for an unknown rule), then apply the server's rules.
    {
      method: 'DELETE',
      segments: ['virtual_machines', ':id', 'firewall_rules', ':id'],
      handler: ({ ids, format }) => {
        const server = state.server(ids[0] ?? 0);
        if (!server) return notFound(`VirtualMachine ${ids[0] ?? 0}`, format);
        const at = server.firewallRules.findIndex((r) => r.id === ids[1]);
        if (at < 0) return notFound(`FirewallRule ${ids[1] ?? 0}`, format);
        server.firewallRules.splice(at, 1);
        return { status: 204, body: { contentType: 'text/plain', text: '' } };
      },
    },
    {
      method: 'POST',
      segments: ['virtual_machines', ':id', 'update_firewall_rules'],
      handler: (call) => {
        const server = state.server(idOf(call));
        if (!server) return notFound(`VirtualMachine ${idOf(call)}`, call.format);
        const result = state.applyFirewall(server);
        if (!result.ok)
          return { status: 422, body: render.errorList([`VirtualMachine ${server.id} is locked: ${result.transaction.action} is running on it`], call.format) };
        return { status: 201, body: render.answer({ kind: 'object', name: 'virtual_machine' }, render.server(state, server), call.format) };
      },
    },
    ...POWER_ACTIONS.map((action): Route => ({
      method: 'POST',
      segments: ['virtual_machines', ':id', action],
      handler: (call) => {
        const { format } = call;
        const server = state.server(idOf(call));
        if (!server) return notFound(`VirtualMachine ${idOf(call)}`, format);
        const mode = action === 'reboot' ? rebootMode(call.body) : { recovery: false };
        if ('problem' in mode) return { status: 422, body: render.fieldErrors({ mode: [mode.problem] }, format) };
        const result = state.power(server, action, mode.recovery);
        if (result.ok) return { status: 201, body: render.answer({ kind: 'object', name: 'virtual_machine' }, render.server(state, result.server), format) };
        if (result.reason === 'locked') {
          const running = result.transaction ? `: ${result.transaction.action} is running on it` : '';
          return { status: 422, body: render.errorList([`VirtualMachine ${server.id} is locked${running}`], format) };
        }
        return { status: 404, body: render.errorList([`VirtualMachine ${server.id} ${POWER_REFUSALS[action]}`], format) };
      },
    })),
  ];

  /** The route whose shape matches, with its ids; or the methods allowed there (405); or nothing (404). */
  function match(path: string, method: string): { route: Route; ids: number[] } | { allow: string[] } | undefined {
    const parts = path.split('/').filter(Boolean);
    const allow: string[] = [];
    for (const route of routes) {
      if (route.segments.length !== parts.length) continue;
      const ids: number[] = [];
      const fits = route.segments.every((segment, i) => {
        const part = parts[i] ?? '';
        if (segment !== ':id') return segment === part;
        if (!/^\d{1,15}$/.test(part)) return false;
        ids.push(Number(part));
        return true;
      });
      if (!fits) continue;
      if (route.method === method) return { route, ids };
      allow.push(route.method);
    }
    return allow.length > 0 ? { allow } : undefined;
  }

  function answer(req: IncomingMessage, url: URL, path: string, format: WireFormat, raw: string | null): { answer: Answer; body: unknown } {
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
    // A paged route ends in `/page/N`: that id is the page, the others are the path's.
    const paged = found.route.segments.at(-2) === 'page';
    const ids = paged ? found.ids.slice(0, -1) : found.ids;
    const page = paged ? Math.max(1, found.ids.at(-1) ?? 1) : 1;
    state.advance();
    return { answer: found.route.handler({ method, ids, page, query: url.searchParams, format, body }), body };
  }

  /** Someone in the control panel acting on a server (PanelAct); undefined for a server it does not hold. */
  function act(serverId: number, what: PanelAct): PanelActResult | undefined {
    const server = state.server(serverId);
    return server ? state.panelAct(server, what) : undefined;
  }

  /**
   * `POST /control/virtual_machines/:id/{power_off,power_on,lock,fail}` (lock: `{"minutes": N}`, default 15), with the
   * API's credentials: acts as someone in the control panel. Not an API call: not in the request log.
   */
  async function control(req: IncomingMessage, res: ServerResponse, match: RegExpExecArray): Promise<void> {
    const send = (status: number, body: unknown) => {
      const text = JSON.stringify(body);
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), [SANDBOX_HEADER]: '1' });
      res.end(text);
    };
    const raw = await readBody(req);
    if (authorized(req.headers.authorization, expectedCredentials) !== true)
      return send(401, { errors: ['Authentication required: the API’s account id and key'] });
    if (req.method !== 'POST') return send(405, { errors: ['POST only'] });
    const parsed = raw === null || raw === '' ? { ok: true as const, value: {} } : parseBody(raw, req.headers['content-type']);
    const minutesValue = parsed.ok && parsed.value !== null && typeof parsed.value === 'object' ? (parsed.value as { minutes?: unknown }).minutes : undefined;
    const minutes = minutesValue === undefined ? 15 : Number(minutesValue);
    if (!Number.isInteger(minutes) || minutes < 1 || minutes > 24 * 60) return send(422, { errors: ['minutes must be a whole number from 1 to 1440'] });
    const name = match[2] as PanelAct['act'];
    const result = act(Number(match[1]), name === 'lock' ? { act: 'lock', minutes } : { act: name });
    if (result === undefined) return send(404, { errors: [`VirtualMachine ${match[1]} not found`] });
    if (!result.ok)
      return send(422, {
        errors: [`VirtualMachine ${match[1]} is ${result.reason === 'locked' ? 'locked: a transaction is running on it' : `already ${result.reason}`}`],
      });
    send(200, {
      virtual_machine: render.server(state, result.server),
      ...(result.transaction ? { transaction: { id: result.transaction.id, action: result.transaction.action, status: result.transaction.status } } : {}),
    });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const at = isoTimestamp(now());
    const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
    const pathname = url.pathname;
    const controlled = CONTROL_PATH.exec(pathname);
    if (controlled) return control(req, res, controlled);
    const panelId = panelPageId(req.method, pathname, req.headers.accept);
    if (panelId !== null) {
      // The control panel's page (a link in a message, opened in a browser): not an API call, not in the request log.
      state.advance();
      const { status, html } = panelPage(state, panelId);
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(html), [SANDBOX_HEADER]: '1' });
      res.end(html);
      return;
    }
    const { format, path } = formatOf(pathname, req.headers.accept);
    const raw = await readBody(req);
    let result: { answer: Answer; body: unknown };
    try {
      result = answer(req, url, path, format, raw);
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
    servers: () => state.serverIds().map((id) => ({ id, label: state.server(id)!.label })),
    cancelTransaction: (id: number) => state.cancelTransaction(id),
    act,
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

/** The control panel's acts (PanelAct), by path. */
const CONTROL_PATH = /^\/control\/virtual_machines\/([0-9]{1,15})\/(power_off|power_on|lock|fail)$/;

function checkedDelay(ms: number): number {
  if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`sandbox delay must be a non-negative number of milliseconds, got ${ms}`);
  return ms;
}
