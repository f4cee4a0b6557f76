// One checker for every rendered message or modal: Slack's documented Block
// Kit limits, and "no markup that came from data". It walks any blocks array
// and returns the problems in words, so a failing property prints what broke.

import fc from 'fast-check';

/** Slack's limits (https://api.slack.com/reference/block-kit), measured in UTF-16 units, the stricter count. */
export const SLACK = {
  messageBlocks: 50,
  modalBlocks: 100,
  sectionText: 3000,
  fields: 10,
  fieldText: 2000,
  header: 150,
  buttonText: 75,
  buttonValue: 2000,
  actionsElements: 25,
  contextElements: 10,
  contextText: 3000,
  id: 255,
  inputLabel: 2000,
  hint: 2000,
  placeholder: 150,
  optionText: 75,
  selectOptions: 100,
  modalTitle: 24,
  modalButton: 24,
  privateMetadata: 3000,
  /** Our own bound for the notification text (Slack cuts at 40,000). */
  fallbackText: 3000,
} as const;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const textOf = (v: unknown): string | undefined => (isObj(v) && typeof v.text === 'string' ? v.text : undefined);
/** A field Slack wants as a string; anything else is measured as the JSON it would be sent as. */
const asString = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

/** Every problem with one blocks array, e.g. "block 3 (section): text is 3012 > 3000". */
export function blockViolations(blocks: unknown, maxBlocks: number = SLACK.messageBlocks): string[] {
  const problems: string[] = [];
  if (!Array.isArray(blocks)) return ['blocks is not an array'];
  for (const at of unverbatimTexts(blocks)) problems.push(`${at}: mrkdwn text is not verbatim (Slack would link a bare URL or @here in it)`);
  if (blocks.length > maxBlocks) problems.push(`${blocks.length} blocks > ${maxBlocks}`);
  const blockIds = new Set<string>();
  const max = (where: string, what: string, s: string | undefined, limit: number, required = true) => {
    if (s === undefined) {
      if (required) problems.push(`${where}: ${what} is missing`);
      return;
    }
    if (s.length > limit) problems.push(`${where}: ${what} is ${s.length} > ${limit}`);
    if (required && s.trim() === '') problems.push(`${where}: ${what} is empty (Slack rejects it)`);
  };
  const button = (where: string, b: Obj) => {
    max(where, 'button text', textOf(b.text), SLACK.buttonText);
    if (b.value !== undefined) max(where, 'button value', asString(b.value), SLACK.buttonValue);
    if (b.action_id !== undefined) max(where, 'action_id', asString(b.action_id), SLACK.id);
  };
  const element = (where: string, e: unknown) => {
    if (!isObj(e)) return problems.push(`${where}: element is not an object`);
    if (e.type === 'button') button(where, e);
    if (e.action_id !== undefined) max(where, 'action_id', asString(e.action_id), SLACK.id);
    if (e.placeholder !== undefined) max(where, 'placeholder', textOf(e.placeholder), SLACK.placeholder);
    for (const key of ['options', 'initial_options'] as const) {
      const options = e[key];
      if (!Array.isArray(options)) continue;
      if (options.length > SLACK.selectOptions) problems.push(`${where}: ${options.length} ${key}, more than ${SLACK.selectOptions}`);
      for (const o of options) max(where, 'option text', textOf(isObj(o) ? o.text : undefined), SLACK.optionText);
    }
    return undefined;
  };

  blocks.forEach((raw, i) => {
    if (!isObj(raw)) return problems.push(`block ${i}: not an object`);
    const where = `block ${i} (${String(raw.type)})`;
    if (typeof raw.block_id === 'string') {
      max(where, 'block_id', raw.block_id, SLACK.id);
      if (blockIds.has(raw.block_id)) problems.push(`${where}: block_id ${raw.block_id} is repeated`);
      blockIds.add(raw.block_id);
    }
    switch (raw.type) {
      case 'section': {
        const fields = raw.fields;
        if (raw.text === undefined && !Array.isArray(fields)) problems.push(`${where}: neither text nor fields`);
        if (raw.text !== undefined) max(where, 'text', textOf(raw.text), SLACK.sectionText);
        if (Array.isArray(fields)) {
          if (fields.length > SLACK.fields) problems.push(`${where}: ${fields.length} fields > ${SLACK.fields}`);
          fields.forEach((f, j) => max(`${where} field ${j}`, 'text', textOf(f), SLACK.fieldText));
        }
        if (raw.accessory !== undefined) element(`${where} accessory`, raw.accessory);
        break;
      }
      case 'header':
        max(where, 'text', textOf(raw.text), SLACK.header);
        if (isObj(raw.text) && raw.text.type !== 'plain_text') problems.push(`${where}: header text must be plain_text`);
        break;
      case 'context': {
        const elements = Array.isArray(raw.elements) ? raw.elements : [];
        if (elements.length === 0) problems.push(`${where}: no elements`);
        if (elements.length > SLACK.contextElements) problems.push(`${where}: ${elements.length} elements > ${SLACK.contextElements}`);
        elements.forEach((e, j) => max(`${where} element ${j}`, 'text', textOf(e), SLACK.contextText));
        break;
      }
      case 'actions': {
        const elements = Array.isArray(raw.elements) ? raw.elements : [];
        if (elements.length === 0) problems.push(`${where}: no elements`);
        if (elements.length > SLACK.actionsElements) problems.push(`${where}: ${elements.length} elements > ${SLACK.actionsElements}`);
        elements.forEach((e, j) => element(`${where} element ${j}`, e));
        break;
      }
      case 'input':
        max(where, 'label', textOf(raw.label), SLACK.inputLabel);
        if (raw.hint !== undefined) max(where, 'hint', textOf(raw.hint), SLACK.hint);
        element(`${where} element`, raw.element);
        break;
      case 'divider':
        break;
      case 'rich_text':
        // Preformatted text (the exact request of an approval): Slack shows it as it is; only its shape is ours to check.
        if (!Array.isArray(raw.elements) || raw.elements.length === 0) problems.push(`${where}: rich_text needs elements`);
        break;
      default:
        problems.push(`${where}: unexpected block type`);
    }
    return undefined;
  });
  return problems;
}

/**
 * Where a mrkdwn text object is not verbatim (`blocks[2].text`…): Slack would turn a bare URL, `#channel` or `@here`
 * in it into a link or a mention. Every one the bot sends is verbatim (src/slack/blocks/mrkdwn.ts `mrkdwn`).
 */
export function unverbatimTexts(blocks: unknown): string[] {
  const found: string[] = [];
  const walk = (v: unknown, at: string) => {
    if (Array.isArray(v)) return v.forEach((x, i) => walk(x, `${at}[${i}]`));
    if (!isObj(v)) return;
    if (v.type === 'mrkdwn' && typeof v.text === 'string' && v.verbatim !== true) found.push(at);
    for (const [k, x] of Object.entries(v)) walk(x, `${at}.${k}`);
  };
  walk(blocks, 'blocks');
  return found;
}

/** A message as posted: `{ text, blocks }`. */
export function messageViolations(m: { text: string; blocks: unknown }): string[] {
  const problems = blockViolations(m.blocks, SLACK.messageBlocks);
  if (typeof m.text !== 'string' || m.text.trim() === '') problems.push('fallback text is empty');
  else if (m.text.length > SLACK.fallbackText) problems.push(`fallback text is ${m.text.length} > ${SLACK.fallbackText}`);
  return problems;
}

/** A modal view as passed to views.open / views.update. */
export function modalViolations(view: Obj): string[] {
  const problems = blockViolations(view.blocks, SLACK.modalBlocks);
  const title = textOf(view.title);
  if (title === undefined || title.trim() === '') problems.push('modal title is missing');
  else if (title.length > SLACK.modalTitle) problems.push(`modal title "${title}" is ${title.length} > ${SLACK.modalTitle}`);
  for (const key of ['submit', 'close'] as const) {
    const t = textOf(view[key]);
    if (view[key] !== undefined && (t === undefined || t.length > SLACK.modalButton)) problems.push(`modal ${key} text is missing or too long`);
  }
  if (typeof view.private_metadata === 'string' && view.private_metadata.length > SLACK.privateMetadata) problems.push('private_metadata too long');
  if (typeof view.callback_id === 'string' && view.callback_id.length > SLACK.id) problems.push('callback_id too long');
  return problems;
}

/** Every text a user can read in the message: block texts (any depth) and the fallback. */
export function allTexts(m: { text?: string; blocks: unknown }): string[] {
  const out: string[] = [];
  const walk = (v: unknown, key: string | null) => {
    if (typeof v === 'string') {
      if (key === 'text') out.push(v);
      return;
    }
    if (Array.isArray(v)) return v.forEach((x) => walk(x, key));
    if (isObj(v)) for (const [k, x] of Object.entries(v)) walk(x, k);
  };
  walk(m.blocks, null);
  if (typeof m.text === 'string') out.push(m.text);
  return out;
}

/**
 * Markup that Slack would act on and that did not come from the renderer's
 * own mentions of the acting user or channel or its own times: any `<` that
 * does not start `<@U…>` / `<#C…>` for one of the allowed ids, or a date token
 * as slackTime writes them. Escaped data (`&lt;`) is fine.
 */
export function dataMarkup(m: { text?: string; blocks: unknown }, allowed: { users?: readonly string[]; channels?: readonly string[] } = {}): string[] {
  const users = new Set(allowed.users ?? []);
  const channels = new Set(allowed.channels ?? []);
  const found: string[] = [];
  for (const text of allTexts(m)) {
    for (const match of text.matchAll(/</g)) {
      const at = match.index;
      const rest = text.slice(at, at + 40);
      const mention = /^<([@#])([A-Z0-9]+)>/.exec(rest);
      if (mention && (mention[1] === '@' ? users : channels).has(mention[2]!)) continue;
      if (/^<!date\^-?\d+\^\{date_short_pretty\} at \{time\}\|[^<>|]+ UTC>/.test(text.slice(at, at + 80))) continue;
      found.push(JSON.stringify(text.slice(Math.max(0, at - 20), at + 30)));
    }
  }
  return found;
}

/** Texts that are not well-formed Unicode (half of a surrogate pair left by a cut). */
export function brokenUnicode(m: { text?: string; blocks: unknown }): string[] {
  return allTexts(m).filter((t) => /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(t));
}

/** Jest-friendly: fails listing every problem. */
export function expectWithinSlackLimits(m: { text: string; blocks: unknown }): void {
  expect(messageViolations(m)).toEqual([]);
}

export function expectNoDataMarkup(m: { text?: string; blocks: unknown }, allowed: { users?: readonly string[]; channels?: readonly string[] } = {}): void {
  expect(dataMarkup(m, allowed)).toEqual([]);
}

// ---------------------------------------------------------------------------
// Generators for hostile data.

/** Markup an attacker would plant in a description, label or reason. */
export const INJECTIONS = ['<!channel>', '<!here>', '<@U123>', '<#C1>', '<https://evil|click>', '<!subteam^S1>', '&', '&lt;', '>', '`', '*', '\n'] as const;

/**
 * Any text up to `maxLength` characters: arbitrary code points (well-formed),
 * with Slack markup spliced in. Mostly short, sometimes huge.
 */
export function hostileString(maxLength = 5000): fc.Arbitrary<string> {
  const pieces = fc.oneof(
    { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 40 }) },
    { weight: 3, arbitrary: fc.constantFrom(...INJECTIONS) },
  );
  const built = fc.array(pieces, { maxLength: 12 }).map((parts) => parts.join(''));
  const huge = fc
    .tuple(fc.constantFrom(...INJECTIONS, 'a', '😀', '<'), fc.integer({ min: 1, max: maxLength }))
    .map(([unit, n]) => unit.repeat(Math.ceil(n / unit.length)));
  const plain = fc.string({ unit: 'binary', maxLength });
  // Cut to maxLength without leaving half of a surrogate pair: the input stays well-formed Unicode.
  return fc
    .oneof({ weight: 4, arbitrary: built }, { weight: 1, arbitrary: huge }, { weight: 1, arbitrary: plain })
    .map((s) => (s.length > maxLength ? s.slice(0, maxLength) : s).replace(/[\uD800-\uDBFF]$/, ''));
}

/** A Slack user id such as the one Slack gives for the acting user. */
export const slackUserId = fc.stringMatching(/^U[A-Z0-9]{8,10}$/);
/** A Slack channel id. */
export const slackChannelId = fc.stringMatching(/^C[A-Z0-9]{8,10}$/);

/** Convenience for property failure messages. */
export function describeProblems(problems: string[]): string {
  return problems.slice(0, 10).join('\n');
}

export type { Json };
