import type { ContextBlock, KnownBlock, MrkdwnElement, RichTextBlock } from '@slack/types';

// The few helpers every renderer uses: escaping for mrkdwn, and Slack's limits.
// Text that is not ours (from the cloud API, a workflow, a person) goes
// through `safe` (or `code`, `oneLine`): escaped, so it can never mention
// anyone or fake a link. Every mrkdwn text object is made by `mrkdwn`, which
// marks it verbatim, so Slack does not turn a bare URL, `@here` or `#channel`
// in that text into a link or a mention either (docs/product.md "Security";
// test/slack/blocks/verbatim.test.ts holds every renderer to both).

/** A rendered message: `text` is the notification and screen-reader fallback. */
export interface Rendered {
  text: string;
  blocks: KnownBlock[];
}

/**
 * Bidirectional controls (U+202A–202E, U+2066–2069), zero-width and direction marks (U+200B–200F), the byte-order mark,
 * line and paragraph separators, and every other invisible formatting character (Unicode's Cf): they would reorder or
 * hide what a person reads (an approver would read one request and approve another), so they are shown by name.
 */
const INVISIBLE = /[\p{Cf}\u2028\u2029]/gu;

export const LIMITS = {
  blocks: 50,
  sectionText: 3000,
  fields: 10,
  fieldText: 2000,
  header: 150,
  buttonText: 75,
  contextElements: 10,
  /** Slack truncates at 40,000; we keep notifications short. */
  fallbackText: 3000,
  modalTitle: 24,
  optionText: 75,
  /** Options of one static_select. */
  selectOptions: 100,
  errorMessage: 300,
} as const;

/**
 * A mrkdwn text object, verbatim: Slack parses only what is written as markup (`<@U…>`, `<!date…>`, `<url|text>`)
 * and links nothing else. The only way the bot builds one.
 */
export function mrkdwn(text: string): MrkdwnElement {
  // Data comes through `safe`, which already names invisible characters; this is the net for any that did not.
  return { type: 'mrkdwn', text: hasInvisible(text) ? escapeMrkdwnNames(text) : text, verbatim: true };
}

/** Invisible characters named, in mrkdwn: "&lt;U+202E&gt;", which Slack shows as <U+202E> and never reads as markup. */
function escapeMrkdwnNames(text: string): string {
  return text.replace(INVISIBLE, (c) => escapeMrkdwn(showInvisible(c)));
}

/**
 * Escapes the three characters Slack treats as control sequences, so text
 * from the API or from users can never mention @channel, a user or a group,
 * nor fake a link.
 */
export function escapeMrkdwn(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * "<What> right now, because it could not be recorded; nothing was changed. Try again in a few minutes.": the one
 * sentence for anything refused because the store could not be reached (nothing is done that is not on record).
 */
export function unrecordable(what: string, undone = 'nothing was changed', retry = 'Try again in a few minutes.'): string {
  return `${what} right now, because it could not be recorded; ${undone}. ${retry}`;
}

/** Cuts `s` to at most `max` characters (code points kept whole), ending in an ellipsis. */
export function truncate(s: string, max: number): string {
  if (s.length <= max) return s;
  let cut = s.slice(0, Math.max(0, max - 1));
  // Do not leave half of a surrogate pair or of an escape sequence behind.
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  cut = cut.replace(/&[a-z]{0,4}$/, '');
  // Nor half of an invisible character's name (showInvisible), escaped or not.
  cut = cut.replace(/(?:<|&lt;)(?:U(?:\+[0-9A-F]{0,6})?)?$/, '');
  return cut + '…';
}

/**
 * Escaped and cut to fit: for any untrusted text placed in mrkdwn. `max`
 * bounds the escaped result (what Slack counts), so one hostile `<<<<` value
 * cannot grow fivefold past a block's limit.
 */
export function safe(s: string | null | undefined, max = 200): string {
  return truncate(escapeMrkdwn(showInvisible(stripControl(truncate(s ?? '', max + 1)))), max);
}

/** Text with each invisible formatting character shown as its code point, "<U+202E>", and nothing else changed. */
export function showInvisible(s: string): string {
  return s.replace(INVISIBLE, (c) => `<U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}>`);
}

/** Whether showInvisible changes anything in `s`. */
export function hasInvisible(s: string): boolean {
  INVISIBLE.lastIndex = 0;
  return INVISIBLE.test(s);
}

/**
 * Text shown as it is (preformatted rich text: no markup, no mention, no link), byte for byte, except for invisible
 * formatting characters, which are named (showInvisible), with a line under it saying so: what an approver reads is
 * what is sent, in an order nothing can change.
 */
export function preformattedBlock(text: string): RichTextBlock {
  const shown: RichTextBlock = { type: 'rich_text', elements: [{ type: 'rich_text_preformatted', elements: [{ type: 'text', text: showInvisible(text) }] }] };
  if (!hasInvisible(text)) return shown;
  const said = { type: 'rich_text_section' as const, elements: [{ type: 'text' as const, text: INVISIBLE_NAMED, style: { italic: true } }] };
  return { ...shown, elements: [...shown.elements, said] };
}

/** Said (as plain text) under text shown as it is, an exact request, whose invisible characters are shown by name. */
export const INVISIBLE_NAMED =
  'It holds invisible characters (bidirectional controls, zero-width or other formatting), shown above by name, as <U+202E>; ' + 'they are sent as they are.';

/** Control characters would garble a line; odd Unicode is left as it is. */
export function stripControl(s: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what it replaces
  return s.replace(/[\u0000-\u0008\u000B-\u001F\u007F]/g, ' ');
}

export function sandboxNotice(): ContextBlock {
  return { type: 'context', elements: [mrkdwn(':test_tube: sandbox data — not a real cloud account')] };
}

const SANDBOX_TEXT = sandboxNotice().elements[0] as { text: string };

/** Appends the sandbox notice when on the sandbox, once: a message that has it already is left alone. */
export function withSandbox(blocks: KnownBlock[], sandbox: boolean): KnownBlock[] {
  if (!sandbox) return blocks;
  const last = blocks[blocks.length - 1];
  const marked = last?.type === 'context' && (last.elements[0] as { text?: string } | undefined)?.text === SANDBOX_TEXT.text;
  return marked ? blocks : [...blocks, sandboxNotice()];
}

/** The same for a whole message: errors, usage, denials and audit posts get the notice where they are sent. */
export function markSandbox<T extends { blocks?: KnownBlock[] }>(message: T, sandbox: boolean): T {
  return sandbox ? { ...message, blocks: withSandbox(message.blocks ?? [], true) } : message;
}

export function section(text: string): KnownBlock {
  return { type: 'section', text: mrkdwn(truncate(text, LIMITS.sectionText)) };
}

export function header(text: string): KnownBlock {
  return { type: 'header', text: { type: 'plain_text', text: truncate(showInvisible(text), LIMITS.header), emoji: true } };
}

export function context(...texts: string[]): KnownBlock {
  return { type: 'context', elements: texts.slice(0, LIMITS.contextElements).map((t) => mrkdwn(truncate(t, LIMITS.sectionText))) };
}

/** Fallback `text`, marked as sandbox data when it is, and kept short. */
export function fallback(text: string, sandbox = false): string {
  return truncate(showInvisible(sandbox ? `[sandbox data] ${text}` : text), LIMITS.fallbackText);
}

/** One value, one line: newlines and control characters become spaces, so data cannot start a fake line. */
export function oneLine(s: string): string {
  return s.replace(/[\p{Cc}\u2028\u2029]+/gu, ' ');
}

/** A mention for a real Slack user id (`U…`, `W…`); anything else is shown escaped, never as markup. */
export function userMention(userId: string): string {
  return /^[UW][A-Z0-9]{1,30}$/.test(userId) ? `<@${userId}>` : `\`${safe(oneLine(userId), 40).replace(/`/g, "'")}\``;
}

/** A mention of a real user group id (`S…`), which notifies its members; anything else is shown escaped. */
export function groupMention(groupId: string): string {
  return /^S[A-Z0-9]{1,30}$/.test(groupId) ? `<!subteam^${groupId}>` : `\`${safe(oneLine(groupId), 40).replace(/`/g, "'")}\``;
}

/** A link for a real channel id (`C…`, `G…`); anything else is shown escaped. */
export function channelMention(channelId: string): string {
  return /^[CG][A-Z0-9]{1,30}$/.test(channelId) ? `<#${channelId}>` : `\`${safe(oneLine(channelId), 40).replace(/`/g, "'")}\``;
}

/** Data inside an inline code span: one line, escaped, cut, and with backticks replaced so it cannot close the span. */
export function code(s: string, max = 80): string {
  // The pre-cut must not split a surrogate pair: oneLine can shrink the rest below `max`, leaving half an emoji.
  const inner = safe(oneLine(s.slice(0, max * 2 + 1).replace(/[\uD800-\uDBFF]$/, '')), max).replace(/`/g, "'");
  return inner === '' ? '` `' : `\`${inner}\``;
}

/**
 * The one way a time is shown to people (docs/product.md, Audit): Slack's date token, which each reader sees in
 * their own time zone ("today at 14:03"), with the time in UTC for clients that cannot render it. `at`: epoch
 * milliseconds or an ISO 8601 time as the store keeps them; a time that does not parse is shown as text, escaped.
 */
export function slackTime(at: number | string): string {
  const ms = typeof at === 'number' ? at : Date.parse(at);
  if (!Number.isFinite(ms)) return safe(oneLine(String(at)), 40);
  return `<!date^${Math.floor(ms / 1000)}^{date_short_pretty} at {time}|${utcText(ms)}>`;
}

/** Whether a value is a time as the store and the cloud write one (ISO 8601, with its zone or offset). */
export function isIsoTime(value: unknown): value is string {
  return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(value) && Number.isFinite(Date.parse(value));
}

/** "2024-05-06 14:03:12 UTC": a time in words where no date token can go (plain text, a token's fallback). */
export function utcText(at: number | string): string {
  const ms = typeof at === 'number' ? at : Date.parse(at);
  return Number.isFinite(ms) ? `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC` : oneLine(String(at)).slice(0, 40);
}

/** Lines joined into chunks of at most `max` characters, for sections (≤ 3000 each). */
export function chunkLines(lines: string[], max: number): string[] {
  const chunks: string[] = [];
  let current = '';
  for (const line of lines) {
    if (current && current.length + line.length + 1 > max) {
      chunks.push(current);
      current = '';
    }
    current = current ? `${current}\n${line}` : line;
  }
  if (current) chunks.push(current);
  return chunks;
}
