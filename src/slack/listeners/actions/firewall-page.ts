import type { AllMiddlewareArgs, BlockButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { parsePageButtonValue, renderFirewallRules } from '../../blocks/firewall';
import type { ListenerContext } from '../../context';
import { allowedToRead } from '../../guard';
import { deliver, replyError } from '../../reply';
import { responder } from '../../response-url';
import { replyCloudError } from '../commands/firewall';

/** Prev/Next on a firewall summary: re-fetch (never a stale page) and replace the message in place. */
export function firewallPageCallback(ctx: ListenerContext) {
  return async ({ ack, body, action }: AllMiddlewareArgs & SlackActionMiddlewareArgs<BlockButtonAction>): Promise<void> => {
    await ack();
    const userId = body.user.id;
    const channelId = body.channel?.id ?? '';
    const log = ctx.logger.child({ user: userId, channel: channelId, action: action.action_id });
    const inv = { userId, channelId, respond: responder(body.response_url, ctx.sandbox), log };
    const target = parsePageButtonValue(typeof action.value === 'string' ? action.value : '');
    if (!target) {
      await replyError(inv, 'That button is out of date; run `/vs firewall <vs_id>` again.');
      return;
    }
    if (!(await allowedToRead(ctx, inv))) return;
    try {
      const rules = await ctx.cloud.listFirewallRules(target.vsId);
      await deliver(inv, { replace_original: true, ...renderFirewallRules({ vsId: target.vsId, rules, page: target.page, fetchedAt: new Date(ctx.now()), sandbox: ctx.sandbox }) });
    } catch (error) {
      await replyCloudError(ctx, inv, error, { kind: 'vs', id: target.vsId });
    }
  };
}
