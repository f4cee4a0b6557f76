import type { KnownBlock } from '@slack/types';
import { request } from 'undici';
import { CodedError } from '../errors';
import { markSandbox } from './blocks/mrkdwn';
import { checkedMessage } from './send';

// Answers go to the response_url Slack gave with the request, and only when
// it is Slack's: https://hooks.slack.com, or the origin of SLACK_API_URL (a
// proxy in front of Slack; the stand-in of the tests and of local mode). A
// response_url is a part of the request like any other: were the bot to post
// wherever one pointed, whoever got a request signed with another host in it
// would have our answers (servers, rules, the audit trail) carried there.
// Posted with undici rather than Bolt's respond(), which goes through fetch:
// measured at about three times the cost per post under load (bench/, Performance).

export interface ResponsePayload {
  response_type?: 'in_channel' | 'ephemeral';
  replace_original?: boolean;
  text: string;
  blocks?: KnownBlock[];
}

export type Respond = (payload: ResponsePayload) => Promise<void>;

export class ResponseUrlError extends CodedError {
  override readonly name = 'ResponseUrlError';
  readonly code = 'SLACK_RESPONSE_URL_REFUSED';
  constructor(
    readonly status: number,
    /** Slack's word for it, from the answer's body (`invalid_blocks`, `expired_url`, `used_url`…); undefined when it said none. */
    readonly slackError?: string,
  ) {
    super(`the response_url answered HTTP ${status}${slackError ? ` (${slackError})` : ''}`);
  }
}

/** Posting to a response_url that is not Slack's was asked for: nothing was posted (and the URL is not said). */
export class ResponseUrlNotSlackError extends CodedError {
  override readonly name = 'ResponseUrlNotSlackError';
  readonly code = 'SLACK_RESPONSE_URL_NOT_SLACK';
  constructor() {
    super("the response_url is not Slack's (https://hooks.slack.com, or SLACK_API_URL's origin): nothing was posted to it");
  }
}

const TIMEOUT_MS = 5000;

/** Where Slack's response_urls start: its hooks host, then SLACK_API_URL's origin when set. Kept for the last SLACK_API_URL asked about. */
let slackPrefixes: { apiUrl: string | undefined; prefixes: readonly string[] } = { apiUrl: undefined, prefixes: ['https://hooks.slack.com/'] };

/**
 * Whether a response_url is Slack's: on https://hooks.slack.com, or on the origin of SLACK_API_URL (`slackApiUrl`).
 * Compared as a prefix ending in the `/` after the host: whatever follows it, the host is that one.
 */
export function isSlackResponseUrl(url: string, slackApiUrl: string | undefined): boolean {
  if (slackPrefixes.apiUrl !== slackApiUrl) {
    const prefixes = ['https://hooks.slack.com/'];
    if (slackApiUrl) prefixes.push(`${new URL(slackApiUrl).origin}/`);
    slackPrefixes = { apiUrl: slackApiUrl, prefixes };
  }
  return slackPrefixes.prefixes.some((prefix) => url.startsWith(prefix));
}

/** The JSON of frozen blocks, kept as long as they live: a page shared by every command that shared its answer (once-per-answer.ts). */
const frozenBlocksJson = new WeakMap<readonly KnownBlock[], string>();

/** `JSON.stringify(payload)`, with frozen blocks turned into JSON once: they cannot change after the first post. */
export function payloadJson(payload: ResponsePayload): string {
  const { blocks, ...rest } = payload;
  if (blocks === undefined || !Object.isFrozen(blocks)) return JSON.stringify(payload);
  let json = frozenBlocksJson.get(blocks);
  if (json === undefined) {
    json = JSON.stringify(blocks);
    frozenBlocksJson.set(blocks, json);
  }
  const head = JSON.stringify(rest);
  return `${head.slice(0, -1)}${head === '{}' ? '' : ','}"blocks":${json}}`;
}

/** Posts to a response_url that is Slack's (`slackApiUrl`: SLACK_API_URL); throws ResponseUrlNotSlackError for any other. */
export async function postToResponseUrl(url: string, payload: ResponsePayload, slackApiUrl: string | undefined): Promise<void> {
  if (!isSlackResponseUrl(url, slackApiUrl)) throw new ResponseUrlNotSlackError();
  // What Slack would refuse is not sent (src/slack/send.ts): the caller hears it as a refusal.
  checkedMessage(payload, 'the answer');
  const res = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: payloadJson(payload),
    headersTimeout: TIMEOUT_MS,
    bodyTimeout: TIMEOUT_MS,
  });
  if (res.statusCode < 300) return void (await res.body.dump());
  // Slack says why in a word (invalid_blocks, expired_url…); anything else is not kept.
  const said = (await res.body.text().catch(() => '')).trim();
  throw new ResponseUrlError(res.statusCode, /^[a-z_]{1,40}$/.test(said) ? said : undefined);
}

/**
 * A respond function for one response_url of Slack's (`slackApiUrl`: SLACK_API_URL); on the sandbox every answer
 * carries the notice. Asked at each answer: the cloud API may say it is the sandbox only in the answer this very
 * message reports.
 */
export function responder(url: string, slackApiUrl: string | undefined, sandbox: () => boolean): Respond {
  return (payload) => postToResponseUrl(url, markSandbox(payload, sandbox()), slackApiUrl);
}
