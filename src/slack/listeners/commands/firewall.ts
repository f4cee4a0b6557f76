import type { Target } from '../../../changes';
import { isCloudError } from '../../../cloud/errors';
import type { FirewallRule } from '../../../cloud/schemas';
import { answerPortQuestion, type PortQuestion } from '../../../firewall/port-question';
import { renderFirewallRules } from '../../blocks/firewall';
import { renderPortAnswer } from '../../blocks/port-answer';
import type { Rendered } from '../../blocks/mrkdwn';
import { cloudErrorMessage } from '../../blocks/cloud-errors';
import type { ListenerContext, Outcome, SlackRequest } from '../../context';
import { oncePerAnswer } from '../../once-per-answer';
import { replyError, replySummary, type Replier } from '../../reply';

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

/** A failed read, told in the words of docs/product.md, Errors the user sees: `not_found` for a 404 (the id names nothing), `failed` for the rest. */
export async function replyCloudError(ctx: ListenerContext, req: Replier, error: unknown, subject: Target): Promise<Outcome> {
  const notFound = isCloudError(error) && error.kind === 'not_found';
  // A 404 is a user's typo, not a fault of ours: one plain line, no stack trace.
  if (notFound) req.log.info('the cloud API has no such object', { kind: error.kind, status: error.status, request: error.request, subject });
  else req.log.warn('cloud API call failed', { error, subject });
  await replyError(req, cloudErrorMessage(error, subject, ctx.config.cloud.timeoutMs));
  return notFound ? 'not_found' : 'failed';
}
