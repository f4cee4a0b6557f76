import type { AllMiddlewareArgs, AnyMiddlewareArgs } from '@slack/bolt';
import { neededRole, type ChangeAction, type Decision, type ReadAction } from '../../changes';
import { isStoreUnavailable } from '../../store';
import { CHANGES_UNRECORDABLE, renderDenied, renderDeniedModal, renderReadLimited, SOMETHING_WENT_WRONG } from '../blocks/messages';
import { stepError, WORKFLOW_READS_REFUSED } from '../blocks/steps';
import type { ListenerContext, SlackRequest } from '../context';
import { openModal } from '../open-modal';
import { replyEphemeral, replyError } from '../reply';
import { requestOf } from './request';

// The one role check of the Slack side. Every command, button, shortcut and
// form is declared in a listener table with what it needs; this middleware
// asks for it before the listener runs, and answers a refusal itself.

export type Need =
  /** help, whoami, usage. */
  | 'everyone'
  /** Reads: asked of the policy; a refusal is told, not recorded (nothing was attempted). */
  | ReadAction
  /**
   * A workflow step's read: nobody is known to have started it, so it reads as anyone would (policy.workflowsMayRead).
   * A refusal ends the step with an error naming the settings; it is logged, not recorded.
   */
  | 'workflow_read'
  /** Opening a change's form: asked of the change door, which records a refusal. */
  | { opens: ChangeAction }
  /**
   * Submitting a change's form: the change door checks it when it runs the
   * change, with the channel the form names (the only check that protects
   * the API), so nothing is asked here.
   */
  | { submits: ChangeAction };

export interface NeedOf {
  need: Need;
  /** What a change form is about (`vs:42`), for the record of a refusal. */
  target?: string;
  /** The title of the status modal that tells a refusal on a shortcut. */
  title?: string;
}

type Args = AnyMiddlewareArgs & AllMiddlewareArgs;

export function checkNeeds(ctx: ListenerContext, needOf: (args: Args) => NeedOf) {
  return async (args: Args): Promise<void> => {
    const req = requestOf(args.context);
    const { need, target, title } = needOf(args);
    if (need === 'everyone' || (typeof need === 'object' && 'submits' in need)) return args.next();
    if (need === 'workflow_read') {
      // No person to bound: the cloud client's single flight and its connection budget for reads bound what steps cost.
      if (ctx.policy.workflowsMayRead) return args.next();
      req.outcome = 'denied';
      req.log.info('denied: VS_VIEWERS limits reads and VS_WORKFLOW_READS is not everyone, so workflow steps may not read');
      await req.step?.fail(stepError(WORKFLOW_READS_REFUSED));
      return;
    }
    if (typeof need === 'string') {
      // Reads per person are bounded before anything is asked of the policy or the cloud API.
      const waitSeconds = ctx.readLimiter.take(req.userId);
      if (waitSeconds > 0) {
        req.outcome = 'denied';
        const perMinute = ctx.config.readsPerUserPerMinute;
        req.log.info('read limit reached', { action: need, perMinute, retryInSeconds: waitSeconds });
        if (req.respond) await replyEphemeral(req, renderReadLimited({ perMinute, retryInSeconds: waitSeconds }));
        return;
      }
    }
    let decision: Decision;
    if (typeof need === 'string') {
      decision = await ctx.policy.can(req.userId, need, req.channelId);
    } else {
      try {
        // From a shortcut the channel is chosen in the form: only the role is checked now.
        decision = await ctx.changes.authorize({ userId: req.userId, channelId: req.channelId }, need.opens, target ?? 'unknown', {
          channelChosenLater: req.kind === 'shortcut',
        });
      } catch (error) {
        // The store is unreachable (the freeze cannot be read, a refusal cannot be written): no form can be submitted now.
        req.log.error('could not check or record the change', { error });
        if (req.kind !== 'shortcut') {
          await replyError(req, isStoreUnavailable(error) ? CHANGES_UNRECORDABLE : SOMETHING_WENT_WRONG);
          req.outcome = 'failed';
          return;
        }
        decision = { allowed: false, action: need.opens, role: 'none', needed: neededRole(need.opens), denial: null };
      }
    }
    if (decision.allowed) return args.next();
    req.outcome = 'denied';
    req.log.info('denied', { action: decision.action, role: decision.role, needed: decision.needed });
    await tellDenied(ctx, req, decision, title);
  };
}

async function tellDenied(ctx: ListenerContext, req: SlackRequest, decision: Decision, title: string | undefined): Promise<void> {
  if (req.respond) {
    await replyEphemeral(req, renderDenied(decision));
    return;
  }
  if (req.triggerId) {
    if (!(await openModal(req.client, req.triggerId, renderDeniedModal({ title, decision, sandbox: ctx.sandbox }), req.log))) req.outcome = 'failed';
  }
}
