import { HTTPReceiver, SocketModeReceiver, type CustomRoute, type Logger as BoltLogger, type Receiver } from '@slack/bolt';
import type { WebClientOptions } from '@slack/web-api';
import type { Config } from '../config';
import type { Logger } from '../log';
import { guardRequests, refuseUnprocessable } from './request-guard';

// How Slack reaches the bot: Socket Mode when an app-level token is set,
// otherwise signed HTTP requests to /slack/events. Extra routes (health,
// readiness, metrics) are served on the same port in both modes.

export interface ReceiverParts {
  logger: Logger;
  boltLogger: BoltLogger;
  clientOptions: WebClientOptions;
  /** GET routes served beside /slack/events (or alone, in Socket Mode). */
  routes: CustomRoute[];
}

export function createReceiver(config: Config, parts: ReceiverParts): Receiver {
  if (config.slack.appToken) {
    return new SocketModeReceiver({
      appToken: config.slack.appToken,
      logger: parts.boltLogger,
      customRoutes: parts.routes,
      installerOptions: { port: config.slack.port, clientOptions: parts.clientOptions },
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
  });
  guardRequests(receiver, { signingSecret: config.slack.signingSecret ?? '', logger: httpLogger });
  return receiver;
}
