import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { request } from 'undici';

// The one loopback stand-in for a misbehaving cloud API. By default it
// forwards every request to an upstream (normally a sandbox), or answers with
// a scripted handler when there is none; a test makes it misbehave (statuses,
// odd bodies, resets, silence), heals it, can make it refuse connections and
// listen again on the same port. Every request and connection is recorded.

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** Answers one request; gets the body already read and the index of the request (0-based). */
export type FaultHandler = (req: RecordedRequest, res: ServerResponse, index: number) => void | Promise<void>;

export interface CloudFaultServer {
  url: string;
  requests: RecordedRequest[];
  /** TCP connections accepted so far, and the most open at once. */
  connections: { total: number; maxOpen: number };
  /** Requests answered by a handler given to handle(), not by the upstream. */
  readonly faulted: number;
  /** Every following request gets this answer, until heal(). */
  handle(handler: FaultHandler): void;
  /** Back to forwarding to the upstream (or the handler it started with). */
  heal(): void;
  /** Stops listening: new connections are refused (open ones are cut). */
  refuse(): Promise<void>;
  /** Listens again on the same port. */
  accept(): Promise<void>;
  close(): Promise<void>;
}

export async function startCloudFaultServer(options: { upstream?: string; handler?: FaultHandler } = {}): Promise<CloudFaultServer> {
  const initial: FaultHandler = options.upstream
    ? (req, res) => forward(options.upstream!, req, res)
    : (options.handler ?? ((_req, res) => reply(res, 200, '[]')));
  let current: FaultHandler | undefined;
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const connections = { total: 0, maxOpen: 0 };
  const state = { faulted: 0 };
  let server: Server = build();
  let port = 0;

  function build(): Server {
    const s = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const recorded: RecordedRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
        requests.push(recorded);
        const handler = current ?? initial;
        if (current) state.faulted += 1;
        Promise.resolve(handler(recorded, res, requests.length - 1)).catch(() => res.destroy());
      });
    });
    s.on('connection', (socket) => {
      sockets.add(socket);
      connections.total += 1;
      connections.maxOpen = Math.max(connections.maxOpen, sockets.size);
      socket.on('close', () => sockets.delete(socket));
    });
    return s;
  }

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        port = (server.address() as AddressInfo).port;
        resolve();
      });
    });
  // Servers that never answer hold sockets open: end them so close() returns.
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });

  await listen();
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    connections,
    get faulted() {
      return state.faulted;
    },
    handle(handler) {
      current = handler;
    },
    heal() {
      current = undefined;
    },
    refuse: stop,
    async accept() {
      server = build();
      await listen();
    },
    close: stop,
  };
}

/** Passes a recorded request on to `upstream` and its answer back. */
export async function forward(upstream: string, req: RecordedRequest, res: ServerResponse): Promise<void> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers))
    if (v !== undefined && k !== 'host' && k !== 'connection' && k !== 'content-length') headers[k] = Array.isArray(v) ? v.join(', ') : v;
  const answer = await request(upstream + req.url, { method: req.method as 'GET' | 'POST', headers, body: req.method === 'GET' ? undefined : req.body });
  const body = Buffer.from(await answer.body.arrayBuffer());
  res.writeHead(answer.statusCode, { 'content-type': String(answer.headers['content-type'] ?? 'application/json'), 'content-length': String(body.length) });
  res.end(body);
}

/** A port on loopback with nothing listening: connecting to it is refused. */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

// --- answers ----------------------------------------------------------------

export function reply(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': contentTypeOf(body), 'content-length': String(Buffer.byteLength(body)), ...headers });
  res.end(body);
}

function contentTypeOf(body: string): string {
  const start = body.trimStart();
  if (start.startsWith('<!DOCTYPE html') || start.startsWith('<html')) return 'text/html';
  return start.startsWith('<') ? 'application/xml' : 'application/json';
}

/** Sends headers and part of the body, then cuts the connection. */
export function cutMidBody(res: ServerResponse, partialBody: string, announcedLength = 10_000): void {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(announcedLength) });
  res.write(partialBody, () => res.socket?.destroy());
}

// --- the faults, as handlers -------------------------------------------------

export function body(status: number, text: string, headers: Record<string, string> = {}): FaultHandler {
  return (_req, res) => reply(res, status, text, { 'content-type': 'application/json', ...headers });
}

/** Never answers: the bot's deadline must end the wait. */
export const hang: FaultHandler = () => new Promise<void>(() => undefined);

/** Headers and half a body, then the connection is cut. */
export const resetMidBody: FaultHandler = (_req, res) => cutMidBody(res, '[{"firewall_rule":{"id":1,"command":"ACC', 5000);

/** The connection is cut before any answer. */
export const resetBeforeAnswer: FaultHandler = (_req, res) => {
  res.socket?.destroy();
};

export const truncatedJson = body(200, '[{"firewall_rule":{"id":1,"command":"ACCEPT","port":"443"');
export const garbageJson = body(200, '}{ not json at all \u0000\uFFFD');
export const truncatedXml = body(200, '<?xml version="1.0"?><firewall_rules type="array"><firewall_rule><id type="integer">1</id>', {
  'content-type': 'application/xml',
});
export const garbageXml = body(200, '<<?xml <firewall_rules>>&&&</oops>', { 'content-type': 'application/xml' });
export const htmlErrorPage = (status: number) =>
  body(
    status,
    `<!DOCTYPE html><html><head><title>${status} Bad Gateway</title></head><body><h1>Bad Gateway</h1>` +
      `<pre>upstream connect error\n    at Proxy.forward (/srv/lb/proxy.js:12:3)</pre></body></html>`,
    { 'content-type': 'text/html' },
  );
export const multiStatus = body(207, '{"status":"partial"}');
export const rateLimited = (retryAfterSeconds: number) => body(429, '{"errors":["Too many requests"]}', { 'retry-after': String(retryAfterSeconds) });

const CHUNK = Buffer.alloc(64 * 1024, 'x');

/** A body of `bytes` bytes; announced by Content-Length, or chunked (nothing announced) when `announce` is false. */
export function huge(bytes: number, announce: boolean): FaultHandler {
  return (_req, res) =>
    new Promise<void>((resolve) => {
      res.writeHead(200, { 'content-type': 'application/json', ...(announce ? { 'content-length': String(bytes) } : {}) });
      res.write('[');
      let sent = 1;
      const pump = () => {
        while (sent < bytes) {
          if (res.destroyed || res.writableEnded) return resolve();
          const n = Math.min(CHUNK.length, bytes - sent);
          sent += n;
          if (!res.write(n === CHUNK.length ? CHUNK : CHUNK.subarray(0, n))) return void res.once('drain', pump);
        }
        res.end(() => resolve());
      };
      res.on('close', () => resolve());
      pump();
    });
}

/** Headers at once, then one byte every `everyMs`: a slow-loris answer that never completes in time. */
export function trickle(everyMs: number): FaultHandler {
  return (_req, res) =>
    new Promise<void>((resolve) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100000' });
      res.write('[');
      const timer = setInterval(() => {
        if (res.destroyed) {
          clearInterval(timer);
          return resolve();
        }
        res.write(' ');
      }, everyMs);
      res.on('close', () => {
        clearInterval(timer);
        resolve();
      });
    });
}
