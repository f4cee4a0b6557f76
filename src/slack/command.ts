// The `/vs` grammar of PRODUCT.md, parsed without Slack or the network. The
// parser never throws: whatever the text, it returns a command or an
// `invalid` with a message for the user and, when one is close enough, the
// valid command they probably meant.

import { parseIp, unmapIpv4 } from '../firewall/address';
import { PORT_MAX } from '../firewall/ports';
import type { PortQuestion, Protocol } from '../firewall/port-question';

export type Command =
  | { kind: 'help' }
  /** With a question: "does this traffic reach the server?"; without: the rule list. */
  | { kind: 'firewall'; vsId: number; question?: PortQuestion }
  | { kind: 'autoscaling'; vsId: number }
  | { kind: 'templates'; filter: string }
  | { kind: 'disk_add'; vsId: number }
  | { kind: 'backup_restore'; backupId: number }
  | { kind: 'whoami' }
  | { kind: 'audit'; limit: number }
  | {
      kind: 'invalid';
      /**
       * Plain text with `code` spans. Echoed user input is cut to ~40
       * characters, without control characters or backticks; the renderer
       * escapes it for mrkdwn.
       */
      message: string;
      /** The closest valid command, ready to type, e.g. "/vs firewall 42". */
      suggestion?: string;
    };

export type CommandKind = Command['kind'];

type Argument = 'none' | 'vs_id' | 'vs_id_question' | 'backup_id' | 'text' | 'count';

interface CommandSpec {
  kind: Exclude<CommandKind, 'invalid'>;
  /** The subcommand words, lower case. */
  words: readonly string[];
  /** Other spellings that parse as this command. */
  aliases: readonly string[];
  /** Words people reach for that only earn a suggestion, e.g. "restore 9". */
  nicknames: readonly string[];
  argument: Argument;
  /** How to type it, e.g. "/vs firewall <vs_id>". */
  usage: string;
  /** A complete example, e.g. "/vs firewall 42". */
  example: string;
  /** The lines `/vs help` shows for it (mrkdwn before escaping): the one place the usage is written. */
  help: readonly string[];
}

export const AUDIT_DEFAULT_LIMIT = 10;
export const AUDIT_MAX_LIMIT = 50;
export const TEMPLATE_FILTER_MAX_LENGTH = 100;

const PORT_QUESTION_USAGE = '/vs firewall <vs_id> <port>[/tcp|/udp] [from <ip>]';
const PORT_QUESTION_EXAMPLES = '`/vs firewall 42 443`, `… 53/udp`, `… 8443 from 198.51.100.9`';

export const COMMAND_SPECS: readonly CommandSpec[] = [
  {
    kind: 'help',
    words: ['help'],
    aliases: [],
    nicknames: ['usage', '?'],
    argument: 'none',
    usage: '/vs help',
    example: '/vs help',
    help: ['`/vs help`: this help'],
  },
  {
    kind: 'firewall',
    words: ['firewall'],
    aliases: [],
    nicknames: ['fw', 'rules', 'firewall_rules', 'firewalls'],
    argument: 'vs_id_question',
    usage: '/vs firewall <vs_id> [<port>[/tcp|/udp] [from <ip>]]',
    example: '/vs firewall 42',
    help: [
      '`/vs firewall <vs_id>`: the firewall rules of a server',
      `\`${PORT_QUESTION_USAGE}\`: does that traffic reach the server? e.g. ${PORT_QUESTION_EXAMPLES}`,
    ],
  },
  {
    kind: 'autoscaling',
    words: ['autoscaling'],
    aliases: ['as'],
    nicknames: ['autoscale', 'scaling', 'auto_scaling'],
    argument: 'vs_id',
    usage: '/vs autoscaling <vs_id>',
    example: '/vs autoscaling 42',
    help: ['`/vs autoscaling <vs_id>` (or `/vs as`): its autoscaling rules'],
  },
  {
    kind: 'templates',
    words: ['templates'],
    aliases: [],
    nicknames: ['template', 'images', 'os'],
    argument: 'text',
    usage: '/vs templates [text]',
    example: '/vs templates ubuntu',
    help: ['`/vs templates [text]`: the template catalogue, filtered by text'],
  },
  {
    kind: 'disk_add',
    words: ['disk', 'add'],
    aliases: [],
    nicknames: ['disk', 'add', 'add disk', 'disks add', 'adddisk'],
    argument: 'vs_id',
    usage: '/vs disk add <vs_id>',
    example: '/vs disk add 42',
    help: ['`/vs disk add <vs_id>`: add a disk (operators, admins)'],
  },
  {
    kind: 'backup_restore',
    words: ['backup', 'restore'],
    aliases: [],
    nicknames: ['restore', 'backup', 'restore backup', 'backups restore'],
    argument: 'backup_id',
    usage: '/vs backup restore <backup_id>',
    example: '/vs backup restore 9',
    help: ['`/vs backup restore <backup_id>`: restore a backup onto its disk (admins)'],
  },
  {
    kind: 'whoami',
    words: ['whoami'],
    aliases: [],
    nicknames: ['who', 'me', 'role', 'whoami?'],
    argument: 'none',
    usage: '/vs whoami',
    example: '/vs whoami',
    help: ['`/vs whoami`: your role and what it allows'],
  },
  {
    kind: 'audit',
    words: ['audit'],
    aliases: [],
    nicknames: ['log', 'audits', 'history'],
    argument: 'count',
    usage: `/vs audit [n]`,
    example: '/vs audit 20',
    help: ['`/vs audit [n]`: the latest audit records (admins)'],
  },
];

/** The port question's forms, for error messages. */

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

export function parseCommand(text: string): Command {
  const tokens = tokenize(typeof text === 'string' ? text : '');
  if (tokens.length === 0) return { kind: 'help' };
  const lower = tokens.slice(0, 2).map((t) => t.toLowerCase());

  for (const spec of COMMAND_SPECS) {
    for (const words of [spec.words, ...spec.aliases.map((a) => [a])]) {
      if (words.every((word, i) => lower[i] === word)) return parseArguments(spec, words.join(' '), tokens.slice(words.length));
    }
  }
  return unknownCommand(tokens);
}

function tokenize(text: string): string[] {
  // Slack hands over escaped text (&lt; for <); either way, split on any whitespace.
  return text.split(/[\s\p{Cc}]+/u).filter((t) => t !== '');
}

function parseArguments(spec: CommandSpec, typed: string, args: string[]): Command {
  const name = `/vs ${typed}`;
  switch (spec.argument) {
    case 'none':
      if (args.length === 0) return { kind: spec.kind } as Command;
      return invalid(`\`${name}\` takes no arguments; unexpected ${echo(args.join(' '))}.`, spec.example);
    case 'vs_id':
    case 'backup_id': {
      const what = spec.argument === 'vs_id' ? 'server id' : 'backup id';
      if (args.length === 0) return invalid(`\`${name}\` needs a ${what}: \`${spec.usage}\`, e.g. \`${spec.example}\`.`);
      const id = parseId(args[0]);
      if (id === null) return invalid(`${echo(args[0] ?? '')} is not a valid ${what}: ids are positive integers, e.g. \`${spec.example}\`.`);
      if (args.length > 1)
        return invalid(
          `\`${name}\` takes exactly one ${what}; unexpected ${echo(args.slice(1).join(' '))}. Usage: \`${spec.usage}\`.`,
          withArgument(spec, String(id)),
        );
      return spec.kind === 'backup_restore' ? { kind: 'backup_restore', backupId: id } : ({ kind: spec.kind, vsId: id } as Command);
    }
    case 'vs_id_question': {
      if (args.length === 0)
        return invalid(`\`${name}\` needs a server id: \`/vs firewall <vs_id>\`, e.g. \`${spec.example}\`; to ask about a port, ${PORT_QUESTION_EXAMPLES}.`);
      const id = parseId(args[0]);
      if (id === null) return invalid(`${echo(args[0] ?? '')} is not a valid server id: ids are positive integers, e.g. \`${spec.example}\`.`);
      if (args.length === 1) return { kind: 'firewall', vsId: id };
      const question = parsePortQuestion(args.slice(1));
      return 'problem' in question ? invalid(question.problem) : { kind: 'firewall', vsId: id, question };
    }
    case 'text': {
      const filter = args.join(' ');
      if (filter.length > TEMPLATE_FILTER_MAX_LENGTH)
        return invalid(`The filter is too long (at most ${TEMPLATE_FILTER_MAX_LENGTH} characters). Usage: \`${spec.usage}\`.`, '/vs templates');
      return { kind: 'templates', filter };
    }
    case 'count': {
      if (args.length === 0) return { kind: 'audit', limit: AUDIT_DEFAULT_LIMIT };
      const limit = parseCount(args[0]);
      if (limit === null)
        return invalid(
          `${echo(args[0] ?? '')} is not a valid number of records: give a whole number from 1 to ${AUDIT_MAX_LIMIT}, e.g. \`${spec.example}\`.`,
          '/vs audit',
        );
      if (args.length > 1)
        return invalid(`\`${name}\` takes at most one number; unexpected ${echo(args.slice(1).join(' '))}. Usage: \`${spec.usage}\`.`, `/vs audit ${limit}`);
      return { kind: 'audit', limit };
    }
  }
}

/** A whole number of records from 1; more than AUDIT_MAX_LIMIT is capped, not refused. */
function parseCount(token: string | undefined): number | null {
  if (token === undefined || !/^[0-9]+$/.test(token)) return null;
  const significant = token.replace(/^0+/, '');
  if (significant === '') return null;
  return significant.length > 3 ? AUDIT_MAX_LIMIT : Math.min(Number(significant), AUDIT_MAX_LIMIT);
}

/**
 * `<port>[/tcp|/udp] [from <ip>]`: one port from 1 to 65535, TCP unless the
 * question names UDP, and at most one source address, IPv4 or IPv6. Each
 * refusal names the accepted forms.
 */
function parsePortQuestion(args: readonly string[]): PortQuestion | { problem: string } {
  const forms = `Usage: \`${PORT_QUESTION_USAGE}\`, e.g. ${PORT_QUESTION_EXAMPLES}.`;
  const [portText = '', ...rest] = args;
  const m = /^([0-9]+)(?:\/([^/]*))?$/.exec(portText);
  if (!m) return { problem: `${echo(portText)} is not a port: give one port from 1 to ${PORT_MAX}, optionally with /tcp or /udp. ${forms}` };
  const digits = m[1]!.replace(/^0+/, '');
  const port = digits.length > 5 ? Infinity : Number(digits);
  if (!(port >= 1 && port <= PORT_MAX)) return { problem: `${echo(m[1]!)} is not a port: ports are whole numbers from 1 to ${PORT_MAX}. ${forms}` };
  const protocolText = (m[2] ?? 'tcp').toLowerCase();
  if (protocolText !== 'tcp' && protocolText !== 'udp')
    return { problem: `${echo(m[2] ?? '')} is not a protocol the question takes: write /tcp or /udp after the port (TCP when none is given). ${forms}` };
  const protocol: Protocol = protocolText;
  if (rest.length === 0) return { port, protocol, source: null };

  const [word = '', sourceText, ...extra] = rest;
  if (word.toLowerCase() !== 'from') return { problem: `Unexpected ${echo(rest.join(' '))} after the port: to name a source, write \`from <ip>\`. ${forms}` };
  if (sourceText === undefined) return { problem: `\`from\` needs one IPv4 or IPv6 address, e.g. \`from 198.51.100.9\` or \`from 2001:db8::9\`. ${forms}` };
  const parsed = parseIp(sourceText);
  if (parsed === null) {
    const why =
      sourceText.includes('/') || sourceText.includes('-')
        ? '`from` takes one address, not a block or a range: ask about one address in it'
        : '`from` takes one IPv4 or IPv6 address, e.g. `from 198.51.100.9` or `from 2001:db8::9`';
    return { problem: `${echo(sourceText)} is not an IP address: ${why}. ${forms}` };
  }
  if (extra.length > 0) return { problem: `The question takes one source address; unexpected ${echo(extra.join(' '))}. ${forms}` };
  return { port, protocol, source: unmapIpv4(parsed) };
}

/**
 * Finds the closest command by edit distance over the first one or two
 * words. A candidate whose remaining words are valid arguments wins ties, so
 * "disk ad 3" suggests "/vs disk add 3" rather than "disk" plus junk.
 */
function unknownCommand(tokens: string[]): Command {
  let best: { spec: CommandSpec; take: number; score: number } | null = null;
  for (let take = 1; take <= Math.min(2, tokens.length); take++) {
    const typed = tokens.slice(0, take).join(' ').toLowerCase();
    if (typed.length > 40) continue; // nothing we know is that long: no need to measure
    const args = tokens.slice(take);
    for (const spec of COMMAND_SPECS) {
      for (const name of [spec.words.join(' '), ...spec.nicknames]) {
        if (name.split(' ').length !== take) continue;
        const distance = editDistance(typed, name);
        const tolerated = name.length < 3 ? 0 : Math.max(1, Math.floor(name.length / 3));
        if (distance > tolerated) continue;
        const score = distance * 2 + (argumentsFit(spec, args) ? 0 : 3);
        if (best === null || score < best.score) best = { spec, take, score };
      }
    }
  }
  if (best === null) return invalid(`Unknown command ${echo(tokens[0] ?? '')}. See \`/vs help\` for what \`/vs\` can do.`);
  return invalid(`Unknown command ${echo(tokens.slice(0, best.take).join(' '))}.`, suggestionFor(best.spec, tokens.slice(best.take)));
}

function argumentsFit(spec: CommandSpec, args: string[]): boolean {
  switch (spec.argument) {
    case 'none':
      return args.length === 0;
    case 'vs_id':
    case 'backup_id':
      return args.length === 1 && parseId(args[0]) !== null;
    case 'vs_id_question':
      return args.length >= 1 && parseId(args[0]) !== null && (args.length === 1 || !('problem' in parsePortQuestion(args.slice(1))));
    case 'count':
      return args.length === 0 || (args.length === 1 && parseCount(args[0]) !== null);
    case 'text':
      return args.join(' ').length <= TEMPLATE_FILTER_MAX_LENGTH;
  }
}

function suggestionFor(spec: CommandSpec, args: string[]): string {
  const bare = `/vs ${spec.words.join(' ')}`;
  switch (spec.argument) {
    case 'none':
      return bare;
    case 'vs_id':
    case 'backup_id': {
      const id = args.length === 1 ? parseId(args[0]) : null;
      return id === null ? spec.usage : withArgument(spec, String(id));
    }
    case 'vs_id_question': {
      const id = args.length >= 1 ? parseId(args[0]) : null;
      if (id === null) return `${bare} <vs_id>`;
      // The question is echoed only when it parses: it is then digits, /tcp|/udp, "from" and an address.
      return args.length > 1 && !('problem' in parsePortQuestion(args.slice(1))) ? `${bare} ${id} ${args.slice(1).join(' ')}` : withArgument(spec, String(id));
    }
    case 'count': {
      const n = args.length === 1 ? parseCount(args[0]) : null;
      return n === null ? bare : `${bare} ${n}`;
    }
    case 'text': {
      const filter = args.join(' ');
      return filter === '' || filter.length > TEMPLATE_FILTER_MAX_LENGTH ? bare : `${bare} ${cleanEcho(filter)}`;
    }
  }
}

function withArgument(spec: CommandSpec, argument: string): string {
  return `/vs ${spec.words.join(' ')} ${argument}`;
}

function invalid(message: string, suggestion?: string): Command {
  return suggestion === undefined ? { kind: 'invalid', message } : { kind: 'invalid', message, suggestion };
}

/** User input shown back: short, one line, no control characters, no backticks to break the code span. */
function cleanEcho(s: string, max = 40): string {
  // The pre-cut must not split a surrogate pair: dropping invisible characters can bring half an emoji inside `max`.
  const cleaned = Array.from(
    s
      .slice(0, max * 4)
      .replace(/[\uD800-\uDBFF]$/, '')
      .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, '')
      .replace(/`/g, "'"),
  );
  return cleaned.length > max ? `${cleaned.slice(0, max - 1).join('')}…` : cleaned.join('');
}

function echo(s: string): string {
  const cleaned = cleanEcho(s);
  return cleaned === '' ? '(empty)' : `\`${cleaned}\``;
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
