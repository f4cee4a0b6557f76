import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

// A loopback HTTP server whose answers a test scripts, for producing every
// cloud API fault for real: statuses, odd bodies, resets, silence. It records
// each request it receives so tests can count upstream calls and read headers.

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** Answers one request; gets the body already read and the index of the request (0-based). */
export type FixtureHandler = (req: RecordedRequest, res: ServerResponse, index: number) => void | Promise<void>;

export interface FixtureServer {
  url: string;
  requests: RecordedRequest[];
  /** TCP connections accepted so far, and the most open at once. */
  connections: { total: number; maxOpen: number };
  /** Replaces the handler for the next requests. */
  handle(handler: FixtureHandler): void;
  close(): Promise<void>;
}

export async function startFixtureServer(handler: FixtureHandler = (_req, res) => reply(res, 200, '[]')): Promise<FixtureServer> {
  let current = handler;
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const connections = { total: 0, maxOpen: 0 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(recorded);
      Promise.resolve(current(recorded, res, requests.length - 1)).catch(() => res.destroy());
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    connections.total += 1;
    connections.maxOpen = Math.max(connections.maxOpen, sockets.size);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    connections,
    handle(next) {
      current = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        // Servers that never answer hold sockets open: end them so close() returns.
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

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
export function resetMidBody(res: ServerResponse, partialBody: string, announcedLength = 10_000): void {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(announcedLength) });
  res.write(partialBody, () => res.socket?.destroy());
}

/** A port on loopback with nothing listening: connecting to it is refused. */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

/** Rails-style XML of a list, with typed attributes; test-side writer, independent of the client's. */
export function xmlList(listName: string, itemName: string, records: readonly Record<string, unknown>[]): string {
  const declaration = '<?xml version="1.0" encoding="UTF-8"?>\n';
  if (records.length === 0) return `${declaration}<${listName} type="array"/>`;
  return `${declaration}<${listName} type="array">${records.map((r) => xmlRecord(itemName, r)).join('')}</${listName}>`;
}

export function xmlRecord(name: string, record: Record<string, unknown>): string {
  const fields = Object.entries(record)
    .filter(([, value]) => value !== undefined)
    .map(([field, value]) => xmlField(field, value))
    .join('');
  return `<${name}>${fields}</${name}>`;
}

function xmlField(name: string, value: unknown): string {
  if (value === null) return `<${name} nil="true"/>`;
  if (typeof value === 'boolean') return `<${name} type="boolean">${value}</${name}>`;
  if (typeof value === 'number') return `<${name} type="integer">${value}</${name}>`;
  const text = escapeText(String(value));
  return name.endsWith('_at') ? `<${name} type="datetime">${text}</${name}>` : `<${name}>${text}</${name}>`;
}

function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
