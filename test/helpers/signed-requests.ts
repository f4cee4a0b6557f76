import { request } from 'undici';
import { sign } from '../../src/local/signing';

export { sign };

// Builds requests exactly as Slack sends them: form-encoded bodies signed with
// v0=HMAC-SHA256(signing secret, "v0:<timestamp>:<body>").

export interface SlackRequestOptions {
  /** Override the signature (forged requests). */
  signature?: string;
  /** Seconds since the epoch; defaults to now (stale requests use an old one). */
  timestamp?: number;
  /** Leave the signature headers out entirely. */
  unsigned?: boolean;
  /** More headers, e.g. Slack's X-Slack-Retry-Num. */
  headers?: Record<string, string>;
}

export interface SlackHttpResponse {
  status: number;
  body: string;
  json: () => unknown;
  ms: number;
}

export async function postToSlackEndpoint(
  url: string,
  secret: string,
  body: string,
  contentType: string,
  options: SlackRequestOptions = {},
): Promise<SlackHttpResponse> {
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  const headers: Record<string, string> = { 'content-type': contentType, ...options.headers };
  if (!options.unsigned) {
    headers['x-slack-request-timestamp'] = String(timestamp);
    headers['x-slack-signature'] = options.signature ?? sign(secret, timestamp, body);
  }
  const started = performance.now();
  const res = await request(url, { method: 'POST', headers, body });
  const text = await res.body.text();
  return {
    status: res.statusCode,
    body: text,
    json: (): unknown => (text ? JSON.parse(text) : undefined),
    ms: performance.now() - started,
  };
}

export interface SlashCommandFields {
  text: string;
  user_id?: string;
  channel_id?: string;
  response_url: string;
  trigger_id?: string;
  command?: string;
}

export function slashCommandBody(fields: SlashCommandFields): string {
  return new URLSearchParams({
    token: 'legacy-verification-token',
    team_id: 'T1',
    team_domain: 'acme',
    channel_id: fields.channel_id ?? 'CINCIDENT',
    channel_name: 'incident-42',
    user_id: fields.user_id ?? 'UVIEWER',
    user_name: 'someone',
    command: fields.command ?? '/vs',
    text: fields.text,
    api_app_id: 'A1',
    is_enterprise_install: 'false',
    response_url: fields.response_url,
    trigger_id: fields.trigger_id ?? `trigger.${Date.now()}.${Math.random().toString(36).slice(2)}`,
  }).toString();
}

/** Interactive payloads (block_actions, view_submission, shortcut) travel as payload=<json>. */
export function interactiveBody(payload: unknown): string {
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}
