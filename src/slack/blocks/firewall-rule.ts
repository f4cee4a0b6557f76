import type { FirewallAddParams, FirewallPreview, FirewallRisk } from '../../changes/firewall-changes';
import type { FirewallRule } from '../../cloud/schemas';
import { oneLine, safe } from './mrkdwn';

// One firewall rule in words, shared by the rules' summary, the port question's answer and the remove-rule form,
// apart from the summary (which imports the exports, and through them the audit's renderers).

/** "`#3` ✅ ACCEPT TCP from any to port 443 — Allow web (enabled, logging)" */
export function ruleLine(r: FirewallRule): string {
  const command = r.command.toUpperCase();
  const mark = command === 'ACCEPT' ? ':white_check_mark:' : command === 'DROP' || command === 'REJECT' ? ':no_entry:' : ':grey_question:';
  // Every value is flattened to one line: a newline in API data must not start a fake rule line.
  const address = r.address ? `\`${inCode(r.address, 60)}\`` : '*any*';
  const port = r.port ? `port \`${inCode(r.port, 60)}\`` : '*all ports*';
  const extras: string[] = [];
  if (r.enabled === false) extras.push('disabled');
  if (r.enable_logging === true) extras.push('logging');
  const description = r.description ? ` — ${safe(oneLine(r.description), 120)}` : '';
  const flags = extras.length ? ` _(${extras.join(', ')})_` : '';
  return `\`#${r.position}\` ${mark} *${safe(oneLine(command), 20)}* ${safe(oneLine(r.protocol), 10)} from ${address} to ${port}${description}${flags}`;
}

/** Text inside a code span: one line, escaped, and no backtick to close the span early. */
function inCode(s: string, max: number): string {
  return safe(oneLine(s), max).replace(/`/g, "'");
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
