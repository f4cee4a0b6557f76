import { HTTPReceiver, SocketModeReceiver, type CustomRoute, type Logger as BoltLogger, type Receiver } from '@slack/bolt';
import type { WebClientOptions } from '@slack/web-api';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../config';
import type { Logger } from '../log';
import { MCP_PATH } from '../agents/mcp';
import { signedDeliveryOf } from '../ops/deliveries';
import { guardRequests, refuseUnprocessable } from './request-guard';

// How Slack reaches the bot: Socket Mode when an app-level token is set,
// otherwise signed HTTP requests to /slack/events. In HTTP mode the extra
// routes (health, readiness, metrics) are served beside /slack/events, and
// Slack's requests are answered 503 until start-up is done (the store opened:
// Slack retries an event; a user sees Slack's own error for a command). In
// Socket Mode the routes have a server of their own (src/ops/ops-server.ts),
// and the socket is connected only once start-up is done.

export interface ReceiverParts {
  logger: Logger;
  boltLogger: BoltLogger;
  clientOptions: WebClientOptions;
  /** GET routes served beside /slack/events (HTTP mode). */
  routes: CustomRoute[];
  /** Whether start-up is done (and stays so while stopping); until then Slack's requests are answered 503 (HTTP mode). */
  started: () => boolean;
  /** The MCP endpoint's handler (VS_MCP), served at `/mcp` beside /slack/events (HTTP mode); its own checks, not Slack's. */
  mcp?: (req: IncomingMessage, res: ServerResponse) => void;
}

export function createReceiver(config: Config, parts: ReceiverParts): Receiver {
  if (config.slack.appToken) {
    return new SocketModeReceiver({
      appToken: config.slack.appToken,
      logger: parts.boltLogger,
      installerOptions: { clientOptions: parts.clientOptions },
    });
  }
  const httpLogger = parts.logger.child({ component: 'http' });
  const receiver = new HTTPReceiver({
    signingSecret: config.slack.signingSecret ?? '',
    endpoints: '/slack/events',
    customRoutes: parts.routes,
    logger: parts.boltLogger,
    processBeforeResponse: false,
    processEventErrorHandler: refuseUnprocessable(httpLogger),
    // Each delivery carries its signature's first half, so that a replay of it is recognised (src/ops/deliveries.ts).
    customPropertiesExtractor: (req) => signedDeliveryOf(req.headers),
    // Bolt checks every request's signature and timestamp (its default, never switched off: eslint.config.mjs
    // forbids the option), behind the guard that checked them already: one check alone would be one mistake away
    // from running whatever a stranger sends (docs/production.md, "Who may reach the bot").
  });
  guardRequests(receiver, {
    signingSecret: config.slack.signingSecret ?? '',
    logger: httpLogger,
    endpoints: ['/slack/events'],
    trustedProxies: config.slack.trustedProxies,
  });
  refuseUntilStarted(receiver, parts.started);
  if (parts.mcp) serveMcp(receiver, parts.mcp);
  return receiver;
}

/** Before the guard, from the headers alone: nothing of a request is read while the instance cannot serve it. */
function refuseUntilStarted(receiver: HTTPReceiver, started: () => boolean): void {
  const inner = receiver.requestListener;
  receiver.requestListener = (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST' || started()) return inner(req, res);
    res
      .writeHead(503, { 'retry-after': '5', connection: 'close', 'content-type': 'text/plain; charset=utf-8' })
      .end('vs-chatops is starting: it is waiting for its database; try again in a moment\n');
  };
}

/** `/mcp` goes to the MCP endpoint, before the Slack guard: an agent's call is not signed by Slack, and is checked there. */
function serveMcp(receiver: HTTPReceiver, mcp: (req: IncomingMessage, res: ServerResponse) => void): void {
  const inner = receiver.requestListener;
  receiver.requestListener = (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '').split('?')[0];
    return path === MCP_PATH ? mcp(req, res) : inner(req, res);
  };
}
