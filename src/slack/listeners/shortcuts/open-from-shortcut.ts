import type { AllMiddlewareArgs, SlackShortcutMiddlewareArgs } from '@slack/bolt';
import type { ModalView } from '@slack/types';
import { atLeast, NEEDED } from '../../../changes';
import type { ChangeAction } from '../../../store/audit-store';
import { statusModal } from '../../blocks/status-modal';
import type { ListenerContext } from '../../context';
import { openModal } from '../../open-modal';


/**
 * Global shortcuts open the same forms as the commands, with the server or
 * backup id and the channel as inputs. The role is checked now; the channel
 * restriction, once the channel is chosen, on submission.
 */
export function openFromShortcut(ctx: ListenerContext, action: ChangeAction, form: (privateMetadata: string) => ModalView) {
  return async ({ ack, shortcut, client }: AllMiddlewareArgs & SlackShortcutMiddlewareArgs): Promise<void> => {
    await ack();
    const userId = shortcut.user.id;
    const log = ctx.logger.child({ user: userId, shortcut: action });
    const started = ctx.now();
    const role = await ctx.policy.roleOf(userId);
    const needed = NEEDED[action];
    let view: ModalView;
    let outcome: string;
    if (!atLeast(role, needed)) {
      // Audited like any denial; the door words the reason.
      const reason = await ctx.changes.authorize({ userId, channelId: null }, action, 'shortcut').then(
        (decision) => decision.reason,
        (error: unknown) => {
          // The denial stands even if it could not be written down; the user still hears of it.
          log.error('could not record the denial', { error });
          return null;
        },
      );
      view = statusModal({ title: action === 'disk_add' ? 'Add disk' : 'Restore backup', text: `:no_entry: ${reason ?? `This needs the ${needed} role.`}`, sandbox: ctx.sandbox });
      outcome = 'denied';
    } else {
      view = form('{}');
      outcome = 'opened';
    }
    const opened = await openModal(client, shortcut.trigger_id, view, log);
    log.info('shortcut', { outcome: opened ? outcome : 'error', ms: Math.round(ctx.now() - started) });
  };
}
