import type { ModalView } from '@slack/types';
import { LIMITS, mrkdwn as mrkdwnText, sandboxNotice, truncate } from './mrkdwn';

/**
 * A closing-only modal that tells the outcome of a submission. `mrkdwn` is
 * ready to show: callers escape what they did not write (API messages, user
 * input) with the helpers of mrkdwn.ts, as every renderer does.
 */
export function statusModal({ title, mrkdwn, sandbox }: { title: string; mrkdwn: string; sandbox: boolean }): ModalView {
  return {
    type: 'modal',
    title: { type: 'plain_text', text: truncate(title, LIMITS.modalTitle) },
    close: { type: 'plain_text', text: 'Close' },
    blocks: [{ type: 'section', text: mrkdwnText(truncate(mrkdwn, LIMITS.sectionText) || ' ') }, ...(sandbox ? [sandboxNotice()] : [])],
  };
}
