import type { Logger as BoltLogger } from '@slack/bolt';
import { WebClient, type WebClientOptions } from '@slack/web-api';
import type { Config } from '../config';

// The Web API client must not stall a listener for minutes on Slack outages.
// A 429 is rejected at once: waiting out its Retry-After (often 30–60 s, and
// once per retry) pauses the client's whole queue, so every listener would
// wait, and a trigger_id is dead after 3 s anyway. Callers log it and move on.
const WEB_API_OPTIONS: WebClientOptions = {
  retryConfig: { retries: 2, factor: 2, minTimeout: 250, maxTimeout: 2000, randomize: true },
  timeout: 10_000,
  rejectRateLimitedCalls: true,
};

/** The options of every Web API client of the bot: Bolt's per-request clients and the bot's own. */
export function webApiOptions(config: Config): WebClientOptions {
  return { ...WEB_API_OPTIONS, ...(config.slack.apiUrl ? { slackApiUrl: config.slack.apiUrl } : {}) };
}

/** The bot's own client, for calls made outside a listener (group lookups, membership checks, audit posts). */
export function createBotClient(config: Config, logger: BoltLogger): WebClient {
  return new WebClient(config.slack.botToken, { ...webApiOptions(config), logger });
}
