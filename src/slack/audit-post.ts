import type { WebClient } from '@slack/web-api';
import type { Logger } from '../log';
import type { AuditRecord } from '../store/audit-store';
import { renderAuditPost } from './blocks/messages';
import { markSandbox } from './blocks/mrkdwn';
import { slackErrorSummary } from './channel-post';
import type { InFlight } from './in-flight';

/** Hears of each audit record once it is written (the door's onRecorded). */
export type AuditSink = (record: AuditRecord) => void;

/**
 * Posts each record to VS_AUDIT_CHANNEL as it is written, once, best effort:
 * a failed post is logged and dropped. (A durable outbox replaces this sink.)
 */
export function auditChannelPoster(parts: { client: WebClient; channel: string | undefined; sandbox: boolean; logger: Logger; inFlight: InFlight }): AuditSink {
  const { client, channel, logger } = parts;
  return (record) => {
    if (!channel) return;
    const message = markSandbox(renderAuditPost(record), parts.sandbox);
    void parts.inFlight.track(
      client.chat.postMessage({ channel, text: message.text, blocks: message.blocks }).catch((error: unknown) => {
        logger.warn('could not post the audit record to the audit channel', { channel, record: record.id, error: slackErrorSummary(error) });
      }),
    );
  };
}
