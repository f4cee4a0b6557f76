import { BACKUPS_BUTTON_OUT_OF_DATE } from '../../blocks/backups';
import { parsePageButtonValue } from '../../blocks/pages';
import type { ListenerContext, Outcome, SlackRequest } from '../../context';
import { deliverPage, replyError } from '../../reply';
import { answerBackups } from '../commands/backups';
import { clickedInEphemeral, type ButtonArgs } from './button-args';

/** Prev/Next on `/vs backups`: re-read (never a stale page), shown to the clicker (deliverPage says how). */
export async function backupsPage(ctx: ListenerContext, req: SlackRequest, args: ButtonArgs): Promise<Outcome> {
  const { action } = args;
  const target = parsePageButtonValue(typeof action.value === 'string' ? action.value : '');
  if (!target) {
    await replyError(req, BACKUPS_BUTTON_OUT_OF_DATE);
    return 'invalid';
  }
  return answerBackups(ctx, req, target.vsId, target.page, (message) => deliverPage(req, clickedInEphemeral(args), message));
}
