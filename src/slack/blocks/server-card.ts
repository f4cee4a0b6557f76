import type { KnownBlock } from '@slack/types';
import type { AutoscalingSlot, FirewallRule } from '../../cloud/schemas';
import { code, mrkdwn, slackTime, withSandbox } from './mrkdwn';
import { summarizeAutoscaling, summarizeFirewall } from './summaries';

// The card a control-panel link to a server unfurls into: the server, its
// firewall rules in one line, its autoscaling in one line, and the commands
// that show more. Its text is verbatim, as all the bot's mrkdwn is: Slack does
// not turn what it quotes (a bare URL, a #channel, an @here) into links or
// mentions, on top of the escaping every summary line has.

export interface ServerCardView {
  vsId: number;
  rules: readonly FirewallRule[];
  slots: readonly AutoscalingSlot[];
  fetchedAt: Date;
  sandbox: boolean;
}

/** One unfurl of chat.unfurl's `unfurls` map: blocks only. */
export interface Unfurl {
  blocks: KnownBlock[];
}

export function renderServerCard({ vsId, rules, slots, fetchedAt, sandbox }: ServerCardView): Unfurl {
  const firewall = summarizeFirewall(rules);
  const autoscaling = summarizeAutoscaling(slots);
  const more = [`/vs firewall ${vsId}`, `/vs firewall ${vsId} <port>`, `/vs autoscaling ${vsId}`].map((command) => code(command)).join(' · ');
  const blocks: KnownBlock[] = [
    { type: 'section', text: mrkdwn(`*VS ${vsId}*\n*Firewall:* ${firewall.line}\n*Autoscaling:* ${autoscaling.line}`) },
    { type: 'context', elements: [mrkdwn(`More: ${more} · fetched ${slackTime(fetchedAt.getTime())}`)] },
  ];
  return { blocks: withSandbox(blocks, sandbox) };
}
