// What Slack refuses in Block Kit, checked the way Slack checks it: each
// problem names the JSON pointer of the offending value, in Slack's own
// wording ("[ERROR] must be less than 3001 characters [json-pointer:/blocks/0/text/text]"),
// so a developer reads on the page what Slack would have answered.

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The limits of https://api.slack.com/reference/block-kit that the bot can run into. */
export const BLOCK_KIT_LIMITS = {
  messageBlocks: 50,
  viewBlocks: 100,
  sectionText: 3000,
  sectionFields: 10,
  fieldText: 2000,
  headerText: 150,
  contextElements: 10,
  actionsElements: 25,
  buttonText: 75,
  buttonValue: 2000,
  actionId: 255,
  blockId: 255,
  url: 3000,
  inputLabel: 2000,
  hint: 2000,
  placeholder: 150,
  optionText: 75,
  optionValue: 150,
  selectOptions: 100,
  choiceOptions: 10,
  textInputLength: 3000,
  viewTitle: 24,
  viewButton: 24,
  privateMetadata: 3000,
  callbackId: 255,
  messageText: 40_000,
} as const;

const L = BLOCK_KIT_LIMITS;

const MESSAGE_BLOCKS = new Set(['section', 'header', 'context', 'divider', 'actions', 'image', 'rich_text', 'video', 'file', 'markdown']);
const VIEW_BLOCKS = new Set([...MESSAGE_BLOCKS, 'input']);
const ACTION_ELEMENTS = new Set([
  'button',
  'static_select',
  'external_select',
  'users_select',
  'conversations_select',
  'channels_select',
  'multi_static_select',
  'overflow',
  'datepicker',
  'timepicker',
  'checkboxes',
  'radio_buttons',
  'plain_text_input',
  'number_input',
]);
const RICH_TEXT_ELEMENTS = new Set(['rich_text_section', 'rich_text_list', 'rich_text_preformatted', 'rich_text_quote']);
const RICH_TEXT_RUNS = new Set(['text', 'link', 'emoji', 'user', 'channel', 'usergroup', 'broadcast', 'date', 'color']);
const INPUT_ELEMENTS = new Set([
  'plain_text_input',
  'number_input',
  'static_select',
  'external_select',
  'users_select',
  'conversations_select',
  'channels_select',
  'multi_static_select',
  'multi_users_select',
  'multi_conversations_select',
  'multi_channels_select',
  'checkboxes',
  'radio_buttons',
  'datepicker',
  'timepicker',
  'datetimepicker',
  'email_text_input',
  'url_text_input',
  'rich_text_input',
  'file_input',
]);

class Problems {
  readonly list: string[] = [];
  add(pointer: string, message: string): void {
    this.list.push(`[ERROR] ${message} [json-pointer:${pointer}]`);
  }
  text(v: unknown, pointer: string, o: { max: number; plainOnly?: boolean; required?: boolean }): void {
    if (v === undefined) {
      if (o.required !== false) this.add(pointer, 'must provide an object');
      return;
    }
    if (!isObject(v)) return this.add(pointer, 'must provide an object');
    if (v.type !== 'plain_text' && v.type !== 'mrkdwn') return this.add(`${pointer}/type`, 'must be one of ["plain_text", "mrkdwn"]');
    if (o.plainOnly && v.type !== 'plain_text') return this.add(`${pointer}/type`, 'must be a valid enum value (plain_text)');
    if (typeof v.text !== 'string') return this.add(`${pointer}/text`, 'must provide a string');
    if (v.text.length === 0) return this.add(`${pointer}/text`, 'must be more than 0 characters');
    if (v.text.length > o.max) this.add(`${pointer}/text`, `must be less than ${o.max + 1} characters`);
  }
  string(v: unknown, pointer: string, max: number, required = false): void {
    if (v === undefined) {
      if (required) this.add(pointer, 'must provide a string');
      return;
    }
    if (typeof v !== 'string') return this.add(pointer, 'must provide a string');
    if (v.length > max) this.add(pointer, `must be less than ${max + 1} characters`);
  }
}

/** Problems with a message's blocks and text (chat.postMessage, chat.postEphemeral, response_url). Empty: Slack takes it. */
export function messageProblems(message: { text?: unknown; blocks?: unknown }): string[] {
  const p = new Problems();
  if (message.text !== undefined && typeof message.text === 'string' && message.text.length > L.messageText)
    p.add('/text', `must be less than ${L.messageText + 1} characters`);
  if (message.blocks !== undefined) blocksProblems(p, message.blocks, '/blocks', MESSAGE_BLOCKS, L.messageBlocks);
  return p.list;
}

/** Problems with a view (views.open, views.update, views.push, views.publish, response_action update/push). */
export function viewProblems(view: unknown): string[] {
  const p = new Problems();
  if (!isObject(view)) {
    p.add('/view', 'must provide an object');
    return p.list;
  }
  const type = view.type;
  if (type !== 'modal' && type !== 'home') {
    p.add('/type', 'must be one of ["modal", "home"]');
    return p.list;
  }
  if (type === 'modal') {
    p.text(view.title, '/title', { max: L.viewTitle, plainOnly: true });
    p.text(view.submit, '/submit', { max: L.viewButton, plainOnly: true, required: false });
    p.text(view.close, '/close', { max: L.viewButton, plainOnly: true, required: false });
    const hasInput = Array.isArray(view.blocks) && view.blocks.some((b) => isObject(b) && b.type === 'input');
    if (hasInput && view.submit === undefined) p.add('/submit', 'must provide a submit button when the view has input blocks');
  }
  p.string(view.private_metadata, '/private_metadata', L.privateMetadata);
  p.string(view.callback_id, '/callback_id', L.callbackId);
  // Input blocks are allowed in Home tabs as in modals.
  blocksProblems(p, view.blocks, '/blocks', VIEW_BLOCKS, L.viewBlocks);
  return p.list;
}

function blocksProblems(p: Problems, blocks: unknown, pointer: string, allowed: Set<string>, max: number): void {
  if (!Array.isArray(blocks)) return p.add(pointer, 'must provide an array');
  if (blocks.length > max) p.add(pointer, `must be less than ${max + 1} items`);
  const blockIds = new Set<string>();
  blocks.forEach((block, i) => {
    const at = `${pointer}/${i}`;
    if (!isObject(block)) return p.add(at, 'must provide an object');
    if (typeof block.type !== 'string' || !allowed.has(block.type)) return p.add(`${at}/type`, `must be a valid enum value`);
    if (block.block_id !== undefined) {
      p.string(block.block_id, `${at}/block_id`, L.blockId);
      if (typeof block.block_id === 'string') {
        if (blockIds.has(block.block_id)) p.add(`${at}/block_id`, 'must be unique');
        blockIds.add(block.block_id);
      }
    }
    blockProblems(p, block, at);
  });
}

function blockProblems(p: Problems, block: Json, at: string): void {
  switch (block.type) {
    case 'section': {
      if (block.text === undefined && block.fields === undefined) p.add(at, 'must provide either text or fields');
      if (block.text !== undefined) p.text(block.text, `${at}/text`, { max: L.sectionText });
      if (block.fields !== undefined) {
        if (!Array.isArray(block.fields)) p.add(`${at}/fields`, 'must provide an array');
        else {
          if (block.fields.length > L.sectionFields) p.add(`${at}/fields`, `must be less than ${L.sectionFields + 1} items`);
          block.fields.forEach((f, i) => p.text(f, `${at}/fields/${i}`, { max: L.fieldText }));
        }
      }
      if (block.accessory !== undefined) elementProblems(p, block.accessory, `${at}/accessory`, ACTION_ELEMENTS);
      return;
    }
    case 'header':
      return p.text(block.text, `${at}/text`, { max: L.headerText, plainOnly: true });
    case 'context': {
      if (!Array.isArray(block.elements)) return p.add(`${at}/elements`, 'must provide an array');
      if (block.elements.length === 0) p.add(`${at}/elements`, 'must provide at least 1 item');
      if (block.elements.length > L.contextElements) p.add(`${at}/elements`, `must be less than ${L.contextElements + 1} items`);
      block.elements.forEach((e, i) => {
        if (isObject(e) && e.type === 'image') return;
        p.text(e, `${at}/elements/${i}`, { max: L.sectionText });
      });
      return;
    }
    case 'actions': {
      if (!Array.isArray(block.elements)) return p.add(`${at}/elements`, 'must provide an array');
      if (block.elements.length === 0) p.add(`${at}/elements`, 'must provide at least 1 item');
      if (block.elements.length > L.actionsElements) p.add(`${at}/elements`, `must be less than ${L.actionsElements + 1} items`);
      const actionIds = new Set<string>();
      block.elements.forEach((e, i) => {
        elementProblems(p, e, `${at}/elements/${i}`, ACTION_ELEMENTS);
        if (isObject(e) && typeof e.action_id === 'string') {
          if (actionIds.has(e.action_id)) p.add(`${at}/elements/${i}/action_id`, 'must be unique within the block');
          actionIds.add(e.action_id);
        }
      });
      return;
    }
    case 'rich_text':
      return richTextProblems(p, block.elements, `${at}/elements`);
    case 'input': {
      p.text(block.label, `${at}/label`, { max: L.inputLabel, plainOnly: true });
      p.text(block.hint, `${at}/hint`, { max: L.hint, plainOnly: true, required: false });
      if (block.element === undefined) return p.add(`${at}/element`, 'must provide an object');
      return elementProblems(p, block.element, `${at}/element`, INPUT_ELEMENTS);
    }
    default:
      return;
  }
}

/** A rich_text block: its elements (sections, preformatted text, quotes: each a list of runs; lists: of sections). */
function richTextProblems(p: Problems, elements: unknown, at: string): void {
  if (!Array.isArray(elements)) return p.add(at, 'must provide an array');
  elements.forEach((e, i) => {
    const here = `${at}/${i}`;
    if (!isObject(e) || typeof e.type !== 'string' || !RICH_TEXT_ELEMENTS.has(e.type)) return p.add(`${here}/type`, 'must be a valid enum value');
    if (e.type !== 'rich_text_list') return runProblems(p, e.elements, `${here}/elements`);
    if (!Array.isArray(e.elements)) return p.add(`${here}/elements`, 'must provide an array');
    e.elements.forEach((item, j) => {
      if (!isObject(item) || item.type !== 'rich_text_section') return p.add(`${here}/elements/${j}/type`, 'must be a valid enum value');
      runProblems(p, item.elements, `${here}/elements/${j}/elements`);
    });
  });
}

function runProblems(p: Problems, runs: unknown, at: string): void {
  if (!Array.isArray(runs)) return p.add(at, 'must provide an array');
  runs.forEach((run, i) => {
    if (!isObject(run) || typeof run.type !== 'string' || !RICH_TEXT_RUNS.has(run.type)) return p.add(`${at}/${i}/type`, 'must be a valid enum value');
    if (run.type === 'text' && typeof run.text !== 'string') p.add(`${at}/${i}/text`, 'must provide a string');
  });
}

function elementProblems(p: Problems, element: unknown, at: string, allowed: Set<string>): void {
  if (!isObject(element)) return p.add(at, 'must provide an object');
  if (typeof element.type !== 'string' || !allowed.has(element.type)) return p.add(`${at}/type`, 'must be a valid enum value');
  p.string(element.action_id, `${at}/action_id`, L.actionId);
  p.text(element.placeholder, `${at}/placeholder`, { max: L.placeholder, plainOnly: true, required: false });
  if (isObject(element.confirm)) {
    const c = element.confirm;
    p.text(c.title, `${at}/confirm/title`, { max: 100, plainOnly: true });
    p.text(c.text, `${at}/confirm/text`, { max: 300 });
    p.text(c.confirm, `${at}/confirm/confirm`, { max: 30, plainOnly: true });
    p.text(c.deny, `${at}/confirm/deny`, { max: 30, plainOnly: true });
  }
  switch (element.type) {
    case 'button':
      p.text(element.text, `${at}/text`, { max: L.buttonText, plainOnly: true });
      p.string(element.value, `${at}/value`, L.buttonValue);
      p.string(element.url, `${at}/url`, L.url);
      if (element.style !== undefined && element.style !== 'primary' && element.style !== 'danger')
        p.add(`${at}/style`, 'must be one of ["primary", "danger"]');
      return;
    case 'static_select':
    case 'multi_static_select':
      return optionsProblems(p, element, at, L.selectOptions);
    case 'checkboxes':
    case 'radio_buttons':
      return optionsProblems(p, element, at, L.choiceOptions);
    case 'plain_text_input': {
      const max = element.max_length;
      if (max !== undefined && (typeof max !== 'number' || max < 1 || max > L.textInputLength))
        p.add(`${at}/max_length`, `must be between 1 and ${L.textInputLength}`);
      p.string(element.initial_value, `${at}/initial_value`, typeof max === 'number' ? max : L.textInputLength);
      return;
    }
    case 'number_input':
      if (typeof element.is_decimal_allowed !== 'boolean') p.add(`${at}/is_decimal_allowed`, 'must provide a boolean');
      return;
    default:
      return;
  }
}

function optionsProblems(p: Problems, element: Json, at: string, max: number): void {
  const options = element.options;
  if (!Array.isArray(options)) return p.add(`${at}/options`, 'must provide an array');
  if (options.length === 0) p.add(`${at}/options`, 'must provide at least 1 item');
  if (options.length > max) p.add(`${at}/options`, `must be less than ${max + 1} items`);
  const values = options.map((o, i) => {
    if (!isObject(o)) {
      p.add(`${at}/options/${i}`, 'must provide an object');
      return undefined;
    }
    p.text(o.text, `${at}/options/${i}/text`, { max: L.optionText });
    p.string(o.value, `${at}/options/${i}/value`, L.optionValue, true);
    if (o.description !== undefined) p.text(o.description, `${at}/options/${i}/description`, { max: L.optionText });
    return o.value;
  });
  const initialOptions: unknown[] = Array.isArray(element.initial_options) ? element.initial_options : [];
  const initial = [element.initial_option, ...initialOptions].filter((o) => o !== undefined);
  for (const o of initial) {
    if (!isObject(o) || !values.includes(o.value)) p.add(`${at}/initial_option`, 'must match one of the options');
  }
}
