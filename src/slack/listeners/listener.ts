import type { AllMiddlewareArgs } from '@slack/bolt';
import { SOMETHING_WENT_WRONG } from '../blocks/messages';
import { STEP_WENT_WRONG, stepError } from '../blocks/steps';
import type { ListenerContext, Outcome, SlackRequest } from '../context';
import { isMiddlewareMissing } from '../errors';
import type { NeedOf } from '../middleware/needs';
import { requestOf } from '../middleware/request';
import { replyError } from '../reply';

// What a row of every listener table runs: a typed function of the listener
// context, the request, and what Slack sent, that returns how the request
// ended. The row says what it needs; readRequest and checkNeeds run before it.

export type Listener<Args> = (ctx: ListenerContext, req: SlackRequest, args: Args) => Promise<Outcome>;

/** One row of a listener table: what running it needs (the needs middleware asks), and what runs it. */
export interface ListenerRow<Args> {
  /** Fixed, or read from what Slack sent (a button that runs the `/vs` command its value names needs what that command needs). */
  needs: NeedOf | ((args: Args) => NeedOf);
  run: Listener<Args>;
  /** How to answer when the row cannot run at all (its middleware did not run): a form must still be acked. */
  unready?: (ctx: ListenerContext, args: Args) => Promise<void>;
}

/** What running a row needs, for these arguments. */
export function needsOf<Args>(row: Pick<ListenerRow<Args>, 'needs'>, args: Args): NeedOf {
  return typeof row.needs === 'function' ? row.needs(args) : row.needs;
}

/**
 * The Bolt listener of a row: runs it with the request readRequest built and
 * records its outcome. What it throws is logged and answered (where there is
 * a response_url), never left silent; a missing middleware is logged by its
 * code, apart from a crash of the listener itself.
 */
export function runRow<Args extends AllMiddlewareArgs>(ctx: ListenerContext, { run, unready }: Pick<ListenerRow<Args>, 'run' | 'unready'>) {
  return async (args: Args): Promise<void> => {
    let req: SlackRequest;
    try {
      req = requestOf(args.context);
    } catch (error) {
      if (!isMiddlewareMissing(error)) throw error;
      ctx.logger.error('a listener ran without its middleware; nothing was done', { code: error.code, middleware: error.middleware });
      await unready?.(ctx, args);
      return;
    }
    try {
      req.outcome = await run(ctx, req, args);
    } catch (error) {
      if (isMiddlewareMissing(error))
        req.log.error('a listener ran without its middleware; nothing was done', { code: error.code, middleware: error.middleware });
      else req.log.error(`${req.kind} failed`, { error });
      req.outcome = 'failed';
      if (req.respond) await replyError(req, SOMETHING_WENT_WRONG);
      // A workflow would wait on a step that never ends.
      else if (req.step) await req.step.fail(stepError(STEP_WENT_WRONG));
    }
  };
}
