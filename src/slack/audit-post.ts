import type { Logger as BoltLogger } from '@slack/bolt';
import { WebClient } from '@slack/web-api';
import type { Config } from '../config';
import { postFailure, type PostAudit } from '../ops/audit-outbox';
import { renderAuditPost, renderDenialSummary } from './blocks/audit';
import { markSandbox } from './blocks/mrkdwn';
import { postMessage } from './send';
import { webApiOptions } from './web-api';

/**
 * How the audit outbox (src/ops/audit-outbox.ts) posts to VS_AUDIT_CHANNEL:
 * rendered here, sent with a client of its own that neither retries nor
 * waits out a 429, since the outbox does both, durably, and must learn of
 * Slack's Retry-After rather than sit in a queue behind it.
 */
export function auditChannelPoster(config: Config, parts: { channel: string; sandbox: () => boolean; logger: BoltLogger }): PostAudit {
  const client = new WebClient(config.slack.botToken, {
    ...webApiOptions(config),
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    logger: parts.logger,
  });
  return async (post) => {
    const rendered = post.kind === 'record' ? renderAuditPost(post.record) : renderDenialSummary(post.userId, post.records);
    const message = markSandbox(rendered, parts.sandbox());
    try {
      await postMessage(client, { channel: parts.channel, text: message.text, blocks: message.blocks });
      return { ok: true };
    } catch (error) {
      return postFailure(error);
    }
  };
}
