import { createHmac } from 'node:crypto';

/** Slack's request signature: v0=HMAC-SHA256(signing secret, "v0:<timestamp>:<body>"). */
export function sign(secret: string, timestamp: number, body: string): string {
  return 'v0=' + createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex');
}

/** The two headers that sign `body` as Slack does, at `timestamp` (seconds; now by default). */
export function signatureHeaders(secret: string, body: string, timestamp = Math.floor(Date.now() / 1000)): Record<string, string> {
  return { 'x-slack-request-timestamp': String(timestamp), 'x-slack-signature': sign(secret, timestamp, body) };
}
