import type { KnownBlock, ModalView } from '@slack/types';
import fc from 'fast-check';
import type { Rendered } from '../../../src/slack/blocks/mrkdwn';

// What every rendered message must satisfy, whatever the data: Slack's
// documented limits, and no markup that data could have smuggled in.

type Json = string | number | boolean | null | undefined | Json[] | { [key: string]: Json };

/** Every string under a `text` key, anywhere in the blocks: what Slack renders. */
export function allTexts(value: unknown): string[] {
  const out: string[] = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      for (const [key, child] of Object.entries(v as Record<string, Json>)) {
        if (key === 'text' && typeof child === 'string') out.push(child);
        else walk(child);
      }
    }
  };
  walk(value);
  return out;
}

/** Markup Slack acts on: `<!…>`, `<@…>`, `<#…>`, `<http…>`, and any other `<…>`. */
const ALLOWED_MARKUP = /^<(@[UW][A-Z0-9]+|#[CG][A-Z0-9]+)>$/;

/**
 * No `<` or `>` except a well-formed user or channel mention (which our code
 * builds from Slack ids), and every `&` starts an entity.
 */
export function markupProblems(texts: string[]): string[] {
  const problems: string[] = [];
  for (const t of texts) {
    const withoutMentions = t.replace(/<[^<>]*>/g, (m) => (ALLOWED_MARKUP.test(m) ? '' : m));
    if (/[<>]/.test(withoutMentions)) problems.push(`raw < or > in ${JSON.stringify(t.slice(0, 200))}`);
    if (/&(?!(amp|lt|gt);)/.test(t)) problems.push(`bare & in ${JSON.stringify(t.slice(0, 200))}`);
  }
  return problems;
}

export function messageLimitProblems(m: Rendered): string[] {
  const p: string[] = [];
  if (m.text.length > 3000) p.push(`fallback text ${m.text.length} > 3000`);
  if (m.blocks.length > 50) p.push(`${m.blocks.length} blocks > 50`);
  p.push(...blockLimitProblems(m.blocks));
  // Slack also refuses messages whose blocks are too long in total (msg_blocks_too_long, ~13k seen).
  const total = allTexts(m.blocks).reduce((n, t) => n + t.length, 0);
  if (total > 12_000) p.push(`blocks carry ${total} characters > 12000`);
  return p;
}

export function blockLimitProblems(blocks: readonly KnownBlock[]): string[] {
  const p: string[] = [];
  for (const b of blocks) {
    switch (b.type) {
      case 'section':
        if (b.text && b.text.text.length > 3000) p.push(`section text ${b.text.text.length} > 3000`);
        if (b.fields && b.fields.length > 10) p.push(`${b.fields.length} fields > 10`);
        for (const f of b.fields ?? []) if (f.text.length > 2000) p.push(`field ${f.text.length} > 2000`);
        if (!b.text && !b.fields?.length) p.push('empty section');
        if (b.text && b.text.text.length === 0) p.push('empty section text');
        break;
      case 'header':
        if (b.text.text.length > 150) p.push(`header ${b.text.text.length} > 150`);
        break;
      case 'context':
        if (b.elements.length > 10) p.push(`${b.elements.length} context elements > 10`);
        if (b.elements.length === 0) p.push('empty context');
        for (const e of b.elements) if ('text' in e && typeof e.text === 'string' && e.text.length > 3000) p.push(`context text ${e.text.length} > 3000`);
        break;
      case 'actions':
        if (b.elements.length > 25 || b.elements.length === 0) p.push(`${b.elements.length} action elements`);
        for (const e of b.elements) {
          if (e.type === 'button') {
            if (e.text.text.length > 75) p.push(`button text ${e.text.text.length} > 75`);
            if ((e.value ?? '').length > 2000) p.push('button value > 2000');
          }
        }
        break;
      case 'input':
        if (b.label.text.length > 2000) p.push('input label > 2000');
        if (b.hint && b.hint.text.length > 2000) p.push('input hint > 2000');
        break;
      default:
        break;
    }
  }
  return p;
}

export function modalLimitProblems(v: ModalView): string[] {
  const p: string[] = [];
  if (v.title.text.length > 24) p.push(`title ${JSON.stringify(v.title.text)} > 24`);
  if (v.submit && v.submit.text.length > 24) p.push('submit > 24');
  if (v.close && v.close.text.length > 24) p.push('close > 24');
  if (v.blocks.length > 100) p.push(`${v.blocks.length} blocks > 100`);
  if ((v.private_metadata ?? '').length > 3000) p.push('private_metadata > 3000');
  p.push(...blockLimitProblems(v.blocks as KnownBlock[]));
  for (const b of v.blocks) {
    if (b.type !== 'input') continue;
    const e = (b as unknown as { element: Record<string, unknown> }).element;
    const initial = e.initial_value;
    const max = e.max_length;
    if (typeof initial === 'string' && typeof max === 'number' && initial.length > max) p.push(`initial value of ${String(e.action_id)} longer than its max_length`);
    for (const o of (e.options as { text: { text: string } }[] | undefined) ?? []) if (o.text.text.length > 75) p.push('option text > 75');
  }
  return p;
}

/** Asserts limits and markup at once, with readable failures. */
export function expectSlackSafe(m: Rendered): void {
  expect([...messageLimitProblems(m), ...markupProblems([...allTexts(m.blocks), m.text])]).toEqual([]);
}

const HOSTILE = [
  '<!channel>',
  '<!here|here>',
  '<!subteam^S123|@oncall>',
  '<@U123>',
  '<#C123|general>',
  '<https://evil.example|click here>',
  '<http://x>',
  '&',
  '&amp;',
  '&lt;!channel&gt;',
  '`',
  '```',
  '*bold* _it_ ~s~',
  '\n*Network interface 1*\n`#1` :white_check_mark: *ACCEPT*',
  '\u0000\u0007\u001b[31m',
  '\u202e\u200b\ufeff',
  '😀👩‍👩‍👧‍👦',
  '\ud800',
  '',
  ' ',
];

/** Any text a hostile or broken API (or user) could send, including very long and odd Unicode. */
export const hostileText: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE) },
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 60 }) },
  { weight: 2, arbitrary: fc.array(fc.constantFrom(...HOSTILE, 'a', 'é', '443'), { maxLength: 12 }).map((parts) => parts.join('')) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom('<', '>', '&', 'a', '😀', '<!channel>'), fc.integer({ min: 1000, max: 5000 })).map(([s, n]) => s.repeat(Math.ceil(n / s.length)).slice(0, n)) },
);

export const nullableHostile = fc.option(hostileText, { nil: null });
