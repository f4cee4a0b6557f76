import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';
import {
  atLeast,
  CHANGES,
  isOutcomeNotRecorded,
  neededRole,
  TARGET_KINDS,
  targetKey,
  type ChangeAction,
  type ChangeResult,
  type Target,
  type UnderBreakGlass,
} from '../../../changes';
import { renderBreakGlassUse } from '../../blocks/break-glass';
import type { Logger } from '../../../log';
import { isStoreUnavailable } from '../../../store';
import { messageOptions, postApprovalRequest } from '../../approval-messages';
import { requestNotPostedText } from '../../blocks/approvals';
import { CHANGE_FORMS, changeChosen, effectUnreadText, formUnfitText, type FormOfChanges } from '../../blocks/change-forms';
import { changeOutcomeText, formLevelError, renderOutcomeNotice, WORKING_TEXT, type SubmissionOutcome } from '../../blocks/change-outcome';
import { renderAppliedUnreadable } from '../../blocks/changes';
import { cloudErrorMessage } from '../../blocks/cloud-errors';
import { renderDenied } from '../../blocks/messages';
import { fieldErrorsToBlockErrors, viewStateToValues } from '../../blocks/modals';
import { markSandbox } from '../../blocks/mrkdwn';
import { statusModal } from '../../blocks/status-modal';
import { postEphemeral, postToChannel, slackErrorSummary, type Destination } from '../../channel-post';
import { postAcceptedChange } from '../../follow-messages';
import { updateView } from '../../send';
import type { ListenerContext, Outcome, SlackRequest } from '../../context';
import { readMetadata, targetIdIn, targetMetadata, writeMetadata } from '../../metadata';
import { parseId } from '../commands/grammar';
import type { NameIndex } from '../../../cloud/names';
import { serverFieldError } from '../../blocks/names';

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
  target: Target;
  /** What the change is called in titles, e.g. "Add disk". */
  title: string;
  destination: Destination;
  /** Block that carries API messages that match no field. */
  formErrorBlock: string;
  run: () => Promise<ChangeResult<T> & UnderBreakGlass>;
}

export type SubmissionArgs = AllMiddlewareArgs & SlackViewMiddlewareArgs<ViewSubmitAction>;

export interface SubmittedForm {
  /** The submitter: the only identity trusted. */
  userId: string;
  values: Record<string, string | boolean | undefined>;
  /** The server or backup: from the command (metadata) or typed into the shortcut's form. */
  targetId: number;
  channelId: string | undefined;
  /** Picked in a shortcut's form rather than the channel the command was typed in. */
  channelChosenInForm: boolean;
  destination: Destination;
  /** The same across deliveries of one submission. */
  submissionKey: string;
}

/** How long a form waits for a server's name to be looked up: Slack closes a submission's ack after 3 s. */
const NAME_LOOKUP_MS = 1500;

/** `promise`, or a rejection once `ms` have passed. */
function withinMs<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error('not in time')), ms);
    timer.unref();
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** What a form chooses no change with: under its input that carries messages about the whole form. */
const NO_CHANGE_CHOSEN = 'Choose what to do';

/**
 * Reads a change form's submission: the change it makes, and for what. When the
 * form chose no change, or the target id is neither in the metadata nor a valid
 * typed id, acks with an inline error and returns null.
 */
export async function readSubmittedForm(
  args: SubmissionArgs,
  form: FormOfChanges,
  names?: Pick<NameIndex, 'resolve'>,
): Promise<(SubmittedForm & { action: ChangeAction }) | null> {
  const { body, view } = args;
  const meta = readMetadata(view.private_metadata);
  // Values fixed when the form opened (the rule removed) are read with the form's own, and win over them.
  const values = { ...viewStateToValues(view.state.values), ...(meta.fixed ?? {}) };
  const action = changeChosen(form, values);
  if (action === undefined) {
    await args.ack({ response_action: 'errors', errors: { [form.formErrorBlock]: NO_CHANGE_CHOSEN } });
    return null;
  }
  const { targetKind } = CHANGES[action];
  const { field, idError } = TARGET_KINDS[targetKind];
  let targetId = targetIdIn(meta, targetKind) ?? parseId(values[field]);
  const typed = values[field];
  if (targetId === null && targetKind === 'vs' && names && typeof typed === 'string' && typed.trim() !== '') {
    // A server by name: looked up within the time a form may wait, so that a name that is not one server's lands on its field.
    const found = await withinMs(names.resolve(typed.trim()), NAME_LOOKUP_MS).catch(() => null);
    if (found?.kind !== 'one') {
      await args.ack({ response_action: 'errors', errors: { [field]: serverFieldError(found ?? { kind: 'unreadable', name: typed.trim() }) } });
      return null;
    }
    targetId = found.server.id;
  }
  if (targetId === null) {
    await args.ack({ response_action: 'errors', errors: { [field]: idError } });
    return null;
  }
  const channelChosenInForm = meta.channelId === undefined;
  const channelId = meta.channelId ?? (typeof values.channel === 'string' ? values.channel : undefined);
  return {
    action,
    userId: body.user.id,
    values,
    targetId,
    channelId,
    channelChosenInForm,
    destination: { channelId, responseUrl: meta.responseUrl ?? body.response_urls?.[0]?.response_url },
    submissionKey: view.id,
  };
}

/** The listener of a change form's view_submission: reads the form and runs the change it chose through the change door. */
export async function submitChangeForm(ctx: ListenerContext, req: SlackRequest, form: FormOfChanges, args: SubmissionArgs): Promise<Outcome> {
  const submitted = await readSubmittedForm(args, form, ctx.names);
  if (!submitted) return 'invalid';
  const shownFirst = await showEffectFirst(ctx, form, submitted, args);
  if (shownFirst) return shownFirst;
  return submitChange(ctx, req, submitted.action, submitted, args);
}

/**
 * A form that shows what its values will do before anything is sent (a firewall rule: "would not take effect: rule #3
 * decides first"), submitted with values other than those it showed the effect of (edited, or from a shortcut, which
 * showed none): the effect of these values is worked out from the target as it is now and the form shown again with
 * it, prefilled; nothing is sent. Submitted again unchanged, it goes through the door. Values that do not read go to
 * the door, which says why.
 */
async function showEffectFirst(
  ctx: ListenerContext,
  form: FormOfChanges,
  submitted: SubmittedForm & { action: ChangeAction },
  args: SubmissionArgs,
): Promise<Outcome | null> {
  const row = CHANGES[submitted.action];
  if (!form.showsEffectOf || !row.formReads) return null;
  const meta = readMetadata(args.view.private_metadata);
  const key = form.showsEffectOf(submitted.values);
  if (key === null || key === meta.shown) return null;
  // Only for someone who may make the change: anyone else goes to the door, which refuses and records it, reading nothing.
  if (!atLeast(await ctx.policy.roleOf(submitted.userId), neededRole(submitted.action))) return null;
  const reading = await withinMs(row.formReads(ctx.cloud, submitted.targetId, submitted.values), SUBMISSION_ACK_BUDGET_MS).catch(() => null);
  if (reading === null || !reading.ok) {
    const why = reading === null ? effectUnreadText(submitted.targetId) : formUnfitText(submitted.targetId, reading.unfit);
    await args.ack({ response_action: 'errors', errors: { [form.formErrorBlock]: why } });
    return reading === null ? 'failed' : 'invalid';
  }
  const fixed = { ...meta.fixed, ...reading.fixed };
  const shown = form.showsEffectOf({ ...submitted.values, ...fixed }, reading.reads);
  const view = form.modal({
    targetId: submitted.targetId,
    channelId: meta.channelId,
    ...(submitted.channelChosenInForm && submitted.channelId ? { channelPicked: submitted.channelId } : {}),
    privateMetadata: writeMetadata({
      ...meta,
      ...targetMetadata(row.targetKind, submitted.targetId),
      ...(Object.keys(fixed).length > 0 ? { fixed } : {}),
      ...(shown ? { shown } : {}),
    }),
    sandbox: ctx.sandbox,
    action: submitted.action,
    now: ctx.now(),
    reads: reading.reads,
    given: submitted.values,
    limits: ctx.config.forms,
  });
  await args.ack({ response_action: 'update', view });
  return 'opened';
}

async function submitChange<A extends ChangeAction>(ctx: ListenerContext, req: SlackRequest, action: A, submitted: SubmittedForm, args: SubmissionArgs) {
  const change = CHANGE_FORMS[action];
  const { userId, channelId, targetId, values } = submitted;
  const { targetKind } = CHANGES[action];
  const names = ctx.names;
  // Its label is read when the outcome is told (a getter): the door reads the servers' labels once the change is valid.
  const target: Target = {
    kind: targetKind,
    id: targetId,
    get label() {
      return targetKind === 'vs' ? names.labelOf(targetId) : null;
    },
  };
  return completeSubmission({
    ctx,
    args,
    log: req.log.child({ ...(channelId ? { channel: channelId } : {}), target: targetKey(target) }),
    target,
    title: change.title,
    destination: submitted.destination,
    formErrorBlock: change.form.formErrorBlock,
    run: () =>
      ctx.changes.submit(
        { userId, channelId: channelId ?? null, channelChosenInForm: submitted.channelChosenInForm, submissionKey: submitted.submissionKey },
        action,
        targetId,
        values,
      ),
  });
}

export async function completeSubmission<T>(s: Submission<T>): Promise<Outcome> {
  const { ctx, args, log } = s;
  const pending: Promise<SubmissionOutcome<T> & UnderBreakGlass> = s.run().catch((error: unknown): SubmissionOutcome<T> => {
    if (isStoreUnavailable(error)) {
      log.warn('change refused: the store is unreachable, so it could not be recorded', { error });
      return { outcome: 'unrecorded' };
    }
    if (isOutcomeNotRecorded(error)) {
      // The record stays `started`; recovery settles it as unknown (interrupted) once its lease expires.
      log.error('the change was sent to the cloud API but its outcome could not be recorded', { code: error.code, error: error.cause });
      return { outcome: 'not_recorded' };
    }
    log.error('change failed unexpectedly', { error });
    return { outcome: 'crashed' };
  });
  const early = await Promise.race([pending, delay(SUBMISSION_ACK_BUDGET_MS).then(() => undefined)]);

  let result: SubmissionOutcome<T> & UnderBreakGlass;
  if (early !== undefined) {
    result = early;
    await args.ack(ackFor(s, result));
  } else {
    await args.ack({ response_action: 'update', view: statusModal({ title: s.title, mrkdwn: WORKING_TEXT, sandbox: ctx.sandbox }) });
    result = await pending;
    try {
      await updateView(args.client, { view_id: args.body.view.id, view: statusFor(s, result) });
    } catch (error) {
      // Typically the user closed the "working" modal: tell them in the channel instead.
      log.warn('could not update the modal with the outcome', { error: slackErrorSummary(error) });
      if (result.outcome !== 'succeeded' && result.outcome !== 'applied_unreadable' && result.outcome !== 'denied' && result.outcome !== 'duplicate') {
        const text = outcomeText(s, result);
        await postEphemeral(args.client, s.destination.channelId, args.body.user.id, renderOutcomeNotice(text, ctx.sandbox), log);
      }
    }
  }

  if (result.outcome === 'succeeded') {
    // Scheduled, never "done": its message is followed to its end from here (src/slack/follow-messages.ts).
    const accepted = { ...result.accepted, status: 'scheduled' as const, step: null, transactionIds: [], finalState: null, endedAtMs: null };
    const poster = {
      config: ctx.config,
      client: args.client,
      follower: ctx.follower,
      panelUrl: ctx.panelUrl,
      sandbox: ctx.sandbox,
      log,
      labelOf: (vsId: number) => ctx.names.labelOf(vsId),
    };
    if (!(await postAcceptedChange(poster, s.destination, accepted, result.followed)))
      log.warn('the cloud accepted the change but its message could not be posted');
  } else if (result.outcome === 'applied_unreadable') {
    const message = renderAppliedUnreadable({ title: s.title, target: s.target, user: args.body.user.id, status: result.error.status, sandbox: ctx.sandbox });
    const posted = await postToChannel(ctx.config, args.client, s.destination, message, log);
    if (!posted) log.warn('the change was applied but its result could not be posted to the channel');
  } else if (result.outcome === 'denied') {
    await postEphemeral(args.client, s.destination.channelId, args.body.user.id, markSandbox(renderDenied(result.decision), ctx.sandbox), log);
  } else if (result.outcome === 'requested') {
    // After the ack: the request is posted where the change was asked from, for the channel to see and decide.
    if (!(await postApprovalRequest(ctx.changes, args.client, result.approval, messageOptions(ctx, { log })))) {
      const view = statusModal({ title: s.title, mrkdwn: requestNotPostedText(result.approval.channelId), sandbox: ctx.sandbox });
      await updateView(args.client, { view_id: args.body.view.id, view }).catch((error: unknown) => {
        log.warn('could not tell that the approval request was not posted', { error: slackErrorSummary(error) });
      });
    }
  }
  // Made under break glass (docs/product.md, On call): said where it was asked, for everyone, with the Acknowledge
  // button another admin presses after the incident.
  if (result.breakGlass && 'record' in result) {
    const use = renderBreakGlassUse({ record: result.record, window: result.breakGlass, sandbox: ctx.sandbox });
    if (!(await postToChannel(ctx.config, args.client, s.destination, use, log))) log.warn('the note of a change made under break glass could not be posted');
  }
  if (result.outcome === 'crashed' || result.outcome === 'unrecorded' || result.outcome === 'not_recorded') return 'failed';
  // A target whose state does not allow the change: refused as an invalid request is (its record says `refused`).
  return result.outcome === 'unfit' ? 'invalid' : result.outcome;
}

type AckPayload = Parameters<Submission<unknown>['args']['ack']>[0];

function ackFor<T>(s: Submission<T>, r: SubmissionOutcome<T>): AckPayload {
  if (r.outcome === 'duplicate') return undefined;
  if (r.outcome === 'invalid') return { response_action: 'errors', errors: fieldErrorsToBlockErrors(r.fieldErrors) };
  if (r.outcome === 'failed' && r.error.kind === 'validation') {
    const errors = { ...r.fieldErrors };
    if (r.formErrors.length > 0 || Object.keys(errors).length === 0) {
      // About the whole form: under its first input (Slack attaches modal errors to inputs only), worded so.
      const formMessage = r.formErrors.length > 0 ? formLevelError(r.formErrors) : cloudErrorMessage(r.error, s.target, s.ctx.config.cloud.timeoutMs);
      const block = firstInputBlock(s.args.body.view) ?? s.formErrorBlock;
      errors[block] = errors[block] ? `${formMessage}; ${errors[block]}` : formMessage;
    }
    return { response_action: 'errors', errors: fieldErrorsToBlockErrors(errors) };
  }
  return { response_action: 'update', view: statusFor(s, r) };
}

function outcomeText<T>(s: Submission<T>, r: SubmissionOutcome<T>): string {
  return changeOutcomeText(r, { target: s.target, timeoutMs: s.ctx.config.cloud.timeoutMs });
}

function statusFor<T>(s: Submission<T>, r: SubmissionOutcome<T>) {
  return statusModal({ title: s.title, mrkdwn: outcomeText(s, r), sandbox: s.ctx.sandbox });
}

/** The block id of the view's first input. */
function firstInputBlock(view: { blocks?: unknown[] }): string | undefined {
  const block = (view.blocks ?? []).find(
    (b): b is { type: 'input'; block_id: string } => (b as { type?: unknown }).type === 'input' && typeof (b as { block_id?: unknown }).block_id === 'string',
  );
  return block?.block_id;
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
