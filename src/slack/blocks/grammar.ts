import { PORT_MAX } from '../../firewall/ports';

// The words of the `/vs` grammar: what the parser says when it refuses a
// line, as plain text with `code` spans (renderUsage escapes it where it
// places it). The parser (listeners/commands/grammar.ts) decides; these
// sentences are all there is. Echoed input is cut to ~40 characters, one
// line, without control characters or backticks.

/** The port question's forms, for its help line and its refusals. */
export const PORT_QUESTION_USAGE = '/vs firewall <vs_id> <port>[/tcp|/udp] [from <ip>]';
export const PORT_QUESTION_EXAMPLES = '`/vs firewall 42 443`, `… 53/udp`, `… 8443 from 198.51.100.9`';

/** How a subcommand was typed and is written: what the refusals quote. */
export interface Quoted {
  /** As typed, e.g. "/vs as" for an alias. */
  name: string;
  /** Its own words, e.g. "/vs autoscaling". */
  bare: string;
  /** How to type it, e.g. "/vs autoscaling <vs_id>". */
  usage: string;
  /** A complete example, e.g. "/vs autoscaling 42". */
  example: string;
}

export const refusals = {
  takesNoArguments: (q: Quoted, extra: string) => `\`${q.name}\` takes no arguments; unexpected ${echo(extra)}.`,
  needs: (q: Quoted, what: string) => `\`${q.name}\` needs a ${what}: \`${q.usage}\`, e.g. \`${q.example}\`.`,
  notAnId: (q: Quoted, typed: string, what: string) => `${echo(typed)} is not a valid ${what}: ids are positive integers, e.g. \`${q.example}\`.`,
  takesOne: (q: Quoted, what: string, extra: string) => `\`${q.name}\` takes exactly one ${what}; unexpected ${echo(extra)}. Usage: \`${q.usage}\`.`,
  needsServerIdOrQuestion: (q: Quoted) =>
    `\`${q.name}\` needs a server id: \`${q.bare} <vs_id>\`, e.g. \`${q.example}\`; to ask about a port, ${PORT_QUESTION_EXAMPLES}.`,
  tooLong: (q: Quoted, what: string, max: number) => `The ${what} is too long (at most ${max} characters). Usage: \`${q.usage}\`.`,
  notACount: (q: Quoted, typed: string, what: string, max: number) =>
    `${echo(typed)} is not a valid number of ${what}: give a whole number from 1 to ${max}, e.g. \`${q.example}\`.`,
  takesAtMostOneNumber: (q: Quoted, extra: string) => `\`${q.name}\` takes at most one number; unexpected ${echo(extra)}. Usage: \`${q.usage}\`.`,
  unknown: (typed: string) => `Unknown command ${echo(typed)}.`,
  unknownWithoutGuess: (typed: string) => `Unknown command ${echo(typed)}. See \`/vs help\` for what \`/vs\` can do.`,
};

const AUDIT_FILTERS = '`vs <id>`, `backup <id>`, `@person`, `breakglass`, or an outcome: `failed`, `denied`, `refused`, `done`…';

/** Refusals of `/vs audit`'s filter: each names the filters there are. */
export const auditFilterRefusals = {
  needsId: (q: Quoted, kind: string, typed: string) =>
    `\`${kind}\` needs the ${kind === 'vs' ? 'server' : 'backup'} id after it${typed ? `; ${echo(typed)} is not one` : ''}, ` +
    `e.g. \`${q.bare} ${kind} ${kind === 'vs' ? 42 : 9}\`.`,
  notAMention: (q: Quoted, typed: string) =>
    `${echo(typed)} is not someone Slack named: type @ and pick the person from the list, so that Slack sends who they are, ` +
    `or give their user id, e.g. \`${q.bare} U024BE7LH\`.`,
  unknown: (q: Quoted, typed: string, max: number) =>
    `${echo(typed)} is neither a number of records (a whole number from 1 to ${max}) nor a filter of \`${q.name}\` (${AUDIT_FILTERS}). Usage: \`${q.usage}\`.`,
  oneFilter: (q: Quoted, extra: string) => `\`${q.name}\` takes one filter; unexpected ${echo(extra)}. Usage: \`${q.usage}\`.`,
};

const forms = `Usage: \`${PORT_QUESTION_USAGE}\`, e.g. ${PORT_QUESTION_EXAMPLES}.`;

/** Refusals of `<port>[/tcp|/udp] [from <ip>]`: each names the accepted forms. */
export const portQuestionRefusals = {
  notAPort: (typed: string) => `${echo(typed)} is not a port: give one port from 1 to ${PORT_MAX}, optionally with /tcp or /udp. ${forms}`,
  outOfRange: (typed: string) => `${echo(typed)} is not a port: ports are whole numbers from 1 to ${PORT_MAX}. ${forms}`,
  notAProtocol: (typed: string) => `${echo(typed)} is not a protocol the question takes: write /tcp or /udp after the port (TCP when none is given). ${forms}`,
  unexpectedAfterPort: (typed: string) => `Unexpected ${echo(typed)} after the port: to name a source, write \`from <ip>\`. ${forms}`,
  fromNeedsAddress: () => `\`from\` needs one IPv4 or IPv6 address, e.g. \`from 198.51.100.9\` or \`from 2001:db8::9\`. ${forms}`,
  notAnAddress: (typed: string, looksLikeBlock: boolean) => {
    const why = looksLikeBlock
      ? '`from` takes one address, not a block or a range: ask about one address in it'
      : '`from` takes one IPv4 or IPv6 address, e.g. `from 198.51.100.9` or `from 2001:db8::9`';
    return `${echo(typed)} is not an IP address: ${why}. ${forms}`;
  },
  oneSource: (extra: string) => `The question takes one source address; unexpected ${echo(extra)}. ${forms}`,
};

/** User input shown back: short, one line, no control characters, no backticks to break the code span. */
export function cleanEcho(s: string, max = 40): string {
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

/** `/vs firewall block|allow`: an address, CIDR or range, and a port, list or range with its protocol. */
export const firewallRuleRefusals = {
  notAnAddress: (typed: string) =>
    `${echo(typed)} is not an address: give one (203.0.113.5), a CIDR block (192.0.2.0/24) or a range (192.0.2.1-192.0.2.10), or \`any\`.`,
  notAPort: (typed: string) =>
    `${echo(typed)} is not a port: give one (443), a list (80,443) or a range (1024:1028), each 0–65535, then /tcp or /udp if you like.`,
};
