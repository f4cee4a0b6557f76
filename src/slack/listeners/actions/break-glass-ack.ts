import { isStoreUnavailable } from '../../../store';
import { acknowledgedText, BREAK_GLASS_UNRECORDED } from '../../blocks/break-glass';
import { denialText } from '../../blocks/denials';
import { fallback, markSandbox, section } from '../../blocks/mrkdwn';
import { statusModal } from '../../blocks/status-modal';
import type { ListenerContext, Outcome, SlackRequest } from '../../context';
import { openModal } from '../../open-modal';
import { publishHome } from '../../publish-home';
import { replyEphemeral } from '../../reply';
import type { ButtonArgs } from './button-args';

// A click on Acknowledge under a change made under break glass (docs/product.md, On call; counted as a change
// attempt): the door checks the clicker (an admin now, not the one who made it), and the first click across
// instances records the review. The clicker alone is told how it went, where they clicked; a click on the Home tab
// redraws it.

export async function acknowledgeClick(ctx: ListenerContext, req: SlackRequest, args: ButtonArgs): Promise<Outcome> {
  const recordId = Number(typeof args.action.value === 'string' && /^[0-9]{1,15}$/.test(args.action.value) ? args.action.value : NaN);
  let text: string;
  let outcome: Outcome;
  try {
    const result = Number.isSafeInteger(recordId)
      ? await ctx.changes.acknowledge(recordId, { userId: req.userId, channelId: req.channelId })
      : ({ outcome: 'not_a_use' } as const);
    if (result.outcome === 'denied') {
      text = `:no_entry: ${denialText(result.decision)}`;
      outcome = 'denied';
    } else {
      text = acknowledgedText(result);
      outcome = result.outcome === 'acknowledged' ? 'succeeded' : result.outcome === 'already' ? 'duplicate' : 'not_found';
    }
  } catch (error) {
    if (!isStoreUnavailable(error)) throw error;
    req.log.warn('the acknowledgement could not be recorded: the store is unreachable', { error });
    text = `:warning: ${BREAK_GLASS_UNRECORDED}`;
    outcome = 'failed';
  }
  await tell(ctx, req, text);
  if (args.body.view?.type === 'home') await publishHome(ctx, req.client, req.userId, req.log);
  return outcome;
}

/** To the clicker alone (mrkdwn): ephemeral where the button was in a message; a status modal where it was not (the Home tab). */
async function tell(ctx: ListenerContext, req: SlackRequest, text: string): Promise<void> {
  if (req.respond) await replyEphemeral(req, markSandbox({ text: fallback(text), blocks: [section(text)] }, ctx.sandbox));
  else if (req.triggerId) await openModal(req.client, req.triggerId, statusModal({ title: 'Break glass', mrkdwn: text, sandbox: ctx.sandbox }), req.log);
}
