import type { WebClient } from '@slack/web-api';
import { CHANGES, isChangeAction, targetIdIn, targetTitle } from '../changes';
import type { Follower, FollowReporter } from '../follow';
import type { Logger } from '../log';
import type { FollowedChange } from '../store';
import { CHANGE_FORMS } from './blocks/change-forms';
import { renderFollowedChange, renderFollowEnded, type FollowRendering, type FollowView } from './blocks/followed';
import type { Rendered } from './blocks/mrkdwn';
import { postToChannel, slackErrorSummary, type Destination } from './channel-post';
import type { Config } from '../config';
import { postMessage, updateMessage } from './send';

// The Slack side of a followed change (docs/product.md, Following a change to
// its end): its message is posted with chat.postMessage when the cloud accepts
// the change, and its channel and ts remembered (never a response_url: it
// expires in 30 minutes and is a capability), so that whichever instance
// follows it updates it in place (chat.update) and, when it ends, replies in its
// thread. The follower (src/follow) calls this through its FollowReporter port.

export interface FollowMessageParts {
  client: WebClient;
  /** The control panel's base URL (VS_PANEL_URL, resolved). */
  panelUrl: string;
  config: Pick<Config, 'follow'>;
  /** Read when each message is rendered. */
  sandbox: () => boolean;
  logger: Logger;
  /** A server's label as the name index knows it (no read): the message says "web-1 (VS 42)". */
  labelOf?: (vsId: number) => string | null;
}

/** The words a followed change's message is rendered with; null for an action this version does not know. */
function rendering(
  change: Pick<FollowedChange, 'action' | 'target'>,
  parts: Omit<FollowMessageParts, 'client' | 'logger'>,
  followed = true,
): FollowRendering | null {
  if (!isChangeAction(change.action)) return null;
  const { targetKind } = CHANGES[change.action];
  const id = targetIdIn(change.target, targetKind);
  const form = CHANGE_FORMS[change.action];
  return {
    title: form.title,
    targetTitle: id === null ? change.target : targetTitle({ kind: targetKind, id, label: targetKind === 'vs' ? parts.labelOf?.(id) : null }),
    words: form.followed,
    panelUrl: parts.panelUrl,
    maxMinutes: Math.round(parts.config.follow.maxMs / 60_000),
    followed,
    sandbox: parts.sandbox(),
  };
}

/** A followed change's message, rendered as it stands; null for an action this version does not know. */
export function followedMessage(
  change: FollowView & Pick<FollowedChange, 'target'>,
  parts: Omit<FollowMessageParts, 'client' | 'logger'>,
  followed = true,
): Rendered | null {
  const r = rendering(change, parts, followed);
  return r ? renderFollowedChange(change, r) : null;
}

/** The port the follower tells through: update the message in place, post it anew, reply in its thread. */
export function followReporter(parts: FollowMessageParts): FollowReporter {
  const { client } = parts;
  const log = parts.logger.child({ component: 'follow-messages' });
  const failed = (what: string, change: FollowedChange, error: unknown) => {
    log.warn(`could not ${what}`, { record: change.recordId, channel: change.channelId, error: slackErrorSummary(error) });
    return false as const;
  };
  return {
    async show(change) {
      const message = followedMessage(change, parts);
      if (!message || !change.channelId || !change.messageTs) return false;
      try {
        await updateMessage(client, { channel: change.channelId, ts: change.messageTs, text: message.text, blocks: message.blocks });
        return true;
      } catch (error) {
        return failed('update the message of a followed change', change, error);
      }
    },
    async post(change) {
      const message = followedMessage(change, parts);
      if (!message || !change.channelId) return null;
      try {
        return (await postMessage(client, { channel: change.channelId, text: message.text, blocks: message.blocks })) ?? null;
      } catch (error) {
        failed('post the message of a followed change', change, error);
        return null;
      }
    },
    async reply(change) {
      const r = rendering(change, parts);
      if (!r || !change.channelId || !change.messageTs) return false;
      const message = renderFollowEnded(change, r);
      try {
        await postMessage(client, { channel: change.channelId, thread_ts: change.messageTs, text: message.text, blocks: message.blocks });
        return true;
      } catch (error) {
        return failed('reply in the thread of a followed change', change, error);
      }
    },
  };
}

/**
 * Posts a change the cloud just accepted where it was asked for, as "scheduled", and remembers the message for the
 * follower. chat.postMessage gives the message's ts (chat:write.public reaches public channels the bot is not in);
 * where Slack refuses it (a private channel without the bot), the result still goes out through the response_url,
 * but cannot be updated later: its end is then in the audit trail only. False (logged) when nothing was posted.
 */
export async function postAcceptedChange(
  o: {
    config: Config;
    client: WebClient;
    follower: Pick<Follower, 'setMessage'>;
    panelUrl: string;
    sandbox: boolean;
    log: Logger;
    labelOf?: (vsId: number) => string | null;
  },
  to: Destination,
  accepted: FollowView & Pick<FollowedChange, 'target' | 'recordId'>,
  followed: boolean,
): Promise<boolean> {
  const parts = { panelUrl: o.panelUrl, config: o.config, sandbox: () => o.sandbox, ...(o.labelOf ? { labelOf: o.labelOf } : {}) };
  const message = followedMessage(accepted, parts, followed);
  if (!message) return false;
  if (to.channelId) {
    try {
      const ts = await postMessage(o.client, { channel: to.channelId, text: message.text, blocks: message.blocks });
      if (ts && followed) {
        await o.follower.setMessage(accepted.recordId, to.channelId, ts).catch((error: unknown) => {
          // The follower then posts its end anew, in the same channel, after a grace period.
          o.log.warn('could not remember the message of a followed change', { record: accepted.recordId, error });
        });
      }
      return true;
    } catch (error) {
      o.log.info('could not post the accepted change with chat.postMessage; using the response_url (not updated later)', { error: slackErrorSummary(error) });
    }
  }
  return postToChannel(o.config, o.client, { channelId: undefined, responseUrl: to.responseUrl }, message, o.log);
}
