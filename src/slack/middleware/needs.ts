import type { AckFn, AllMiddlewareArgs, AnyMiddlewareArgs, ViewResponseAction } from '@slack/bolt';
import { type ChangeAction, type Decision, type ReadAction } from '../../changes';
import { isStoreUnavailable } from '../../store';
import {
  CHANGES_UNRECORDABLE,
  renderDenied,
  renderDeniedModal,
  renderErrorModal,
  renderLimitReached,
  renderLimitReachedModal,
  SOMETHING_WENT_WRONG,
  type LimitReached,
} from '../blocks/messages';
import { stepError, WORKFLOW_READS_REFUSED } from '../blocks/steps';
import type { ListenerContext, SlackRequest } from '../context';
import { openModal } from '../open-modal';
import { replyEphemeral, replyError } from '../reply';
import type { LimitKind } from '../user-limits';
import { requestOf } from './request';

// The one role check of the Slack side, and the per-person limits. Every
// command, button, shortcut and form is declared in a listener table with
// what it needs; this middleware counts the attempt against its person's
// limit (reads, or change attempts), asks for the role before the listener
// runs, and answers a refusal itself.

export type Need =
  /** help, whoami, usage. */
  | 'everyone'
  /** Reads: counted as reads, asked of the policy; a refusal is told, not recorded (nothing was attempted). */
  | ReadAction
  /**
   * A workflow step's read: nobody is known to have started it, so it reads as anyone would (policy.workflowsMayRead),
   * and there is no person to count it against. A refusal ends the step with an error naming the settings; it is
   * logged, not recorded.
   */
  | 'workflow_read'
  /** A read whose listener decides who may see what (a record's Details: their own, or any for admins): counted as a read only. */
  | 'counted_read'
  /**
   * A click that takes part in a change (Approve, Deny, Withdraw, a workflow's request claimed) or switches the freeze:
   * counted as a change attempt; the change door checks who may, and records a refusal, so nothing is asked here.
   */
  | 'change_attempt'
  /** Opening a change's form: counted as a change attempt, asked of the change door, which records a refusal. */
  | { opens: ChangeAction }
  /**
   * Submitting a change's form: counted as a change attempt; the change door
   * checks it when it runs the change, with the channel the form names (the
   * only check that protects the API), so nothing is asked here.
   */
  | { submits: ChangeAction };

export interface NeedOf {
  need: Need;
  /** What a change form is about (`vs:42`), for the record of a refusal. */
  target?: string;
  /** The title of the status modal that tells a refusal on a shortcut, a Home tab button or a form. */
  title?: string;
  /** The form opened asks for the channel (a shortcut, a Home tab button): only the role is checked now, the channel at submission. */
  channelChosenLater?: boolean;
}

type Args = AnyMiddlewareArgs & AllMiddlewareArgs;
/** What is told of a refusal. */
type Refusal = Pick<Decision, 'action' | 'role' | 'needed' | 'denial'>;
/** The ack of a view submission (readRequest leaves it to the listener, or to this middleware when it answers instead). */
type SubmissionAck = AckFn<ViewResponseAction>;

export function checkNeeds(ctx: ListenerContext, needOf: (args: Args) => NeedOf) {
  return async (args: Args): Promise<void> => {
    const req = requestOf(args.context);
    // A shortcut's form always asks for the channel; a Home tab button's says so in its row.
    const { need, target, title, channelChosenLater = req.kind === 'shortcut' } = needOf(args);
    if (need === 'everyone') return args.next();
    if (need === 'workflow_read') {
      // No person to bound: the cloud client's single flight and its connection budget for reads bound what steps cost.
      if (ctx.policy.workflowsMayRead) return args.next();
      req.outcome = 'denied';
      req.log.info('denied: VS_VIEWERS limits reads and VS_WORKFLOW_READS is not everyone, so workflow steps may not read');
      await req.step?.fail(stepError(WORKFLOW_READS_REFUSED));
      return;
    }
    // Per person, before anything is asked of the policy, the store's audit trail or the cloud API: an attempt
    // past the limit is told and goes no further, so it is never recorded (a denial, an audit post).
    const kind: LimitKind = typeof need === 'string' && need !== 'change_attempt' ? 'reads' : 'changes';
    const retryInSeconds = await ctx.limits[kind].take(req.userId);
    if (retryInSeconds > 0) return tellLimited(ctx, req, args, { kind, perMinute: ctx.limits[kind].perMinute, retryInSeconds }, title);
    if (need === 'change_attempt' || need === 'counted_read' || (typeof need === 'object' && 'submits' in need)) return args.next();
    let decision: Decision;
    if (typeof need === 'string') {
      decision = await ctx.policy.can(req.userId, need, req.channelId);
    } else {
      try {
        decision = await ctx.changes.authorize({ userId: req.userId, channelId: req.channelId }, need.opens, target ?? 'unknown', { channelChosenLater });
      } catch (error) {
        // The store is unreachable (the freeze cannot be read, a refusal cannot be written): no form can be submitted now.
        req.log.error('could not check or record the change', { error });
        const text = isStoreUnavailable(error) ? CHANGES_UNRECORDABLE : SOMETHING_WENT_WRONG;
        if (req.respond) await replyError(req, text);
        // No channel to answer in (a global shortcut): the same words in a modal.
        else if (req.triggerId) await openModal(req.client, req.triggerId, renderErrorModal({ title, text, sandbox: ctx.sandbox }), req.log);
        req.outcome = 'failed';
        return;
      }
    }
    if (decision.allowed) return args.next();
    req.outcome = 'denied';
    req.log.info('denied', { action: decision.action, role: decision.role, needed: decision.needed });
    await tellDenied(ctx, req, decision, title);
  };
}

/** Past a per-person limit: only the person is told, where they asked (in the channel, or in a modal). */
async function tellLimited(ctx: ListenerContext, req: SlackRequest, args: Args, limit: LimitReached, title: string | undefined): Promise<void> {
  req.outcome = 'limited';
  req.log.info('limit reached', { limit: limit.kind, perMinute: limit.perMinute, retryInSeconds: limit.retryInSeconds });
  if (req.kind === 'submission') {
    // A form is acked with its answer: the form becomes the message.
    await (args.ack as SubmissionAck)({ response_action: 'update', view: renderLimitReachedModal({ ...limit, title, sandbox: ctx.sandbox }) });
  } else if (req.respond) {
    await replyEphemeral(req, renderLimitReached(limit));
  } else if (req.triggerId) {
    await openModal(req.client, req.triggerId, renderLimitReachedModal({ ...limit, title, sandbox: ctx.sandbox }), req.log);
  }
}

async function tellDenied(ctx: ListenerContext, req: SlackRequest, decision: Refusal, title: string | undefined): Promise<void> {
  if (req.respond) {
    await replyEphemeral(req, renderDenied(decision));
    return;
  }
  if (req.triggerId) {
    if (!(await openModal(req.client, req.triggerId, renderDeniedModal({ title, decision, sandbox: ctx.sandbox }), req.log))) req.outcome = 'failed';
  }
}
