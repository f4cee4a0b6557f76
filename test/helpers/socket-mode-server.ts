import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

// A loopback stand-in for Slack's Socket Mode endpoint (the wss:// URL that
// apps.connections.open hands out). Each connection gets Slack's `hello`;
// a test then pushes envelopes the way Slack does and reads what the bot
// sends back (acks: `{ envelope_id, payload }`).

export interface SocketModeMessage {
  envelope_id?: string;
  payload?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface SocketModeServer {
  /** ws://127.0.0.1:<port>/link, for the apps.connections.open answer. */
  url: string;
  /** Every message the bot sent, parsed, in order. */
  received: SocketModeMessage[];
  /** How many times the bot connected. */
  connections: () => number;
  /** How many connections are still open. */
  openConnections: () => number;
  /** Resolves once the bot is connected (and was sent `hello`). */
  waitForConnection(timeoutMs?: number): Promise<void>;
  /** Sends an envelope to the connected bot; returns its envelope_id. */
  /** `retry_attempt`: Slack's redelivery of an envelope it got no ack for (0 on the first delivery). */
  send(envelope: {
    type: string;
    payload: unknown;
    accepts_response_payload?: boolean;
    envelope_id?: string;
    retry_attempt?: number;
    retry_reason?: string;
  }): string;
  /** Resolves with the bot's ack of `envelopeId` (or rejects after timeoutMs). */
  waitForAck(envelopeId: string, timeoutMs?: number): Promise<SocketModeMessage>;
  close(): Promise<void>;
}

/** Slack's hello, as sent once the socket is open. */
export const HELLO = {
  type: 'hello',
  num_connections: 1,
  debug_info: { host: 'applink-loopback', build_number: 1, approximate_connection_time: 18060 },
  connection_info: { app_id: 'A1' },
};

export async function startSocketModeServer(): Promise<SocketModeServer> {
  const http: Server = createServer((_req, res) => {
    res.statusCode = 426;
    res.end();
  });
  const wss = new WebSocketServer({ server: http, path: '/link' });
  const received: SocketModeMessage[] = [];
  const sockets = new Set<WebSocket>();
  let connected = 0;
  let envelopes = 0;
  const waiters = new Set<() => void>();
  const notify = () => waiters.forEach((w) => w());

  wss.on('connection', (ws) => {
    sockets.add(ws);
    connected += 1;
    ws.on('close', () => sockets.delete(ws));
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      const text = (Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data)).toString('utf8');
      try {
        received.push(JSON.parse(text) as SocketModeMessage);
      } catch {
        received.push({ unparsable: text });
      }
      notify();
    });
    ws.send(JSON.stringify(HELLO));
    notify();
  });

  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;

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
        if (result === undefined) return;
        clearTimeout(timer);
        waiters.delete(waiter);
        resolve(result);
      };
      waiters.add(waiter);
    });

  return {
    url: `ws://127.0.0.1:${port}/link`,
    received,
    connections: () => connected,
    openConnections: () => sockets.size,
    waitForConnection: (timeoutMs = 5000) => waitFor(() => (sockets.size > 0 ? true : undefined), 'a Socket Mode connection', timeoutMs).then(() => undefined),
    send(envelope) {
      const envelopeId = envelope.envelope_id ?? `env-${++envelopes}-${Math.random().toString(36).slice(2, 10)}`;
      const open = [...sockets].filter((s) => s.readyState === s.OPEN);
      if (open.length === 0) throw new Error('no Socket Mode connection to send the envelope on');
      open[0]!.send(JSON.stringify({ accepts_response_payload: false, ...envelope, envelope_id: envelopeId }));
      return envelopeId;
    },
    waitForAck: (envelopeId, timeoutMs = 3000) =>
      waitFor(() => received.find((m) => m.envelope_id === envelopeId), `the ack of envelope ${envelopeId}`, timeoutMs),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.terminate();
        wss.close(() => {
          http.closeAllConnections();
          http.close(() => resolve());
        });
      }),
  };
}
