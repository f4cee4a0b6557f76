import type { KnownBlock } from '@slack/types';
import type { FirewallRule } from '../../cloud/schemas';
import { formatIp } from '../../firewall/address';
import type { CannotTell, Decision, InterfaceAnswer, PortAnswer, PortQuestion } from '../../firewall/port-question';
import { ruleLine } from './firewall-rule';
import { chunkLines, slackTime, code, context, fallback, safe, section, withSandbox, type Rendered } from './mrkdwn';

// The answer to "does this traffic reach the server?": a verdict line first
// (one per network interface when they disagree), then, per interface, the
// rules that decide, quoted as the rule list shows them, with what the reader
// must not miss (a rule the bot cannot read, disabled rules, shadowed ones).

export interface PortAnswerView {
  vsId: number;
  answer: PortAnswer<FirewallRule>;
  fetchedAt: Date;
  sandbox: boolean;
}

/** Beyond these, the reader is sent to the full rule list. */
const MAX_INTERFACES = 12;
const MAX_LINES_PER_KIND = 6;
const MAX_CLAUSES = 6;
const NO_DEFAULT_SHOWN = "the interface's default applies (the API does not show it)";

function describeQuestion(q: PortQuestion): string {
  return `${q.port}/${q.protocol}${q.source ? ` from ${formatIp(q.source)}` : ''}`;
}

export function renderPortAnswer({ vsId, answer, fetchedAt, sandbox }: PortAnswerView): Rendered {
  const asked = describeQuestion(answer.question);
  const title = `VS ${vsId} · ${asked}`;
  const footer = context(
    `Rules apply in position order; the first that matches decides. All rules: ${code(`/vs firewall ${vsId}`)} · fetched ${slackTime(fetchedAt.getTime())}`,
  );

  if (answer.interfaces.length === 0) {
    const verdict = `no rule decides: VS ${vsId} has no firewall rules, so each network interface's default applies (the API does not show it)`;
    return { text: fallback(`${title}: ${verdict}`, sandbox), blocks: withSandbox([section(`*${safe(title)}*: ${verdict}.`), footer], sandbox) };
  }

  const verdicts = answer.interfaces.map((iface) => verdictOf(iface, answer.question));
  const agree = verdicts.every((v) => v.key === verdicts[0]!.key);
  const blocks: KnownBlock[] = [];
  let text: string;
  if (agree) {
    const only = verdicts.length === 1;
    const where = only ? '' : verdicts.length === 2 ? ', on both network interfaces' : `, on all ${verdicts.length} network interfaces`;
    // Rule numbers differ per interface: with several, they are named below.
    const v = verdicts[0]!;
    blocks.push(section(`*${safe(title)}*: ${only ? v.withRules : v.key}${where}`));
    text = `${title}: ${only ? v.plainWithRules : v.plain}${where}`;
  } else {
    const lines = verdicts.slice(0, MAX_INTERFACES).map((v, i) => `• network interface ${answer.interfaces[i]!.networkInterfaceId}: ${v.withRules}`);
    const more = verdicts.length - MAX_INTERFACES;
    if (more > 0) lines.push(`• …and ${more} more network interfaces: see ${code(`/vs firewall ${vsId}`)}`);
    const [first, ...rest] = chunkLines([`*${safe(title)}*: the network interfaces disagree`, ...lines], 2900);
    blocks.push(section(first!), ...rest.map(section));
    text = `${title}: ${answer.interfaces.map((iface, i) => `interface ${iface.networkInterfaceId}: ${verdicts[i]!.plainWithRules}`).join(' · ')}`;
  }

  for (const iface of answer.interfaces.slice(0, MAX_INTERFACES)) {
    const [first, ...rest] = chunkLines([`*Network interface ${iface.networkInterfaceId}*`, ...detailLines(iface, answer.question)], 2900);
    blocks.push(section(first!), ...rest.map(section));
  }
  if (answer.interfaces.length > MAX_INTERFACES)
    blocks.push(
      context(`${answer.interfaces.length - MAX_INTERFACES} more network interfaces are not shown here: ${code(`/vs firewall ${vsId}`)} lists every rule.`),
    );
  blocks.push(footer);
  return { text: fallback(text, sandbox), blocks: withSandbox(blocks, sandbox) };
}

interface VerdictLine {
  /** Compared across interfaces: the same words whatever the rule numbers. */
  key: string;
  withRules: string;
  /** For the notification: no mrkdwn. */
  plain: string;
  plainWithRules: string;
}

type Clause = { words: string; plain: string; rules: number[] };

function verdictOf(iface: InterfaceAnswer<FirewallRule>, q: PortQuestion): VerdictLine {
  const clauses = q.source ? oneSourceClauses(iface) : everySourceClauses(iface);
  const shown = clauses.slice(0, MAX_CLAUSES);
  if (clauses.length > MAX_CLAUSES) {
    const more = `…and ${clauses.length - MAX_CLAUSES} more rules that decide for other sources`;
    shown.push({ words: more, plain: more, rules: [] });
  }
  const refs = (c: Clause) => (c.rules.length === 0 ? '' : ` (rule${c.rules.length > 1 ? 's' : ''} ${c.rules.map((p) => `#${p}`).join(', ')})`);
  return {
    key: shown.map((c) => c.words).join('; '),
    withRules: shown.map((c) => `${c.words}${refs(c)}`).join('; '),
    plain: shown.map((c) => c.plain).join('; '),
    plainWithRules: shown.map((c) => `${c.plain}${refs(c)}`).join('; '),
  };
}

function oneSourceClauses(iface: InterfaceAnswer<FirewallRule>): Clause[] {
  const decision = iface.decisions[0];
  const outcome: Clause = decision
    ? { words: `*${decision.verdict}*`, plain: decision.verdict, rules: [decision.rule.position] }
    : { words: `no rule decides: ${NO_DEFAULT_SHOWN}`, plain: `no rule decides: ${NO_DEFAULT_SHOWN}`, rules: [] };
  if (iface.cannotTell.length === 0) return [outcome];
  const unread = iface.cannotTell.map((c) => `#${c.rule.position}`);
  const which =
    unread.length === 1 ? `rule ${unread[0]} cannot be read; if it does not apply` : `rules ${unread.join(', ')} cannot be read; if they do not apply`;
  return [{ words: `*cannot tell*: ${which}, ${outcome.words}`, plain: `cannot tell: ${which}, ${outcome.plain}`, rules: outcome.rules }];
}

function everySourceClauses(iface: InterfaceAnswer<FirewallRule>): Clause[] {
  const { decisions, cannotTell, reachesDefault } = iface;
  // Everyone gets the same answer, by one rule or several: say it once.
  const verdicts = new Set(decisions.map((d) => d.verdict));
  if (cannotTell.length === 0 && !reachesDefault && verdicts.size === 1) {
    const verdict = decisions[0]!.verdict;
    return [{ words: `*${verdict}* for everyone`, plain: `${verdict} for everyone`, rules: decisions.map((d) => d.rule.position) }];
  }
  const steps = [...decisions.map((d) => ({ position: d.rule.position, d })), ...cannotTell.map((c) => ({ position: c.rule.position, c }))].sort(
    (a, b) => a.position - b.position,
  );
  // "for everyone" only when nothing came before: after a rule the bot cannot read, it is "everyone else".
  const clauses = steps.map((step, i) => ('d' in step ? decisionClause(step.d, i === 0) : cannotTellClause(step.c)));
  if (reachesDefault) {
    const words = decisions.length === 0 && cannotTell.length === 0 ? `no rule decides: ${NO_DEFAULT_SHOWN}` : 'no rule for anyone else';
    clauses.push({ words, plain: words, rules: [] });
  }
  return clauses;
}

function decisionClause(d: Decision<FirewallRule>, first: boolean): Clause {
  if (d.everyoneElse) {
    const who = first ? 'for everyone' : 'for everyone else';
    return { words: `*${d.verdict}* ${who}`, plain: `${d.verdict} ${who}`, rules: [d.rule.position] };
  }
  const address = d.rule.address ?? '';
  const partly = d.partly ? ' (where not decided above)' : '';
  return { words: `*${d.verdict}* from ${code(address, 60)}${partly}`, plain: `${d.verdict} from ${safe(address, 60)}${partly}`, rules: [d.rule.position] };
}

function cannotTellClause(c: CannotTell<FirewallRule>): Clause {
  const addressReadable = !c.fields.some((f) => f.field === 'address');
  const who = addressReadable && c.rule.address ? ` for ${code(c.rule.address, 60)}` : ' for some sources';
  const plainWho = addressReadable && c.rule.address ? ` for ${safe(c.rule.address, 60)}` : ' for some sources';
  return { words: `*cannot tell*${who}`, plain: `cannot tell${plainWho}`, rules: [c.rule.position] };
}

function detailLines(iface: InterfaceAnswer<FirewallRule>, q: PortQuestion): string[] {
  const lines: string[] = [];
  const withId = (r: FirewallRule) => `${ruleLine(r)} · id ${r.id}`;
  const capped = <T>(items: readonly T[], line: (item: T) => string, more: (n: number) => string) => {
    lines.push(...items.slice(0, MAX_LINES_PER_KIND).map(line));
    if (items.length > MAX_LINES_PER_KIND) lines.push(more(items.length - MAX_LINES_PER_KIND));
  };
  const steps = [
    ...iface.decisions.map((d) => ({ kind: 'decides' as const, rule: d.rule, d })),
    ...iface.cannotTell.map((c) => ({ kind: 'unread' as const, rule: c.rule, c })),
  ].sort((a, b) => a.rule.position - b.rule.position);
  capped(
    steps,
    (s) =>
      s.kind === 'decides'
        ? `Decides: ${withId(s.rule)}`
        : `:grey_question: Cannot be read: ${withId(s.rule)} — ${s.c.fields.map((f) => `its ${f.field} ${code(f.value, 60)}`).join(' and ')} ` +
          'is not a form the bot reads, so what follows holds only if it does not apply',
    (n) => `…and ${n} more rules that decide or cannot be read: see the full list`,
  );
  if (iface.reachesDefault) {
    const who = q.source ? 'this source' : iface.decisions.length === 0 && iface.cannotTell.length === 0 ? 'anyone' : 'anyone else';
    lines.push(`No rule decides for ${who}: ${NO_DEFAULT_SHOWN}.`);
  }
  capped(
    iface.disabled,
    (r) => `_Skipped, disabled:_ ${withId(r)}`,
    (n) => `_…and ${n} more disabled rules that would match_`,
  );
  if (iface.shadowed.length > 0) {
    const refs = iface.shadowed.slice(0, 10).map((r) => `\`#${r.position}\` (id ${r.id})`);
    const more = iface.shadowed.length > 10 ? ` and ${iface.shadowed.length - 10} more` : '';
    lines.push(`_Also match further down, never reached for this traffic:_ ${refs.join(', ')}${more}`);
  }
  return lines;
}
