import { isCloudError } from '../../../cloud/errors';
import type { FirewallRule } from '../../../cloud/schemas';
import { answerPortQuestion, type PortQuestion } from '../../../firewall/port-question';
import { renderFirewallRules } from '../../blocks/firewall';
import { renderPortAnswer } from '../../blocks/port-answer';
import type { Rendered } from '../../blocks/mrkdwn';
import { cloudErrorMessage } from '../../blocks/cloud-errors';
import type { CommandOutcome, Invocation, ListenerContext } from '../../context';
import { oncePerAnswer } from '../../once-per-answer';
import { replyError, replySummary, type Replier } from '../../reply';

/** Page 1 of an answer: everyone who shared the answer shares the page, "fetched at" included. */
const firstPage = oncePerAnswer<readonly FirewallRule[], Rendered>();

export async function firewallCommand(ctx: ListenerContext, inv: Invocation, cmd: { vsId: number; question?: PortQuestion }): Promise<CommandOutcome> {
  try {
    const rules = await ctx.cloud.listFirewallRules(cmd.vsId);
    if (cmd.question) {
      const answer = answerPortQuestion(rules, cmd.question);
      await replySummary(ctx, inv, renderPortAnswer({ vsId: cmd.vsId, answer, fetchedAt: new Date(ctx.now()), sandbox: ctx.sandbox }));
      return 'succeeded';
    }
    const page = firstPage(rules, () => renderFirewallRules({ vsId: cmd.vsId, rules, page: 1, fetchedAt: new Date(ctx.now()), sandbox: ctx.sandbox }));
    await replySummary(ctx, inv, page);
    return 'succeeded';
  } catch (error) {
    return replyCloudError(ctx, inv, error, { kind: 'vs', id: cmd.vsId });
  }
}

export async function replyCloudError(
  ctx: ListenerContext,
  inv: Replier,
  error: unknown,
  subject: Parameters<typeof cloudErrorMessage>[1],
): Promise<CommandOutcome> {
  // A 404 is a user's typo, not a fault of ours: one plain line, no stack trace.
  if (isCloudError(error) && error.kind === 'not_found')
    inv.log.info('the cloud API has no such object', { kind: error.kind, status: error.status, request: error.request, subject });
  else inv.log.warn('cloud API call failed', { error, subject });
  await replyError(inv, cloudErrorMessage(error, subject, ctx.config.cloud.timeoutMs));
  return (error as { kind?: unknown }).kind === 'not_found' ? 'not_found' : 'failed';
}
