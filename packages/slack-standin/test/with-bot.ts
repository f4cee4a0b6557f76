import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { payloads, sign, startSlackStandIn, type SlackStandIn, type SlackStandInOptions } from '../src';

// The Slack stand-in on its own, delivering to a stand-in for the bot's
// /slack/events that records every request and answers as the test says
// (200 with an empty body unless told otherwise): for tests of how the
// stand-in speaks Slack's protocols, without a bot.

export interface ReceivedRequest {
  headers: IncomingHttpHeaders;
  body: string;
}

/** Whether a request the bot's endpoint received carries Slack's signature of its timestamp and body with `secret`. */
export const signedWith = ({ headers, body }: ReceivedRequest, secret: string): boolean =>
  headers['x-slack-signature'] === sign(secret, Number(headers['x-slack-request-timestamp']), body);

export interface StandInWithBot {
  standIn: SlackStandIn;
  /** What the bot's endpoint received, in order of arrival. */
  received: ReceivedRequest[];
  /** Calls the stand-in's Web API method as the app does (JSON, `token`: the bot's unless said): Slack's answer. */
  api<T = Record<string, unknown>>(
    method: string,
    args: Record<string, unknown>,
    token?: string,
  ): Promise<{ status: number; headers: IncomingHttpHeaders; body: T }>;
  /** Forgets what the stand-in recorded and what the endpoint received. */
  reset(): void;
  close(): Promise<void>;
}

export async function startStandInWithBot(
  options: Omit<SlackStandInOptions, 'eventsUrl'>,
  answer: (body: string) => { status: number; body: string } = () => ({ status: 200, body: '' }),
): Promise<StandInWithBot> {
  const received: ReceivedRequest[] = [];
  const bot = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      const answered = answer(body);
      res.writeHead(answered.status, { 'content-type': 'application/json' });
      res.end(answered.body);
    });
  });
  await new Promise<void>((resolve) => bot.listen(0, '127.0.0.1', resolve));
  const standIn = await startSlackStandIn({ ...options, eventsUrl: `http://127.0.0.1:${(bot.address() as AddressInfo).port}/slack/events` });
  return {
    standIn,
    received,
    async api<T>(method: string, args: Record<string, unknown>, token = options.botToken) {
      const res = await request(`${standIn.apiUrl}${method}`, {
        method: 'POST',
        headers: { 'content-type': payloads.JSON_CONTENT_TYPE, authorization: `Bearer ${token}` },
        body: JSON.stringify(args),
      });
      return { status: res.statusCode, headers: res.headers, body: (await res.body.json()) as T };
    },
    reset() {
      standIn.reset();
      received.length = 0;
    },
    async close() {
      await standIn.close();
      bot.closeAllConnections();
      await new Promise((resolve) => bot.close(resolve));
    },
  };
}

/** startStandInWithBot for the enclosing describe block (or file): started before its tests, closed after them, reset before each. */
export function useStandInWithBot(
  options: Omit<SlackStandInOptions, 'eventsUrl'>,
  answer?: (body: string) => { status: number; body: string },
): StandInWithBot {
  const slack = {} as StandInWithBot;
  beforeAll(async () => {
    Object.assign(slack, await startStandInWithBot(options, answer));
  });
  afterAll(() => slack.close());
  beforeEach(() => slack.reset());
  return slack;
}
