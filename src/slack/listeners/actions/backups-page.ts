import { BACKUPS_BUTTON_OUT_OF_DATE } from '../../blocks/backups';
import { parsePageButtonValue } from '../../blocks/pages';
import type { ListenerContext, Outcome, SlackRequest } from '../../context';
import { deliver, replyError } from '../../reply';
import { answerBackups } from '../commands/backups';
import type { ButtonArgs } from './button-args';

/** Prev/Next on `/vs backups`: re-read (never a stale page) and replace the message in place. */
export async function backupsPage(ctx: ListenerContext, req: SlackRequest, { action }: ButtonArgs): Promise<Outcome> {
  const target = parsePageButtonValue(typeof action.value === 'string' ? action.value : '');
  if (!target) {
    await replyError(req, BACKUPS_BUTTON_OUT_OF_DATE);
    return 'invalid';
  }
  return answerBackups(ctx, req, target.vsId, target.page, (message) => deliver(req, { replace_original: true, ...message }));
}
