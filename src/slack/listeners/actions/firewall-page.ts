import type { AllMiddlewareArgs, BlockButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { FIREWALL_BUTTON_OUT_OF_DATE, renderFirewallRules } from '../../blocks/firewall';
import { parsePageButtonValue } from '../../blocks/pages';
import type { ListenerContext, Outcome, SlackRequest } from '../../context';
import { deliver, replyError } from '../../reply';
import { replyCloudError } from '../commands/firewall';

/** Prev/Next on a firewall summary: re-fetch (never a stale page) and replace the message in place. */
export async function firewallPage(
  ctx: ListenerContext,
  req: SlackRequest,
  { action }: AllMiddlewareArgs & SlackActionMiddlewareArgs<BlockButtonAction>,
): Promise<Outcome> {
  const target = parsePageButtonValue(typeof action.value === 'string' ? action.value : '');
  if (!target) {
    await replyError(req, FIREWALL_BUTTON_OUT_OF_DATE);
    return 'invalid';
  }
  try {
    const rules = await ctx.cloud.listFirewallRules(target.vsId);
    await deliver(req, {
      replace_original: true,
      ...renderFirewallRules({ vsId: target.vsId, rules, page: target.page, fetchedAt: new Date(ctx.now()), sandbox: ctx.sandbox }),
    });
    return 'succeeded';
  } catch (error) {
    return replyCloudError(ctx, req, error, { kind: 'vs', id: target.vsId });
  }
}
