import { FIREWALL_BUTTON_OUT_OF_DATE, renderFirewallRules } from '../../blocks/firewall';
import { parsePageButtonValue } from '../../blocks/pages';
import type { ListenerContext, Outcome, SlackRequest } from '../../context';
import { deliverPage, replyCloudError, replyError } from '../../reply';
import { clickedInEphemeral, type ButtonArgs } from './button-args';

/** Prev/Next on a firewall summary: re-fetch (never a stale page), shown to the clicker (deliverPage says how). */
export async function firewallPage(ctx: ListenerContext, req: SlackRequest, args: ButtonArgs): Promise<Outcome> {
  const { action } = args;
  const target = parsePageButtonValue(typeof action.value === 'string' ? action.value : '');
  if (!target) {
    await replyError(req, FIREWALL_BUTTON_OUT_OF_DATE);
    return 'invalid';
  }
  try {
    const rules = await ctx.cloud.listFirewallRules(target.vsId);
    await deliverPage(
      req,
      clickedInEphemeral(args),
      renderFirewallRules({ vsId: target.vsId, rules, page: target.page, fetchedAt: new Date(ctx.now()), sandbox: ctx.sandbox }),
    );
    return 'succeeded';
  } catch (error) {
    return replyCloudError(ctx, req, error, { kind: 'vs', id: target.vsId });
  }
}
