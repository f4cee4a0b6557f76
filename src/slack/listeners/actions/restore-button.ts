import { targetKey } from '../../../changes';
import { BACKUPS_BUTTON_OUT_OF_DATE, parseRestoreButtonValue } from '../../blocks/backups';
import type { ListenerContext, Outcome, SlackRequest } from '../../context';
import type { NeedOf } from '../../middleware/needs';
import { replyError } from '../../reply';
import { openRestorePicker } from '../commands/open-change-form';
import type { ButtonArgs } from './button-args';

// The Restore button of a backup in `/vs backups` (docs/product.md, Restore
// with eyes open): the restore form of the backup's server, that backup picked
// already. Pressing it is asking to restore: the door checks the role (and
// records a refusal) as for `/vs restore`; the backup is read again when the
// form is submitted.

const valueOf = ({ action }: Pick<ButtonArgs, 'action'>) => parseRestoreButtonValue(typeof action.value === 'string' ? action.value : '');

export function restoreButtonNeeds(args: ButtonArgs): NeedOf {
  const value = valueOf(args);
  return { need: { opens: 'backup_restore' }, target: value ? targetKey({ kind: 'backup', id: value.backupId }) : 'unknown' };
}

export async function restoreButton(ctx: ListenerContext, req: SlackRequest, args: ButtonArgs): Promise<Outcome> {
  const value = valueOf(args);
  if (!value) {
    await replyError(req, BACKUPS_BUTTON_OUT_OF_DATE);
    return 'invalid';
  }
  return openRestorePicker(ctx, req, value.vsId, value.backupId);
}
