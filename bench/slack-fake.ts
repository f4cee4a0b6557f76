import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

// A lightweight loopback Slack for load: every Web API method answers ok, and
// each POST to /response/<id> is timed on arrival (performance.now(), the
// same clock the load generator stamps commands with). Bodies are not kept,
// only whether the message was the summary (in_channel) or an error
// (ephemeral), so a fast error can never pass for a delivered answer.

export interface ArrivedMessage {
  at: number;
  inChannel: boolean;
}

export interface BenchSlackFake {
  /** For SLACK_API_URL, with a trailing slash. */
  readonly apiUrl: string;
  readonly origin: string;
  responseUrl(id: string): string;
  /** Arrivals by response_url id; the first one counts if a URL is posted to twice. */
  readonly arrivals: Map<string, ArrivedMessage>;
  /** Posts to a response_url already posted to. */
  readonly duplicates: number;
  /** The message posted to this id's response_url, once it arrives; undefined after `timeoutMs`. */
  arrival(id: string, timeoutMs: number): Promise<ArrivedMessage | undefined>;
  /** Resolves once every id is in `arrivals`, or after `timeoutMs` with how many are still missing. */
  waitFor(ids: Iterable<string>, timeoutMs: number): Promise<number>;
  clear(): void;
  close(): Promise<void>;
}

export async function startBenchSlackFake(): Promise<BenchSlackFake> {
  const arrivals = new Map<string, ArrivedMessage>();
  let duplicates = 0;
  const awaited = new Map<string, (message: ArrivedMessage) => void>();

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = req.url ?? '/';
      if (url.startsWith('/response/')) {
        const id = url.slice('/response/'.length);
        if (arrivals.has(id)) duplicates++;
        else {
          const message = { at: performance.now(), inChannel: isInChannel(Buffer.concat(chunks)) };
          arrivals.set(id, message);
          awaited.get(id)?.(message);
        }
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('ok');
        return;
      }
      if (url.startsWith('/api/')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(url.startsWith('/api/auth.test') ? AUTH_TEST : OK);
        return;
      }
      res.writeHead(404);
      res.end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    apiUrl: `${origin}/api/`,
    origin,
    responseUrl: (id) => `${origin}/response/${id}`,
    arrivals,
    get duplicates() {
      return duplicates;
    },
    arrival(id, timeoutMs) {
      const arrived = arrivals.get(id);
      if (arrived) return Promise.resolve(arrived);
      return new Promise<ArrivedMessage | undefined>((resolve) => {
        const timer = setTimeout(() => {
          awaited.delete(id);
          resolve(undefined);
        }, timeoutMs);
        awaited.set(id, (message) => {
          clearTimeout(timer);
          awaited.delete(id);
          resolve(message);
        });
      });
    },
    waitFor(ids, timeoutMs) {
      const wanted = [...ids];
      const missing = () => wanted.reduce((n, id) => (arrivals.has(id) ? n : n + 1), 0);
      return new Promise<number>((resolve) => {
        if (missing() === 0) return resolve(0);
        let pending = true;
        const finish = () => {
          if (!pending) return;
          pending = false;
          clearTimeout(timer);
          clearInterval(poll);
          resolve(missing());
        };
        const timer = setTimeout(finish, timeoutMs);
        // Checked a few times a second rather than on every arrival: cheap under load.
        const poll = setInterval(() => {
          if (missing() === 0) finish();
        }, 50);
      });
    },
    clear() {
      arrivals.clear();
      duplicates = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const OK = JSON.stringify({ ok: true });
const AUTH_TEST = JSON.stringify({ ok: true, user_id: 'UBOT', bot_id: 'BBOT', team_id: 'T1', user: 'vs-chatops', team: 'Bench' });
const IN_CHANNEL = Buffer.from('"response_type":"in_channel"');

function isInChannel(body: Buffer): boolean {
  return body.includes(IN_CHANNEL);
}
