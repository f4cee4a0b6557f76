import type { ModalView } from '@slack/types';
import { sandboxNotice, truncate } from './mrkdwn';

/** A closing-only modal that tells the outcome of a submission. */
export function statusModal({ title, text, sandbox }: { title: string; text: string; sandbox: boolean }): ModalView {
  return {
    type: 'modal',
    title: { type: 'plain_text', text: truncate(title, 24) },
    close: { type: 'plain_text', text: 'Close' },
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text: truncate(text, 3000) } }, ...(sandbox ? [sandboxNotice()] : [])],
  };
}
