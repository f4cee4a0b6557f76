import type { AllMiddlewareArgs, BlockButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { parsePageButtonValue, renderFirewallRules } from '../../blocks/firewall';
import type { ListenerContext } from '../../context';
import { requestOf } from '../../middleware/request';
import { deliver, replyError } from '../../reply';
import { replyCloudError } from '../commands/firewall';

/** Prev/Next on a firewall summary: re-fetch (never a stale page) and replace the message in place. */
export function firewallPageCallback(ctx: ListenerContext) {
  return async ({ action, context }: AllMiddlewareArgs & SlackActionMiddlewareArgs<BlockButtonAction>): Promise<void> => {
    const req = requestOf(context);
    const target = parsePageButtonValue(typeof action.value === 'string' ? action.value : '');
    if (!target) {
      await replyError(req, 'That button is out of date; run `/vs firewall <vs_id>` again.');
      req.outcome = 'invalid';
      return;
    }
    try {
      const rules = await ctx.cloud.listFirewallRules(target.vsId);
      await deliver(req, {
        replace_original: true,
        ...renderFirewallRules({ vsId: target.vsId, rules, page: target.page, fetchedAt: new Date(ctx.now()), sandbox: ctx.sandbox }),
      });
      req.outcome = 'succeeded';
    } catch (error) {
      req.outcome = await replyCloudError(ctx, req, error, { kind: 'vs', id: target.vsId });
    }
  };
}
