import type { AllMiddlewareArgs, SlackShortcutMiddlewareArgs } from '@slack/bolt';
import type { ChangeForm } from '../../change-forms';
import type { ListenerContext } from '../../context';
import { requestOf } from '../../middleware/request';
import { openModal } from '../../open-modal';

/**
 * A global shortcut opens the same form as the command, with the server or
 * backup id and the channel as inputs. The needs middleware has checked the
 * role; the channel, once chosen, is checked by the change door on submission.
 */
export function openFromShortcutCallback(ctx: ListenerContext, form: ChangeForm<never>) {
  return async ({ shortcut, client, context }: AllMiddlewareArgs & SlackShortcutMiddlewareArgs): Promise<void> => {
    const req = requestOf(context);
    const opened = await openModal(client, shortcut.trigger_id, form.modal({ privateMetadata: '{}', sandbox: ctx.sandbox }), req.log);
    req.outcome = opened ? 'opened' : 'failed';
  };
}
