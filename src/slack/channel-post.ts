import type { WebClient } from '@slack/web-api';
import type { Rendered } from './blocks/mrkdwn';
import type { Config } from '../config';
import type { Logger } from '../log';
import { isSlackResponseUrl, postToResponseUrl, ResponseUrlError } from './response-url';
import { postEphemeralMessage, postMessage } from './send';

// Results of changes go to the channel the change was asked from. The slash
// command's response_url works there even when the bot is not a member; when
// it is missing or expired, chat.postMessage to the channel is the fallback.

export interface Destination {
  channelId: string | undefined;
  responseUrl: string | undefined;
}

export async function postToChannel(config: Config, client: WebClient, to: Destination, message: Rendered, log: Logger): Promise<boolean> {
  // A form's response_url comes back in its private_metadata, or in the submission: Slack's only (response-url.ts).
  if (to.responseUrl && isSlackResponseUrl(to.responseUrl, config.slack.apiUrl)) {
    try {
      await postToResponseUrl(to.responseUrl, { response_type: 'in_channel', replace_original: false, ...message }, config.slack.apiUrl);
      return true;
    } catch (error) {
      if (error instanceof ResponseUrlError) log.warn('response_url refused the result; posting to the channel instead', { status: error.status });
      else log.warn('response_url unreachable; posting to the channel instead', { error: slackErrorSummary(error) });
    }
  }
  if (!to.channelId) return false;
  try {
    await postMessage(client, { channel: to.channelId, text: message.text, blocks: message.blocks });
    return true;
  } catch (error) {
    log.warn('could not post the result to the channel', { channel: to.channelId, error: slackErrorSummary(error) });
    return false;
  }
}

/** Tells one user something in a channel, quietly; false when Slack would not. */
export async function postEphemeral(client: WebClient, channelId: string | undefined, userId: string, message: Rendered, log: Logger): Promise<boolean> {
  if (!channelId) return false;
  try {
    await postEphemeralMessage(client, { channel: channelId, user: userId, text: message.text, blocks: message.blocks });
    return true;
  } catch (error) {
    log.warn('could not post an ephemeral message', { channel: channelId, error: slackErrorSummary(error) });
    return false;
  }
}

export function slackErrorSummary(error: unknown): { code?: string; error?: string; message: string } {
  if (error instanceof Error) {
    const e = error as Error & { code?: string; data?: { error?: string } };
    return { code: e.code, error: e.data?.error, message: e.message };
  }
  return { message: String(error) };
}
