import type { FirewallRule } from '../cloud/schemas';
import { parseAddressForm, type IpAddress } from './address';
import { parsePortForm, portFormIncludes } from './ports';
import { EVERY_SOURCE, NO_SOURCE, intersect, isEmpty, sameSources, singleSource, sourcesOf, subtract, union, type SourceSet } from './sources';

// "Does this traffic reach the server?" answered from a server's rules, per
// network interface, the way the firewall reads them: in position order, the
// first rule that matches decides. Pure: rules and a question in, data out.
//
// With one source the walk ends at the first rule that matches it. Without
// one, the question is about every source: each matching rule decides for
// the sources it covers that no rule above decided, until none are left (or
// the list ends: those sources get the interface's default, which the API
// does not show). A rule the bot cannot read is never guessed: it is
// reported, and what follows it is marked as holding only if it does not apply.

export type Protocol = 'tcp' | 'udp';

export interface PortQuestion {
  port: number;
  protocol: Protocol;
  /** One source address; null asks about every source. */
  source: IpAddress | null;
}

/** What a rule does to the traffic it matches (nftables' word for accept and drop). */
export type Verdict = 'accepted' | 'dropped';

/** The fields the matcher reads; JSON answers carry `enabled`, XML answers do not (every rule counts as enabled). */
export type RuleRecord = Pick<FirewallRule, 'id' | 'network_interface_id' | 'position' | 'address' | 'port' | 'protocol' | 'command'> & {
  enabled?: boolean | null;
};

export interface Decision<R extends RuleRecord = RuleRecord> {
  rule: R;
  verdict: Verdict;
  /** The rule decides for every source still undecided when it is reached (for the first decision: every source). */
  everyoneElse: boolean;
  /** Rules above already decided part of the sources this rule names. */
  partly: boolean;
  /** A rule above that the bot cannot read may decide some of these sources first. */
  uncertain: boolean;
}

export interface UnreadableField {
  field: 'port' | 'address' | 'protocol' | 'command';
  /** As sent, for quoting. */
  value: string;
}

export interface CannotTell<R extends RuleRecord = RuleRecord> {
  rule: R;
  fields: UnreadableField[];
}

export interface InterfaceAnswer<R extends RuleRecord = RuleRecord> {
  networkInterfaceId: number;
  /** In position order; with a source, at most one. */
  decisions: Decision<R>[];
  /** Some sources of the question reach the end of the list: the interface's default applies. */
  reachesDefault: boolean;
  /** …and a rule the bot cannot read may decide them first. */
  defaultUncertain: boolean;
  /** Enabled rules that may apply but cannot be read, in position order, before the walk ended. */
  cannotTell: CannotTell<R>[];
  /** Disabled rules that would have applied, skipped, before the walk ended. */
  disabled: R[];
  /** Enabled rules that match the traffic too, but every source they name was decided above. */
  shadowed: R[];
}

export interface PortAnswer<R extends RuleRecord = RuleRecord> {
  question: PortQuestion;
  /** By network interface id, ascending; empty when the server has no rules. */
  interfaces: InterfaceAnswer<R>[];
}

export function answerPortQuestion<R extends RuleRecord>(rules: readonly R[], question: PortQuestion): PortAnswer<R> {
  const byInterface = new Map<number, R[]>();
  for (const rule of rules) {
    const list = byInterface.get(rule.network_interface_id);
    if (list) list.push(rule);
    else byInterface.set(rule.network_interface_id, [rule]);
  }
  const interfaces = [...byInterface.entries()]
    .sort(([a], [b]) => a - b)
    .map(([networkInterfaceId, list]) =>
      walk(
        networkInterfaceId,
        [...list].sort((a, b) => a.position - b.position || a.id - b.id),
        question,
      ),
    );
  return { question, interfaces };
}

function walk<R extends RuleRecord>(networkInterfaceId: number, rules: readonly R[], question: PortQuestion): InterfaceAnswer<R> {
  const asked = question.source === null ? EVERY_SOURCE : singleSource(question.source);
  let undecided = asked;
  /** Sources a rule the bot cannot read may have decided. */
  let maybeTaken: SourceSet = NO_SOURCE;
  const decisions: Decision<R>[] = [];
  const cannotTell: CannotTell<R>[] = [];
  const disabled: R[] = [];
  const shadowed: R[] = [];

  // Once every source is decided, `undecided` is empty and so is what any later rule reaches.
  for (const rule of rules) {
    const reading = readRule(rule, question, asked);
    if (reading.kind === 'no') continue;
    if (rule.enabled === false) {
      if (!isEmpty(intersect(reading.sources, undecided))) disabled.push(rule);
      continue;
    }
    if (reading.kind === 'maybe') {
      if (isEmpty(intersect(reading.sources, undecided))) continue;
      cannotTell.push({ rule, fields: reading.fields });
      // The rule's own sources, not what it reaches: the same once met with what is still undecided, and one interval to add.
      maybeTaken = union(maybeTaken, reading.sources);
      continue;
    }
    const decided = intersect(reading.sources, undecided);
    if (isEmpty(decided)) {
      shadowed.push(rule);
      continue;
    }
    decisions.push({
      rule,
      verdict: reading.verdict,
      everyoneElse: sameSources(decided, undecided),
      partly: !sameSources(decided, reading.sources),
      uncertain: !isEmpty(intersect(decided, maybeTaken)),
    });
    // Subtracting the rule's sources (one or two intervals) is the same as subtracting `decided`, and cheaper.
    undecided = subtract(undecided, reading.sources);
  }
  return {
    networkInterfaceId,
    decisions,
    reachesDefault: !isEmpty(undecided),
    defaultUncertain: !isEmpty(intersect(undecided, maybeTaken)),
    cannotTell,
    disabled,
    shadowed,
  };
}

type Reading =
  | { kind: 'no' }
  | { kind: 'yes'; sources: SourceSet; verdict: Verdict }
  /** Applies to some of `sources` or to none: a field cannot be read. */
  | { kind: 'maybe'; sources: SourceSet; fields: UnreadableField[] };

/** Protocols a rule may name that are certainly neither TCP nor UDP. */
const OTHER_PROTOCOLS = new Set(['icmp', 'icmpv6', 'ipv6-icmp', 'gre', 'esp', 'ah', 'sctp', 'igmp']);

/** What one rule says about the question, whatever its position. */
function readRule(rule: RuleRecord, question: PortQuestion, asked: SourceSet): Reading {
  const fields: UnreadableField[] = [];

  // As sent, for quoting; the schema makes both strings, and a missing one is quoted as empty.
  const protocolText = String(rule.protocol ?? '');
  const commandText = String(rule.command ?? '');

  const protocol = protocolText.trim().toLowerCase();
  if (protocol === 'tcp' || protocol === 'udp') {
    if (protocol !== question.protocol) return { kind: 'no' };
  } else if (OTHER_PROTOCOLS.has(protocol)) {
    return { kind: 'no' };
  } else {
    fields.push({ field: 'protocol', value: protocolText });
  }

  const port = parsePortForm(rule.port);
  if (port.kind === 'unreadable') fields.push({ field: 'port', value: port.text });
  else if (!portFormIncludes(port, question.port)) return { kind: 'no' };

  const address = parseAddressForm(rule.address);
  let sources = asked;
  if (address.kind === 'unreadable') fields.push({ field: 'address', value: address.text });
  else {
    sources = intersect(sourcesOf(address), asked);
    if (isEmpty(sources)) return { kind: 'no' };
  }

  const command = commandText.trim().toUpperCase();
  const verdict: Verdict | null = command === 'ACCEPT' ? 'accepted' : command === 'DROP' ? 'dropped' : null;
  if (verdict === null) return { kind: 'maybe', sources, fields: [...fields, { field: 'command', value: commandText }] };
  if (fields.length > 0) return { kind: 'maybe', sources, fields };
  return { kind: 'yes', sources, verdict };
}
