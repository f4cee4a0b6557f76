import type { AutoscalingSlot, FirewallRule } from '../../cloud/schemas';
import { RESOURCES } from './autoscaling';
import { commandCounts } from './firewall';

// A server's firewall and autoscaling, each in one line, in the words the
// slash commands use: for a link's card, and for whatever else must say it
// short (a workflow step's `summary`). A line holds no markup of its own and
// its API text is escaped and kept on one line, so it may go as it is into
// mrkdwn, a notification's text or a plain-text output: nothing in it can
// mention anyone or link anywhere.

export interface FirewallSummary {
  /** "8 rules on 2 network interfaces: 6 ACCEPT, 2 DROP" */
  line: string;
  ruleCount: number;
}

export interface AutoscalingSummary {
  /** "2 of 6 rules configured: Memory up, CPU down" */
  line: string;
  configuredCount: number;
}

export function summarizeFirewall(rules: readonly FirewallRule[]): FirewallSummary {
  const ruleCount = rules.length;
  if (ruleCount === 0) return { line: "no rules: each network interface's default applies (the API does not show it)", ruleCount };
  const interfaces = new Set(rules.map((r) => r.network_interface_id)).size;
  const disabled = rules.filter((r) => r.enabled === false).length;
  const line =
    `${ruleCount} rule${ruleCount === 1 ? '' : 's'} on ${interfaces} network interface${interfaces === 1 ? '' : 's'}: ${commandCounts(rules)}` +
    (disabled > 0 ? ` (${disabled} disabled)` : '');
  return { line, ruleCount };
}

export function summarizeAutoscaling(slots: readonly AutoscalingSlot[]): AutoscalingSummary {
  const configured: string[] = [];
  for (const { resource, name } of RESOURCES) {
    for (const scale of ['up', 'down'] as const) {
      if (slots.some((s) => s.resource === resource && s.scale_type === scale && s.configured)) configured.push(`${name} ${scale}`);
    }
  }
  const configuredCount = configured.length;
  return { line: `${configuredCount} of 6 rules configured${configuredCount > 0 ? `: ${configured.join(', ')}` : ''}`, configuredCount };
}
