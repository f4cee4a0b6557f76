// @ts-check
// Block Kit to DOM, for the local page: the blocks and elements the bot sends,
// and mrkdwn (bold, italic, strike, code, links, mentions, emoji names).
// Built with DOM calls only (never innerHTML), so nothing the bot or the cloud
// API writes can become markup. What it cannot render is shown as such.

/** @typedef {import('./types').Block} Block */
/** @typedef {import('./types').BlockElement} BlockElement */
/** @typedef {import('./types').ContextElement} ContextElement */
/** @typedef {import('./types').RenderContext} RenderContext */
/** @typedef {import('./types').RichText} RichText */
/** @typedef {import('./types').RichTextStyle} RichTextStyle */
/** @typedef {import('./types').TextObject} TextObject */
/** @typedef {string | number | boolean | null | undefined | ((event: Event) => void)} AttributeValue */
/** @typedef {Node | string | null | undefined} Child */

/** @type {Record<string, string | undefined>} */
const EMOJI = {
  white_check_mark: '✅',
  key: '🔑',
  ghost: '👻',
  see_no_evil: '🙈',
  zzz: '💤',
  bell: '🔔',
  crescent_moon: '🌙',
  sunrise: '🌅',
  heavy_check_mark: '✔️',
  x: '❌',
  warning: '⚠️',
  no_entry: '⛔',
  no_entry_sign: '🚫',
  hourglass_flowing_sand: '⏳',
  hourglass: '⌛',
  test_tube: '🧪',
  grey_question: '❔',
  question: '❓',
  exclamation: '❗',
  pencil2: '✏️',
  memo: '📝',
  lock: '🔒',
  unlock: '🔓',
  fire: '🔥',
  floppy_disk: '💾',
  cd: '💿',
  package: '📦',
  arrow_up: '⬆️',
  arrow_down: '⬇️',
  arrow_right: '➡️',
  arrow_left: '⬅️',
  leftwards_arrow_with_hook: '↩️',
  red_circle: '🔴',
  large_green_circle: '🟢',
  large_yellow_circle: '🟡',
  large_blue_circle: '🔵',
  white_circle: '⚪',
  black_circle: '⚫',
  information_source: 'ℹ️',
  mag: '🔍',
  shield: '🛡️',
  rotating_light: '🚨',
  wrench: '🔧',
  gear: '⚙️',
  zap: '⚡',
  bust_in_silhouette: '👤',
  busts_in_silhouette: '👥',
  clipboard: '📋',
  page_facing_up: '📄',
  inbox_tray: '📥',
  chart_with_upwards_trend: '📈',
  chart_with_downwards_trend: '📉',
  computer: '💻',
  globe_with_meridians: '🌐',
  tada: '🎉',
  thumbsup: '👍',
  '+1': '👍',
  eyes: '👀',
  stopwatch: '⏱️',
  arrows_counterclockwise: '🔄',
  clock4: '🕓',
  black_square_for_stop: '⏹️',
  construction: '🚧',
  card_file_box: '🗃️',
  house: '🏠',
  robot_face: '🤖',
  octagonal_sign: '🛑',
  raised_hand: '✋',
  ballot_box_with_check: '☑️',
  large_orange_circle: '🟠',
  snowflake: '❄️',
  ice_cube: '🧊',
  pager: '📟',
  sunny: '☀️',
};

/**
 * An element with attributes (`class`, `text`, `on<event>` listeners, the rest as attributes; null, undefined and
 * false leave one out) and children.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, AttributeValue>} [attrs]
 * @param {...(Child | Child[])} children
 * @returns {HTMLElementTagNameMap[K]}
 */
const el = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (typeof v === 'function') node.addEventListener(k.slice(2), v);
    else if (k === 'class') node.className = String(v);
    else if (k === 'text') node.textContent = String(v);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) node.append(c);
  return node;
};
export { el };

/** Slack escapes &, < and > in text; shown as the characters they stand for. */
const unescape = (/** @type {string} */ s) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/**
 * A note that something was not rendered, never a silent drop.
 * @param {string} what
 * @param {string} type
 */
export function unsupported(what, type) {
  return el('div', { class: 'unsupported', role: 'note' }, `unsupported ${what}: ${type}`);
}

/**
 * mrkdwn → DOM. `ctx` resolves mentions: { person(id), channel(id), openChannel(id) }.
 * @param {string} text
 * @param {RenderContext} ctx
 */
export function mrkdwn(text, ctx) {
  const out = document.createDocumentFragment();
  const parts = String(text).split(/(```[\s\S]*?```)/);
  for (const part of parts) {
    if (part.startsWith('```') && part.endsWith('```') && part.length >= 6) out.append(el('pre', {}, el('code', { text: unescape(part.slice(3, -3)) })));
    else inline(part, out, ctx);
  }
  return out;
}

// Earliest match wins; at one position, code before links before styles.
const INLINE = new RegExp(
  [
    /`([^`\n]+)`/.source, // code
    /<([^<>\n]+)>/.source, // a link or a mention
    /(?<![\w*])\*(?!\s)([^*\n]+?)\*(?![\w*])/.source, // bold
    /(?<![\w_])_(?!\s)([^_\n]+?)_(?![\w_])/.source, // italic
    /(?<![\w~])~(?!\s)([^~\n]+?)~(?![\w~])/.source, // strike
    /:([a-z][a-z0-9_+-]*):/.source, // an emoji name
    /(\n)/.source, // a line break
    /^&gt; ?(.*)$/.source, // a quote
  ].join('|'),
  'gm',
);

/**
 * @param {string} text
 * @param {ParentNode} parent
 * @param {RenderContext} ctx
 */
function inline(text, parent, ctx) {
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    if (m.index > last) parent.append(unescape(text.slice(last, m.index)));
    last = m.index + m[0].length;
    const [, code, angle, bold, italic, strike, emoji, newline, quote] = m;
    if (code !== undefined) parent.append(el('code', { text: unescape(code) }));
    else if (angle !== undefined) parent.append(link(angle, ctx));
    else if (bold !== undefined) inline(bold, parent.appendChild(el('strong')), ctx);
    else if (italic !== undefined) inline(italic, parent.appendChild(el('em')), ctx);
    else if (strike !== undefined) inline(strike, parent.appendChild(el('s')), ctx);
    else if (emoji !== undefined) parent.append(EMOJI[emoji] ? emojiNode(emoji) : `:${emoji}:`);
    else if (newline !== undefined) parent.append(el('br'));
    else if (quote !== undefined) inline(quote, parent.appendChild(el('blockquote')), ctx);
  }
  if (last < text.length) parent.append(unescape(text.slice(last)));
}

const emojiNode = (/** @type {string} */ name) =>
  el('span', { class: 'emoji', role: 'img', 'aria-label': name.replace(/_/g, ' '), title: `:${name}:`, text: EMOJI[name] });

/**
 * @param {string} inner
 * @param {RenderContext} ctx
 */
function link(inner, ctx) {
  const [target = '', label] = inner.split('|', 2);
  if (target.startsWith('@')) {
    const person = ctx.person(target.slice(1));
    return el('span', { class: 'mention', text: `@${person ? person.name : target.slice(1)}` });
  }
  if (target.startsWith('#')) {
    const id = target.slice(1);
    const channel = ctx.channel(id);
    const name = channel ? channel.name : (label ?? id);
    return el('button', { type: 'button', class: 'mention channel-link', onclick: () => ctx.openChannel(id) }, `#${name}`);
  }
  if (target.startsWith('!date^')) return dateNode(target, label);
  if (target.startsWith('!')) {
    const [kind, id] = target.slice(1).split('^');
    const name = kind === 'subteam' ? (label ?? ctx.group?.(id) ?? id) : kind;
    return el('span', { class: 'mention', text: `@${name}` });
  }
  if (/^(https?:|mailto:)/.test(target)) return el('a', { href: target, target: '_blank', rel: 'noopener noreferrer', text: unescape(label ?? target) });
  return document.createTextNode(unescape(`<${inner}>`));
}

const MONTH = new Intl.DateTimeFormat('en-US', { month: 'long' });
const MONTH_SHORT = new Intl.DateTimeFormat('en-US', { month: 'short' });
const WEEKDAY = new Intl.DateTimeFormat('en-US', { weekday: 'long' });
const TIME = new Intl.DateTimeFormat('en-US', { hour: 'numeric', minute: '2-digit' });
const TIME_SECS = new Intl.DateTimeFormat('en-US', { hour: 'numeric', minute: '2-digit', second: '2-digit' });

/** 1st, 2nd, 3rd, 4th… 11th, 12th, 13th… 21st. */
const ordinal = (/** @type {number} */ n) => `${n}${n % 100 >= 11 && n % 100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th')}`;

/**
 * Slack's date token, `<!date^seconds^format|fallback>`, in the reader's own time zone as Slack shows it
 * ({date_num}, {date}, {date_short}, {date_long}, their _pretty forms, {time}, {time_secs}, {ago}); the fallback
 * when the token cannot be read.
 * @param {string} target
 * @param {string | undefined} fallback
 */
function dateNode(target, fallback) {
  const [, seconds = '', format = ''] = target.split('^');
  const when = new Date(Number(seconds) * 1000);
  if (!/^\d+$/.test(seconds) || Number.isNaN(when.getTime())) return document.createTextNode(fallback ?? target);
  const day = (/** @type {Date} */ d) => new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
  const daysAgo = Math.round((day(new Date()) - day(when)) / 86_400_000);
  const pretty = daysAgo === 0 ? 'today' : daysAgo === 1 ? 'yesterday' : daysAgo === -1 ? 'tomorrow' : null;
  const date = `${MONTH.format(when)} ${ordinal(when.getDate())}, ${when.getFullYear()}`;
  const short = `${MONTH_SHORT.format(when)} ${when.getDate()}, ${when.getFullYear()}`;
  const long = `${WEEKDAY.format(when)}, ${date}`;
  const minutes = Math.round((Date.now() - when.getTime()) / 60_000);
  /** @type {Record<string, string>} */
  const parts = {
    date_num: `${when.getFullYear()}-${String(when.getMonth() + 1).padStart(2, '0')}-${String(when.getDate()).padStart(2, '0')}`,
    date,
    date_short: short,
    date_long: long,
    date_pretty: pretty ?? date,
    date_short_pretty: pretty ?? short,
    date_long_pretty: pretty ?? long,
    time: TIME.format(when),
    time_secs: TIME_SECS.format(when),
    ago: minutes < 1 ? 'just now' : minutes < 60 ? `${minutes} minutes ago` : `${Math.round(minutes / 60)} hours ago`,
  };
  const text = format.replace(/\{(\w+)\}/g, (/** @type {string} */ whole, /** @type {string} */ name) => parts[name] ?? whole);
  return el('time', { datetime: when.toISOString(), title: fallback ?? when.toISOString(), text });
}

/**
 * A text object: plain_text as text (emoji names resolved), mrkdwn parsed.
 * @param {TextObject | undefined} t
 * @param {RenderContext} ctx
 */
export function textObject(t, ctx) {
  if (!t || typeof t.text !== 'string') return document.createTextNode('');
  if (t.type === 'mrkdwn') return mrkdwn(t.text, ctx);
  const frag = document.createDocumentFragment();
  let last = 0;
  if (t.emoji !== false) {
    for (const m of t.text.matchAll(/:([a-z][a-z0-9_+-]*):/g)) {
      if (!EMOJI[m[1]]) continue;
      frag.append(t.text.slice(last, m.index), emojiNode(m[1]));
      last = m.index + m[0].length;
    }
  }
  frag.append(t.text.slice(last));
  return frag;
}

const plain = (/** @type {TextObject | undefined} */ t) => (t && typeof t.text === 'string' ? t.text : '');

/**
 * Renders message or view blocks. `ctx` also carries `onAction(block, element)`
 * for buttons and, in modals, `input(block)` for input blocks.
 * @param {Block[] | undefined} blocks
 * @param {RenderContext} ctx
 */
export function renderBlocks(blocks, ctx) {
  const frag = document.createDocumentFragment();
  for (const block of blocks ?? []) frag.append(renderBlock(block, ctx));
  return frag;
}

/**
 * @param {Block} block
 * @param {RenderContext} ctx
 * @returns {Node}
 */
function renderBlock(block, ctx) {
  switch (block.type) {
    case 'header':
      return el('div', { class: 'b-header', role: 'heading', 'aria-level': '3' }, textObject(block.text, ctx));
    case 'section': {
      const body = el('div', { class: 'b-section-body' });
      if (block.text) body.append(el('div', { class: 'b-text' }, textObject(block.text, ctx)));
      if (Array.isArray(block.fields))
        body.append(
          el(
            'div',
            { class: 'b-fields' },
            block.fields.map((f) => el('div', { class: 'b-field' }, textObject(f, ctx))),
          ),
        );
      const section = el('div', { class: 'b-section' }, body);
      if (block.accessory) section.append(el('div', { class: 'b-accessory' }, renderElement(block, block.accessory, ctx)));
      return section;
    }
    case 'context':
      return el(
        'div',
        { class: 'b-context' },
        /** @type {ContextElement[]} */ (block.elements ?? []).map((e) =>
          e.type === 'image' ? el('img', { src: safeImage(e.image_url), alt: e.alt_text ?? '', class: 'b-context-image' }) : el('span', {}, textObject(e, ctx)),
        ),
      );
    case 'divider':
      return el('hr', { class: 'b-divider' });
    case 'actions':
      return el(
        'div',
        { class: 'b-actions' },
        (block.elements ?? []).map((e) => renderElement(block, e, ctx)),
      );
    case 'image':
      return el(
        'figure',
        { class: 'b-image' },
        el('img', { src: safeImage(block.image_url), alt: block.alt_text ?? '' }),
        block.title ? el('figcaption', {}, textObject(block.title, ctx)) : null,
      );
    case 'input':
      return ctx.input ? ctx.input(block) : unsupported('block', 'input outside a modal');
    case 'rich_text':
      return el(
        'div',
        { class: 'b-rich-text' },
        /** @type {RichText[]} */ (/** @type {unknown} */ (block.elements ?? [])).map((e) => richText(e, ctx)),
      );
    default:
      return unsupported('block', block.type);
  }
}

/**
 * A rich_text block's element: a section (a paragraph), a list, preformatted text (shown exactly as it is) or a quote.
 * @param {RichText} e
 * @param {RenderContext} ctx
 * @returns {Node}
 */
function richText(e, ctx) {
  const runs = (/** @type {RichText[]} */ elements) => elements.map((run) => richRun(run, ctx));
  switch (e.type) {
    case 'rich_text_section':
      return el('p', { class: 'b-rich-section' }, runs(e.elements ?? []));
    case 'rich_text_preformatted':
      return el('pre', {}, el('code', { text: (e.elements ?? []).map((run) => run.text ?? run.url ?? '').join('') }));
    case 'rich_text_quote':
      return el('blockquote', {}, runs(e.elements ?? []));
    case 'rich_text_list':
      return el(
        e.style === 'ordered' ? 'ol' : 'ul',
        { class: 'b-rich-list' },
        (e.elements ?? []).map((item) => el('li', {}, runs(item.elements ?? []))),
      );
    default:
      return unsupported('rich text element', e.type);
  }
}

/**
 * One run of rich text: its text as it is (never read as mrkdwn), styled; links, mentions, emoji and dates resolved.
 * @param {RichText} run
 * @param {RenderContext} ctx
 * @returns {Node}
 */
function richRun(run, ctx) {
  /** @type {Node} */
  let node;
  switch (run.type) {
    case 'text':
      node = document.createTextNode(run.text ?? '');
      break;
    case 'link':
      node = /^(https?:|mailto:)/.test(run.url ?? '')
        ? el('a', { href: run.url, target: '_blank', rel: 'noopener noreferrer', text: run.text ?? run.url })
        : document.createTextNode(run.text ?? run.url ?? '');
      break;
    case 'emoji':
      node = EMOJI[run.name ?? ''] ? emojiNode(run.name ?? '') : document.createTextNode(`:${run.name ?? ''}:`);
      break;
    case 'user':
      node = link(`@${run.user_id ?? ''}`, ctx);
      break;
    case 'channel':
      node = link(`#${run.channel_id ?? ''}`, ctx);
      break;
    case 'usergroup':
      node = link(`!subteam^${run.usergroup_id ?? ''}`, ctx);
      break;
    case 'broadcast':
      node = el('span', { class: 'mention', text: `@${run.range ?? 'here'}` });
      break;
    case 'date':
      node = dateNode(`!date^${run.timestamp ?? ''}^${run.format ?? ''}`, run.fallback);
      break;
    default:
      return unsupported('rich text run', run.type);
  }
  const style = typeof run.style === 'object' ? run.style : {};
  if (style.code) node = el('code', {}, node);
  if (style.strike) node = el('s', {}, node);
  if (style.italic) node = el('em', {}, node);
  if (style.bold) node = el('strong', {}, node);
  return node;
}

// Only images the page itself serves or inline data: the CSP would block others anyway.
const safeImage = (/** @type {string | undefined} */ url) => (typeof url === 'string' && url.startsWith('data:image/') ? url : '');

/**
 * @param {Block} block
 * @param {BlockElement} element
 * @param {RenderContext} ctx
 */
function renderElement(block, element, ctx) {
  if (element.type === 'button') {
    const button = el('button', { type: 'button', class: `btn ${element.style ? `btn-${element.style}` : 'btn-default'}` }, plain(element.text));
    if (element.url) button.setAttribute('data-url', element.url);
    button.addEventListener('click', () => ctx.onAction?.(block, element, button));
    return button;
  }
  return unsupported('element', element.type);
}
