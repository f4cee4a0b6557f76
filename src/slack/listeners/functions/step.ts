import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import { serverFieldError } from '../../blocks/names';
import { STEP_WENT_WRONG, stepError, stepInputRefusals } from '../../blocks/steps';
import type { ListenerContext, Outcome, SlackRequest } from '../../context';
import { MiddlewareMissingError } from '../../errors';
import type { NeedOf } from '../../middleware/needs';
import type { ListenerRow } from '../listener';
import {
  manifestFunction,
  readInputs,
  type InputParameter,
  type InputValues,
  type ManifestFunction,
  type OutputParameter,
  type OutputValues,
} from './parameters';

// A workflow step as a row of the FUNCTIONS table: its callback id, how
// manifest.yml declares it (title, description, typed inputs and outputs),
// what running it needs, and what runs it. The row's listener reads the
// inputs (a bad one ends the step with an error saying which and why), runs
// the step, and ends it: functions.completeSuccess with every output, or
// functions.completeError with the words a user would read. Every path ends
// the step, so a workflow never waits on one that was dropped.

export type StepArgs = AllMiddlewareArgs & SlackEventMiddlewareArgs<'function_executed'>;

type Inputs = Record<string, InputParameter<unknown>>;
type Outputs = Record<string, OutputParameter<string> | OutputParameter<number> | OutputParameter<boolean>>;

/**
 * How a step ended: its outputs, or the error it completes with; `outcome` goes into the request's log line. A
 * `duplicate` is an execution another delivery of it is running: that one completes it, this one does not.
 */
export type StepResult<O> = { outcome: Outcome; outputs: O } | { outcome: Outcome; error: string } | { outcome: 'duplicate' };

export interface StepRow<I extends Inputs = Inputs, O extends Outputs = Outputs> {
  /** The function's callback_id, as manifest.yml's `functions` names it. */
  callbackId: string;
  /** What Workflow Builder shows. */
  title: string;
  description: string;
  inputs: I;
  outputs: O;
  needs: NeedOf;
  run: (ctx: ListenerContext, req: SlackRequest, inputs: InputValues<I>, args: StepArgs) => Promise<StepResult<OutputValues<O>>>;
}

/** A row typed by its own inputs and outputs, kept in the table beside the others. */
export function stepRow<I extends Inputs, O extends Outputs>(row: StepRow<I, O>): StepRow {
  // The listener reads the inputs with the row's own parameters, so `run` always receives InputValues<I>.
  return row as unknown as StepRow;
}

/** The step as manifest.yml's `functions` declares it. */
export function manifestOf(row: StepRow): ManifestFunction {
  return manifestFunction(row);
}

/** The listener-table row Bolt runs for a step: inputs read, the step run, the step ended. */
export function stepListener(row: StepRow): ListenerRow<StepArgs> {
  return {
    needs: row.needs,
    run: async (ctx, req, args) => {
      const step = req.step;
      if (!step) throw new MiddlewareMissingError('readRequest');
      const inputs = readInputs(row.inputs, args.inputs);
      if (!inputs.ok) {
        req.log.info('the step was given inputs that do not read', { problems: inputs.problems.length });
        await step.fail(stepError(stepInputRefusals.all(inputs.problems)));
        return 'invalid';
      }
      const named = await serversByName(ctx, req, row.inputs, inputs.values);
      if (!named.ok) {
        await step.fail(stepError(named.error));
        return named.outcome;
      }
      let result: StepResult<OutputValues<Outputs>>;
      try {
        result = await row.run(ctx, req, named.values, args);
      } catch (error) {
        req.log.error('step failed', { error });
        await step.fail(stepError(STEP_WENT_WRONG));
        return 'failed';
      }
      if ('outputs' in result) return (await step.complete(result.outputs)) ? result.outcome : 'failed';
      if ('error' in result) return (await step.fail(result.error)) ? result.outcome : 'failed';
      return result.outcome;
    },
  };
}

/**
 * The inputs that name a server by its label, hostname or address, looked up in the name index (docs/product.md,
 * Servers by name) once the step's needs were checked, so the step receives ids. A name that is several servers' or
 * nobody's ends the step with the words a form's field would show; nothing runs.
 */
async function serversByName<V extends Record<string, unknown>>(
  ctx: ListenerContext,
  req: SlackRequest,
  inputs: Inputs,
  values: V,
): Promise<{ ok: true; values: V } | { ok: false; error: string; outcome: Outcome }> {
  const resolved: Record<string, unknown> = { ...values };
  for (const [key, parameter] of Object.entries(inputs)) {
    const name = resolved[key];
    if (parameter.lookUp !== 'server' || typeof name !== 'string') continue;
    const found = await ctx.names.resolve(name).catch((error: unknown) => {
      req.log.warn('the account’s server list could not be read to look up a name', { error });
      return null;
    });
    if (found === null) return { ok: false, error: serverFieldError({ kind: 'unreadable', name }), outcome: 'failed' };
    if (found.kind !== 'one') return { ok: false, error: serverFieldError(found), outcome: found.kind === 'several' ? 'invalid' : 'not_found' };
    resolved[key] = found.server.id;
  }
  return { ok: true, values: resolved as V };
}
