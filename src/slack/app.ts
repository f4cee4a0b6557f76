import { App, HTTPReceiver, SocketModeReceiver, type Authorize, type CustomRoute, type Receiver } from '@slack/bolt';
import { WebClient, type WebClientOptions } from '@slack/web-api';
import { createChanges, createPolicy, type GroupDirectory } from '../changes';
import type { CloudClient } from '../cloud/client.types';
import type { Config } from '../config';
import type { Logger } from '../log';
import type { AuditRecord, AuditStore } from '../store/audit-store';
import { renderAuditPost } from './blocks/messages';
import { markSandbox } from './blocks/mrkdwn';
import { toBoltLogger } from './bolt-logger';
import { slackErrorSummary } from './channel-post';
import { explainSlackFailure } from './explain-slack-failure';
import type { ListenerContext } from './context';
import { registerListeners } from './listeners';
import { guardRequests, refuseUnprocessable } from './request-guard';

export interface SlackAppDeps {
  cloud: CloudClient;
  store: AuditStore;
  logger: Logger;
  /** The cloud API is the built-in simulator: every message and modal says so. */
  sandbox: boolean;
  now?: () => number;
}

export interface SlackApp {
  app: App;
  /** Starts listening; in HTTP mode resolves with the bound port. */
  start(port?: number): Promise<{ port: number | null }>;
  /** Stops taking requests, lets in-flight work finish (up to `graceMs`), then closes. */
  stop(graceMs?: number): Promise<void>;
}

// The Web API client must not stall a listener for minutes on Slack outages.
// A 429 is rejected at once: waiting out its Retry-After (often 30–60 s, and
// once per retry) pauses the client's whole queue, so every listener would
// wait, and a trigger_id is dead after 3 s anyway. Callers log it and move on.
const WEB_API_OPTIONS: WebClientOptions = {
  retryConfig: { retries: 2, factor: 2, minTimeout: 250, maxTimeout: 2000, randomize: true },
  timeout: 10_000,
  rejectRateLimitedCalls: true,
};

export function createSlackApp(config: Config, deps: SlackAppDeps): SlackApp {
  const logger = deps.logger;
  const now = deps.now ?? (() => Date.now());
  const boltLogger = toBoltLogger(logger.child({ component: 'bolt' }));
  const clientOptions: WebClientOptions = { ...WEB_API_OPTIONS, ...(config.slack.apiUrl ? { slackApiUrl: config.slack.apiUrl } : {}) };
  let httpServer: import('node:http').Server | undefined;

  const healthz: CustomRoute = {
    path: '/healthz',
    method: ['GET'],
    handler: (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: 'ok', mode: config.slack.appToken ? 'socket' : 'http', sandbox: deps.sandbox }));
    },
  };

  const receiver: Receiver = config.slack.appToken
    ? new SocketModeReceiver({
        appToken: config.slack.appToken,
        logger: boltLogger,
        customRoutes: [healthz],
        installerOptions: { port: config.slack.port, clientOptions },
      })
    : new HTTPReceiver({
        signingSecret: config.slack.signingSecret ?? '',
        endpoints: '/slack/events',
        customRoutes: [healthz],
        logger: boltLogger,
        processBeforeResponse: false,
        processEventErrorHandler: refuseUnprocessable(logger.child({ component: 'http' })),
      });

  // The bot's own client, for calls made outside a listener (group lookups, audit posts).
  const botClient = new WebClient(config.slack.botToken, { ...clientOptions, logger: boltLogger });
  const authorization = botAuthorization(botClient, config.slack.botToken, logger);
  if (receiver instanceof HTTPReceiver) guardRequests(receiver, logger.child({ component: 'http' }));
  // No conversation store: nothing here uses conversation context, and Bolt would touch it on every event.
  const app = new App({ authorize: authorization.authorize, receiver, logger: boltLogger, clientOptions, convoStore: false });

  // Work still running after its ack; stop() waits for it.
  const inFlight = new Set<Promise<unknown>>();
  const track = <T>(p: Promise<T>): Promise<T> => {
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p)).catch(() => undefined);
    return p;
  };
  app.use(async ({ next }) => {
    await track(next());
  });

  const groups: GroupDirectory = {
    membersOf: async (groupId) => {
      const res = await botClient.usergroups.users.list({ usergroup: groupId });
      return res.users ?? [];
    },
  };
  const policy = createPolicy(config.roles, groups, { logger, now });
  const auditChannel = config.auditChannel;
  const postAudit = (record: AuditRecord) => {
    if (!auditChannel) return;
    const message = markSandbox(renderAuditPost(record), deps.sandbox);
    void track(
      botClient.chat.postMessage({ channel: auditChannel, text: message.text, blocks: message.blocks }).catch((error: unknown) => {
        logger.warn('could not post the audit record to the audit channel', { channel: auditChannel, record: record.id, error: slackErrorSummary(error) });
      }),
    );
  };
  const changes = createChanges({ cloud: deps.cloud, store: deps.store, policy, now, logger, onRecorded: postAudit });

  const ctx: ListenerContext = { config, cloud: deps.cloud, policy, changes, store: deps.store, logger, sandbox: deps.sandbox, now };
  registerListeners(app, ctx);
  app.error(async (error) => {
    logger.error('unhandled error in a listener', { error });
  });

  return {
    app,
    async start(port = config.slack.port) {
      // Learnt in the background: a slow or unreachable Slack must not delay serving.
      void authorization.learn();
      if (config.slack.appToken) {
        // Socket Mode cannot serve without Slack: start-up fails, saying where and what to check.
        await app.start().catch((error: unknown) => {
          throw new Error(explainSlackFailure(error, { apiUrl: config.slack.apiUrl, method: 'apps.connections.open', token: 'SLACK_APP_TOKEN' }), { cause: error });
        });
        return { port: null };
      }
      const server = (await app.start(port)) as unknown as import('node:http').Server;
      httpServer = server;
      const address = server.address();
      return { port: typeof address === 'object' && address ? address.port : port };
    },
    async stop(graceMs = 10_000) {
      const deadline = new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref());
      if (config.slack.appToken) {
        // In Socket Mode acks travel over the socket, and a form's ack ("Done")
        // comes at the end of its work: hang up only once in-flight work is done.
        const drain = async () => {
          while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
        };
        await Promise.race([drain(), deadline]);
        await app.stop().catch((error: unknown) => logger.warn('error while stopping the receiver', { error }));
        return;
      }
      // Stop accepting first; idle keep-alive sockets would hold close() open.
      const stopping = app.stop().catch((error: unknown) => logger.warn('error while stopping the receiver', { error }));
      httpServer?.closeIdleConnections();
      await Promise.race([Promise.allSettled([...inFlight]), deadline]);
      httpServer?.closeAllConnections();
      await stopping;
    },
  };
}

/**
 * Bolt's default authorization (a `token` given to App) calls auth.test once,
 * at construction, and keeps that promise forever, a rejection included: a
 * Slack blip at start-up left the bot acking every request and running no
 * listener until it was restarted. Here the token is always the one
 * configured; the bot's ids (used only to ignore its own events) are learnt
 * from auth.test when Slack answers, retried on later requests when it did
 * not, and never awaited by a request, so the bot keeps answering through
 * response_urls while the Web API is down.
 */
export function botAuthorization(client: WebClient, botToken: string, logger: Logger): { authorize: Authorize<boolean>; learn: () => Promise<void> } {
  let identity: { botUserId?: string; botId?: string } = {};
  let known = false;
  let pending: Promise<void> | undefined;
  const learn = (): Promise<void> =>
    (pending ??= client.auth
      .test()
      .then((res) => {
        identity = { ...(res.user_id ? { botUserId: res.user_id } : {}), ...(res.bot_id ? { botId: res.bot_id } : {}) };
        known = true;
      })
      .catch((error: unknown) => {
        const explanation = explainSlackFailure(error, { apiUrl: client.slackApiUrl, method: 'auth.test', token: 'SLACK_BOT_TOKEN' });
        logger.warn(`auth.test failed: ${explanation}; the bot keeps serving and tries again on the next request`, { error: slackErrorSummary(error) });
      })
      .finally(() => {
        pending = undefined;
      }));
  return {
    learn,
    authorize: async () => {
      if (!known) void learn();
      return { botToken, ...identity };
    },
  };
}
