import { z } from 'zod';
import type { FirewallRule } from '../cloud/schemas';
import { parseAddressForm, parseIp } from '../firewall/address';
import { prepareRules, type PreparedRules, type Protocol, type RuleRecord, type Verdict } from '../firewall/port-question';
import { parsePortForm, portFormIncludes, type PortForm } from '../firewall/ports';
import { intersect, isEmpty, sourcesOf } from '../firewall/sources';
import type { FormLimits, FormValidation, FormValues } from './disk-form';
import { MAX_REASON_LENGTH } from './restore-form';

// Firewall rules added and removed (docs/product.md, More of the control
// panel): the forms' values checked, and what a new rule would do given the
// rules as they are, worked out with the engine of `/vs firewall <vs> <port>`
// (first match in position order; a new rule lands at the end). Data only:
// src/slack/blocks words it.

export const MAX_FIREWALL_FIELD = 100;
const REASON_NEEDED = 'Say why: the reason is kept in the audit trail and shown to whoever approves';

export interface FirewallAddParams {
  network_interface_id: number;
  command: 'DROP' | 'ACCEPT';
  /** "" = every address. */
  address: string;
  /** "" = every port. */
  port: string;
  protocol: 'TCP' | 'UDP';
  reason: string;
  /** The second confirmation was given (a rule that cuts every address from port 22). */
  confirmed_risk: boolean;
}

export const StoredFirewallAdd = z.object({
  network_interface_id: z.number().int().positive(),
  command: z.enum(['DROP', 'ACCEPT']),
  address: z.string().max(MAX_FIREWALL_FIELD),
  port: z.string().max(MAX_FIREWALL_FIELD),
  protocol: z.enum(['TCP', 'UDP']),
  reason: z.string().max(MAX_REASON_LENGTH),
  confirmed_risk: z.boolean(),
});

export interface FirewallRemoveParams {
  rule_id: number;
  reason: string;
}

export const StoredFirewallRemove = z.object({ rule_id: z.number().int().positive(), reason: z.string().max(MAX_REASON_LENGTH) });

const text = (value: string | boolean | undefined): string => (typeof value === 'string' ? value.trim() : '');
const positiveId = (value: string | boolean | undefined): number | null => {
  const raw = text(value).replace(/^#/, '');
  const n = /^[0-9]{1,15}$/.test(raw) ? Number(raw) : NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : null;
};

function reasonOf(values: FormValues, errors: Record<string, string>): string {
  const reason = text(values.reason);
  if (reason === '') errors.reason = REASON_NEEDED;
  else if (reason.length > MAX_REASON_LENGTH) errors.reason = `At most ${MAX_REASON_LENGTH} characters`;
  return reason;
}

/**
 * Why a rule needs a second confirmation: it drops every address on port 22 (nobody could log in to fix it), or it
 * drops an address the bot reaches the cloud API from on the API's port (VS_BOT_ADDRESSES: the bot could no longer read
 * the cloud, this rule's own outcome included).
 */
export type FirewallRisk = 'ssh_everyone' | 'bot_access';

export function firewallRisk(
  params: Pick<FirewallAddParams, 'command' | 'address' | 'port' | 'protocol'>,
  limits?: Pick<FormLimits, 'botAccess'>,
): FirewallRisk | null {
  if (params.command !== 'DROP' || params.protocol !== 'TCP') return null;
  const address = parseAddressForm(params.address);
  const port = parsePortForm(params.port);
  if (address.kind === 'unreadable' || port.kind === 'unreadable') return null;
  if (address.kind === 'all' && portFormIncludes(port, 22)) return 'ssh_everyone';
  const bot = limits?.botAccess;
  if (bot && portFormIncludes(port, bot.port)) {
    const dropped = sourcesOf(address);
    const reaches = bot.addresses.some((a) => {
      const form = parseAddressForm(a);
      return form.kind !== 'unreadable' && !isEmpty(intersect(sourcesOf(form), dropped));
    });
    if (reaches) return 'bot_access';
  }
  return null;
}

/** The add-rule form checked: an address, CIDR or range (or empty), ports (or empty), TCP or UDP, DROP or ACCEPT, a reason. */
export function validateFirewallAddForm(values: FormValues, limits?: Pick<FormLimits, 'botAccess'>): FormValidation<FirewallAddParams> {
  const errors: Record<string, string> = {};
  const networkInterfaceId = positiveId(values.network_interface_id);
  if (networkInterfaceId === null) errors.network_interface_id = 'Pick the network interface the rule is for';
  const command = text(values.command).toUpperCase();
  if (command !== 'DROP' && command !== 'ACCEPT') errors.command = 'Choose DROP (block) or ACCEPT (allow)';
  const address = text(values.address);
  if (address.length > MAX_FIREWALL_FIELD || parseAddressForm(address).kind === 'unreadable') {
    errors.address = 'An address (203.0.113.5), a CIDR block (192.0.2.0/24) or a range (192.0.2.1-192.0.2.10); empty for every address';
  }
  const port = text(values.port).replace(/-/g, ':');
  if (port.length > MAX_FIREWALL_FIELD || parsePortForm(port).kind === 'unreadable') {
    errors.port = 'A port (443), a list (80,443) or a range (1024:1028), each 0–65535; empty for every port';
  }
  const protocol = text(values.protocol).toUpperCase();
  if (protocol !== 'TCP' && protocol !== 'UDP') errors.protocol = 'Choose TCP or UDP';
  const reason = reasonOf(values, errors);
  if (Object.keys(errors).length > 0) return { ok: false, fieldErrors: errors };
  const params = {
    network_interface_id: networkInterfaceId!,
    command: command as 'DROP' | 'ACCEPT',
    address,
    port,
    protocol: protocol as 'TCP' | 'UDP',
    reason,
    confirmed_risk: values.confirm_risk === true,
  };
  const risk = firewallRisk(params, limits);
  if (risk !== null && !params.confirmed_risk) return { ok: false, fieldErrors: { confirm_risk: RISK_UNCONFIRMED[risk] } };
  return { ok: true, params };
}

const RISK_UNCONFIRMED: Record<FirewallRisk, string> = {
  ssh_everyone: 'This rule drops every address on port 22 (SSH): tick the box to confirm that nobody needs to log in',
  bot_access: "This rule drops the bot's own address on the cloud API's port: tick the box to confirm that the bot may lose its reads",
};

/** The remove-rule form checked: the rule's id typed again, and a reason. */
export function validateFirewallRemoveForm(values: FormValues): FormValidation<FirewallRemoveParams> {
  const errors: Record<string, string> = {};
  const ruleId = positiveId(values.rule_id);
  if (ruleId === null) errors.confirm = 'The rule to remove is not known: open the form again with `/vs firewall remove <vs> <rule_id>`';
  else if (text(values.confirm).replace(/^#/, '') !== String(ruleId)) errors.confirm = `Type the rule id (${ruleId}) to confirm its removal`;
  const reason = reasonOf(values, errors);
  if (Object.keys(errors).length > 0) return { ok: false, fieldErrors: errors };
  return { ok: true, params: { rule_id: ruleId!, reason } };
}

/** A new rule's effect, given the rules as they are. */
export type FirewallPreview =
  /** The new rule decides the traffic it names (for `partly`: only what no rule above decided). */
  | { effect: 'takes_effect'; partly: boolean; port: number; protocol: Protocol }
  /** A rule above decides it the other way first: the new one would not take effect there. */
  | { effect: 'overridden'; by: RuleRecord; port: number; protocol: Protocol }
  /** A rule above decides it the same way already: nothing would change. */
  | { effect: 'already'; by: RuleRecord; port: number; protocol: Protocol }
  /** A rule above cannot be read: whether it decides first is not guessed. */
  | { effect: 'cannot_tell'; by: RuleRecord; port: number; protocol: Protocol };

const NEW_RULE_ID = -1;

/**
 * What the rule would do, added at the end of its interface's rules: for each port it names (a range by its first; every
 * port by the ports the interface's rules name, and 22), from its address (one address; otherwise every address it
 * covers). The first port where it would not take effect is the answer; else that it takes effect.
 */
export function previewFirewallRule(
  rules: readonly FirewallRule[],
  rule: Pick<FirewallAddParams, 'network_interface_id' | 'command' | 'address' | 'port' | 'protocol'>,
): FirewallPreview {
  // The interface's rules, and the new one after them: one array of our own, built once.
  const mine: RuleRecord[] = [];
  let last = 0;
  for (const r of rules) {
    if (r.network_interface_id !== rule.network_interface_id) continue;
    mine.push(r);
    if (r.position > last) last = r.position;
  }
  const position = last + 1;
  const added: RuleRecord = {
    id: NEW_RULE_ID,
    network_interface_id: rule.network_interface_id,
    position,
    address: rule.address,
    port: rule.port,
    protocol: rule.protocol,
    command: rule.command,
  };
  const protocol = rule.protocol.toLowerCase() as Protocol;
  const address = parseAddressForm(rule.address);
  const single = address.kind === 'interval' && address.first === address.last ? parseIp(rule.address.trim()) : null;
  const verdict: Verdict = rule.command === 'DROP' ? 'dropped' : 'accepted';
  let first: FirewallPreview | null = null;
  // Sorted and read once, then asked once per port (up to twenty): a server of 10,000 rules previews in milliseconds.
  mine.push(added);
  const prepared = prepareRules<RuleRecord>(mine);
  for (const port of portsToAsk(parsePortForm(rule.port), prepared)) {
    const answer = prepared.answer({ port, protocol, source: single });
    const iface = answer.interfaces.find((i) => i.networkInterfaceId === rule.network_interface_id);
    const decisions = iface?.decisions ?? [];
    const ours = decisions.find((d) => d.rule.id === NEW_RULE_ID);
    const unreadable = iface?.cannotTell[0];
    if (ours && !ours.partly && !ours.uncertain) {
      first ??= { effect: 'takes_effect', partly: false, port, protocol };
      continue;
    }
    if (ours) {
      first =
        first?.effect === 'takes_effect' && !first.partly
          ? { effect: 'takes_effect', partly: true, port, protocol }
          : (first ?? { effect: 'takes_effect', partly: true, port, protocol });
      continue;
    }
    if (unreadable) return { effect: 'cannot_tell', by: unreadable.rule, port, protocol };
    const other = decisions.find((d) => d.verdict !== verdict);
    if (other) return { effect: 'overridden', by: other.rule, port, protocol };
    const same = decisions[0];
    if (same) return { effect: 'already', by: same.rule, port, protocol };
  }
  return first ?? { effect: 'takes_effect', partly: false, port: 0, protocol };
}

/** The ports a preview asks about: the first of each range the rule names; for every port, those the other rules name, and 22. */
function portsToAsk(form: PortForm, rules: PreparedRules<RuleRecord>): number[] {
  if (form.kind === 'ports') return [...new Set(form.ranges.map(([from]) => from))].slice(0, 20);
  return [...new Set([22, ...rules.portsNamed(20)])].slice(0, 20);
}

/** The network interfaces a server's rules are on (the form's choices; one is chosen for you). */
export const interfacesOf = (rules: readonly FirewallRule[]): number[] => [...new Set(rules.map((r) => r.network_interface_id))].sort((a, b) => a - b);
