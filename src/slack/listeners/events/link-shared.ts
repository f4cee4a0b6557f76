import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import { isCloudError } from '../../../cloud/errors';
import { serverState } from '../../../changes';
import { renderServerCard, type Unfurl } from '../../blocks/server-card';
import { summarizeServer } from '../../blocks/summaries';
import { slackErrorSummary } from '../../channel-post';
import { unfurlLinks } from '../../send';
import type { ListenerContext, Outcome, SlackRequest } from '../../context';
import { serverLinks } from './panel-links';

// link_shared: the control-panel links of a message, each unfurled into a
// card of its server (chat.unfurl), for a poster who may read (the needs
// middleware asked the policy and took one read of the poster's budget: a
// message is one look, like one command). The reads are the slash commands'
// client calls, single-flight, so a link pasted in many channels at once
// costs the cloud API one call per resource. A link to an unknown server or
// a cloud error unfurls into nothing: the poster asked nothing, so nobody is
// told; the log says why.

/** Servers unfurled from one message at most: each costs three cloud calls. */
export const MAX_SERVERS_PER_MESSAGE = 5;

type LinkSharedArgs = AllMiddlewareArgs & SlackEventMiddlewareArgs<'link_shared'>;

export async function unfurlServerLinks(ctx: ListenerContext, req: SlackRequest, { event, client }: LinkSharedArgs): Promise<Outcome> {
  const links = serverLinks(ctx.panelUrl, event.links);
  if (links.length === 0) {
    req.log.info('no server link under the control panel in this message; nothing to unfurl', { links: event.links.length, panel: ctx.panelUrl });
    return 'invalid';
  }
  const servers = [...new Set(links.map((link) => link.vsId))];
  if (servers.length > MAX_SERVERS_PER_MESSAGE)
    req.log.info('too many servers linked in one message; the first ones are unfurled', { servers: servers.length });
  const cards = new Map<number, Unfurl>();
  const failures: ('not_found' | 'failed')[] = [];
  await Promise.all(
    servers.slice(0, MAX_SERVERS_PER_MESSAGE).map(async (vsId) => {
      try {
        const [record, rules, slots] = await Promise.all([ctx.cloud.getServer(vsId), ctx.cloud.listFirewallRules(vsId), ctx.cloud.listAutoscaling(vsId)]);
        const server = summarizeServer(record, serverState(record).power);
        cards.set(vsId, renderServerCard({ vsId, server, rules, slots, fetchedAt: new Date(ctx.now()), sandbox: ctx.sandbox }));
      } catch (error) {
        const notFound = isCloudError(error) && error.kind === 'not_found';
        if (notFound) req.log.info('a linked server is not in the cloud; its link is not unfurled', { vsId, status: error.status, request: error.request });
        else req.log.warn('cloud API call failed; the link is not unfurled', { vsId, error });
        failures.push(notFound ? 'not_found' : 'failed');
      }
    }),
  );
  const unfurls: Record<string, Unfurl> = {};
  for (const { url, vsId } of links) {
    const card = cards.get(vsId);
    if (card) unfurls[url] = card;
  }
  if (Object.keys(unfurls).length === 0) return failures.every((f) => f === 'not_found') ? 'not_found' : 'failed';
  try {
    await unfurlLinks(client, { ...unfurlTarget(event), unfurls });
  } catch (error) {
    req.log.warn('Slack did not take the unfurl', { error: slackErrorSummary(error) });
    return 'failed';
  }
  return 'succeeded';
}

/** Where chat.unfurl attaches the cards: the link's unfurl_id and source when Slack gave them (the composer has no message yet), else the message. */
function unfurlTarget(event: LinkSharedArgs['event']): { unfurl_id: string; source: 'composer' | 'conversations_history' } | { channel: string; ts: string } {
  const { unfurl_id: unfurlId, source } = event;
  if (unfurlId && (source === 'composer' || source === 'conversations_history')) return { unfurl_id: unfurlId, source };
  return { channel: event.channel, ts: event.message_ts };
}
