import { parseAddressForm } from './address';
import type { InterfaceAnswer, PortAnswer, RuleRecord, Verdict } from './port-question';

// The port question's answer in one word (docs/product.md, Workflow steps):
// `accepted` when the traffic is accepted on every network interface,
// `dropped` when dropped on every one, `undecided` when no rule decides on
// any, `mixed` otherwise. Without a source, an interface's word is the one
// for a source that no narrower rule names: what its answer calls "for
// everyone" or "for everyone else". A rule the bot cannot read that may decide
// first is never guessed past: that interface is `undecided` (the summary
// says "cannot tell" and why). Pure: an answer in, a word out.

export type PortVerdict = Verdict | 'mixed' | 'undecided';

export function portVerdict<R extends RuleRecord>(answer: PortAnswer<R>): PortVerdict {
  const words = new Set(answer.interfaces.map((iface) => interfaceVerdict(iface, answer.question.source === null)));
  if (words.size === 0) return 'undecided';
  return words.size === 1 ? [...words][0]! : 'mixed';
}

function interfaceVerdict<R extends RuleRecord>(iface: InterfaceAnswer<R>, everySource: boolean): Verdict | 'undecided' {
  if (!everySource) {
    // One source: the walk stopped at its first match; a rule above it that the bot cannot read may have matched first.
    const decision = iface.decisions[0];
    return decision && iface.cannotTell.length === 0 ? decision.verdict : 'undecided';
  }
  // The rule that decides for everyone left once the narrower rules above it took theirs.
  const rest = iface.decisions.find((d) => d.everyoneElse);
  if (!rest) return 'undecided';
  const unreadableFirst = iface.cannotTell.some((c) => c.rule.position <= rest.rule.position && namesEverySource(c));
  return unreadableFirst ? 'undecided' : rest.verdict;
}

/** A rule the bot cannot read may apply to a source no narrower rule names: its address cannot be read, or names every source. */
function namesEverySource(c: { rule: RuleRecord; fields: { field: string }[] }): boolean {
  return c.fields.some((f) => f.field === 'address') || parseAddressForm(c.rule.address).kind === 'all';
}
