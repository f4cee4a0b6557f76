import type { AllMiddlewareArgs, AnyMiddlewareArgs, App, Middleware, SlackEventMiddlewareArgs } from '@slack/bolt';
import type { ListenerContext } from '../context';
import { checkNeeds } from '../middleware/needs';
import { readRequest } from '../middleware/request';
import { ACTIONS, type ButtonArgs } from './actions';
import { commandOf, parseVsCommand } from './commands';
import { EVENTS, type EventArgs } from './events';
import { FUNCTIONS } from './functions';
import { stepListener, type StepArgs } from './functions/step';
import { runRow, type ListenerRow } from './listener';
import { SHORTCUTS, type ShortcutArgs } from './shortcuts';
import { VIEWS } from './views';
import type { SubmissionArgs } from './views/submission';

// Every listener, from the tables that declare them, by kind:
//   `/vs` subcommands   commands/index.ts (COMMANDS): one listener reads the line and runs its row
//   buttons             actions/index.ts (ACTIONS)
//   global shortcuts    shortcuts/index.ts (SHORTCUTS): one per change form of blocks/change-forms.ts
//   form submissions    views/index.ts (VIEWS): one per change form
//   Events API events   events/index.ts (EVENTS): one per event type
//   workflow steps      functions/index.ts (FUNCTIONS): one Bolt app.function per custom step (function_executed, by callback id)
// Each runs behind the same two middleware: readRequest (ack, the request
// object, child logger, one log line) and checkNeeds (what its row needs).
//
// One Bolt middleware routes each delivery to its kind's table, instead of a
// Bolt listener per row (or per kind): Bolt runs the whole chain of every
// listener for every delivery, and each step of a chain copies the
// delivery's arguments. With a listener per row, a `/vs` command paid for
// eleven chains besides its own (docs/benchmark.md). A delivery no row
// names goes on to Bolt: a workflow step to its app.function listener; anything else to no listener, as before.

type Args = AnyMiddlewareArgs & AllMiddlewareArgs;
/** A step of a route: a Bolt middleware (it calls `next` to go on). */
type Step = (args: Args) => Promise<void>;

/** One kind of delivery: whether a delivery is one this route serves, and the steps that serve it. */
interface Route {
  serves(args: Args): boolean;
  steps: readonly Step[];
}

export function registerListeners(app: App, ctx: ListenerContext): void {
  const routes: Route[] = [
    {
      serves: (args) => 'command' in args && args.command?.command === '/vs',
      steps: [
        parseVsCommand as Step,
        readRequest(ctx, 'command', ({ context }) => ({ subcommand: commandOf(context).command.kind })),
        checkNeeds(ctx, ({ context }) => commandOf(context).need),
        runRow(ctx, { run: (ctx, req, { context }) => commandOf(context).run(ctx, req) }),
      ],
    },
    tableRoute<ButtonArgs, (typeof ACTIONS)[number]>({
      kind: 'action',
      isKind: (args) => 'action' in args && args.action !== undefined && args.body.type === 'block_actions',
      rows: ACTIONS,
      matches: (row, { action }) => (typeof row.actionId === 'string' ? row.actionId === action.action_id : row.actionId.test(action.action_id)),
      fields: ({ action }) => ({ action_id: action.action_id }),
      ctx,
    }),
    tableRoute<ShortcutArgs, (typeof SHORTCUTS)[number]>({
      kind: 'shortcut',
      isKind: (args) => 'shortcut' in args && args.shortcut !== undefined,
      rows: SHORTCUTS,
      matches: (row, { shortcut }) => row.callbackId === shortcut.callback_id,
      fields: (_args, row) => ({ shortcut: row.callbackId }),
      ctx,
    }),
    tableRoute<EventArgs, (typeof EVENTS)[number]>({
      kind: 'event',
      isKind: (args) => 'event' in args && args.event !== undefined,
      rows: EVENTS,
      matches: (row, { event }) => row.event === event.type,
      fields: (_args, row) => ({ event: row.event }),
      ctx,
    }),
    tableRoute<SubmissionArgs, (typeof VIEWS)[number]>({
      kind: 'submission',
      isKind: (args) => 'view' in args && args.body.type === 'view_submission',
      rows: VIEWS,
      matches: (row, { view }) => row.callbackId === view.callback_id,
      fields: (_args, row) => ({ view: row.callbackId }),
      ctx,
    }),
  ];
  app.use(async (args) => {
    const route = routes.find((candidate) => candidate.serves(args));
    if (route) await runSteps(route.steps, args);
    else await args.next();
  });

  // Workflow steps go on to Bolt's app.function, which gives their listener complete() and fail() on the execution's
  // own token. A delivery the router served never reaches these listeners (it does not call next), so they cost the
  // other kinds nothing. Acked by readRequest, like every other request: first, before any work.
  for (const row of STEPS) {
    app.function(
      row.callbackId,
      { autoAcknowledge: false },
      ...asStepMiddleware(
        readRequest(ctx, 'step', ({ body }) => stepLogFields(row.callbackId, body)),
        checkNeeds(ctx, () => row.needs),
        runRow<StepArgs>(ctx, row),
      ),
    );
  }
}

/**
 * The middleware every listener runs behind, for a step: Bolt types a function_executed listener's arguments apart
 * from AnyMiddlewareArgs (its `ack` is a function, an event's is undefined), though they are the same event arguments.
 */
function asStepMiddleware(...middleware: ((args: never) => Promise<void>)[]): Middleware<SlackEventMiddlewareArgs<'function_executed'>>[] {
  return middleware as unknown as Middleware<SlackEventMiddlewareArgs<'function_executed'>>[];
}

/** The FUNCTIONS table's rows as listener rows: inputs read, the step run, the step ended. */
const STEPS = FUNCTIONS.map((row) => ({ callbackId: row.callbackId, ...stepListener(row) }));

/** A step's log fields: which step, and the ids of its execution and its workflow's (what the workflow's activity shows), never its token. */
function stepLogFields(callbackId: string, body: unknown): Record<string, unknown> {
  const event = (body as { event?: { function_execution_id?: unknown; workflow_execution_id?: unknown } }).event;
  return { step: callbackId, function_execution_id: event?.function_execution_id, workflow_execution_id: event?.workflow_execution_id };
}

/** A kind of delivery served from a table: the row the delivery names, behind readRequest and checkNeeds. */
function tableRoute<A extends AllMiddlewareArgs, Row extends ListenerRow<A>>(spec: {
  kind: 'action' | 'shortcut' | 'event' | 'submission';
  isKind: (args: Args) => boolean;
  rows: readonly Row[];
  /** Whether the row is the one the delivery names (a handful of rows: a walk costs less than a key built to look one up). */
  matches: (row: Row, args: A) => boolean;
  /** What the request's log line says of the row. */
  fields: (args: A, row: Row) => Record<string, unknown>;
  ctx: ListenerContext;
}): Route {
  const { ctx } = spec;
  // Bolt types some kinds' arguments apart from AnyMiddlewareArgs (a step's `ack` is a function, an event's is not),
  // though every kind's are the arguments of one delivery: `isKind` has said which these are.
  const asKind = (args: Args) => args as unknown as A;
  const rowOf = (args: Args) => spec.rows.find((row) => spec.matches(row, asKind(args)));
  // Found when routing, so the steps after it may count on it.
  const row = (args: A | Args) => rowOf(args as Args) as Row;
  return {
    serves: (args) => spec.isKind(args) && rowOf(args) !== undefined,
    steps: [
      readRequest(ctx, spec.kind, (args) => spec.fields(asKind(args), row(args))),
      checkNeeds(ctx, (args) => row(args).needs),
      runRow<A>(ctx, {
        run: (ctx, req, args) => row(args).run(ctx, req, args),
        unready: async (ctx, args) => row(args).unready?.(ctx, args),
      }) as unknown as Step,
    ],
  };
}

/**
 * Runs middleware-shaped steps in order, as Bolt runs a listener's: each gets the arguments, whose `next` runs the one
 * after it. One copy of the arguments for the whole route (Bolt makes one per step): each step calls `next` once at
 * most, after which the copy's `next` moves on to the step after it.
 */
function runSteps(steps: readonly Step[], args: Args): Promise<void> {
  const own = { ...args };
  let at = -1;
  own.next = () => {
    at += 1;
    const step = steps[at];
    return step ? step(own) : Promise.resolve();
  };
  return own.next();
}
