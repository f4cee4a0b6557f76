import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';
import type { ChangeResult } from '../../../changes';
import type { Rendered } from '../../blocks/mrkdwn';
import { fieldErrorsToBlockErrors } from '../../blocks/modals';
import { statusModal } from '../../blocks/status-modal';
import { postEphemeral, postToChannel, slackErrorSummary, type Destination } from '../../channel-post';
import { changeFailureMessage, cloudErrorMessage, type Subject } from '../../cloud-error-message';
import type { ListenerContext } from '../../context';
import type { Logger } from '../../../log';
import { renderError } from '../../blocks/messages';
import { markSandbox } from '../../blocks/mrkdwn';
import { viewStateToValues } from '../../blocks/modals';
import { parseId } from '../../command';
import { readMetadata, targetIdIn } from '../../metadata';
import { requestOf, type RequestOutcome } from '../../middleware/request';
import type { ChangeForm } from '../../change-forms';
import { TARGET_ID_ERROR, targetKey } from '../../../changes';

/**
 * How long a submission may wait for the change before it must ack. Slack
 * closes the request after 3 s; within this budget a 422 can still be shown
 * inline on the fields. Past it the modal shows "working" and is updated
 * with the outcome when the cloud API answers.
 */
export const SUBMISSION_ACK_BUDGET_MS = 2000;

export interface Submission<T> {
  ctx: ListenerContext;
  args: SubmissionArgs;
  log: Logger;
  subject: Subject;
  /** What the change is called in titles, e.g. "Add disk". */
  title: string;
  destination: Destination;
  /** Block that carries API messages that match no field. */
  formErrorBlock: string;
  run: () => Promise<ChangeResult<T>>;
  succeeded: (value: T) => Rendered;
}

type SubmissionArgs = AllMiddlewareArgs & SlackViewMiddlewareArgs<ViewSubmitAction>;

export interface SubmittedForm {
  /** The submitter: the only identity trusted. */
  userId: string;
  values: Record<string, string | boolean | undefined>;
  /** The server or backup: from the command (metadata) or typed into the shortcut's form. */
  targetId: number;
  channelId: string | undefined;
  destination: Destination;
  /** The same across deliveries of one submission. */
  submissionKey: string;
}

/**
 * Reads a change form's submission. When the target id is neither in the
 * metadata nor a valid typed id, acks with an inline error and returns null.
 */
export async function readSubmittedForm(args: SubmissionArgs, form: ChangeForm<never>): Promise<SubmittedForm | null> {
  const { body, view } = args;
  const { targetKind, targetField } = form.change;
  const meta = readMetadata(view.private_metadata);
  const values = viewStateToValues(view.state.values);
  const targetId = targetIdIn(meta, targetKind) ?? parseId(values[targetField]);
  if (targetId === null) {
    await args.ack({ response_action: 'errors', errors: { [targetField]: TARGET_ID_ERROR[targetKind] } });
    return null;
  }
  const channelId = meta.channelId ?? (typeof values.channel === 'string' ? values.channel : undefined);
  return {
    userId: body.user.id,
    values,
    targetId,
    channelId,
    destination: { channelId, responseUrl: meta.responseUrl ?? body.response_urls?.[0]?.response_url },
    submissionKey: view.id,
  };
}

/** The listener of a change form's view_submission: reads the form and runs it through the change door. */
export function changeFormSubmissionCallback(ctx: ListenerContext, form: ChangeForm<never>) {
  return async (args: SubmissionArgs): Promise<void> => {
    const req = requestOf(args.context);
    const submitted = await readSubmittedForm(args, form);
    if (!submitted) {
      req.outcome = 'invalid';
      return;
    }
    const { userId, channelId, targetId, values } = submitted;
    const target = { kind: form.change.targetKind, id: targetId };
    req.outcome = await completeSubmission({
      ctx,
      args,
      log: req.log.child({ ...(channelId ? { channel: channelId } : {}), target: targetKey(target) }),
      subject: target,
      title: form.title,
      destination: submitted.destination,
      formErrorBlock: form.formErrorBlock,
      run: () => ctx.changes.submit({ userId, channelId: channelId ?? null, submissionKey: submitted.submissionKey }, form.change, targetId, values),
      succeeded: (value) => form.renderResult({ value, targetId, userId, values, sandbox: ctx.sandbox }),
    });
  };
}

type Outcome<T> = ChangeResult<T> | { outcome: 'crashed' };

export async function completeSubmission<T>(s: Submission<T>): Promise<RequestOutcome> {
  const { ctx, args, log } = s;
  const pending: Promise<Outcome<T>> = s.run().catch((error: unknown) => {
    log.error('change failed unexpectedly', { error });
    return { outcome: 'crashed' } as const;
  });
  const early = await Promise.race([pending, delay(SUBMISSION_ACK_BUDGET_MS).then(() => undefined)]);

  let result: Outcome<T>;
  if (early !== undefined) {
    result = early;
    await args.ack(ackFor(s, result));
  } else {
    await args.ack({
      response_action: 'update',
      view: statusModal({ title: s.title, text: ':hourglass_flowing_sand: Working on it: the cloud API is taking a while. This window shows the outcome when it answers; a result is also posted in the channel, and if this window is closed by then, a failure is sent to you there.', sandbox: ctx.sandbox }),
    });
    result = await pending;
    try {
      await args.client.views.update({ view_id: args.body.view.id, view: statusFor(s, result) });
    } catch (error) {
      // Typically the user closed the "working" modal: tell them in the channel instead.
      log.warn('could not update the modal with the outcome', { error: slackErrorSummary(error) });
      if (result.outcome !== 'succeeded' && result.outcome !== 'denied' && result.outcome !== 'duplicate') {
        const text = (statusFor(s, result).blocks[0] as { text?: { text?: string } }).text?.text ?? 'The change did not go through.';
        await postEphemeral(args.client, s.destination.channelId, args.body.user.id, markSandbox({ text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] }, ctx.sandbox), log);
      }
    }
  }

  if (result.outcome === 'succeeded') {
    const posted = await postToChannel(ctx.config, args.client, s.destination, s.succeeded(result.value), log);
    if (!posted) log.warn('the change succeeded but its result could not be posted to the channel');
  } else if (result.outcome === 'denied') {
    await postEphemeral(args.client, s.destination.channelId, args.body.user.id, markSandbox(renderError(result.decision.reason ?? 'You are not allowed to do this.'), ctx.sandbox), log);
  }
  return result.outcome === 'crashed' ? 'failed' : result.outcome;
}

type AckPayload = Parameters<Submission<unknown>['args']['ack']>[0];

function ackFor<T>(s: Submission<T>, r: Outcome<T>): AckPayload {
  if (r.outcome === 'duplicate') return undefined;
  if (r.outcome === 'invalid') return { response_action: 'errors', errors: fieldErrorsToBlockErrors(r.fieldErrors) };
  if (r.outcome === 'failed' && r.error.kind === 'validation') {
    const errors = { ...r.fieldErrors };
    if (r.formErrors.length > 0 || Object.keys(errors).length === 0) {
      const formMessage = r.formErrors.length > 0 ? r.formErrors.join('; ') : cloudErrorMessage(r.error, s.subject, s.ctx.config.cloud.timeoutMs);
      errors[s.formErrorBlock] = errors[s.formErrorBlock] ? `${errors[s.formErrorBlock]}; ${formMessage}` : formMessage;
    }
    return { response_action: 'errors', errors: fieldErrorsToBlockErrors(errors) };
  }
  return { response_action: 'update', view: statusFor(s, r) };
}

function statusFor<T>(s: Submission<T>, r: Outcome<T>) {
  const sandbox = s.ctx.sandbox;
  switch (r.outcome) {
    case 'succeeded':
      return statusModal({ title: s.title, text: `:white_check_mark: Done. The result is posted in the channel.\n\n${s.succeeded(r.value).text}`, sandbox });
    case 'denied':
      return statusModal({ title: s.title, text: `:no_entry: ${r.decision.reason ?? 'You are not allowed to do this.'}\nNothing was changed.`, sandbox });
    case 'busy':
      return statusModal({ title: s.title, text: `:warning: ${r.message}\nNothing was changed. Run the command again when it has finished.`, sandbox });
    case 'failed':
      return statusModal({ title: s.title, text: `:x: ${changeFailureMessage(r.error, s.subject, s.ctx.config.cloud.timeoutMs)}`, sandbox });
    case 'invalid':
      return statusModal({ title: s.title, text: `:x: The form had errors: ${Object.entries(r.fieldErrors).map(([f, m]) => `${f}: ${m}`).join('; ')}. Nothing was changed; run the command again.`, sandbox });
    case 'duplicate':
      return statusModal({ title: s.title, text: 'This form was already submitted; its result is posted in the channel.', sandbox });
    case 'crashed':
      return statusModal({ title: s.title, text: ':x: Something went wrong on our side; the attempt is recorded in the audit trail. Check the channel and the audit trail before trying again.', sandbox });
  }
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
