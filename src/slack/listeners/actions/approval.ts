import type { ButtonArgs } from './button-args';
import { z } from 'zod';
import type { ApprovalResult, ApprovedRun, Changes, DecisionCheck, WithdrawResult } from '../../../changes';
import { isStoreUnavailable, type Approval } from '../../../store';
import { approvalFacts, endApprovalMessage, messageOptions } from '../../approval-messages';
import {
  APPROVAL_UNKNOWN,
  DECISION_UNRECORDED,
  DENY_REASON_INPUT,
  DENY_FORM_TITLE,
  renderApprovalClosed,
  renderDenyReasonModal,
  type ApprovalEnd,
} from '../../blocks/approvals';
import { MODAL_NOT_OPENED, renderDenied, renderError } from '../../blocks/messages';
import { markSandbox, type Rendered } from '../../blocks/mrkdwn';
import { statusModal } from '../../blocks/status-modal';
import type { ListenerContext, Outcome, SlackRequest } from '../../context';
import { openModal } from '../../open-modal';
import { publishHome } from '../../publish-home';
import { replyEphemeral } from '../../reply';
import type { SubmissionArgs } from '../views/submission';

// A click on an approval request's buttons (acked already by the request
// middleware, and counted as a change attempt): Approve decides at once
// (behind Slack's confirmation dialog); Deny opens a small form asking why,
// whose submission decides; Withdraw is the requester's. The door decides
// everything (who may, the first decisive click, running the change once);
// this says what it decided: the request's message is updated in place for
// everyone and the one who asked is told in its thread; a refusal or a late
// click is told to the clicker alone. A click on the Home tab redraws the
// clicker's Home tab.

/** What the deny form remembers of its click: the request, and where the click was (its message, or the Home tab). */
const DenyFormMetadata = z.object({
  approvalId: z.string().min(1).max(100),
  messageTs: z.string().max(40).optional(),
  home: z.boolean().optional(),
});
type DenyFormMetadata = z.infer<typeof DenyFormMetadata>;

export function approveClick(ctx: ListenerContext, req: SlackRequest, args: ButtonArgs): Promise<Outcome> {
  return onHomeToo(ctx, req, args, async () => {
    const approvalId = valueOf(args);
    const result = await askTheDoor(ctx, req, (changes) => changes.decide(approvalId, { userId: req.userId }, 'approve'));
    return told(ctx, req, result, { ts: clickedMessageTs(args.body) });
  });
}

/** Deny: checked now (a refusal is recorded and told), then the form that asks why; its submission decides (denySubmission). */
export async function denyClick(ctx: ListenerContext, req: SlackRequest, args: ButtonArgs): Promise<Outcome> {
  const approvalId = valueOf(args);
  const checked = await askTheDoor(ctx, req, (changes) => changes.mayDecide(approvalId, { userId: req.userId }, 'reject'));
  if (checked === null || checked.outcome !== 'open') return onHomeToo(ctx, req, args, () => told(ctx, req, checked, {}));
  const facts = approvalFacts(checked.approval, ctx.sandbox, undefined, (vsId) => ctx.names.labelOf(vsId));
  if (!facts) return told(ctx, req, { outcome: 'unknown' }, {});
  const metadata: DenyFormMetadata = { approvalId, messageTs: clickedMessageTs(args.body), home: args.body.view?.type === 'home' };
  const view = renderDenyReasonModal(facts, JSON.stringify(metadata));
  if (req.triggerId && (await openModal(req.client, req.triggerId, view, req.log))) return 'opened';
  await tellClicker(ctx, req, renderError(MODAL_NOT_OPENED));
  return 'failed';
}

export function withdrawClick(ctx: ListenerContext, req: SlackRequest, args: ButtonArgs): Promise<Outcome> {
  return onHomeToo(ctx, req, args, async () => {
    const approvalId = valueOf(args);
    const result = await askTheDoor(ctx, req, (changes) => changes.withdraw(approvalId, { userId: req.userId }));
    return told(ctx, req, result, { ts: clickedMessageTs(args.body) });
  });
}

/**
 * The deny form submitted: the door checks the clicker again and rejects the request with the reason given (the first
 * decisive click still wins). The form closes when it is done; a refusal or a late submission is said in it.
 */
export async function denySubmission(ctx: ListenerContext, req: SlackRequest, args: SubmissionArgs): Promise<Outcome> {
  const meta = readDenyMetadata(args.view.private_metadata);
  if (!meta) {
    await args.ack({ response_action: 'update', view: statusModal({ title: DENY_FORM_TITLE, mrkdwn: APPROVAL_UNKNOWN, sandbox: ctx.sandbox }) });
    return 'not_found';
  }
  const typed = args.view.state.values[DENY_REASON_INPUT]?.[DENY_REASON_INPUT]?.value;
  const result = await askTheDoor(ctx, req, (changes) => changes.decide(meta.approvalId, { userId: req.userId }, 'reject', typed ?? undefined));
  let outcome: Outcome;
  if (result?.outcome === 'rejected') {
    // Denied: the form closes at once; the request's message and its thread say how it ended.
    await args.ack();
    outcome = await told(ctx, req, result, { ts: meta.messageTs });
  } else {
    // Refused, or decided by someone else meanwhile: said in the form.
    outcome = await told(ctx, req, result, { inForm: (message) => args.ack(formAnswer(ctx, message)) });
  }
  if (meta.home) await publishHome(ctx, req.client, req.userId, req.log);
  return outcome;
}

/** The door's answer; null (told to the clicker) when the store could not be reached, so nothing was decided. */
async function askTheDoor<R>(ctx: ListenerContext, req: SlackRequest, ask: (changes: Changes) => Promise<R>): Promise<R | null> {
  try {
    return await ask(ctx.changes);
  } catch (error) {
    if (!isStoreUnavailable(error)) throw error;
    req.log.warn('approval click refused: the store is unreachable', { error });
    return null;
  }
}

interface Where {
  /** The ts of the request's message, when the click was on it. */
  ts?: string;
  /** Said in the deny form instead of to the clicker (a view submission answers in its form). */
  inForm?: (message: Rendered) => Promise<void>;
}

/**
 * What the door decided, told: a request that ended updates its message and tells the one who asked in its thread;
 * anything else is told to the clicker alone (or in the deny form).
 */
async function told(ctx: ListenerContext, req: SlackRequest, result: ApprovalResult | WithdrawResult | DecisionCheck | null, where: Where): Promise<Outcome> {
  const say = (message: Rendered) => (where.inForm ? where.inForm(message) : tellClicker(ctx, req, message));
  if (result === null) {
    await say(renderError(DECISION_UNRECORDED));
    return 'failed';
  }
  switch (result.outcome) {
    case 'unknown':
      await say(renderError(APPROVAL_UNKNOWN));
      return 'not_found';
    case 'closed':
      await say(renderApprovalClosed(result.approval));
      return 'duplicate';
    case 'denied':
      await say(renderDenied(result.decision));
      return 'denied';
    case 'open':
      // Only asked before Deny's form: said by denyClick.
      return 'opened';
    case 'rejected':
    case 'withdrawn':
    case 'approved': {
      const end: ApprovalEnd =
        result.outcome === 'approved' ? { kind: 'approved', run: result.change, timeoutMs: ctx.config.cloud.timeoutMs } : { kind: result.outcome };
      const { updated, message } = await endApprovalMessage(req.client, result.approval, end, messageOptions(ctx, req, where.ts));
      // The message could not be updated: the one who clicked hears the outcome at least.
      if (!updated && message) await say(message);
      await followInRequestMessage(ctx, req, result.approval, result.outcome === 'approved' ? result.change : null, where.ts);
      return result.outcome;
    }
  }
}

/** An approved change the cloud accepted is followed in its request's message: the follower updates it and replies in its thread. */
async function followInRequestMessage(ctx: ListenerContext, req: SlackRequest, approval: Approval, run: ApprovedRun | null, clickedTs: string | undefined) {
  const ts = approval.messageTs ?? clickedTs;
  if (run?.outcome !== 'succeeded' || !run.followed || !ts) return;
  await ctx.follower.setMessage(run.accepted.recordId, approval.channelId, ts).catch((error: unknown) => {
    req.log.warn('could not remember the message of a followed change', { record: run.accepted.recordId, error });
  });
}

/** Runs a click's work, then, when it was on the Home tab, draws the clicker's again (the request gone from it, or shown as it stands). */
async function onHomeToo(ctx: ListenerContext, req: SlackRequest, args: ButtonArgs, work: () => Promise<Outcome>): Promise<Outcome> {
  const outcome = await work();
  if (args.body.view?.type === 'home') await publishHome(ctx, req.client, req.userId, req.log);
  return outcome;
}

function formAnswer(ctx: ListenerContext, message: Rendered) {
  return { response_action: 'update' as const, view: statusModal({ title: DENY_FORM_TITLE, mrkdwn: message.text, sandbox: ctx.sandbox }) };
}

function readDenyMetadata(raw: string | undefined): DenyFormMetadata | null {
  try {
    const parsed = DenyFormMetadata.safeParse(JSON.parse(raw ?? ''));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

const valueOf = ({ action }: ButtonArgs) => (typeof action.value === 'string' ? action.value : '');

/** To the clicker alone: ephemeral where the button was in a channel; a status modal where it was not (the Home tab). */
export async function tellClicker(ctx: ListenerContext, req: SlackRequest, message: Rendered): Promise<void> {
  if (req.respond) {
    await replyEphemeral(req, markSandbox(message, ctx.sandbox));
    return;
  }
  if (req.triggerId) await openModal(req.client, req.triggerId, statusModal({ title: 'Approval', mrkdwn: message.text, sandbox: ctx.sandbox }), req.log);
}

/** The ts of the message whose button was clicked (a request's message, if its ts was not stored yet). */
export function clickedMessageTs(body: unknown): string | undefined {
  const { message, container } = body as { message?: { ts?: unknown }; container?: { message_ts?: unknown } };
  const ts = message?.ts ?? container?.message_ts;
  return typeof ts === 'string' ? ts : undefined;
}
