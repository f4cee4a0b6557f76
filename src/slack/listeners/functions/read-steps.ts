import { isCloudError } from '../../../cloud/errors';
import type { IpAddress } from '../../../firewall/address';
import { answerPortQuestion, type Protocol } from '../../../firewall/port-question';
import { portVerdict } from '../../../firewall/verdict';
import { cloudErrorMessage } from '../../blocks/cloud-errors';
import { renderPortAnswer } from '../../blocks/port-answer';
import { runningTransaction, serverState } from '../../../changes';
import { autoscalingStepSummary, firewallStepSummary, portCheckStepSummary, serverStatusStepSummary, stepError } from '../../blocks/steps';
import { describeFirewall, summarizeAutoscaling, summarizeFirewall, summarizeServer } from '../../blocks/summaries';
import type { ListenerContext, SlackRequest } from '../../context';
import type { StepResult } from './step';

// The read steps: what `/vs firewall` and `/vs autoscaling` answer, as a
// workflow's outputs. The same client calls (single-flight: a step and the
// commands asking about one server at once share one request), the same
// words (the one-line summaries of a server's card, the port answer's own
// line), the same errors (a 404 is "VS 42 was not found").

export async function firewallSummaryStep(
  ctx: ListenerContext,
  req: SlackRequest,
  { vs_id: vsId }: { vs_id: number },
): Promise<StepResult<{ summary: string; rule_count: number }>> {
  try {
    const rules = await ctx.cloud.listFirewallRules(vsId);
    const firewall = summarizeFirewall(rules);
    const summary = firewallStepSummary(vsId, firewall, describeFirewall(rules), ctx.sandbox);
    return { outcome: 'succeeded', outputs: { summary, rule_count: firewall.ruleCount } };
  } catch (error) {
    return cloudFailure(ctx, req, error, vsId);
  }
}

export async function portCheckStep(
  ctx: ListenerContext,
  req: SlackRequest,
  inputs: { vs_id: number; port: number; protocol: Protocol; source: IpAddress | null },
): Promise<StepResult<{ verdict: string; summary: string }>> {
  const vsId = inputs.vs_id;
  try {
    const rules = await ctx.cloud.listFirewallRules(vsId);
    const answer = answerPortQuestion(rules, { port: inputs.port, protocol: inputs.protocol, source: inputs.source });
    const line = renderPortAnswer({ vsId, answer, fetchedAt: new Date(ctx.now()), sandbox: ctx.sandbox }).text;
    return { outcome: 'succeeded', outputs: { verdict: portVerdict(answer), summary: portCheckStepSummary(line) } };
  } catch (error) {
    return cloudFailure(ctx, req, error, vsId);
  }
}

export async function autoscalingSummaryStep(
  ctx: ListenerContext,
  req: SlackRequest,
  { vs_id: vsId }: { vs_id: number },
): Promise<StepResult<{ summary: string; configured_count: number }>> {
  try {
    const autoscaling = summarizeAutoscaling(await ctx.cloud.listAutoscaling(vsId));
    return {
      outcome: 'succeeded',
      outputs: { summary: autoscalingStepSummary(vsId, autoscaling, ctx.sandbox), configured_count: autoscaling.configuredCount },
    };
  } catch (error) {
    return cloudFailure(ctx, req, error, vsId);
  }
}

/**
 * vs_server_status: the server's record (and, when a transaction locks it, which one), as `/vs server` reads them,
 * in one line; its power and whether it is locked, for a workflow to branch on.
 */
export async function serverStatusStep(
  ctx: ListenerContext,
  req: SlackRequest,
  { vs_id: vsId }: { vs_id: number },
): Promise<StepResult<{ summary: string; power: string; locked: boolean }>> {
  try {
    const server = await ctx.cloud.getServer(vsId);
    const { power, locked } = serverState(server);
    // Only to name what locks it: a cloud that cannot list them still gets the line, without the name.
    const running = locked ? runningTransaction(await ctx.cloud.listTransactions(vsId).catch(() => [])) : undefined;
    const summary = serverStatusStepSummary(vsId, summarizeServer(server, power, running), ctx.sandbox);
    return { outcome: 'succeeded', outputs: { summary, power, locked } };
  } catch (error) {
    return cloudFailure(ctx, req, error, vsId);
  }
}

/** A failed read, in the words the slash command would answer with: `not_found` for a 404, `failed` for the rest. */
function cloudFailure(ctx: ListenerContext, req: SlackRequest, error: unknown, vsId: number): StepResult<never> {
  const subject = { kind: 'vs' as const, id: vsId };
  const notFound = isCloudError(error) && error.kind === 'not_found';
  if (notFound) req.log.info('the cloud API has no such object', { kind: error.kind, status: error.status, request: error.request, subject });
  else req.log.warn('cloud API call failed', { error, subject });
  return { outcome: notFound ? 'not_found' : 'failed', error: stepError(cloudErrorMessage(error, subject, ctx.config.cloud.timeoutMs)) };
}
