import { request } from 'undici';
import { sign, signatureHeaders } from '@vs-chatops/slack-standin';

export { sign };

// Sends a body to the bot as Slack does: signed with v0=HMAC-SHA256(signing
// secret, "v0:<timestamp>:<body>") (or forged, stale, unsigned, on request).
// The bodies themselves are built in payloads.ts.

export interface SlackRequestOptions {
  /** Override the signature (forged requests). */
  signature?: string;
  /** Seconds since the epoch; defaults to now (stale requests use an old one). */
  timestamp?: number;
  /** Leave the signature headers out entirely. */
  unsigned?: boolean;
  /** More headers, e.g. Slack's X-Slack-Retry-Num; a list of values sends the header once per value. */
  headers?: Record<string, string | string[]>;
  /** How long to wait for the answer's headers before failing (undici's 300 s by default). */
  within?: number;
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
  const headers: Record<string, string | string[]> = { 'content-type': contentType, ...options.headers };
  if (!options.unsigned) {
    const signed = signatureHeaders(secret, body, options.timestamp);
    Object.assign(headers, signed, options.signature ? { 'x-slack-signature': options.signature } : {});
  }
  const started = performance.now();
  const res = await request(url, { method: 'POST', headers, body, ...(options.within ? { headersTimeout: options.within } : {}) });
  const text = await res.body.text();
  return {
    status: res.statusCode,
    body: text,
    json: (): unknown => (text ? JSON.parse(text) : undefined),
    ms: performance.now() - started,
  };
}
