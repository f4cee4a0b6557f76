import type { KnownBlock } from '@slack/types';
import type { FirewallAddParams, FirewallPreview, FirewallRisk } from '../../changes/firewall-changes';
import type { FirewallRule } from '../../cloud/schemas';
import { ruleLine } from './firewall-rule';
import { FIREWALL_EXPORT_ACTION_ID } from './exports';
import { chunkLines, context, fallback, header, oneLine, safe, section, slackTime, withSandbox, type Rendered } from './mrkdwn';
import { buttonOutOfDate, pageOf, pager, serverPageValue } from './pages';

export const FIREWALL_PAGE_SIZE = 20;
export const FIREWALL_PAGE_ACTION_IDS = { prev: 'firewall_page_prev', next: 'firewall_page_next' } as const;
/** A firewall list's Prev/Next or Export CSV whose value no longer parses (an old message, or a hand-made payload). */
export const FIREWALL_BUTTON_OUT_OF_DATE = buttonOutOfDate('/vs firewall <vs_id>');

export interface FirewallView {
  vsId: number;
  rules: readonly FirewallRule[];
  /** 1-based; clamped into range. */
  page: number;
  fetchedAt: Date;
  sandbox: boolean;
}

/**
 * One page of a server's rules: sorted by position, grouped by network
 * interface, one scannable line per rule. Only the page's rules are
 * formatted, so a 10,000-rule server costs what a 20-rule one does.
 */
export function renderFirewallRules({ vsId, rules, page, fetchedAt, sandbox }: FirewallView): Rendered {
  const total = rules.length;
  const title = header(`Firewall rules · VS ${vsId}`);

  if (total === 0) {
    return {
      text: fallback(`VS ${vsId} has no firewall rules`, sandbox),
      blocks: withSandbox([title, section(`No firewall rules are set on VS ${vsId}.`), context(`fetched ${slackTime(fetchedAt.getTime())}`)], sandbox),
    };
  }

  const { page: current, pages, from, shown } = pageOf(sortedRules(rules), page, FIREWALL_PAGE_SIZE);
  const counted = `${total} rule${total === 1 ? '' : 's'}`;
  // "rules 1–1 of 1" says nothing on a one-page list: the page and the range are shown only when there are pages.
  const range = pages > 1 ? `rules ${from + 1}–${from + shown.length} of ${total}` : null;
  const paged = pages > 1 ? `page ${current} of ${pages} · ${range} · ` : '';
  const interfaces = new Set(rules.map((r) => r.network_interface_id)).size;

  const blocks: KnownBlock[] = [
    title,
    context(`${counted} on ${interfaces} network interface${interfaces === 1 ? '' : 's'} · ${paged}fetched ${slackTime(fetchedAt.getTime())}`),
  ];
  // One section per interface on this page; a section holds ≤ 3000 characters, so long ones are split.
  let group: { nic: number; lines: string[] } | undefined;
  const flush = () => {
    if (!group) return;
    for (const chunk of chunkLines(group.lines, 2900)) blocks.push(section(`*Network interface ${group.nic}*\n${chunk}`));
  };
  for (const rule of shown) {
    if (group?.nic !== rule.network_interface_id) {
      flush();
      group = { nic: rule.network_interface_id, lines: [] };
    }
    group.lines.push(ruleLine(rule));
  }
  flush();
  const exportAs = { actionId: FIREWALL_EXPORT_ACTION_ID, value: String(vsId) };
  blocks.push(pager({ blockId: 'firewall_pager', ids: FIREWALL_PAGE_ACTION_IDS, page: current, pages, valueOf: serverPageValue(vsId), exportAs }));

  return {
    text: fallback(
      `Firewall rules of VS ${vsId}: ${range ? `page ${current} of ${pages}, ${range}` : counted} (${commandCounts(shown)}${range ? ' on this page' : ''})`,
      sandbox,
    ),
    blocks: withSandbox(blocks, sandbox),
  };
}

/** "6 ACCEPT, 2 DROP": the commands as the rules name them (escaped, one line each), most frequent first, at most four. */
export function commandCounts(rules: readonly FirewallRule[]): string {
  const counts = new Map<string, number>();
  for (const r of rules) {
    const command = oneLine(r.command.trim().toUpperCase()) || '(no command)';
    counts.set(command, (counts.get(command) ?? 0) + 1);
  }
  return [...counts.entries()]
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
    .slice(0, 4)
    .map(([command, n]) => `${n} ${safe(command, 20)}`)
    .join(', ');
}

/** The rules in the order the summary and its export show them: by network interface, then position. */
export function sortedRules(rules: readonly FirewallRule[]): FirewallRule[] {
  return [...rules].sort((a, b) => a.network_interface_id - b.network_interface_id || a.position - b.position || a.id - b.id);
}

/** `/vs firewall block|allow` on a server whose rules name no network interface: the form must ask for it. */
export function noInterfaceText(vsId: number): string {
  const use = 'use the "Add a firewall rule" shortcut, which asks for it';
  return `VS ${vsId} has no firewall rules, so its network interface is not known here: ${use}. Nothing was asked of anyone.`;
}

/** `/vs firewall remove` of a rule the server does not have. */
export function noSuchRuleText(vsId: number, ruleId: number): string {
  return `Firewall rule ${ruleId} was not found on VS ${vsId} (\`/vs firewall ${vsId}\` lists its rules). Nothing was asked of anyone.`;
}

type RuleShown = Pick<FirewallRule, 'command' | 'address' | 'port' | 'protocol'>;

/** "ACCEPT anyone on 443/tcp", "DROP 203.0.113.5 on every port/udp": a rule in one phrase, escaped. */
export function rulePhrase(r: RuleShown): string {
  const address = r.address ? safe(oneLine(r.address), 60) : 'anyone';
  const port = r.port ? safe(oneLine(r.port), 60) : 'every port';
  return `${safe(oneLine(r.command.toUpperCase()), 10)} ${address} on ${port}/${safe(oneLine(r.protocol.toLowerCase()), 5)}`;
}

/**
 * What a new rule would do, given the rules as they are (docs/product.md, More of the control panel): "DROP
 * 203.0.113.5 on 443/tcp would not take effect: rule #3 (ACCEPT anyone on 443/tcp) decides first".
 */
export function firewallPreviewText(rule: Pick<FirewallAddParams, 'command' | 'address' | 'port' | 'protocol'>, preview: FirewallPreview): string {
  const asked = rulePhrase(rule);
  switch (preview.effect) {
    case 'overridden':
      return `:warning: ${asked} would not take effect: rule #${preview.by.position} (${rulePhrase(preview.by)}) decides first`;
    case 'already':
      return `:information_source: ${asked} would change nothing: rule #${preview.by.position} (${rulePhrase(preview.by)}) already decides it so`;
    case 'cannot_tell':
      return `:grey_question: Whether ${asked} takes effect cannot be told: rule #${preview.by.position} before it cannot be read`;
    case 'takes_effect':
      return preview.partly
        ? `:white_check_mark: ${asked} would take effect for the traffic no rule before it decides`
        : `:white_check_mark: ${asked} would take effect: no rule before it decides that traffic`;
  }
}

/** Why a rule asks for the second confirmation. */
export const FIREWALL_RISK_TEXT: Record<FirewallRisk, string> = {
  ssh_everyone: 'This rule drops every address on port 22 (SSH): nobody could log in to undo it. Tick the box below to confirm.',
  bot_access:
    "This rule drops an address the bot reaches the cloud API from (`VS_BOT_ADDRESSES`) on the API's port: the bot could no " +
    "longer read the cloud, this change's outcome included. Tick the box below to confirm.",
};
