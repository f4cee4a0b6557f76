import type { ContextBlock, KnownBlock } from '@slack/types';

// The few helpers every renderer uses: escaping for mrkdwn, and Slack's limits.

/** A rendered message: `text` is the notification and screen-reader fallback. */
export interface Rendered {
  text: string;
  blocks: KnownBlock[];
}

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
  errorMessage: 300,
} as const;

/**
 * Escapes the three characters Slack treats as control sequences, so text
 * from the API or from users can never mention @channel, a user or a group,
 * nor fake a link.
 */
export function escapeMrkdwn(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Cuts `s` to at most `max` characters (code points kept whole), ending in an ellipsis. */
export function truncate(s: string, max: number): string {
  if (s.length <= max) return s;
  let cut = s.slice(0, Math.max(0, max - 1));
  // Do not leave half of a surrogate pair or of an escape sequence behind.
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  cut = cut.replace(/&[a-z]{0,4}$/, '');
  return cut + '…';
}

/** Escaped and cut to fit: for any untrusted text placed in mrkdwn. */
export function safe(s: string | null | undefined, max = 200): string {
  return escapeMrkdwn(truncate(stripControl(s ?? ''), max));
}

/** Control characters would garble a line; odd Unicode is left as it is. */
export function stripControl(s: string): string {
  return s.replace(/[\u0000-\u0008\u000B-\u001F\u007F]/g, ' ');
}

export function sandboxNotice(): ContextBlock {
  return { type: 'context', elements: [{ type: 'mrkdwn', text: ':test_tube: sandbox data — not a real cloud account' }] };
}

export function withSandbox(blocks: KnownBlock[], sandbox: boolean): KnownBlock[] {
  return sandbox ? [...blocks, sandboxNotice()] : blocks;
}

export function section(text: string): KnownBlock {
  return { type: 'section', text: { type: 'mrkdwn', text: truncate(text, LIMITS.sectionText) } };
}

export function header(text: string): KnownBlock {
  return { type: 'header', text: { type: 'plain_text', text: truncate(text, LIMITS.header), emoji: true } };
}

export function context(...texts: string[]): KnownBlock {
  return { type: 'context', elements: texts.slice(0, LIMITS.contextElements).map((t) => ({ type: 'mrkdwn' as const, text: truncate(t, LIMITS.sectionText) })) };
}

export function fallback(text: string): string {
  return truncate(text, LIMITS.fallbackText);
}

/** "14:03:12 UTC" */
export function clock(d: Date): string {
  return `${d.toISOString().slice(11, 19)} UTC`;
}
