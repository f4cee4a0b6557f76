import type { AllMiddlewareArgs, AnyMiddlewareArgs } from '@slack/bolt';
import { NEEDED, type Action, type Decision } from '../../changes';
import type { ChangeAction } from '../../store';
import { denialText } from '../blocks/denials';
import { renderDenied, renderReadLimited } from '../blocks/messages';
import { statusModal } from '../blocks/status-modal';
import type { ListenerContext } from '../context';
import { openModal } from '../open-modal';
import { replyEphemeral, replyError, SOMETHING_WENT_WRONG } from '../reply';
import { readLimiterOf } from '../read-limit';
import { requestOf, type RequestState } from './request';

// The one role check of the Slack side. Every command, button, shortcut and
// form is declared in a listener table with what it needs; this middleware
// asks for it before the listener runs, and answers a refusal itself.

export type Need =
  /** help, whoami, usage. */
  | 'everyone'
  /** Reads: asked of the policy; a refusal is told, not recorded (nothing was attempted). */
  | 'read'
  | 'audit_read'
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
    if (typeof need === 'string') {
      // Reads per person are bounded before anything is asked of the policy or the cloud API.
      const waitSeconds = readLimiterOf(ctx).take(req.userId);
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
        // Only a refusal is written down, so this is one that could not be.
        req.log.error('could not record the denial', { error });
        if (req.kind !== 'shortcut') {
          await replyError(req, SOMETHING_WENT_WRONG);
          req.outcome = 'failed';
          return;
        }
        decision = { allowed: false, action: need.opens, role: 'none', needed: NEEDED[need.opens], denial: null };
      }
    }
    if (decision.allowed) return args.next();
    req.outcome = 'denied';
    const action: Action = typeof need === 'string' ? need : need.opens;
    req.log.info('denied', { action, role: decision.role, needed: decision.needed });
    await tellDenied(ctx, args, req, decision, title);
  };
}

async function tellDenied(ctx: ListenerContext, args: Args, req: RequestState, decision: Decision, title: string | undefined): Promise<void> {
  if (req.respond) {
    await replyEphemeral(req, renderDenied(decision));
    return;
  }
  if (req.triggerId) {
    const view = statusModal({ title: title ?? 'vs-chatops', mrkdwn: `:no_entry: ${denialText(decision)}`, sandbox: ctx.sandbox });
    if (!(await openModal(args.client, req.triggerId, view, req.log))) req.outcome = 'failed';
  }
}
