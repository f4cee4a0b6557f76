import type { WebClient } from '@slack/web-api';
import type { Logger } from '../log';
import type { WatchTeller } from '../watch/poll';
import type { Rendered } from './blocks/mrkdwn';
import { renderQuietSummary, renderWatchNotice } from './blocks/watch';
import { slackErrorSummary } from './channel-post';
import { postMessage } from './send';

// The Slack side of watches (docs/product.md, Watches: the bot speaks first): the port src/watch tells through. A
// notification, and the summary of quiet hours, are posted in their channel with the bot's token; false when Slack
// would not take it (the poll gives its key back, or keeps the news, and says so in the log).

export function watchTeller(deps: { client: WebClient; sandbox: () => boolean; logger: Logger }): WatchTeller {
  const log = deps.logger.child({ component: 'watch' });
  const post = async (channel: string, message: Rendered): Promise<boolean> => {
    try {
      await postMessage(deps.client, { channel, text: message.text, blocks: message.blocks });
      return true;
    } catch (error) {
      log.warn('could not post a watch notification', { channel, error: slackErrorSummary(error) });
      return false;
    }
  };
  return {
    tell: (notice) => post(notice.channelId, renderWatchNotice(notice, deps.sandbox())),
    summarize: (channelId, lines) => post(channelId, renderQuietSummary(lines, deps.sandbox())),
  };
}
