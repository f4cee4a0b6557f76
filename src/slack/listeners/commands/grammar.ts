import { parseAddressForm, parseIp, unmapIpv4 } from '../../../firewall/address';
import { parsePortForm, PORT_MAX } from '../../../firewall/ports';
import type { PortQuestion, Protocol } from '../../../firewall/port-question';
import { isOutcome } from '../../../changes/outcome';
import { typedFilter, type AuditFilter } from '../../../changes/audit-filter';
import { auditFilterRefusals, cleanEcho, firewallRuleRefusals, portQuestionRefusals, refusals, type Quoted } from '../../blocks/grammar';

// The `/vs` grammar of docs/product.md (The /vs command), without Slack or the network: the kinds of
// argument a subcommand takes, and the reading of a line against the rows of
// the command table (index.ts). Reading never throws: whatever the text, it
// is one row's arguments, or a refusal with a message for the user and, when
// one is close enough, the valid command they probably meant. The refusals'
// words are in blocks/grammar.ts.

/** The arguments read, or why not. */
export type Read<A> = { ok: true; value: A } | Refusal;
export type Refusal = { ok: false; message: string; suggestion?: string; usage?: string };

/** A kind of argument: how the words after the subcommand become the fields `A` of its command. */
export interface Grammar<A extends object> {
  read(args: readonly string[], quoted: Quoted): Read<A>;
  /** Whether these words read: among misspelt subcommands equally close, one whose arguments fit wins. */
  fits(args: readonly string[]): boolean;
  /** What to suggest after a misspelt subcommand, from the words that followed it. */
  suggest(args: readonly string[], quoted: Quoted): string;
}

/** What the reading of a line needs of a row. */
export interface Vocabulary {
  /** The subcommand words, lower case. */
  words: readonly string[];
  /** Other spellings that read as this subcommand. */
  aliases?: readonly string[];
  /** Words people reach for that only earn a suggestion, e.g. "restore 9". */
  nicknames?: readonly string[];
  /** How to type it, e.g. "/vs firewall <vs_id>". */
  usage: string;
  /** A complete example, e.g. "/vs firewall 42". */
  example: string;
  argument: Pick<Grammar<object>, 'fits' | 'suggest'>;
  /** It changes something (opens a change's form, switches the freeze): never suggested for a line that reads like a read. */
  changes?: boolean;
}

const ok = <A>(value: A): Read<A> => ({ ok: true, value });
const refuse = (message: string, suggestion?: string): Refusal => (suggestion === undefined ? { ok: false, message } : { ok: false, message, suggestion });

/** No arguments. */
export const none: Grammar<Record<never, never>> = {
  read: (args, q) => (args.length === 0 ? ok({}) : refuse(refusals.takesNoArguments(q, args.join(' ')), q.example)),
  fits: (args) => args.length === 0,
  suggest: (_args, q) => q.bare,
};

/** One id (a server's, a backup's): `what` names it in refusals. */
function oneId<A extends object>(what: string, build: (id: number) => A): Grammar<A> {
  return {
    read(args, q) {
      if (args.length === 0) return refuse(refusals.needs(q, what));
      const id = parseId(args[0]);
      if (id === null) return refuse(refusals.notAnId(q, args[0] ?? '', what));
      if (args.length > 1) return refuse(refusals.takesOne(q, what, args.slice(1).join(' ')), `${q.bare} ${id}`);
      return ok(build(id));
    },
    fits: (args) => args.length === 1 && parseId(args[0]) !== null,
    suggest(args, q) {
      const id = args.length === 1 ? parseId(args[0]) : null;
      return id === null ? q.usage : `${q.bare} ${id}`;
    },
  };
}

export const serverId = oneId('server id', (vsId) => ({ vsId }));
export const backupId = oneId('backup id', (backupId) => ({ backupId }));

export interface FirewallRuleArgs {
  vsId: number;
  /** "" = every address (`any`). */
  address: string;
  /** "" = every port. */
  port: string;
  protocol: 'TCP' | 'UDP';
}

function readFirewallRule(args: readonly string[]): FirewallRuleArgs | { problem: string } | null {
  if (args.length < 2 || args.length > 3) return null;
  const vsId = parseId(args[0]);
  if (vsId === null) return null;
  const addressText = args[1]!.toLowerCase() === 'any' ? '' : args[1]!;
  if (parseAddressForm(addressText).kind === 'unreadable') return { problem: firewallRuleRefusals.notAnAddress(args[1]!) };
  const m = /^([^/]*)(?:\/(tcp|udp))?$/i.exec(args[2] ?? '');
  const port = (m?.[1] ?? '').replace(/-/g, ':');
  if (!m || parsePortForm(port).kind === 'unreadable') return { problem: firewallRuleRefusals.notAPort(args[2] ?? '') };
  return { vsId, address: addressText, port, protocol: (m[2] ?? 'tcp').toUpperCase() as 'TCP' | 'UDP' };
}

/** `<vs_id> <address> [port[/tcp|/udp]]`: `/vs firewall block 42 203.0.113.5 443`. */
export const serverIdAndFirewallRule: Grammar<FirewallRuleArgs> = {
  read(args, q) {
    const read = readFirewallRule(args);
    if (read === null) {
      if (args.length === 0 || parseId(args[0]) === null)
        return refuse(args.length === 0 ? refusals.needs(q, 'server id and an address') : refusals.notAnId(q, args[0] ?? '', 'server id'));
      return refuse(refusals.needs(q, args.length < 2 ? 'address' : 'single port'));
    }
    return 'problem' in read ? refuse(read.problem) : ok(read);
  },
  fits: (args) => {
    const read = readFirewallRule(args);
    return read !== null && !('problem' in read);
  },
  suggest: (_args, q) => q.usage,
};

/** A server id, then a firewall rule's id: `/vs firewall remove 42 17`. */
export const serverIdAndRuleId: Grammar<{ vsId: number; ruleId: number }> = {
  read(args, q) {
    if (args.length < 2) return refuse(refusals.needs(q, args.length === 0 ? 'server id and a rule id' : 'rule id'));
    const vsId = parseId(args[0]);
    if (vsId === null) return refuse(refusals.notAnId(q, args[0] ?? '', 'server id'));
    const ruleId = parseId(args[1]);
    if (ruleId === null) return refuse(refusals.notAnId(q, args[1] ?? '', 'rule id'));
    if (args.length > 2) return refuse(refusals.takesOne(q, 'rule id', args.slice(2).join(' ')), `${q.bare} ${vsId} ${ruleId}`);
    return ok({ vsId, ruleId });
  },
  fits: (args) => args.length === 2 && parseId(args[0]) !== null && parseId(args[1]) !== null,
  suggest(args, q) {
    const vsId = args.length >= 1 ? parseId(args[0]) : null;
    const ruleId = args.length >= 2 ? parseId(args[1]) : null;
    return vsId !== null && ruleId !== null ? `${q.bare} ${vsId} ${ruleId}` : q.usage;
  },
};

/** A server id, then optionally the port question `<port>[/tcp|/udp] [from <ip>]`. */
export const serverIdAndPortQuestion: Grammar<{ vsId: number; question?: PortQuestion }> = {
  read(args, q) {
    if (args.length === 0) return refuse(refusals.needsServerIdOrQuestion(q));
    const vsId = parseId(args[0]);
    if (vsId === null) return refuse(refusals.notAnId(q, args[0] ?? '', 'server id'));
    if (args.length === 1) return ok({ vsId });
    const question = parsePortQuestion(args.slice(1));
    return 'problem' in question ? refuse(question.problem) : ok({ vsId, question });
  },
  fits: (args) => args.length >= 1 && parseId(args[0]) !== null && (args.length === 1 || !('problem' in parsePortQuestion(args.slice(1)))),
  suggest(args, q) {
    const id = args.length >= 1 ? parseId(args[0]) : null;
    if (id === null) return `${q.bare} <vs_id>`;
    // The question is echoed only when it parses: it is then digits, /tcp|/udp, "from" and an address.
    return args.length > 1 && !('problem' in parsePortQuestion(args.slice(1))) ? `${q.bare} ${id} ${args.slice(1).join(' ')}` : `${q.bare} ${id}`;
  },
};

/** The rest of the line as one text of at most `max` characters; `what` names it in refusals. Optional unless `required`. */
export function freeText<A extends object>(o: { what: string; max: number; required?: boolean }, build: (text: string) => A): Grammar<A> {
  const fits = (text: string) => text.length <= o.max && (!o.required || text !== '');
  return {
    read(args, q) {
      const text = args.join(' ');
      if (o.required && text === '') return refuse(refusals.needs(q, o.what));
      if (text.length > o.max) return refuse(refusals.tooLong(q, o.what, o.max), q.bare);
      return ok(build(text));
    },
    fits: (args) => fits(args.join(' ')),
    suggest(args, q) {
      const text = args.join(' ');
      if (fits(text) && text !== '') return `${q.bare} ${cleanEcho(text)}`;
      return o.required ? q.usage : q.bare;
    },
  };
}

/** A whole number from 1 typed as `token`, at most `max` (more is capped, not refused); null when it is not one. */
function parseCount(token: string | undefined, max: number): number | null {
  if (token === undefined || !/^[0-9]+$/.test(token)) return null;
  const significant = token.replace(/^0+/, '');
  if (significant === '') return null;
  return significant.length > 3 ? max : Math.min(Number(significant), max);
}

/** An optional whole number of `what` from 1, `fallback` when none is given; more than `max` is capped, not refused. */
export function count<A extends object>(o: { what: string; fallback: number; max: number }, build: (n: number) => A): Grammar<A> {
  const parse = (token: string | undefined) => parseCount(token, o.max);
  return {
    read(args, q) {
      if (args.length === 0) return ok(build(o.fallback));
      const n = parse(args[0]);
      if (n === null) return refuse(refusals.notACount(q, args[0] ?? '', o.what, o.max), q.bare);
      if (args.length > 1) return refuse(refusals.takesAtMostOneNumber(q, args.slice(1).join(' ')), `${q.bare} ${n}`);
      return ok(build(n));
    },
    fits: (args) => args.length === 0 || (args.length === 1 && parse(args[0]) !== null),
    suggest(args, q) {
      const n = args.length === 1 ? parse(args[0]) : null;
      return n === null ? q.bare : `${q.bare} ${n}`;
    },
  };
}

/** A mention as Slack sends it when the command escapes them: `<@U123>` or `<@U123|name>` (the name may hold spaces). */
const MENTION = /<@([UW][A-Z0-9]{2,30})(?:\|[^>]*)?>/g;

/**
 * `[n] [vs <id>|backup <id>|@person|failed|denied|refused|…]`, in either order (any outcome of src/changes/outcome.ts is
 * a filter): how many records (`fallback` when none is
 * given, more than `max` capped), and at most one filter. A person is a mention Slack sent (`<@U…|name>`) or a user
 * id; `@name` as typed is refused with how to pick the person, since only a mention says who they are.
 */
export function auditArguments<A extends object>(
  o: { what: string; fallback: number; max: number },
  build: (limit: number, filter: AuditFilter | undefined) => A,
): Grammar<A> {
  type Problem = { problem: (q: Quoted) => string; suggest: (q: Quoted) => string };
  const parse = (args: readonly string[]): { limit: number; filter?: AuditFilter } | Problem => {
    // A mention's name may hold spaces: each mention becomes its user id, one word, before the words are read.
    const words = args
      .join(' ')
      .replace(MENTION, ' $1 ')
      .split(' ')
      .filter((w) => w !== '');
    let limit: number | undefined;
    let filter: AuditFilter | undefined;
    const bare = (q: Quoted) => q.bare;
    for (let i = 0; i < words.length; i++) {
      const word = words[i]!;
      const lower = word.toLowerCase();
      const n = parseCount(word, o.max);
      let found: AuditFilter | undefined;
      if (n !== null) {
        if (limit !== undefined) return { problem: (q) => refusals.takesAtMostOneNumber(q, word), suggest: (q) => `${q.bare} ${limit}` };
        limit = n;
        continue;
      }
      if (lower === 'vs' || lower === 'backup') {
        const id = parseId(words[i + 1]);
        if (id === null) return { problem: (q) => auditFilterRefusals.needsId(q, lower, words[i + 1] ?? ''), suggest: bare };
        found = { kind: lower, id };
        i += 1;
      } else if (isOutcome(lower)) {
        found = { kind: 'outcome', outcome: lower };
      } else if (lower === 'breakglass') {
        found = { kind: 'breakglass' };
      } else if (/^[UW][A-Z0-9]{2,30}$/.test(word)) {
        found = { kind: 'person', userId: word };
      } else if (word.startsWith('@')) {
        return { problem: (q) => auditFilterRefusals.notAMention(q, word), suggest: bare };
      } else {
        return { problem: (q) => auditFilterRefusals.unknown(q, word, o.max), suggest: bare };
      }
      if (filter !== undefined) {
        const first = filter;
        return { problem: (q) => auditFilterRefusals.oneFilter(q, words.slice(i).join(' ')), suggest: (q) => `${q.bare} ${typedFilter(first)}` };
      }
      filter = found;
    }
    return filter === undefined ? { limit: limit ?? o.fallback } : { limit: limit ?? o.fallback, filter };
  };
  return {
    read(args, q) {
      const read = parse(args);
      return 'problem' in read ? refuse(read.problem(q), read.suggest(q)) : ok(build(read.limit, read.filter));
    },
    fits: (args) => !('problem' in parse(args)),
    suggest(args, q) {
      const read = parse(args);
      if ('problem' in read) return q.bare;
      return [
        q.bare,
        ...(args.some((a) => parseCount(a, o.max) !== null) ? [String(read.limit)] : []),
        ...(read.filter ? [typedFilter(read.filter)] : []),
      ].join(' ');
    },
  };
}

/**
 * A positive integer id, or null. ASCII digits only, after one optional `#`
 * (people write "#42"): no sign, exponent, hex, fraction or other scripts'
 * digits; at most Number.MAX_SAFE_INTEGER. Accepts what modal inputs hand
 * over too (string, number, boolean, undefined).
 */
export function parseId(value: unknown): number | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value > 0 ? value : null;
  if (typeof value !== 'string') return null;
  const digits = value.trim().replace(/^#/, '');
  if (!/^[0-9]+$/.test(digits)) return null;
  const significant = digits.replace(/^0+/, '');
  if (significant === '' || significant.length > 16) return null;
  const id = Number(significant);
  return Number.isSafeInteger(id) && id > 0 ? id : null;
}

/** A line as words: Slack hands over escaped text (&lt; for <); either way, split on any whitespace. */
export function tokenize(text: string): string[] {
  return text.split(/[\s\p{Cc}]+/u).filter((t) => t !== '');
}

/** Each row's spellings in the table's order (its words, then each alias as one word), listed once per table. */
const spellingsOf = new WeakMap<readonly Vocabulary[], { row: Vocabulary; words: readonly string[] }[]>();

/** The row the line names (by its words or an alias, ignoring case), with how it was typed and the words after it. */
export function findRow<R extends Vocabulary>(rows: readonly R[], tokens: readonly string[]): { row: R; quoted: Quoted; args: string[] } | null {
  let spellings = spellingsOf.get(rows);
  if (spellings === undefined) {
    spellings = rows.flatMap((row) => [row.words, ...(row.aliases ?? []).map((alias) => [alias])].map((words) => ({ row, words })));
    spellingsOf.set(rows, spellings);
  }
  const lower = [tokens[0]?.toLowerCase(), tokens[1]?.toLowerCase()];
  for (const { row, words } of spellings) {
    if (spelledAs(words, lower)) return { row: row as R, quoted: quote(row, words.join(' ')), args: tokens.slice(words.length) };
  }
  return null;
}

/** Whether the line's first two words, lower case, begin with all of `words`. */
function spelledAs(words: readonly string[], lower: readonly (string | undefined)[]): boolean {
  for (let i = 0; i < words.length; i++) if (lower[i] !== words[i]) return false;
  return true;
}

export function quote(row: Vocabulary, typed = row.words.join(' ')): Quoted {
  return { name: `/vs ${typed}`, bare: `/vs ${row.words.join(' ')}`, usage: row.usage, example: row.example };
}

/**
 * A line that names no row: the closest one by edit distance over the first
 * one or two words (its words, aliases and nicknames). A candidate whose
 * remaining words are valid arguments wins ties, so "disk ad 3" suggests
 * "/vs disk add 3" rather than "disk" plus junk. A read is never answered with
 * a change (docs/product.md, The `/vs` command): when a read is within reach,
 * a change is suggested only if its arguments fit and the read's do not, so
 * "backup 42" suggests `/vs backups 42`, not `/vs backup restore 42`, and
 * "stat 42" the server's card, not a start.
 */
export function unknownCommand(rows: readonly Vocabulary[], tokens: readonly string[]): Refusal {
  type Candidate = { row: Vocabulary; take: number; score: number; fits: boolean };
  let read: Candidate | null = null;
  let change: Candidate | null = null;
  for (let take = 1; take <= Math.min(2, tokens.length); take++) {
    const typed = tokens.slice(0, take).join(' ').toLowerCase();
    if (typed.length > 40) continue; // nothing we know is that long: no need to measure
    const args = tokens.slice(take);
    for (const row of rows) {
      for (const name of [row.words.join(' '), ...(row.aliases ?? []), ...(row.nicknames ?? [])]) {
        if (name.split(' ').length !== take) continue;
        const distance = editDistance(typed, name);
        const tolerated = name.length < 3 ? 0 : Math.max(1, Math.floor(name.length / 3));
        if (distance > tolerated) continue;
        const fits = row.argument.fits(args);
        const candidate = { row, take, score: distance * 2 + (fits ? 0 : 3), fits };
        if (row.changes) {
          if (change === null || candidate.score < change.score) change = candidate;
        } else if (read === null || candidate.score < read.score) read = candidate;
      }
    }
  }
  const best = change !== null && (read === null || (change.fits && !read.fits)) ? change : read;
  if (best === null) return refuse(refusals.unknownWithoutGuess(tokens[0] ?? ''));
  const suggestion = best.row.argument.suggest(tokens.slice(best.take), quote(best.row));
  return { ...refuse(refusals.unknown(tokens.slice(0, best.take).join(' ')), suggestion), usage: best.row.usage };
}

/**
 * `<port>[/tcp|/udp] [from <ip>]`: one port from 1 to 65535, TCP unless the
 * question names UDP, and at most one source address, IPv4 or IPv6. Each
 * refusal names the accepted forms.
 */
function parsePortQuestion(args: readonly string[]): PortQuestion | { problem: string } {
  const said = portQuestionRefusals;
  const [portText = '', ...rest] = args;
  const m = /^([0-9]+)(?:\/([^/]*))?$/.exec(portText);
  if (!m) return { problem: said.notAPort(portText) };
  const digits = m[1]!.replace(/^0+/, '');
  const port = digits.length > 5 ? Infinity : Number(digits);
  if (!(port >= 1 && port <= PORT_MAX)) return { problem: said.outOfRange(m[1]!) };
  const protocolText = (m[2] ?? 'tcp').toLowerCase();
  if (protocolText !== 'tcp' && protocolText !== 'udp') return { problem: said.notAProtocol(m[2] ?? '') };
  const protocol: Protocol = protocolText;
  if (rest.length === 0) return { port, protocol, source: null };

  const [word = '', sourceText, ...extra] = rest;
  if (word.toLowerCase() !== 'from') return { problem: said.unexpectedAfterPort(rest.join(' ')) };
  if (sourceText === undefined) return { problem: said.fromNeedsAddress() };
  const parsed = parseIp(sourceText);
  if (parsed === null) return { problem: said.notAnAddress(sourceText, sourceText.includes('/') || sourceText.includes('-')) };
  if (extra.length > 0) return { problem: said.oneSource(extra.join(' ')) };
  return { port, protocol, source: unmapIpv4(parsed) };
}

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const row = d[i]!;
      const above = d[i - 1]!;
      let value = Math.min(above[j]! + 1, row[j - 1]! + 1, above[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, d[i - 2]![j - 2]! + 1);
      row[j] = value;
    }
  }
  return d[rows - 1]![cols - 1]!;
}

/**
 * What may be a server's name rather than a mistyped id: a label or hostname (it starts with a letter) or an IP
 * address. `42abc`, `1e3` or `-1` are still refused as ids, as they always were.
 */
export function mayNameServer(text: string): boolean {
  if (parseId(text) !== null || text.length > 253) return false;
  return /^\p{L}[\p{L}\p{N}._-]*$/u.test(text) || parseIp(text) !== null;
}
