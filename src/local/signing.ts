import { createHmac } from 'node:crypto';

/** Slack's request signature: v0=HMAC-SHA256(signing secret, "v0:<timestamp>:<body>"). */
export function sign(secret: string, timestamp: number, body: string): string {
  return 'v0=' + createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex');
}
