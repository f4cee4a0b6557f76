import { App, type Receiver } from '@slack/bolt';
import type { Logger as BoltLogger } from '@slack/bolt';
import type { WebClientOptions } from '@slack/web-api';
import type { Server } from 'node:http';
import type { Config } from '../config';
import type { Logger } from '../log';
import type { BotAuthorization } from './bot-authorization';
import type { ListenerContext } from './context';
import { explainSlackFailure } from './explain-slack-failure';
import type { InFlight } from './in-flight';
import { registerListeners } from './listeners';

// The Bolt app, built from the parts compose.ts gives it: a receiver, the
// bot's authorization, and what listeners use. It builds nothing else.

export interface SlackAppParts {
  config: Config;
  receiver: Receiver;
  authorization: BotAuthorization;
  boltLogger: BoltLogger;
  clientOptions: WebClientOptions;
  inFlight: InFlight;
  context: ListenerContext;
  logger: Logger;
  /** Called with the app once built (the Slack retry filter and the ack timer hook in here). */
  instrument?: (app: App) => void;
}

export interface SlackApp {
  app: App;
  /** Starts listening (on a port, or a port and host); in HTTP mode resolves with the bound port. */
  start(listen?: number | { port: number; host: string }): Promise<{ port: number | null }>;
  /** Resolves once every delivery handed over so far is done (its listeners' work included). */
  settled(): Promise<void>;
  /** Stops taking requests, lets in-flight work finish (up to `graceMs`), then closes. */
  stop(graceMs?: number): Promise<void>;
}

export function createSlackApp(parts: SlackAppParts): SlackApp {
  const { config, receiver, authorization, inFlight, logger } = parts;
  const socketMode = Boolean(config.slack.appToken);
  let httpServer: Server | undefined;
  // No conversation store: nothing here uses conversation context, and Bolt would touch it on every event.
  const app = new App({ authorize: authorization.authorize, receiver, logger: parts.boltLogger, clientOptions: parts.clientOptions, convoStore: false });

  parts.instrument?.(app);
  // Every delivery is in flight from when the receiver hands it over: tracked around processEvent, outside the
  // hooks, rather than by a middleware (every middleware is a step of every delivery).
  const processEvent = app.processEvent.bind(app);
  app.processEvent = (event) => inFlight.track(processEvent(event));
  registerListeners(app, parts.context);
  app.error((error) => {
    logger.error('unhandled error in a listener', { error });
    return Promise.resolve();
  });

  return {
    app,
    async start(listen = config.slack.port) {
      // Learnt in the background: a slow or unreachable Slack must not delay serving.
      void authorization.learn();
      if (socketMode) {
        // Socket Mode cannot serve without Slack: start-up fails, saying where and what to check.
        await app.start().catch((error: unknown) => {
          throw new Error(explainSlackFailure(error, { apiUrl: config.slack.apiUrl, method: 'apps.connections.open', token: 'SLACK_APP_TOKEN' }), {
            cause: error,
          });
        });
        return { port: null };
      }
      const server = (await app.start(listen)) as unknown as Server;
      httpServer = server;
      const address = server.address();
      return { port: typeof address === 'object' && address ? address.port : typeof listen === 'number' ? listen : listen.port };
    },
    async settled() {
      await inFlight.settled();
    },
    async stop(graceMs = 10_000) {
      const deadline = new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref());
      if (socketMode) {
        // In Socket Mode acks travel over the socket, and a form's ack ("Done")
        // comes at the end of its work: hang up only once in-flight work is done.
        await Promise.race([inFlight.drain(), deadline]);
        await app.stop().catch((error: unknown) => logger.warn('error while stopping the receiver', { error }));
        return;
      }
      // Stop accepting first; idle keep-alive sockets would hold close() open.
      const stopping = app.stop().catch((error: unknown) => logger.warn('error while stopping the receiver', { error }));
      httpServer?.closeIdleConnections();
      await Promise.race([inFlight.settled(), deadline]);
      httpServer?.closeAllConnections();
      await stopping;
    },
  };
}
