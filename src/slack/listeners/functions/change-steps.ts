import { CHANGES, POWER_CHOICES, type ChangeAction, type FormValues } from '../../../changes';
import { isStoreUnavailable } from '../../../store';
import { messageOptions, postApprovalRequest } from '../../approval-messages';
import { frozenForStep, requestNotPostedForStep, STEP_UNRECORDED, stepError, stepFieldErrors, workflowLimitedForStep } from '../../blocks/steps';
import { cloudErrorMessage } from '../../blocks/cloud-errors';
import { formUnfitText } from '../../blocks/change-forms';
import { lockedText, unfitText } from '../../blocks/power';
import type { ListenerContext, SlackRequest } from '../../context';
import type { StepArgs, StepResult } from './step';

// The change steps: a workflow asks for a change, and nothing is changed.
// While changes are frozen nothing is posted: the step ends with an error
// naming the freeze. The inputs are checked as the form would check them, the request is
// stored with nobody as its requester (nothing in a workflow proves who
// started it) and posted in the step's channel with the exact API request and
// a "Request this change" button, posted with the app's own token so that its
// button outlives the step; the step completes with the request's id and its
// outcome, `requested` (docs/product.md, One outcome, told the same
// everywhere). From there the door decides who may claim it and who
// approves it (src/changes/approvals.ts).

type RequestOutputs = { request_id: string; status: string };

export async function diskRequestStep(
  ctx: ListenerContext,
  req: SlackRequest,
  inputs: { vs_id: number; disk_type: string; disk_size: string; label: string | undefined; channel: string; reason: string | undefined },
  args: StepArgs,
): Promise<StepResult<RequestOutputs>> {
  const values = { disk_type: inputs.disk_type, disk_size: inputs.disk_size, label: inputs.label };
  return requestChange(ctx, req, args, { action: 'disk_add', targetId: inputs.vs_id, values, channel: inputs.channel, reason: inputs.reason });
}

export async function restoreRequestStep(
  ctx: ListenerContext,
  req: SlackRequest,
  inputs: { backup_id: number; channel: string; reason: string | undefined },
  args: StepArgs,
): Promise<StepResult<RequestOutputs>> {
  // The form's confirmation is the backup id typed again: the workflow named it once, which is what it asks for.
  const values = { confirm: String(inputs.backup_id), reason: inputs.reason };
  return requestChange(ctx, req, args, { action: 'backup_restore', targetId: inputs.backup_id, values, channel: inputs.channel, reason: inputs.reason });
}

export async function powerRequestStep(
  ctx: ListenerContext,
  req: SlackRequest,
  inputs: { vs_id: number; action: 'startup' | 'shutdown' | 'reboot' | 'stop'; channel: string; reason: string | undefined },
  args: StepArgs,
): Promise<StepResult<RequestOutputs>> {
  // The form's choice is the step's action; its confirmation is the server id typed again: the workflow named it once.
  const values = { power_action: inputs.action, confirm: String(inputs.vs_id), reason: inputs.reason };
  return requestChange(ctx, req, args, {
    action: POWER_CHOICES[inputs.action],
    targetId: inputs.vs_id,
    values,
    channel: inputs.channel,
    reason: inputs.reason,
  });
}

export async function backupTakeRequestStep(
  ctx: ListenerContext,
  req: SlackRequest,
  inputs: { vs_id: number; disk_id: number; note: string | undefined; channel: string; reason: string | undefined },
  args: StepArgs,
): Promise<StepResult<RequestOutputs>> {
  const values = { disk_id: String(inputs.disk_id), note: inputs.note, reason: inputs.reason };
  return requestChange(ctx, req, args, { action: 'backup_take', targetId: inputs.vs_id, values, channel: inputs.channel, reason: inputs.reason });
}

export async function firewallAddRequestStep(
  ctx: ListenerContext,
  req: SlackRequest,
  inputs: {
    vs_id: number;
    command: 'DROP' | 'ACCEPT';
    address: string | undefined;
    port: string | undefined;
    protocol: 'tcp' | 'udp';
    network_interface_id: string | undefined;
    channel: string;
    reason: string | undefined;
  },
  args: StepArgs,
): Promise<StepResult<RequestOutputs>> {
  // The interface, when not given, is the one the form would choose (the only one its rules name): the row's form reads.
  const values = {
    command: inputs.command,
    address: inputs.address ?? '',
    port: inputs.port ?? '',
    protocol: inputs.protocol.toUpperCase(),
    network_interface_id: inputs.network_interface_id,
    reason: inputs.reason,
  };
  return requestChange(ctx, req, args, { action: 'firewall_add', targetId: inputs.vs_id, values, channel: inputs.channel, reason: inputs.reason });
}

async function requestChange(
  ctx: ListenerContext,
  req: SlackRequest,
  args: StepArgs,
  o: { action: ChangeAction; targetId: number; values: FormValues; channel: string; reason: string | undefined },
): Promise<StepResult<RequestOutputs>> {
  const step = {
    functionExecutionId: args.event.function_execution_id,
    workflowExecutionId: args.event.workflow_execution_id,
    channelId: o.channel,
    reason: o.reason,
  };
  // One workflow, as far as the bot can tell workflows apart (Slack does not name the one running a step): its step
  // and the channel it posts in. Counted before anything is read or asked, across instances.
  const requests = ctx.limits.hourly.workflow_requests;
  const retryInSeconds = await requests.take(`${args.event.function.callback_id}:${o.channel}`);
  if (retryInSeconds > 0) {
    req.log.info('workflow limit reached', { limit: 'workflow_requests', perHour: requests.perHour, retryInSeconds });
    return { outcome: 'limited', error: stepError(workflowLimitedForStep({ perHour: requests.perHour, channelId: o.channel, retryInSeconds })) };
  }
  // What the form would have chosen before it opened (the only interface, the rule named): the row's form reads, for
  // the values the step left empty. A target that cannot take it is said as the form would say it.
  const row = CHANGES[o.action];
  let values = o.values;
  if (row.formReads) {
    let reading;
    try {
      reading = await row.formReads(ctx.cloud, o.targetId, o.values);
    } catch (error) {
      return {
        outcome: 'failed',
        error: stepError(cloudErrorMessage(error, { kind: row.targetKind, id: o.targetId }, ctx.config.cloud.timeoutMs)),
      };
    }
    if (!reading.ok) return { outcome: 'invalid', error: stepError(formUnfitText(o.targetId, reading.unfit)) };
    const empty = (key: string) => o.values[key] === undefined || o.values[key] === '';
    values = { ...o.values, ...Object.fromEntries(Object.entries(reading.fixed ?? {}).filter(([key]) => empty(key))) };
  }
  let result;
  try {
    result = await ctx.changes.request(step, o.action, o.targetId, values);
  } catch (error) {
    if (!isStoreUnavailable(error)) throw error;
    req.log.warn('change step refused: the store is unreachable', { error });
    return { outcome: 'failed', error: stepError(STEP_UNRECORDED) };
  }
  switch (result.outcome) {
    case 'duplicate':
      return { outcome: 'duplicate' };
    case 'frozen':
      return { outcome: 'denied', error: stepError(frozenForStep(result.freeze)) };
    case 'invalid':
      return { outcome: 'invalid', error: stepError(stepFieldErrors(result.fieldErrors)) };
    // The target, read first, cannot take it: said as the form would say it, and nobody is asked.
    case 'busy':
      return { outcome: 'busy', error: stepError(lockedText(o.targetId, result.transaction)) };
    case 'unfit':
      return { outcome: 'invalid', error: stepError(unfitText(o.targetId, result.action, result.state)) };
    case 'failed':
      return {
        outcome: 'failed',
        error: stepError(cloudErrorMessage(result.error, result.about ?? { kind: CHANGES[o.action].targetKind, id: o.targetId }, ctx.config.cloud.timeoutMs)),
      };
    case 'requested': {
      const ts = await postApprovalRequest(ctx.changes, ctx.botClient, result.approval, { ...messageOptions(ctx, req), called: callable(ctx) });
      if (ts === null) return { outcome: 'failed', error: stepError(requestNotPostedForStep(o.channel)) };
      return { outcome: 'requested', outputs: { request_id: result.approval.id, status: 'awaiting_requester' } };
    }
    // Already asked for and not yet claimed: that request stands for this run too, and nobody is called again.
    case 'repeated':
      return { outcome: 'requested', outputs: { request_id: result.approval.id, status: 'awaiting_requester' } };
  }
}

/**
 * Of those who may decide a workflow's request, the ones called (mentioned) now: each person and user group at most
 * VS_WORKFLOW_CALLS_PER_HOUR times an hour by workflow requests, across instances; the others see it in the channel
 * and on their Home tab, without a notification.
 */
function callable(ctx: ListenerContext): (ids: readonly string[]) => Promise<string[]> {
  const calls = ctx.limits.hourly.workflow_calls;
  return async (ids) => {
    const waits = await Promise.all(ids.map((id) => calls.take(id)));
    return ids.filter((_, i) => waits[i] === 0);
  };
}
