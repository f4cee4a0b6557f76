import type { Authorize } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../log';
import { slackErrorSummary } from './channel-post';
import { explainSlackFailure } from './explain-slack-failure';

export interface BotAuthorization {
  authorize: Authorize<boolean>;
  /** Asks Slack for the bot's ids (auth.test); never throws. */
  learn: () => Promise<void>;
  /** The workspace the bot token belongs to, once auth.test said; undefined before, and for an org-wide install (which has none). */
  teamId: () => string | undefined;
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
/**
 * `needsTeam`: SLACK_TEAM_ID is unset, so the workspace served is the token's own (src/slack/workspaces.ts), and
 * requests are refused until auth.test names it.
 */
export function botAuthorization(client: WebClient, botToken: string, logger: Logger, { needsTeam = false }: { needsTeam?: boolean } = {}): BotAuthorization {
  let identity: { botUserId?: string; botId?: string } = {};
  let team: string | undefined;
  let known = false;
  let pending: Promise<void> | undefined;
  const learn = (): Promise<void> =>
    (pending ??= client.auth
      .test()
      .then((res) => {
        identity = { ...(res.user_id ? { botUserId: res.user_id } : {}), ...(res.bot_id ? { botId: res.bot_id } : {}) };
        if (res.is_enterprise_install !== true) team = res.team_id;
        else if (needsTeam)
          logger.error(
            'the bot token is an org-wide install, which belongs to no one workspace: ' +
              'set SLACK_TEAM_ID and VS_ALLOWED_TEAMS to the workspaces it serves; until then requests are refused',
          );
        known = true;
      })
      .catch((error: unknown) => {
        const explanation = explainSlackFailure(error, { apiUrl: client.slackApiUrl, method: 'auth.test', token: 'SLACK_BOT_TOKEN' });
        const meanwhile = needsTeam ? ' (refusing requests until it knows its workspace: set SLACK_TEAM_ID to serve without asking Slack)' : '';
        logger.warn(`auth.test failed: ${explanation}; the bot keeps serving and tries again on the next request${meanwhile}`, {
          error: slackErrorSummary(error),
        });
      })
      .finally(() => {
        pending = undefined;
      }));
  return {
    learn,
    teamId: () => team,
    authorize: () => {
      if (!known) void learn();
      return Promise.resolve({ botToken, ...identity });
    },
  };
}
