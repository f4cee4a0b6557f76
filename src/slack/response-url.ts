import type { KnownBlock } from '@slack/types';
import { request } from 'undici';
import { CodedError } from '../errors';
import { markSandbox } from './blocks/mrkdwn';

// Answers go to the response_url Slack gave with the request. Posted with
// undici rather than Bolt's respond(), which goes through fetch: measured at
// about three times the cost per post under load (bench/, Performance).

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
  constructor(readonly status: number) {
    super(`the response_url answered HTTP ${status} (expired or used up)`);
  }
}

const TIMEOUT_MS = 5000;

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

export async function postToResponseUrl(url: string, payload: ResponsePayload): Promise<void> {
  const res = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: payloadJson(payload),
    headersTimeout: TIMEOUT_MS,
    bodyTimeout: TIMEOUT_MS,
  });
  await res.body.dump();
  if (res.statusCode >= 300) throw new ResponseUrlError(res.statusCode);
}

/**
 * A respond function for one response_url; on the sandbox every answer carries
 * the notice. Asked at each answer: the cloud API may say it is the sandbox
 * only in the answer this very message reports.
 */
export function responder(url: string, sandbox: () => boolean): Respond {
  return (payload) => postToResponseUrl(url, markSandbox(payload, sandbox()));
}
