// @ts-check
// The local page: a Slack-like window onto the stand-in. It shows what the
// stand-in holds (channels, messages, modals, the Home tab), sends what a
// person does to the stand-in's /local/ endpoints, and follows every change
// over server-sent events. No framework and no build step.

import { el, mrkdwn, renderBlocks, textObject, unsupported } from './blocks.js';

/** @typedef {import('./types').Answer} Answer */
/** @typedef {import('./types').Block} Block */
/** @typedef {import('./types').BlockElement} BlockElement */
/** @typedef {import('./types').Confirm} Confirm */
/** @typedef {import('./types').Events} Events */
/** @typedef {import('./types').Execution} Execution */
/** @typedef {import('./types').FunctionParameter} FunctionParameter */
/** @typedef {import('./types').Message} Message */
/** @typedef {import('./types').OpenView} OpenView */
/** @typedef {import('./types').RenderContext} RenderContext */
/** @typedef {import('./types').Snapshot} Snapshot */
/** @typedef {import('./types').TimelineEntry} TimelineEntry */
/** @typedef {{ viewId: string } | Pick<Message, 'channel' | 'ts'>} ActionSource a message's button, or a view's */

/**
 * An element of index.html, of the type the page expects.
 * @template {HTMLElement} T
 * @param {string} id
 * @param {new () => T} type
 * @returns {T}
 */
function byId(id, type) {
  const node = document.getElementById(id);
  if (!(node instanceof type)) throw new Error(`the page has no #${id} of the expected kind`);
  return node;
}
const $ = (/** @type {string} */ id) => byId(id, HTMLElement);

/**
 * What the page holds of the stand-in.
 * @typedef {Pick<Snapshot, 'people' | 'channels' | 'groups' | 'messages' | 'homes' | 'refusals' | 'panel' | 'functions' | 'timeline'>} Held
 */
/** @type {Held & { bot: Snapshot['bot'] | null, views: Map<string, OpenView>, executions: Map<string, Execution> }} */
const data = {
  people: [],
  channels: [],
  groups: {},
  bot: null,
  messages: [],
  views: new Map(),
  homes: {},
  refusals: [],
  panel: null,
  functions: {},
  executions: new Map(),
  timeline: [],
};
/**
 * What the person is looking at. `homeWaiting`: the Home tab was opened and the app has not published it yet (Slack shows
 * the last published view meanwhile, or nothing). `step`: the workflow step chosen on the Workflows panel.
 * @typedef {{ me: string, channel: string, showing: 'channel' | 'home' | 'workflows' | 'timeline', homeWaiting: boolean, step: string }} Looking
 * @type {Looking & { modalViewId: string | null, modalHash: string | null, lastFocus: Element | null }}
 */
const ui = { me: '', channel: '', showing: 'channel', homeWaiting: false, step: '', modalViewId: null, modalHash: null, lastFocus: null };

/** @type {RenderContext} */
const ctx = {
  person: (id) => (id === data.bot?.id ? { name: data.bot.name } : data.people.find((p) => p.id === id)),
  channel: (id) => data.channels.find((c) => c.id === id),
  group: (id) => data.groups[id] ?? id,
  openChannel: (id) => (data.channels.some((c) => c.id === id) ? showChannel(id) : undefined),
};

/**
 * A JSON answer of the stand-in, typed by its caller (the page trusts its own server).
 * @param {Response} res
 * @returns {Promise<unknown>}
 */
const bodyOf = (res) => res.json();

/**
 * @param {string} path
 * @param {Record<string, unknown>} body
 * @returns {Promise<Answer>}
 */
async function post(path, body) {
  const res = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user: ui.me, ...body }) });
  return /** @type {Promise<Answer>} */ (bodyOf(res)).catch(() => ({ ok: false, error: `HTTP ${res.status}` }));
}

// --- sidebar ------------------------------------------------------------------

function renderSidebar() {
  const select = byId('person', HTMLSelectElement);
  select.replaceChildren(...data.people.map((p) => el('option', { value: p.id, selected: p.id === ui.me }, p.name)));
  const me = data.people.find((p) => p.id === ui.me);
  $('person-role').textContent = me ? `Role here: ${me.role}` : '';
  $('channels').replaceChildren(
    ...data.channels
      .filter((c) => c.dmWith === undefined)
      .map((c) =>
        el(
          'li',
          {},
          el(
            'button',
            {
              type: 'button',
              class: 'nav-item',
              'aria-current': ui.showing === 'channel' && c.id === ui.channel ? 'page' : false,
              onclick: () => showChannel(c.id),
            },
            `# ${c.name}`,
          ),
        ),
      ),
  );
  $('home-tab').setAttribute('aria-current', ui.showing === 'home' ? 'page' : 'false');
  $('messages-tab').setAttribute('aria-current', ui.showing === 'channel' && ui.channel === directMessagesId() ? 'page' : 'false');
  $('workflows-tab').setAttribute('aria-current', ui.showing === 'workflows' ? 'page' : 'false');
  $('timeline-tab').setAttribute('aria-current', ui.showing === 'timeline' ? 'page' : 'false');
}

/** @param {string} id */
function showChannel(id) {
  ui.channel = id;
  ui.showing = 'channel';
  renderAll();
  $('message').focus();
}

/** The app's direct messages with the person looking (its Messages tab), whether the app has opened them yet or not. */
const directMessagesId = () => data.channels.find((c) => c.dmWith === ui.me)?.id ?? `dm-${ui.me}`;

/** The app's Messages tab: what the app sent this person alone (exports as files, among them). */
function showDirectMessages() {
  showChannel(directMessagesId());
}

/** How long the page waits for the app to publish a Home tab before saying it has none. */
const HOME_WAIT_MS = 3000;

/** Opens the Home tab: Slack tells the app (app_home_opened), which publishes the view (views.publish), shown as it arrives. */
async function showHome() {
  ui.showing = 'home';
  ui.homeWaiting = true;
  renderAll();
  const me = ui.me;
  const answer = await post('/local/home', {});
  if (answer.home && !data.homes[me]) data.homes[me] = answer.home;
  if (!answer.ok) ui.homeWaiting = false;
  else
    setTimeout(() => {
      if (ui.me !== me || !ui.homeWaiting) return;
      ui.homeWaiting = false;
      if (ui.showing === 'home') renderHome();
    }, HOME_WAIT_MS);
  if (ui.showing === 'home' && ui.me === me) renderHome();
}

// --- messages -----------------------------------------------------------------

const visible = (/** @type {Message} */ m) => m.channel === ui.channel && (m.ephemeralTo === undefined || m.ephemeralTo === ui.me);
/** The message a thread reply is under, if the page holds it. */
const parentOf = (/** @type {Message} */ m) =>
  m.threadTs === undefined ? undefined : data.messages.find((x) => x.channel === m.channel && x.ts === m.threadTs);
/** Shown in the channel itself: not a reply in a thread (one whose message is not held is shown on its own). */
const inChannelList = (/** @type {Message} */ m) => visible(m) && parentOf(m) === undefined;
/** The replies in a message's thread, oldest first. */
const repliesTo = (/** @type {Message} */ m) => data.messages.filter((r) => r.threadTs === m.ts && r.channel === m.channel && visible(r));
const timeOf = (/** @type {string} */ ts) => new Date(Number(ts) * 1000).toISOString().slice(11, 16);
const messageId = (/** @type {Pick<Message, 'channel' | 'ts'>} */ m) => `m-${m.channel}-${m.ts.replace('.', '-')}`;

/** @param {Message} m */
function messageNode(m) {
  const author = ctx.person(m.author);
  const bot = data.bot !== null && m.author === data.bot.id ? data.bot : null;
  const isBot = bot !== null;
  const name = m.kind === 'notice' ? 'Slackbot' : bot ? bot.name : (author?.name ?? m.author);
  const body = el('div', { class: 'message-body' });
  if (m.kind === 'command') body.append(el('code', { class: 'command' }, m.text));
  else if (Array.isArray(m.blocks) && m.blocks.length > 0)
    body.append(renderBlocks(m.blocks, { ...ctx, onAction: (block, element, button) => void act(m, block, element, button) }));
  else body.append(el('div', { class: 'b-text' }, mrkdwn(m.text, ctx)));
  // Files shared with it, as Slack shows them: each by its name, a link that downloads it.
  for (const file of m.files ?? [])
    body.append(
      el(
        'div',
        { class: 'file', role: 'group', 'aria-label': `File: ${file.name}` },
        el('span', { class: 'file-icon', 'aria-hidden': 'true' }, file.filetype === 'csv' ? 'CSV' : 'FILE'),
        el('a', { class: 'file-name', href: file.url_private_download, download: file.name }, file.name),
        el('span', { class: 'file-size' }, sizeOf(file.size)),
      ),
    );
  // The app's unfurls, under the message as Slack shows them: one attachment per link.
  for (const [url, unfurl] of Object.entries(m.unfurls ?? {}))
    body.append(el('section', { class: 'unfurl', 'aria-label': `Preview of ${url}` }, renderBlocks(unfurl.blocks ?? [], ctx)));
  // Its thread, under it (Slack shows "n replies" and opens the thread beside; here it is open).
  const replies = m.threadTs === undefined ? repliesTo(m) : [];
  if (replies.length > 0)
    body.append(
      el(
        'section',
        { class: 'thread', 'aria-label': `Thread: ${replies.length} ${replies.length === 1 ? 'reply' : 'replies'}` },
        el('div', { class: 'thread-count' }, `${replies.length} ${replies.length === 1 ? 'reply' : 'replies'}`),
        ...replies.map(messageNode),
      ),
    );
  return el(
    'article',
    { class: `message ${m.ephemeralTo ? 'ephemeral' : ''} ${m.kind}`, id: messageId(m), 'aria-label': `${name} at ${timeOf(m.ts)}` },
    el('div', { class: `avatar ${isBot ? 'avatar-bot' : ''}`, 'aria-hidden': 'true' }, isBot ? 'VS' : name.slice(0, 1)),
    el(
      'div',
      { class: 'message-main' },
      el(
        'div',
        { class: 'message-meta' },
        el('span', { class: 'author' }, name),
        isBot ? el('span', { class: 'app-badge' }, 'APP') : null,
        el('time', { class: 'time' }, timeOf(m.ts)),
        m.replaced ? el('span', { class: 'edited' }, '(updated)') : null,
      ),
      m.ephemeralTo && m.kind !== 'command' ? el('div', { class: 'only-you' }, 'Only visible to you') : null,
      body,
    ),
  );
}

/** "12.3 kB": a file's size as Slack writes it. */
function sizeOf(/** @type {number} */ bytes) {
  if (bytes < 1000) return `${bytes} B`;
  return bytes < 1_000_000 ? `${(bytes / 1000).toFixed(1)} kB` : `${(bytes / 1_000_000).toFixed(1)} MB`;
}

function renderMessages() {
  const list = $('messages');
  const shown = data.messages.filter(inChannelList);
  list.setAttribute('aria-label', `Messages in #${ctx.channel(ui.channel)?.name ?? ''}`);
  list.replaceChildren(...(shown.length > 0 ? shown.map(messageNode) : [el('p', { class: 'empty' }, 'No messages yet. Try /vs firewall 42.')]));
  list.scrollTop = list.scrollHeight;
}

/**
 * A new or replaced message, in place; focus stays on the button it had, if that button is still there.
 * @param {Message} m
 */
function upsertMessage(m) {
  const i = data.messages.findIndex((x) => x.channel === m.channel && x.ts === m.ts);
  if (i >= 0) data.messages[i] = m;
  else data.messages.push(m);
  if (ui.showing !== 'channel' || !visible(m)) return;
  // A reply in a thread: its message is drawn again, with its thread.
  const parent = parentOf(m);
  if (parent) {
    document.getElementById(messageId(parent))?.replaceWith(messageNode(parent));
    return;
  }
  const list = $('messages');
  const existing = document.getElementById(messageId(m));
  const node = messageNode(m);
  if (existing) {
    const focusedText = document.activeElement && existing.contains(document.activeElement) ? document.activeElement.textContent : null;
    existing.replaceWith(node);
    if (focusedText !== null) [...node.querySelectorAll('button')].find((b) => b.textContent === focusedText)?.focus();
  } else {
    list.querySelector('.empty')?.remove();
    const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 80;
    list.append(node);
    if (atBottom || m.author === ui.me || m.ephemeralTo === ui.me) list.scrollTop = list.scrollHeight;
  }
}

/**
 * @param {ActionSource} source
 * @param {Block} block the element's block: its block_id tells apart buttons of one action_id in several blocks
 * @param {BlockElement} element
 * @param {HTMLButtonElement} button
 */
async function act(source, block, element, button) {
  if (element.confirm && !(await confirmDialog(element.confirm))) return;
  if (element.url) window.open(element.url, '_blank', 'noopener');
  button.disabled = true;
  const answer =
    'viewId' in source
      ? await post('/local/action', { viewId: source.viewId, actionId: element.action_id, blockId: block.block_id })
      : await post('/local/action', { channel: source.channel, ts: source.ts, actionId: element.action_id, blockId: block.block_id });
  if (button.isConnected) button.disabled = false;
  if (!answer.ok) showStatus(`The button did not work: ${answer.error}`);
}

/**
 * @param {Confirm} c
 * @returns {Promise<boolean>}
 */
function confirmDialog(c) {
  const dialog = byId('confirm', HTMLDialogElement);
  return new Promise((resolve) => {
    const done = (/** @type {boolean} */ yes) => {
      dialog.close();
      resolve(yes);
    };
    dialog.replaceChildren(
      el('h2', { id: 'confirm-title', class: 'modal-title' }, textObject(c.title, ctx)),
      el('div', { class: 'modal-body' }, textObject(c.text, ctx)),
      el(
        'div',
        { class: 'modal-footer' },
        el('button', { type: 'button', class: 'btn btn-default', onclick: () => done(false) }, c.deny?.text ?? 'Cancel'),
        el(
          'button',
          { type: 'button', class: `btn ${c.style === 'danger' ? 'btn-danger' : 'btn-primary'}`, onclick: () => done(true) },
          c.confirm?.text ?? 'Yes',
        ),
      ),
    );
    dialog.oncancel = (e) => {
      e.preventDefault();
      done(false);
    };
    dialog.showModal();
  });
}

/** @param {string} text */
function showStatus(text) {
  /** @type {Message} */
  const notice = { channel: ui.channel, ts: String(Date.now() / 1000), author: 'page', text, ephemeralTo: ui.me, kind: 'notice' };
  upsertMessage(notice);
}

// --- what Slack would refuse ----------------------------------------------------

function renderRefusals() {
  const section = $('refusals');
  const relevant = data.refusals
    .filter((r) => (r.channel === undefined || r.channel === ui.channel) && (r.user === undefined || r.user === ui.me || r.channel !== undefined))
    .slice(-3);
  section.hidden = relevant.length === 0;
  section.replaceChildren(
    ...relevant.map((r) =>
      el(
        'div',
        { class: 'refusal', role: 'alert' },
        el('strong', {}, `Slack would refuse this ${r.source === 'response_url' ? 'response_url post' : r.source}: `),
        el('code', {}, r.error),
        r.messages?.length
          ? el(
              'ul',
              {},
              r.messages.slice(0, 5).map((m) => el('li', {}, m)),
            )
          : null,
      ),
    ),
    el('button', { type: 'button', class: 'btn btn-default btn-small', onclick: () => ((data.refusals = []), renderRefusals()) }, 'Dismiss'),
  );
}

// --- modals -------------------------------------------------------------------

function myTopView() {
  const mine = [...data.views.values()].filter((v) => v.user === ui.me);
  return mine[mine.length - 1];
}

function renderModal() {
  const dialog = byId('modal', HTMLDialogElement);
  const open = myTopView();
  if (!open) {
    if (dialog.open) dialog.close();
    // Back where the person was (after the dialog's own focus restoring step, which otherwise leaves typing stuck in Chrome).
    if (ui.modalViewId) {
      const back = ui.lastFocus instanceof HTMLElement && ui.lastFocus.isConnected ? ui.lastFocus : $('message');
      setTimeout(() => {
        back.blur();
        back.focus();
      }, 0);
    }
    ui.modalViewId = null;
    ui.modalHash = null;
    return;
  }
  if (open.id === ui.modalViewId && open.view.hash === ui.modalHash) {
    // Same content: only the inline errors changed; what was typed stays.
    applyErrors(open.errors ?? {});
    return;
  }
  if (!dialog.open) ui.lastFocus = document.activeElement;
  ui.modalViewId = open.id;
  ui.modalHash = open.view.hash;
  const view = open.view;
  const form = el('form', { class: 'modal-form', novalidate: true });
  const status = el('p', { class: 'form-status', role: 'status' });
  form.append(
    el(
      'div',
      { class: 'modal-header' },
      el('h2', { id: 'modal-title', class: 'modal-title' }, view.title?.text ?? ''),
      el('button', { type: 'button', class: 'icon-button', 'aria-label': 'Close', onclick: () => void closeModal() }, '×'),
    ),
    el(
      'div',
      { class: 'modal-body' },
      renderBlocks(view.blocks, {
        ...ctx,
        input: (block) => inputNode(block, open),
        onAction: (block, element, button) => void act({ viewId: open.id }, block, element, button),
      }),
    ),
    status,
    el(
      'div',
      { class: 'modal-footer' },
      el('button', { type: 'button', class: 'btn btn-default', onclick: () => void closeModal() }, view.close?.text ?? 'Close'),
      view.submit ? el('button', { type: 'submit', class: 'btn btn-primary' }, view.submit.text) : null,
    ),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void submitModal(open, form, status);
  });
  if (document.activeElement instanceof HTMLElement && dialog.contains(document.activeElement)) document.activeElement.blur();
  dialog.replaceChildren(form);
  // Escape closes the dialog at once (as Slack does); the stand-in is told, and the app if it asked to be.
  dialog.oncancel = () => void closeModal();
  if (!dialog.open) dialog.showModal();
  applyErrors(open.errors ?? {});
  /** @type {HTMLElement | null} */ (dialog.querySelector('input, select, textarea') ?? dialog.querySelector('.modal-footer button'))?.focus();
}

async function closeModal() {
  if (!ui.modalViewId) return;
  await post('/local/close', { viewId: ui.modalViewId });
}

const fieldId = (/** @type {string} */ blockId) => `f-${blockId}`;

/**
 * @param {Block} block
 * @param {OpenView} open
 */
function inputNode(block, open) {
  const e = block.element ?? { type: '' };
  const id = fieldId(block.block_id);
  const hintId = block.hint ? `h-${block.block_id}` : null;
  const errorId = `e-${block.block_id}`;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ');
  const label = block.label?.text ?? '';
  const optional = block.optional ? el('span', { class: 'optional' }, ' (optional)') : null;
  const wrap = el('div', { class: 'b-input', 'data-block': block.block_id, 'data-type': e.type });
  const hint = hintId ? el('p', { class: 'hint', id: hintId }, textObject(block.hint, ctx)) : null;
  const error = el('p', { class: 'field-error', id: errorId, hidden: true });
  const options = e.options ?? [];
  switch (e.type) {
    case 'plain_text_input': {
      const attrs = {
        id,
        name: block.block_id,
        'aria-describedby': describedBy,
        maxlength: e.max_length,
        placeholder: e.placeholder?.text,
        'aria-required': block.optional ? false : 'true',
      };
      const field = e.multiline ? el('textarea', { ...attrs, rows: 3 }) : el('input', { ...attrs, type: 'text' });
      field.value = e.initial_value ?? '';
      wrap.append(el('label', { for: id }, label, optional), field);
      break;
    }
    case 'number_input': {
      const field = el('input', {
        id,
        name: block.block_id,
        type: 'text',
        inputmode: e.is_decimal_allowed ? 'decimal' : 'numeric',
        'aria-describedby': describedBy,
        placeholder: e.placeholder?.text,
        'aria-required': block.optional ? false : 'true',
      });
      field.value = e.initial_value ?? '';
      wrap.append(el('label', { for: id }, label, optional), field);
      break;
    }
    case 'static_select':
    case 'conversations_select':
    case 'channels_select':
    case 'users_select': {
      const choices =
        e.type === 'static_select'
          ? options.map((o) => ({ value: o.value, text: o.text?.text ?? o.value }))
          : e.type === 'users_select'
            ? data.people.map((p) => ({ value: p.id, text: p.name }))
            : data.channels.map((c) => ({ value: c.id, text: `# ${c.name}` }));
      const initial =
        e.initial_option?.value ??
        e.initial_conversation ??
        e.initial_channel ??
        e.initial_user ??
        // The conversation the form was opened from; from the Home tab there is none, as at Slack.
        (e.default_to_current_conversation ? (open.channel ?? (ui.showing === 'channel' ? ui.channel : undefined)) : undefined);
      const field = el(
        'select',
        { id, name: block.block_id, 'aria-describedby': describedBy, 'aria-required': block.optional ? false : 'true' },
        el('option', { value: '' }, e.placeholder?.text ?? 'Choose…'),
        choices.map((c) => el('option', { value: c.value, selected: c.value === initial }, c.text)),
      );
      wrap.append(el('label', { for: id }, label, optional), field);
      break;
    }
    case 'checkboxes':
    case 'radio_buttons': {
      const initial = new Set([...(e.initial_options ?? []), ...(e.initial_option ? [e.initial_option] : [])].map((o) => o.value));
      const fieldset = el('fieldset', { id, 'aria-describedby': describedBy }, el('legend', {}, label, optional));
      options.forEach((o, i) => {
        const optionId = `${id}-${i}`;
        const descId = o.description ? `${optionId}-d` : null;
        const box = el('input', {
          type: e.type === 'checkboxes' ? 'checkbox' : 'radio',
          id: optionId,
          name: block.block_id,
          value: o.value,
          checked: initial.has(o.value),
          'aria-describedby': [descId, errorId].filter(Boolean).join(' '),
        });
        fieldset.append(
          el(
            'div',
            { class: 'choice' },
            box,
            el('label', { for: optionId }, o.text?.text ?? o.value),
            o.description ? el('span', { class: 'choice-description', id: descId }, o.description.text) : null,
          ),
        );
      });
      wrap.append(fieldset);
      break;
    }
    default:
      wrap.append(el('span', { class: 'label' }, label), unsupported('element', e.type ?? 'none'));
  }
  if (hint) wrap.append(hint);
  wrap.append(error);
  return wrap;
}

/** @param {HTMLFormElement} form */
function readValues(form) {
  /** @type {Record<string, string | string[] | null>} */
  const values = {};
  for (const wrap of form.querySelectorAll('.b-input')) {
    if (!(wrap instanceof HTMLElement)) continue;
    const blockId = wrap.dataset.block ?? '';
    const type = wrap.dataset.type;
    if (type === 'checkboxes') values[blockId] = [...wrap.querySelectorAll('input:checked')].map((b) => /** @type {HTMLInputElement} */ (b).value);
    else if (type === 'radio_buttons') values[blockId] = /** @type {HTMLInputElement | null} */ (wrap.querySelector('input:checked'))?.value ?? null;
    else {
      const field = /** @type {HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement | null} */ (wrap.querySelector('input, select, textarea'));
      if (field) values[blockId] = field.value === '' ? null : field.value;
    }
  }
  return values;
}

/**
 * @param {Record<string, string>} errors
 * @returns {HTMLElement | null} the first field with an error
 */
function applyErrors(errors) {
  const dialog = $('modal');
  /** @type {HTMLElement | null} */
  let first = null;
  for (const wrap of dialog.querySelectorAll('.b-input')) {
    if (!(wrap instanceof HTMLElement)) continue;
    const message = errors[wrap.dataset.block ?? ''];
    const error = /** @type {HTMLElement} */ (wrap.querySelector('.field-error'));
    error.textContent = message ?? '';
    error.hidden = !message;
    wrap.classList.toggle('has-error', Boolean(message));
    for (const field of wrap.querySelectorAll('input, select, textarea, fieldset')) field.setAttribute('aria-invalid', message ? 'true' : 'false');
    if (message && !first) first = /** @type {HTMLElement | null} */ (wrap.querySelector('input, select, textarea'));
  }
  return first;
}

/**
 * @param {OpenView} open
 * @param {HTMLFormElement} form
 * @param {HTMLElement} status
 */
async function submitModal(open, form, status) {
  // Not `disabled`: a focused button that becomes disabled leaves Chrome's keyboard input stuck after the dialog closes.
  if (form.getAttribute('aria-busy') === 'true') return;
  form.setAttribute('aria-busy', 'true');
  status.textContent = 'Sending…';
  const answer = await post('/local/submit', { viewId: open.id, values: readValues(form) });
  form.removeAttribute('aria-busy');
  status.textContent = '';
  if (answer.outcome === 'errors') {
    applyErrors(answer.errors ?? {})?.focus();
    status.textContent = 'Some fields need attention.';
  } else if (answer.outcome === 'failed') {
    status.setAttribute('role', 'alert');
    status.textContent = answer.error ?? 'We had some trouble connecting. Try again?';
  }
}

// --- Home tab -------------------------------------------------------------------

function renderHome() {
  const view = data.homes[ui.me];
  const body = $('home-body');
  // A republished view keeps focus on the button of the same name, if it is still there.
  const focusedText = document.activeElement instanceof HTMLButtonElement && body.contains(document.activeElement) ? document.activeElement.textContent : null;
  body.setAttribute('aria-busy', String(ui.homeWaiting && !view));
  body.replaceChildren(
    view
      ? renderBlocks(view.blocks, { ...ctx, onAction: (block, element, button) => void act({ viewId: view.id }, block, element, button) })
      : ui.homeWaiting
        ? el('p', { class: 'empty' }, 'Opening the Home tab…')
        : el('p', { class: 'empty' }, 'vs-chatops has no Home tab: it did not publish one (views.publish) when you opened it.'),
  );
  if (focusedText !== null) [...body.querySelectorAll('button')].find((b) => b.textContent === focusedText)?.focus();
}

// --- Workflows ------------------------------------------------------------------
// The app's workflow steps, run as a workflow would run them: the person fills
// in a step's inputs (as in Workflow Builder), the stand-in sends the app a
// signed function_executed, and each run shows how the app completed it (its
// outputs or its error) and, for a change step, the message it posted, whose
// buttons work like any other.

function showWorkflows() {
  ui.showing = 'workflows';
  renderAll();
  byId('step-select', HTMLSelectElement).focus();
}

const stepFieldId = (/** @type {string} */ name) => `step-in-${name}`;

/** The step chosen and its inputs, as fields labelled by their titles. */
function renderStepForm() {
  const select = byId('step-select', HTMLSelectElement);
  const names = Object.keys(data.functions);
  if (!names.includes(ui.step)) ui.step = names[0] ?? '';
  select.replaceChildren(...names.map((name) => el('option', { value: name, selected: name === ui.step }, data.functions[name]?.title ?? name)));
  const fn = data.functions[ui.step];
  $('step-description').textContent = fn ? `${fn.description} (${ui.step})` : 'The app declares no workflow steps.';
  const required = new Set(fn?.input_parameters.required ?? []);
  $('step-inputs').dataset.step = ui.step;
  $('step-inputs').replaceChildren(...Object.entries(fn?.input_parameters.properties ?? {}).map(([name, p]) => stepInputNode(name, p, !required.has(name))));
  $('step-status').textContent = '';
}

/**
 * @param {string} name
 * @param {FunctionParameter} p
 * @param {boolean} optional
 */
function stepInputNode(name, p, optional) {
  const id = stepFieldId(name);
  const hintId = `${id}-h`;
  const errorId = `${id}-e`;
  const attrs = { id, name, 'aria-describedby': `${hintId} ${errorId}`, 'aria-required': optional ? false : 'true' };
  const choices = p.choices ?? p.enum?.map((value) => ({ value, title: value }));
  /** @type {HTMLElement} */
  let field;
  if (p.type === 'slack#/types/channel_id')
    field = el(
      'select',
      attrs,
      el('option', { value: '' }, 'Choose a channel…'),
      data.channels.map((c) => el('option', { value: c.id, selected: c.id === ui.channel }, `# ${c.name}`)),
    );
  else if (choices)
    field = el(
      'select',
      attrs,
      el('option', { value: '' }, optional ? '(not given)' : 'Choose…'),
      choices.map((c) => el('option', { value: c.value }, c.title)),
    );
  else field = el('input', { ...attrs, type: 'text', inputmode: p.type === 'integer' ? 'numeric' : undefined });
  return el(
    'div',
    { class: 'b-input', 'data-input': name },
    el('label', { for: id }, p.title, optional ? el('span', { class: 'optional' }, ' (optional)') : null),
    field,
    el('p', { class: 'hint', id: hintId }, p.description ?? ''),
    el('p', { class: 'field-error', id: errorId, hidden: true }),
  );
}

/**
 * Shows each input's problem on its field; the first field with one, if any.
 * @param {Record<string, string>} problems
 */
function applyStepProblems(problems) {
  /** @type {HTMLElement | null} */
  let first = null;
  for (const wrap of $('step-inputs').querySelectorAll('.b-input')) {
    if (!(wrap instanceof HTMLElement)) continue;
    const message = problems[wrap.dataset.input ?? ''];
    const error = /** @type {HTMLElement} */ (wrap.querySelector('.field-error'));
    error.textContent = message ?? '';
    error.hidden = !message;
    wrap.classList.toggle('has-error', Boolean(message));
    const field = /** @type {HTMLElement} */ (wrap.querySelector('input, select'));
    field.setAttribute('aria-invalid', message ? 'true' : 'false');
    if (message && !first) first = field;
  }
  return first;
}

async function runStep() {
  const form = byId('step-form', HTMLFormElement);
  if (form.getAttribute('aria-busy') === 'true' || !ui.step) return;
  /** @type {Record<string, string>} */
  const inputs = {};
  for (const field of $('step-inputs').querySelectorAll('input, select')) {
    const f = /** @type {HTMLInputElement | HTMLSelectElement} */ (field);
    if (f.value.trim() !== '') inputs[f.name] = f.value;
  }
  form.setAttribute('aria-busy', 'true');
  const status = $('step-status');
  status.textContent = 'Running…';
  const answer = await post('/local/step', { callbackId: ui.step, inputs });
  form.removeAttribute('aria-busy');
  applyStepProblems(answer.problems ?? {});
  if (answer.problems) {
    status.textContent = 'Some inputs need attention.';
    applyStepProblems(answer.problems)?.focus();
  } else if (answer.error && !answer.execution) status.textContent = `The step was not run: ${answer.error}`;
  else if (answer.error) status.textContent = `Sent, but the app did not acknowledge it (${answer.error}): Slack would retry it.`;
  else status.textContent = 'Sent to the app. Its completion shows under Runs.';
  if (answer.execution) upsertExecution(answer.execution);
}

const clock = (/** @type {number} */ ms) => new Date(ms).toISOString().slice(11, 19);
const STATES = { running: 'Running', completed: 'Completed', failed: 'Failed' };

/**
 * The message a change step posted: the app's message that names its request id (its button's value, and the
 * request's line under it, which stays once the request is claimed, decided or expired).
 * @param {unknown} requestId
 */
function postedBy(requestId) {
  if (typeof requestId !== 'string' || requestId === '') return undefined;
  return data.messages.find((m) => m.author === data.bot?.id && m.ephemeralTo === undefined && JSON.stringify(m.blocks ?? []).includes(requestId));
}

/** @param {Execution} x */
function runNode(x) {
  const fn = data.functions[x.callbackId];
  const title = fn?.title ?? x.callbackId;
  const by = ctx.person(x.user)?.name ?? x.user;
  const outputs = Object.entries(x.outputs ?? {});
  const posted = postedBy(x.outputs?.request_id);
  return el(
    'article',
    { class: `step-run ${x.state}`, 'aria-label': `${title} at ${clock(x.startedAt)}` },
    el('h4', { class: 'step-run-title' }, title),
    el(
      'p',
      { class: 'step-run-meta' },
      el('span', { class: `step-state ${x.state}` }, STATES[x.state]),
      ` · run by ${by} at ${clock(x.startedAt)} · `,
      el('code', {}, x.id),
    ),
    el(
      'dl',
      { class: 'step-io', 'aria-label': 'Inputs' },
      Object.entries(x.inputs).flatMap(([name, value]) => [el('dt', {}, name), el('dd', {}, String(value))]),
    ),
    outputs.length > 0
      ? el(
          'dl',
          { class: 'step-io outputs', 'aria-label': 'Outputs' },
          outputs.flatMap(([name, value]) => [el('dt', {}, name), el('dd', {}, String(value))]),
        )
      : null,
    x.error ? el('p', { class: 'step-error' }, el('strong', {}, 'Error: '), x.error) : null,
    posted
      ? el(
          'section',
          { class: 'step-posted', 'aria-label': `Message posted in #${ctx.channel(posted.channel)?.name ?? posted.channel}` },
          el('p', { class: 'hint' }, `Posted in #${ctx.channel(posted.channel)?.name ?? posted.channel}:`),
          messageNode(posted),
        )
      : null,
  );
}

function renderRuns() {
  const runs = [...data.executions.values()].reverse();
  $('step-runs').replaceChildren(...(runs.length > 0 ? runs.map(runNode) : [el('p', { class: 'empty' }, 'No step has run yet.')]));
}

/**
 * An execution only ever goes from running to its end. Two paths tell the page of it: the answer to /local/step (as it
 * stood when the app acked) and the `execution` events; a step that ends at once can have its end arrive first, and the
 * answer, older, must not draw it running again.
 * @param {Execution} x
 */
function upsertExecution(x) {
  const held = data.executions.get(x.id);
  if (held && held.state !== 'running' && x.state === 'running') return;
  data.executions.set(x.id, x);
  if (ui.showing === 'workflows') renderRuns();
}

// --- PagerDuty ------------------------------------------------------------------
// The change events local mode's PagerDuty stand-in received (the bot sends one for every change that ends): what an
// incident's "recent changes" would show, newest first.

function showTimeline() {
  ui.showing = 'timeline';
  renderAll();
  $('timeline-tab').focus();
}

/** @param {TimelineEntry} e */
function timelineNode(e) {
  const when = e.timestamp ? new Date(e.timestamp).toLocaleString() : 'no time given';
  return el(
    'article',
    { class: 'timeline-event', 'aria-label': e.summary },
    el('h3', {}, e.summary),
    el(
      'p',
      {},
      `${when} · received ${new Date(e.receivedAt).toLocaleTimeString()}`,
      ...(e.link ? [' · ', el('a', { href: e.link }, 'The change in Slack')] : []),
    ),
  );
}

function renderTimeline() {
  const events = [...data.timeline].reverse();
  $('timeline-events').replaceChildren(
    ...(events.length > 0 ? events.map(timelineNode) : [el('p', { class: 'empty' }, 'No change event yet: make a change and let it end.')]),
  );
}

// --- the whole window -----------------------------------------------------------

function renderAll() {
  renderSidebar();
  // Someone else's direct messages are not for whoever looks now: theirs instead.
  if (ui.showing === 'channel' && isDirectMessages(ui.channel) && ui.channel !== directMessagesId()) ui.channel = directMessagesId();
  const inChannel = ui.showing === 'channel';
  const direct = isDirectMessages(ui.channel);
  const channel = ctx.channel(ui.channel);
  const titles = {
    channel: direct ? ['vs-chatops · Messages', 'What the app sent you alone'] : [`# ${channel?.name ?? ''}`, channel?.topic ?? ''],
    home: ['vs-chatops · Home', 'The app’s Home tab, as you see it'],
    workflows: ['Workflows', 'Run the app’s workflow steps as a workflow in Workflow Builder would: Slack sends the app function_executed'],
    timeline: ['PagerDuty · change events', 'The incident’s timeline: what the bot told PagerDuty’s stand-in of each change that ended'],
  };
  [$('channel-title').textContent, $('channel-topic').textContent] = titles[ui.showing];
  $('messages').hidden = !inChannel;
  // The app's Messages tab is read-only (manifest.yml: messages_tab_read_only_enabled).
  $('composer').hidden = !inChannel || direct;
  $('composer-hint').hidden = !inChannel || direct;
  $('home').hidden = ui.showing !== 'home';
  $('workflows').hidden = ui.showing !== 'workflows';
  $('timeline').hidden = ui.showing !== 'timeline';
  if (inChannel) renderMessages();
  else if (ui.showing === 'home') renderHome();
  else if (ui.showing === 'timeline') renderTimeline();
  else {
    // The form is drawn once per step chosen: switching person or channel keeps what was typed.
    if ($('step-inputs').dataset.step !== ui.step || ui.step === '') renderStepForm();
    renderRuns();
  }
  renderRefusals();
  renderModal();
}

/** Under the message box: which control-panel links the app unfurls (local mode: the sandbox's panel, at the sandbox's own address). */
function renderPanelHint() {
  const panel = data.panel;
  const [first, ...more] = panel?.servers ?? [];
  if (!panel || first === undefined) {
    $('panel-hint').replaceChildren();
    return;
  }
  const ids = more.length > 0 ? `${[first, ...more.slice(0, -1)].join(', ')} and ${more[more.length - 1]}` : String(first);
  $('panel-hint').replaceChildren(
    ' Or post a link to a server in the sandbox’s control panel (the sandbox’s own address) and see it unfurl: ',
    el('code', {}, `${panel.url}/virtual_machines/${first}`),
    ` (servers ${ids}).`,
  );
}

/** Whether a channel id is the app's direct messages with someone (opened, or not yet). */
/**
 * The control panel (sandbox): its server picker, kept on the server picked when drawn again; hidden without a sandbox.
 * @param {Snapshot['control']} servers
 */
function renderControl(servers) {
  const select = byId('control-server', HTMLSelectElement);
  const picked = select.value;
  select.replaceChildren(...(servers ?? []).map((s) => el('option', { value: s.label, selected: s.label === picked }, `${s.label} (VS ${s.id})`)));
  $('control').hidden = !servers || servers.length === 0;
}

/**
 * Acts on the picked server as someone in the control panel would; the page server adds the sandbox's credentials.
 * @param {string} act
 * @param {HTMLButtonElement} button
 */
async function controlAct(act, button) {
  const status = $('control-status');
  const server = byId('control-server', HTMLSelectElement).value;
  button.disabled = true;
  status.textContent = `${button.textContent ?? act} ${server}…`;
  try {
    const res = await fetch(`/sandbox-control/${act}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ server }) });
    const answer = /** @type {{ ok?: boolean, message?: string, error?: string }} */ (await bodyOf(res).catch(() => ({ error: `HTTP ${res.status}` })));
    status.textContent = answer.ok ? (answer.message ?? 'Done.') : `Not done: ${answer.error ?? `HTTP ${res.status}`}`;
  } catch (e) {
    status.textContent = `Not done: ${String(e)}`;
  } finally {
    button.disabled = false;
  }
}

function isDirectMessages(/** @type {string} */ id) {
  return id.startsWith('dm-') || data.channels.some((c) => c.id === id && c.dmWith !== undefined);
}

/**
 * The shortcut menu: the app's global shortcuts, as its manifest declares them; no button when it declares none.
 * @param {Snapshot['shortcuts']} shortcuts
 */
function renderShortcuts(shortcuts) {
  $('shortcuts-menu').replaceChildren(
    ...shortcuts.map(({ callbackId, name, description }) =>
      el('li', { role: 'none' }, el('button', { type: 'button', role: 'menuitem', 'data-callback': callbackId, title: description }, name)),
    ),
  );
  $('shortcuts-button').hidden = shortcuts.length === 0;
}

async function load() {
  const snapshot = /** @type {Snapshot} */ (await bodyOf(await fetch('/local/state')));
  data.people = snapshot.people;
  data.channels = snapshot.channels;
  data.groups = snapshot.groups;
  renderShortcuts(snapshot.shortcuts);
  data.bot = snapshot.bot;
  data.messages = snapshot.messages;
  data.views = new Map(snapshot.views.map((v) => [v.id, v]));
  data.homes = snapshot.homes;
  data.refusals = snapshot.refusals;
  const notes = $('notes');
  notes.replaceChildren(...snapshot.notes.map((note) => el('p', {}, mrkdwn(note, ctx))));
  notes.hidden = snapshot.notes.length === 0;
  data.panel = snapshot.panel;
  data.functions = snapshot.functions;
  data.executions = new Map(snapshot.executions.map((x) => [x.id, x]));
  data.timeline = snapshot.timeline;
  renderPanelHint();
  renderControl(snapshot.control);
  ui.me ||= data.people[0]?.id ?? '';
  // A message's link (chat.getPermalink: `/?channel=…&message=…`) opens its channel.
  const linked = new URLSearchParams(location.search).get('channel');
  ui.channel ||= (linked && data.channels.some((c) => c.id === linked) ? linked : null) ?? data.channels[0]?.id ?? '';
  renderAll();
}

function follow() {
  const events = new EventSource('/local/events');
  /**
   * @template {keyof Events} K
   * @param {K} type
   * @param {(event: Events[K]) => void} handle
   */
  const on = (type, handle) =>
    events.addEventListener(type, (e) => {
      /** @type {unknown} */
      const payload = JSON.parse(/** @type {MessageEvent<string>} */ (e).data);
      handle(/** @type {Events[K]} */ (payload));
    });
  on('message', ({ message }) => {
    upsertMessage(message);
    // A change step's message, shown with its run, follows its updates (a claim, an approval).
    if (ui.showing === 'workflows') renderRuns();
  });
  on('execution', ({ execution }) => upsertExecution(execution));
  on('timeline', ({ entry }) => {
    data.timeline.push(entry);
    if (ui.showing === 'timeline') renderTimeline();
  });
  on('channel', ({ channel }) => {
    if (!data.channels.some((c) => c.id === channel.id)) data.channels.push(channel);
    // Opened while its person looks at their (empty) Messages tab: that is where the messages now arrive.
    if (ui.showing === 'channel' && ui.channel === `dm-${channel.dmWith}`) ui.channel = channel.id;
    renderSidebar();
  });
  on('delete', ({ channel, ts }) => {
    data.messages = data.messages.filter((m) => !(m.channel === channel && m.ts === ts));
    document.getElementById(messageId({ channel, ts }))?.remove();
  });
  on('view', ({ view }) => {
    data.views.delete(view.id);
    data.views.set(view.id, view);
    if (view.user === ui.me) renderModal();
  });
  on('view_closed', ({ id, user }) => {
    data.views.delete(id);
    if (user === ui.me) renderModal();
  });
  on('home', ({ user, view }) => {
    data.homes[user] = view;
    if (user === ui.me) ui.homeWaiting = false;
    if (user === ui.me && ui.showing === 'home') renderHome();
  });
  on('refusal', ({ refusal }) => {
    data.refusals.push(refusal);
    renderRefusals();
  });
  // After a lost connection, catch up with everything missed.
  let lost = false;
  events.onerror = () => (lost = true);
  events.onopen = () => {
    if (lost) void load();
    lost = false;
  };
}

function wire() {
  const person = byId('person', HTMLSelectElement);
  person.addEventListener('change', () => {
    ui.me = person.value;
    ui.modalViewId = null;
    // On the Home tab, the other person opens their own: the app hears of it (app_home_opened) and publishes theirs.
    if (ui.showing === 'home') void showHome();
    else renderAll();
  });
  $('home-tab').addEventListener('click', () => void showHome());
  $('messages-tab').addEventListener('click', showDirectMessages);
  $('workflows-tab').addEventListener('click', showWorkflows);
  $('timeline-tab').addEventListener('click', showTimeline);
  for (const button of document.querySelectorAll('#control button[data-act]'))
    if (button instanceof HTMLButtonElement) button.addEventListener('click', () => void controlAct(button.dataset.act ?? '', button));
  const stepSelect = byId('step-select', HTMLSelectElement);
  stepSelect.addEventListener('change', () => {
    ui.step = stepSelect.value;
    renderStepForm();
  });
  $('step-form').addEventListener('submit', (e) => {
    e.preventDefault();
    void runStep();
  });
  $('composer').addEventListener('submit', (e) => {
    e.preventDefault();
    void sendCommand();
  });
  async function sendCommand() {
    const input = byId('message', HTMLInputElement);
    const text = input.value.trim();
    if (!text) return;
    input.value = '';
    // A slash command goes to the app (the stand-in refuses one the app does not declare, as Slack does); anything
    // else is a message in the channel (its control-panel links unfurl).
    if (!text.startsWith('/')) {
      const answer = await post('/local/message', { channel: ui.channel, text });
      if (!answer.ok && answer.error && !/dispatch_failed|operation_timeout/.test(answer.error)) showStatus(`The message was not sent: ${answer.error}`);
      return;
    }
    const answer = await post('/local/command', { channel: ui.channel, text });
    if (!answer.ok && answer.error && !/dispatch_failed|operation_timeout/.test(answer.error)) showStatus(`The command was not sent: ${answer.error}`);
  }
  const menuButton = $('shortcuts-button');
  const menu = $('shortcuts-menu');
  const setMenu = (/** @type {boolean} */ open) => {
    menu.hidden = !open;
    menuButton.setAttribute('aria-expanded', String(open));
    if (open) menu.querySelector('button')?.focus();
  };
  menuButton.addEventListener('click', () => setMenu(menu.hidden));
  menu.addEventListener('keydown', (e) => {
    const items = [...menu.querySelectorAll('button')];
    const i = items.findIndex((item) => item === document.activeElement);
    if (e.key === 'Escape') {
      setMenu(false);
      menuButton.focus();
    } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      items[(i + (e.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length]?.focus();
    }
  });
  // The items are drawn from the stand-in's state (renderShortcuts), so a click is caught on the menu.
  menu.addEventListener('click', (e) => {
    const item = e.target instanceof Element ? e.target.closest('button') : null;
    if (item) void openShortcut(item.dataset.callback);
  });
  /** @param {string | undefined} callbackId */
  async function openShortcut(callbackId) {
    setMenu(false);
    const answer = await post('/local/shortcut', { callbackId, channel: ui.channel });
    if (!answer.ok) showStatus(`The shortcut did not work: ${answer.error}`);
  }
}

wire();
await load();
follow();
