import type { Power } from '../../store';
import type { Notice } from '../../watch/diff';
import { context, fallback, oneLine, type Rendered, safe, section, slackTime, withSandbox } from './mrkdwn';
import { transactionText, transactionWords } from './transactions';

// A watch's notification in its channel (docs/product.md, Watches: the bot speaks first): what changed, on which
// server, and the state it left it in, in one line; the server by its label and id.

const POWER_WORDS: Record<Power, string> = { on: 'on', off: 'off', suspended: 'suspended', recovery: 'in recovery' };

/** "web-1 (VS 42)", or "VS 42" without a label (the label escaped and shortened). */
export function watchedServerName(notice: Pick<Notice, 'serverId' | 'label'>): string {
  const label = notice.label === null ? '' : safe(oneLine(notice.label), 80);
  return label === '' ? `VS ${notice.serverId}` : `${label} (VS ${notice.serverId})`;
}

/** The notice's sentence, with mrkdwn (`plain`: the action of a failure as text, for the fallback). */
function sentence(notice: Notice, plain: boolean): { emoji: string; line: string } {
  const name = watchedServerName(notice);
  switch (notice.kind) {
    case 'power_on':
    case 'power_off':
    case 'power_suspended':
    case 'power_recovery': {
      const now = POWER_WORDS[notice.state as Power] ?? safe(notice.state, 20);
      if (notice.from === 'recovery') return { emoji: ':arrows_counterclockwise:', line: `${name} is out of recovery: it is ${now}` };
      const was = notice.from === undefined ? '' : ` (it was ${POWER_WORDS[notice.from]})`;
      const emoji = notice.kind === 'power_on' ? ':large_green_circle:' : notice.kind === 'power_off' ? ':red_circle:' : ':large_yellow_circle:';
      return { emoji, line: `${name} is ${now}${was}` };
    }
    case 'lock_long':
      return { emoji: ':lock:', line: `${name} has been locked since ${plain ? new Date(notice.sinceMs ?? 0).toISOString() : slackTime(notice.sinceMs ?? 0)}` };
    case 'lock_end':
      return { emoji: ':unlock:', line: `${name} is unlocked again` };
    case 'gone':
      return { emoji: ':ghost:', line: `${name} is gone: the cloud no longer lists it` };
    case 'failed': {
      const action =
        notice.transaction === undefined ? 'a transaction' : plain ? transactionText(notice.transaction.action) : transactionWords(notice.transaction.action);
      const id = notice.transaction === undefined ? '' : ` (transaction ${notice.transaction.id})`;
      return { emoji: ':x:', line: `${name}: ${action} failed in the cloud${id}` };
    }
    case 'blind':
      return { emoji: ':see_no_evil:', line: 'The watch cannot read the cloud: changes to watched servers are not seen until it can again' };
    case 'sees_again':
      return { emoji: ':eyes:', line: 'The watch can read the cloud again' };
  }
}

export function renderWatchNotice(notice: Notice, sandbox: boolean): Rendered {
  const { emoji, line } = sentence(notice, false);
  return {
    text: fallback(sentence(notice, true).line, sandbox),
    blocks: withSandbox([section(`${emoji} *${line}*`), context('Told by a watch of this channel.')], sandbox),
  };
}
