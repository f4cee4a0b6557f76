import type { KnownBlock, View } from '@slack/types';
import { LIMITS } from './mrkdwn';

// Block Kit's limits, checked on a whole message or view just before it is sent
// (src/slack/send.ts and the response_url's post call it), so that what a
// renderer built and Slack would refuse is never sent: the person would get
// nothing and the bot would not know. Renderers keep to the limits themselves
// (a list too long says how many it leaves out); this is the net under them.
// Counted in UTF-16 units, as Slack's own messages count them.

/** The limits of https://api.slack.com/reference/block-kit the bot can run into, beyond the renderers' own LIMITS. */
export const BLOCK_KIT = {
  messageBlocks: LIMITS.blocks,
  viewBlocks: 100,
  sectionText: LIMITS.sectionText,
  fields: LIMITS.fields,
  fieldText: LIMITS.fieldText,
  header: LIMITS.header,
  contextElements: LIMITS.contextElements,
  contextText: LIMITS.sectionText,
  actionsElements: 25,
  buttonText: LIMITS.buttonText,
  buttonValue: 2000,
  url: 3000,
  id: 255,
  inputLabel: 2000,
  hint: 2000,
  placeholder: 150,
  optionText: LIMITS.optionText,
  optionValue: 150,
  selectOptions: LIMITS.selectOptions,
  choiceOptions: 10,
  viewTitle: LIMITS.modalTitle,
  viewButton: 24,
  privateMetadata: 3000,
  /** A message's `text`: Slack refuses more (msg_too_long). */
  messageText: 40_000,
} as const;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Each problem as "where: what", e.g. "blocks[52]: 53 blocks, more than 50". */
class Problems {
  readonly list: string[] = [];
  add(at: string, what: string): void {
    this.list.push(`${at}: ${what}`);
  }
  /** A text object's text: present (unless optional), not empty, at most `max`. */
  text(v: unknown, at: string, max: number, optional = false): void {
    if (v === undefined) {
      if (!optional) this.add(at, 'missing');
      return;
    }
    const text = isObject(v) ? v.text : undefined;
    if (typeof text !== 'string' || text.length === 0) return this.add(at, 'no text');
    if (text.length > max) this.add(at, `${text.length} characters, more than ${max}`);
  }
  string(v: unknown, at: string, max: number): void {
    if (typeof v === 'string' && v.length > max) this.add(at, `${v.length} characters, more than ${max}`);
  }
  count(list: unknown, at: string, max: number, what: string): unknown[] {
    if (!Array.isArray(list)) {
      this.add(at, 'not a list');
      return [];
    }
    if (list.length > max) this.add(at, `${list.length} ${what}, more than ${max}`);
    return list;
  }
}

/** The problems of frozen blocks, found once: an answer shared by many commands is the same frozen page (src/slack/once-per-answer.ts). */
const frozenBlocksProblems = new WeakMap<readonly KnownBlock[], readonly string[]>();

/** What Slack would refuse in a message (chat.postMessage, chat.update, chat.postEphemeral, a response_url, an unfurl); empty when it fits. */
export function messageLimitProblems(message: { text?: string; blocks?: readonly KnownBlock[] }): string[] {
  const p = new Problems();
  const { blocks } = message;
  if (!(Array.isArray(blocks) && blocks.length > 0) && !message.text) p.add('text', 'no text and no blocks');
  p.string(message.text, 'text', BLOCK_KIT.messageText);
  if (blocks === undefined) return p.list;
  if (!Object.isFrozen(blocks)) {
    blocksProblems(p, blocks, BLOCK_KIT.messageBlocks);
    return p.list;
  }
  let found = frozenBlocksProblems.get(blocks);
  if (found === undefined) {
    const q = new Problems();
    blocksProblems(q, blocks, BLOCK_KIT.messageBlocks);
    found = q.list;
    frozenBlocksProblems.set(blocks, found);
  }
  return [...p.list, ...found];
}

/** What Slack would refuse in a view (views.open, views.update, views.publish, a response_action's view); empty when it fits. */
export function viewLimitProblems(view: View): string[] {
  const p = new Problems();
  if (view.type === 'modal') {
    p.text(view.title, 'title', BLOCK_KIT.viewTitle);
    p.text(view.submit, 'submit', BLOCK_KIT.viewButton, true);
    p.text(view.close, 'close', BLOCK_KIT.viewButton, true);
  }
  p.string(view.private_metadata, 'private_metadata', BLOCK_KIT.privateMetadata);
  p.string(view.callback_id, 'callback_id', BLOCK_KIT.id);
  blocksProblems(p, view.blocks, BLOCK_KIT.viewBlocks);
  return p.list;
}

function blocksProblems(p: Problems, blocks: unknown, max: number): void {
  const ids = new Set<string>();
  p.count(blocks, 'blocks', max, 'blocks').forEach((block, i) => {
    const at = `blocks[${i}]`;
    if (!isObject(block)) return p.add(at, 'not a block');
    if (typeof block.block_id === 'string') {
      p.string(block.block_id, `${at}.block_id`, BLOCK_KIT.id);
      if (ids.has(block.block_id)) p.add(`${at}.block_id`, 'repeated');
      ids.add(block.block_id);
    }
    blockProblems(p, block, at);
  });
}

function blockProblems(p: Problems, block: Json, at: string): void {
  switch (block.type) {
    case 'section':
      if (block.text === undefined && block.fields === undefined) p.add(at, 'neither text nor fields');
      p.text(block.text, `${at}.text`, BLOCK_KIT.sectionText, true);
      if (block.fields !== undefined)
        p.count(block.fields, `${at}.fields`, BLOCK_KIT.fields, 'fields').forEach((f, j) => p.text(f, `${at}.fields[${j}]`, BLOCK_KIT.fieldText));
      if (block.accessory !== undefined) elementProblems(p, block.accessory, `${at}.accessory`);
      return;
    case 'header':
      return p.text(block.text, `${at}.text`, BLOCK_KIT.header);
    case 'context':
      p.count(block.elements, `${at}.elements`, BLOCK_KIT.contextElements, 'elements').forEach((e, j) => {
        if (!(isObject(e) && e.type === 'image')) p.text(e, `${at}.elements[${j}]`, BLOCK_KIT.contextText);
      });
      return;
    case 'actions':
      p.count(block.elements, `${at}.elements`, BLOCK_KIT.actionsElements, 'elements').forEach((e, j) => elementProblems(p, e, `${at}.elements[${j}]`));
      return;
    case 'input':
      p.text(block.label, `${at}.label`, BLOCK_KIT.inputLabel);
      p.text(block.hint, `${at}.hint`, BLOCK_KIT.hint, true);
      return elementProblems(p, block.element, `${at}.element`);
    default:
      return;
  }
}

function elementProblems(p: Problems, element: unknown, at: string): void {
  if (!isObject(element)) return p.add(at, 'not an element');
  p.string(element.action_id, `${at}.action_id`, BLOCK_KIT.id);
  p.text(element.placeholder, `${at}.placeholder`, BLOCK_KIT.placeholder, true);
  if (element.type === 'button') {
    p.text(element.text, `${at}.text`, BLOCK_KIT.buttonText);
    p.string(element.value, `${at}.value`, BLOCK_KIT.buttonValue);
    p.string(element.url, `${at}.url`, BLOCK_KIT.url);
  }
  for (const key of ['options', 'initial_options'] as const) {
    if (element[key] === undefined) continue;
    const max = element.type === 'checkboxes' || element.type === 'radio_buttons' ? BLOCK_KIT.choiceOptions : BLOCK_KIT.selectOptions;
    p.count(element[key], `${at}.${key}`, max, 'options').forEach((o, j) => {
      p.text(isObject(o) ? o.text : undefined, `${at}.${key}[${j}].text`, BLOCK_KIT.optionText);
      p.string(isObject(o) ? o.value : undefined, `${at}.${key}[${j}].value`, BLOCK_KIT.optionValue);
      // A checkbox's or radio button's line under its text: Slack refuses the whole view past 75 characters.
      p.text(isObject(o) ? o.description : undefined, `${at}.${key}[${j}].description`, BLOCK_KIT.optionText, true);
    });
  }
}
