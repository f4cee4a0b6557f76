import type { ModalView } from '@slack/types';
import { LIMITS, sandboxNotice, truncate } from './mrkdwn';

/**
 * A closing-only modal that tells the outcome of a submission. Its text mixes
 * our words, API messages and already-escaped result text, so it is escaped
 * here idempotently: an existing `&amp;`/`&lt;`/`&gt;` is kept, every other
 * `&`, `<`, `>` is escaped, and only channel links (`<#C…>`) survive.
 */
export function statusModal({ title, text, sandbox }: { title: string; text: string; sandbox: boolean }): ModalView {
  return {
    type: 'modal',
    title: { type: 'plain_text', text: truncate(title, LIMITS.modalTitle) },
    close: { type: 'plain_text', text: 'Close' },
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text: truncate(escapeOnce(text), LIMITS.sectionText) || ' ' } }, ...(sandbox ? [sandboxNotice()] : [])],
  };
}

function escapeOnce(s: string): string {
  return s
    .replace(/&(?!(amp|lt|gt);)/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/&lt;#([CG][A-Z0-9]{1,30})&gt;/g, '<#$1>');
}
