import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { request } from 'undici';

// A loopback stand-in for the cloud API that is healthy by default (it
// forwards every request to an upstream, normally a sandbox) and misbehaves on
// demand: a test sets a fault, drives the real bot, heals it, and checks the
// bot still serves. It can also stop listening (connection refused) and come
// back on the same port. Every request it receives is recorded.

export interface FaultRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** Answers one request instead of the upstream. */
export type FaultHandler = (req: FaultRequest, res: ServerResponse) => void | Promise<void>;

export interface FaultCloud {
  url: string;
  requests: FaultRequest[];
  /** Requests whose answer came from a fault, not the upstream. */
  faulted: number;
  /** Every following request gets this answer, until heal(). */
  fail(handler: FaultHandler): void;
  /** Back to forwarding to the upstream. */
  heal(): void;
  /** Stops listening: new connections are refused (open ones are cut). */
  refuse(): Promise<void>;
  /** Listens again on the same port. */
  accept(): Promise<void>;
  close(): Promise<void>;
}

export async function startFaultCloud(upstream: string): Promise<FaultCloud> {
  let current: FaultHandler | undefined;
  const requests: FaultRequest[] = [];
  const sockets = new Set<Socket>();
  const state = { faulted: 0 };
  let server: Server = build();
  let port = 0;

  function build(): Server {
    const s = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const recorded: FaultRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
        requests.push(recorded);
        const handler = current;
        if (handler) state.faulted += 1;
        const answer = handler ? handler(recorded, res) : forward(upstream, recorded, res);
        Promise.resolve(answer).catch(() => res.destroy());
      });
    });
    s.on('connection', (socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    return s;
  }

  const listen = () => new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      port = (server.address() as AddressInfo).port;
      resolve();
    });
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });

  await listen();
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get faulted() {
      return state.faulted;
    },
    fail(handler) {
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

export async function forward(upstream: string, req: FaultRequest, res: ServerResponse): Promise<void> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && k !== 'host' && k !== 'connection' && k !== 'content-length') headers[k] = Array.isArray(v) ? v.join(', ') : v;
  const answer = await request(upstream + req.url, { method: req.method as 'GET' | 'POST', headers, body: req.method === 'GET' ? undefined : req.body });
  const body = Buffer.from(await answer.body.arrayBuffer());
  res.writeHead(answer.statusCode, { 'content-type': String(answer.headers['content-type'] ?? 'application/json'), 'content-length': String(body.length) });
  res.end(body);
}

// --- the faults -----------------------------------------------------------

const socketOf = (res: ServerResponse) => res.socket;

/** Never answers: the bot's deadline must end the wait. */
export const hang: FaultHandler = () => new Promise<void>(() => undefined);

/** Headers and half a body, then the connection is cut. */
export const resetMidBody: FaultHandler = (_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': '5000' });
  res.write('[{"firewall_rule":{"id":1,"command":"ACC', () => socketOf(res)?.destroy());
};

/** The connection is cut before any answer. */
export const resetBeforeAnswer: FaultHandler = (_req, res) => {
  socketOf(res)?.destroy();
};

export function body(status: number, text: string, headers: Record<string, string> = {}): FaultHandler {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers });
    res.end(text);
  };
}

export const truncatedJson = body(200, '[{"firewall_rule":{"id":1,"command":"ACCEPT","port":"443"');
export const garbageJson = body(200, '}{ not json at all \u0000\uFFFD');
export const truncatedXml = body(200, '<?xml version="1.0"?><firewall_rules type="array"><firewall_rule><id type="integer">1</id>', { 'content-type': 'application/xml' });
export const garbageXml = body(200, '<<?xml <firewall_rules>>&&&</oops>', { 'content-type': 'application/xml' });
export const htmlErrorPage = (status: number) =>
  body(status, `<!DOCTYPE html><html><head><title>${status} Bad Gateway</title></head><body><h1>Bad Gateway</h1><pre>upstream connect error\n    at Proxy.forward (/srv/lb/proxy.js:12:3)</pre></body></html>`, { 'content-type': 'text/html' });
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
