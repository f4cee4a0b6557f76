import type { FirewallRule } from '../../../cloud/schemas';
import { answerPortQuestion, type PortQuestion } from '../../../firewall/port-question';
import { renderFirewallRules } from '../../blocks/firewall';
import { renderPortAnswer } from '../../blocks/port-answer';
import type { Rendered } from '../../blocks/mrkdwn';
import type { ListenerContext, Outcome, SlackRequest } from '../../context';
import { oncePerAnswer } from '../../once-per-answer';
import { replyCloudError, replySummary } from '../../reply';

/** Page 1 of an answer: everyone who shared the answer shares the page, "fetched at" included. */
const firstPage = oncePerAnswer<readonly FirewallRule[], Rendered>();

export async function firewallCommand(ctx: ListenerContext, req: SlackRequest, cmd: { vsId: number; question?: PortQuestion }): Promise<Outcome> {
  try {
    const rules = await ctx.cloud.listFirewallRules(cmd.vsId);
    if (cmd.question) {
      const answer = answerPortQuestion(rules, cmd.question);
      await replySummary(ctx, req, renderPortAnswer({ vsId: cmd.vsId, answer, fetchedAt: new Date(ctx.now()), sandbox: ctx.sandbox }));
      return 'succeeded';
    }
    const page = firstPage(rules, () => renderFirewallRules({ vsId: cmd.vsId, rules, page: 1, fetchedAt: new Date(ctx.now()), sandbox: ctx.sandbox }));
    await replySummary(ctx, req, page);
    return 'succeeded';
  } catch (error) {
    return replyCloudError(ctx, req, error, { kind: 'vs', id: cmd.vsId });
  }
}
