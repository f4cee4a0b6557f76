import type { Logger } from '../log';
import { slackErrorSummary } from './channel-post';

// How a workflow step ends: functions.completeSuccess with its outputs, or
// functions.completeError with what went wrong. Bolt's complete() and fail()
// call them with the token Slack issued for this one execution (the event's
// bot_access_token): it is valid for this execution only, until the step
// completes (or 15 minutes), in whichever workspace of an org-wide install
// the workflow runs. That token completes the step and nothing else: what a
// step posts is posted with the app's own token (see the change steps), so
// that its message and buttons outlive the execution.

/** What Bolt hands a function_executed listener to end the step. */
export interface FunctionEnders {
  complete: (params: { outputs: Record<string, unknown> }) => Promise<unknown>;
  fail: (params: { error: string }) => Promise<unknown>;
}

export interface StepCompletion {
  /** functions.completeSuccess; false when Slack did not take it (logged). */
  complete(outputs: Record<string, string | number>): Promise<boolean>;
  /** functions.completeError; false when Slack did not take it (logged). */
  fail(error: string): Promise<boolean>;
}

export function stepCompletion(enders: FunctionEnders, log: Logger): StepCompletion {
  const ended = async (how: 'completeSuccess' | 'completeError', call: () => Promise<unknown>) => {
    try {
      await call();
      return true;
    } catch (error) {
      log.warn(`Slack did not take functions.${how}; the workflow shows the step as not done`, { error: slackErrorSummary(error) });
      return false;
    }
  };
  return {
    complete: (outputs) => ended('completeSuccess', () => enders.complete({ outputs })),
    fail: (error) => ended('completeError', () => enders.fail({ error })),
  };
}

/** The enders of a function_executed delivery, when these are its arguments. */
export function functionEndersOf(args: object): FunctionEnders | undefined {
  const { complete, fail } = args as Partial<FunctionEnders>;
  return typeof complete === 'function' && typeof fail === 'function' ? { complete, fail } : undefined;
}
