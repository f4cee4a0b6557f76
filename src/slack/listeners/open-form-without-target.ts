import type { FormOfChanges } from '../blocks/change-forms';
import type { ListenerContext, Outcome, SlackRequest } from '../context';
import { openModal } from '../open-modal';

/**
 * A global shortcut, or a button of the Home tab, opens the same form as the
 * command, with the server or backup id and the channel as inputs. The needs
 * middleware has checked the role; the channel, once chosen, is checked by
 * the change door on submission.
 */
export async function openFormWithoutTarget(ctx: ListenerContext, req: SlackRequest, form: FormOfChanges): Promise<Outcome> {
  if (!req.triggerId) return 'failed';
  // A form that makes several changes offers those the role allows; the server is read when it is submitted.
  const view = form.modal({ privateMetadata: '{}', sandbox: ctx.sandbox, role: await ctx.policy.roleOf(req.userId) });
  const opened = await openModal(req.client, req.triggerId, view, req.log);
  return opened ? 'opened' : 'failed';
}
