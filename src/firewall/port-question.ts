import type { FirewallRule } from '../cloud/schemas';
import { parseAddressForm, type IpAddress } from './address';
import { parsePortForm, PORT_MAX } from './ports';
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
  return prepareRules(rules).answer(question);
}

/** A server's rules made ready for several questions: grouped by interface and sorted once, each rule's fields read once. */
export interface PreparedRules<R extends RuleRecord> {
  answer(question: PortQuestion): PortAnswer<R>;
  /** The first port of each range the rules name, in interface then position order, each once, at most `most`. */
  portsNamed(most: number): number[];
}

// The rules read once into a few flat arrays rather than an object or three per rule: a preview over 10,000 rules
// keeps them while it asks up to twenty questions, and 30,000 small objects kept that long cost more in garbage
// collection than the walks themselves.
const PROTOCOL_CODES = { tcp: 0, udp: 1, other: 2, unreadable: 3 } as const;
const VERDICTS: readonly (Verdict | null)[] = ['accepted', 'dropped', null];
const PORTS_ALL = 0;
const PORTS_LISTED = 1;
const PORTS_UNREADABLE = 2;

/** The rules of a server, read: index i is the i-th rule in interface then position order. */
interface ReadRules<R> {
  rules: readonly R[];
  protocol: Uint8Array;
  verdict: Uint8Array;
  portKind: Uint8Array;
  /** Rule i's ranges are portData[portStart[i] .. portStart[i + 1]), as first, last, first, last, … */
  portStart: Int32Array;
  portData: Int32Array;
  /** Read the first time a question reaches the rule's address (most rules are ruled out by their port before). */
  sources: (SourceSet | null | undefined)[];
}

/**
 * The rules grouped by network interface and sorted by position once, for asking several questions of them (a new
 * rule's preview asks up to twenty ports): a question then costs one walk, not a sort and a parse of every rule.
 */
export function prepareRules<R extends RuleRecord>(rules: readonly R[]): PreparedRules<R> {
  const order = (a: R, b: R) => a.network_interface_id - b.network_interface_id || a.position - b.position || a.id - b.id;
  // The cloud lists them in order, mostly: a look through them is cheaper than sorting them.
  const inOrder = rules.every((rule, i) => i === 0 || order(rules[i - 1]!, rule) <= 0);
  // Read, never changed: the rules as given when they are in order, a sorted copy otherwise.
  const sorted = inOrder ? rules : [...rules].sort(order);
  const n = sorted.length;
  const read: ReadRules<R> = {
    rules: sorted,
    protocol: new Uint8Array(n),
    verdict: new Uint8Array(n),
    portKind: new Uint8Array(n),
    portStart: new Int32Array(n + 1),
    portData: new Int32Array(0),
    sources: new Array<SourceSet | null | undefined>(n).fill(undefined),
  };
  const ports: number[] = [];
  const groups: { networkInterfaceId: number; from: number; to: number }[] = [];
  for (let i = 0; i < n; i++) {
    const rule = sorted[i]!;
    const last = groups[groups.length - 1];
    if (last && last.networkInterfaceId === rule.network_interface_id) last.to = i + 1;
    else groups.push({ networkInterfaceId: rule.network_interface_id, from: i, to: i + 1 });
    read.protocol[i] = protocolCode(rule.protocol);
    read.verdict[i] = verdictCode(rule.command);
    read.portStart[i] = ports.length;
    if (readPortsFast(rule.port, ports)) read.portKind[i] = PORTS_LISTED;
    else {
      const port = parsePortForm(rule.port);
      read.portKind[i] = port.kind === 'all' ? PORTS_ALL : port.kind === 'ports' ? PORTS_LISTED : PORTS_UNREADABLE;
      if (port.kind === 'ports') for (const [first, lastPort] of port.ranges) ports.push(first, lastPort);
    }
  }
  read.portStart[n] = ports.length;
  read.portData = Int32Array.from(ports);
  return {
    answer: (question) => ({ question, interfaces: groups.map((g) => walk(g.networkInterfaceId, read, g.from, g.to, question)) }),
    portsNamed: (most) => {
      const named = new Set<number>();
      for (let i = 0; i < n && named.size < most; i++) {
        for (let k = read.portStart[i]!; k < read.portStart[i + 1]! && named.size < most; k += 2) named.add(read.portData[k]!);
      }
      return [...named];
    },
  };
}

/** A rule's protocol as a code; the spellings the API sends compared first, without a new string. */
function protocolCode(text: string | null | undefined): number {
  if (text === 'TCP' || text === 'tcp') return PROTOCOL_CODES.tcp;
  if (text === 'UDP' || text === 'udp') return PROTOCOL_CODES.udp;
  const protocol = String(text ?? '')
    .trim()
    .toLowerCase();
  if (protocol === 'tcp') return PROTOCOL_CODES.tcp;
  if (protocol === 'udp') return PROTOCOL_CODES.udp;
  return OTHER_PROTOCOLS.has(protocol) ? PROTOCOL_CODES.other : PROTOCOL_CODES.unreadable;
}

/** A rule's command as an index of VERDICTS. */
function verdictCode(text: string | null | undefined): number {
  if (text === 'ACCEPT') return 0;
  if (text === 'DROP') return 1;
  const command = String(text ?? '')
    .trim()
    .toUpperCase();
  return command === 'ACCEPT' ? 0 : command === 'DROP' ? 1 : 2;
}

/**
 * The common forms read without a regular expression: `443`, `80,443`, `1024:1028`, `1024-1028` and lists of them,
 * nothing but digits and those separators. Pushes first, last, … onto `into` and says true; on anything else (spaces,
 * an empty item, a port past PORT_MAX, first > last) it pushes nothing and says false, and parsePortForm reads it as it
 * always has.
 */
function readPortsFast(text: string | null | undefined, into: number[]): boolean {
  if (!text) return false;
  const mark = into.length;
  at = 0;
  for (;;) {
    const first = numberAt(text);
    if (first < 0) break;
    let last = first;
    const c = text.charCodeAt(at);
    if (c === 58 || c === 45) {
      // `:` or `-`
      at++;
      last = numberAt(text);
      if (last < 0) break;
    }
    if (last > PORT_MAX || first > last) break;
    into.push(first, last);
    if (at === text.length) return true;
    if (text.charCodeAt(at) !== 44) break; // `,`
    at++;
  }
  into.length = mark;
  return false;
}

/** Where readPortsFast is in its text: a module's cursor rather than a closure made for each of 10,000 rules. */
let at = 0;

/** The number of at most five digits at `at` in `text`, `at` moved past its digits; -1 when there is none or it is longer. */
function numberAt(text: string): number {
  const start = at;
  let value = 0;
  while (at < text.length && at - start < 6) {
    const digit = text.charCodeAt(at) - 48;
    if (digit < 0 || digit > 9) break;
    value = value * 10 + digit;
    at++;
  }
  return at === start || at - start > 5 ? -1 : value;
}

/** The sources rule i's address covers, read once; null when it cannot be read. */
function sourcesOfRule<R extends RuleRecord>(read: ReadRules<R>, i: number): SourceSet | null {
  const known = read.sources[i];
  if (known !== undefined) return known;
  const address = parseAddressForm(read.rules[i]!.address);
  const sources = address.kind === 'unreadable' ? null : sourcesOf(address);
  read.sources[i] = sources;
  return sources;
}

function walk<R extends RuleRecord>(networkInterfaceId: number, read: ReadRules<R>, from: number, to: number, question: PortQuestion): InterfaceAnswer<R> {
  const asked = question.source === null ? EVERY_SOURCE : singleSource(question.source);
  let undecided = asked;
  /** Sources a rule the bot cannot read may have decided. */
  let maybeTaken: SourceSet = NO_SOURCE;
  const decisions: Decision<R>[] = [];
  const cannotTell: CannotTell<R>[] = [];
  const disabled: R[] = [];
  const shadowed: R[] = [];

  // Once every source is decided, `undecided` is empty and so is what any later rule reaches.
  for (let i = from; i < to; i++) {
    const reading = readRule(read, i, question, asked);
    if (reading === NO) continue;
    const rule = read.rules[i]!;
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

const NO: Reading = { kind: 'no' };

/** What rule i says about the question, whatever its position. Called for every rule of every walk: no allocation for a rule that does not apply. */
function readRule<R extends RuleRecord>(read: ReadRules<R>, i: number, question: PortQuestion, asked: SourceSet): Reading {
  const protocol = read.protocol[i]!;
  if (protocol === PROTOCOL_CODES.other) return NO;
  if (protocol !== PROTOCOL_CODES.unreadable && protocol !== PROTOCOL_CODES[question.protocol]) return NO;
  const portKind = read.portKind[i]!;
  if (portKind === PORTS_LISTED) {
    let included = false;
    const end = read.portStart[i + 1]!;
    for (let k = read.portStart[i]!; k < end && !included; k += 2) included = read.portData[k]! <= question.port && question.port <= read.portData[k + 1]!;
    if (!included) return NO;
  }

  let sources = asked;
  const covered = sourcesOfRule(read, i);
  if (covered !== null) {
    sources = intersect(covered, asked);
    if (isEmpty(sources)) return NO;
  }

  // As sent, for quoting; the schema makes them strings, and a missing one is quoted as empty.
  const rule = read.rules[i]!;
  const fields: UnreadableField[] = [];
  if (protocol === PROTOCOL_CODES.unreadable) fields.push({ field: 'protocol', value: String(rule.protocol ?? '') });
  if (portKind === PORTS_UNREADABLE) fields.push({ field: 'port', value: String(rule.port ?? '') });
  if (covered === null) fields.push({ field: 'address', value: String(rule.address ?? '') });
  const verdict = VERDICTS[read.verdict[i]!] ?? null;
  if (verdict === null) return { kind: 'maybe', sources, fields: [...fields, { field: 'command', value: String(rule.command ?? '') }] };
  if (fields.length > 0) return { kind: 'maybe', sources, fields };
  return { kind: 'yes', sources, verdict };
}
