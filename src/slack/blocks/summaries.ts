import type { PowerState } from '../../changes';
import type { Frozen } from '../../cloud/reads';
import type { AutoscalingSlot, FirewallRule, Server, Transaction } from '../../cloud/schemas';
import { RESOURCES } from './autoscaling';
import { commandCounts } from './firewall';
import { sizeFromMb } from './measures';
import { oneLine, safe } from './mrkdwn';
import { POWER_STATE_WORDS } from './power';
import { transactionText } from './transactions';

// A server's firewall and autoscaling, each in one line, in the words the
// slash commands use: for a link's card, and for whatever else must say it
// short (a workflow step's `summary`). A line holds no markup of its own and
// its API text is escaped and kept on one line, so it may go as it is into
// mrkdwn, a notification's text or a plain-text output: nothing in it can
// mention anyone or link anywhere.

export interface ServerSummary {
  /** "web-1.prod", escaped; null when the cloud gives none. */
  label: string | null;
  /** "on, not locked", "on, locked: taking an incremental backup is running" */
  state: string;
  /** "4 GB memory, 2 CPUs, 22 GB disk · 203.0.113.42, 10.20.0.42" */
  size: string;
}

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

/** A server's name and state, and its size and addresses, each in words (`running`: the transaction that locks it, when known). */
export function summarizeServer(server: Frozen<Server>, power: PowerState, running?: Pick<Transaction, 'action'>): ServerSummary {
  const lock = server.locked !== true ? 'not locked' : running ? `locked: ${transactionText(running.action)} is running` : 'locked by a running transaction';
  const size = [
    server.memory != null ? `${sizeFromMb(server.memory)} memory` : null,
    server.cpus != null ? `${server.cpus} CPU${server.cpus === 1 ? '' : 's'}` : null,
    server.total_disk_size != null ? `${server.total_disk_size} GB disk` : null,
  ].filter((part) => part !== null);
  const addresses = server.ip_addresses.slice(0, 4).map((ip) => safe(oneLine(ip.address), 45));
  return {
    label: server.label ? safe(oneLine(server.label).trim(), 80) || null : null,
    state: `${POWER_STATE_WORDS[power]}, ${lock}`,
    size: [size.join(', '), addresses.join(', ')].filter((part) => part !== '').join(' · '),
  };
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

/** The most rules `describeFirewall` names on one network interface; the rest are counted. */
export const DESCRIBED_RULES = 12;

const VERBS: Readonly<Record<string, string>> = { ACCEPT: 'accepts', DROP: 'drops', REJECT: 'rejects' };

/**
 * What the firewall lets in, briefly, in position order: "accepts 443/tcp from anywhere, 22/tcp from 10.0.0.0/8;
 * drops 23/tcp from anywhere". Consecutive rules of one command are one clause, and of one source one list of ports;
 * disabled rules are left out; each network interface is named when there are several.
 */
export function describeFirewall(rules: readonly FirewallRule[]): string {
  const enabled = rules.filter((r) => r.enabled !== false);
  if (enabled.length === 0) return "no rule applies: each network interface's default does (the API does not show it)";
  const interfaces = [...new Set(enabled.map((r) => r.network_interface_id))].sort((a, b) => a - b);
  const described = interfaces.map((nic) => {
    const own = enabled.filter((r) => r.network_interface_id === nic).sort((a, b) => a.position - b.position || a.id - b.id);
    const text = clauses(own.slice(0, DESCRIBED_RULES));
    const more = own.length - DESCRIBED_RULES;
    return more > 0 ? `${text}; and ${more} more rule${more === 1 ? '' : 's'}` : text;
  });
  return interfaces.length === 1 ? described[0]! : interfaces.map((nic, i) => `interface ${nic}: ${described[i]}`).join(' · ');
}

/** Runs of one command, each "accepts <ports> from <source>, <ports> from <source>". */
function clauses(rules: readonly FirewallRule[]): string {
  const out: string[] = [];
  let command: string | undefined;
  let sources: { source: string; ports: string[] }[] = [];
  const flush = () => {
    if (command === undefined) return;
    const verb = VERBS[command] ?? safe(oneLine(command), 20);
    out.push(`${verb} ${sources.map(({ source, ports }) => `${ports.join(', ')}${source}`).join(', ')}`);
  };
  rules.forEach((rule, i) => {
    const ruleCommand = oneLine(rule.command.trim().toUpperCase());
    if (ruleCommand !== command) {
      flush();
      command = ruleCommand;
      sources = [];
    }
    const protocol = safe(oneLine(rule.protocol.trim().toLowerCase()), 10);
    // "all other tcp" says "from anywhere" already.
    const everything = rule.port === null && rule.address === null;
    const source = everything ? '' : rule.address === null ? ' from anywhere' : ` from ${safe(oneLine(rule.address), 60)}`;
    const ports =
      rule.port === null ? `all${i > 0 ? ' other' : ''} ${protocol}` : `${safe(oneLine(rule.port.trim()).replace(/\s*:\s*/g, '-'), 40)}/${protocol}`;
    const last = sources[sources.length - 1];
    if (last?.source === source) last.ports.push(ports);
    else sources.push({ source, ports: [ports] });
  });
  flush();
  return out.join('; ');
}
