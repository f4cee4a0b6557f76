import { App, HTTPReceiver, LogLevel, type CustomRoute } from '@slack/bolt';
import type { TargetEnv } from './target-env';

// A bare Bolt app over its HTTP receiver, configured as the bot configures
// its own (signing secret, /slack/events, /healthz, ack before processing).

const healthz: CustomRoute = {
  path: '/healthz',
  method: ['GET'],
  handler: (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"status":"ok"}');
  },
};

export function createBareBoltApp(env: TargetEnv): App {
  const receiver = new HTTPReceiver({
    signingSecret: env.signingSecret,
    endpoints: '/slack/events',
    customRoutes: [healthz],
    processBeforeResponse: false,
    logLevel: LogLevel.ERROR,
  });
  return new App({ token: env.botToken, receiver, logLevel: LogLevel.ERROR, clientOptions: { slackApiUrl: env.slackApiUrl } });
}
