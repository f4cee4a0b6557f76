import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import type { SlackStandIn } from '@vs-chatops/slack-standin';

// Slack's side of a slash command, for a loop closed on the message: the
// edge passes each signed command through to the server under test and
// answers the load generator only once the server's message reached the
// Slack stand-in (or, for servers that post nothing, once the ack came). So
// autocannon's latency is command-to-message and its rate is commands
// completed end to end, with exactly `connections` commands in flight.

export interface SlackEdge {
  readonly url: string;
  close(): Promise<void>;
}

export interface SlackEdgeOptions {
  /** Wait for the message on the response_url; false: the ack completes the command. */
  waitForMessage: boolean;
  /** Longest wait for a message before answering 504. */
  timeoutMs: number;
  connections: number;
}

const FORWARDED = ['content-type', 'x-slack-request-timestamp', 'x-slack-signature'] as const;

export async function startSlackEdge(slack: SlackStandIn, eventsUrl: string, options: SlackEdgeOptions): Promise<SlackEdge> {
  const target = new URL(eventsUrl);
  const pool = new Pool(target.origin, { connections: options.connections, pipelining: 1 });

  async function pass(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const headers: Record<string, string> = {};
    for (const name of FORWARDED) {
      const value = req.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const ack = await pool.request({ path: target.pathname, method: 'POST', headers, body });
    await ack.body.dump();
    if (ack.statusCode >= 300 || !options.waitForMessage) return answer(res, ack.statusCode);
    const responseUrl = new URLSearchParams(body).get('response_url') ?? '';
    const message = await slack.arrival(responseUrl.slice(responseUrl.lastIndexOf('/') + 1), options.timeoutMs);
    // An error message is an answer, but not the one asked for.
    answer(res, message === undefined ? 504 : message.inChannel ? 200 : 502);
  }

  const server: Server = createServer((req, res) => {
    pass(req, res).catch(() => answer(res, 599));
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${target.pathname}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await pool.close();
    },
  };
}

function answer(res: ServerResponse, status: number): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-length': '0' });
  res.end();
}
