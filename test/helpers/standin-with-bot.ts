import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSlackStandIn, type SlackStandIn, type SlackStandInOptions } from '../../src/local/standin';

// The Slack stand-in on its own, delivering to a stand-in for the bot's
// /slack/events that records every request and answers as the test says
// (200 with an empty body unless told otherwise): for tests of how the
// stand-in speaks Slack's protocols, without a bot.

export interface ReceivedRequest {
  headers: IncomingHttpHeaders;
  body: string;
}

export interface StandInWithBot {
  standIn: SlackStandIn;
  /** What the bot's endpoint received, in order of arrival. */
  received: ReceivedRequest[];
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
