import type {
  AllMiddlewareArgs,
  AnyMiddlewareArgs,
  App,
  BlockButtonAction,
  Context,
  Middleware,
  SlackCommandMiddlewareArgs,
  SlackEventMiddlewareArgs,
} from '@slack/bolt';
import type { ListenerContext, RequestKind } from '../context';
import { MiddlewareMissingError } from '../errors';
import { checkNeeds } from '../middleware/needs';
import { readRequest, type LogFields } from '../middleware/request';
import { ACTIONS, type ActionRow, type ButtonArgs } from './actions';
import { commandOf, parseVsCommand } from './commands';
import { EVENTS, type EventArgs, type EventRow } from './events';
import { FUNCTIONS } from './functions';
import { stepListener, type StepArgs } from './functions/step';
import { runRow, type ListenerRow } from './listener';
import { SHORTCUTS, type ShortcutArgs, type ShortcutRow } from './shortcuts';
import { VIEWS, type ViewRow } from './views';
import type { SubmissionArgs } from './views/submission';

// Every listener, registered with Bolt from the tables that declare them:
//   `/vs` subcommands   commands/index.ts (COMMANDS): served first, in Bolt's global middleware (below);
//                       parseVsCommand picks the row of the line
//   buttons             actions/index.ts (ACTIONS): app.action, for the action_ids of the table
//   global shortcuts    shortcuts/index.ts (SHORTCUTS): app.shortcut, for the callback_ids of the table
//   form submissions    views/index.ts (VIEWS): app.view, for the callback_ids of the table
//   Events API events   events/index.ts (EVENTS): app.event, for the event types of the table
//   workflow steps      functions/index.ts (FUNCTIONS): app.function, one per custom step (function_executed)
// Each runs behind the same two middleware: readRequest (ack, the request
// object, child logger, one log line) and checkNeeds (what its row needs).
//
// Bolt runs the middleware chain of every listener for every delivery (about
// 7 µs each on the loaded benchmark machine, docs/benchmark.md), so:
// - one Bolt listener per kind, not per row: Bolt matches the kind and the
//   table's ids (one pattern made of them, so a delivery no row names reaches
//   no listener), and `pickRow`, the kind's first middleware, finds the row
//   the ids name, as parseVsCommand does for `/vs`. What a delivery costs does
//   not grow with the tables.
// - `/vs`, what people send most and what the closed loop measures, is served
//   before Bolt's listener phase, so that it runs no other listener's chain:
//   its listener layer costs 28 µs there, 79 µs as one app.command beside the
//   other nine listeners. That is the one routing of ours, and it is one test.

export function registerListeners(app: App, ctx: ListenerContext): void {
  app.use(
    servedFirst(
      '/vs',
      parseVsCommand,
      readRequest(ctx, 'command', ({ context }) => ({ subcommand: commandOf(context).command.kind })),
      checkNeeds(ctx, ({ context }) => commandOf(context).need),
      runRow(ctx, { run: (ctx, req, { context }) => commandOf(context).run(ctx, req) }),
    ),
  );
  // Buttons of Block Kit (in a message, the Home tab or a modal), not of legacy attachments.
  app.action<BlockButtonAction>(
    { type: 'block_actions', action_id: anyOf(ACTIONS.map((row) => row.actionId)) },
    ...kind<ButtonArgs, ActionRow>(
      ctx,
      'action',
      ACTIONS,
      (row, { action }) => matches(row.actionId, action.action_id),
      ({ action }) => ({ action_id: action.action_id }),
    ),
  );
  // Global shortcuts only: a message shortcut of the same callback_id is another thing, which no row offers.
  app.shortcut(
    { type: 'shortcut', callback_id: anyOf(SHORTCUTS.map((row) => row.callbackId)) },
    ...kind<ShortcutArgs, ShortcutRow>(
      ctx,
      'shortcut',
      SHORTCUTS,
      (row, { shortcut }) => row.callbackId === shortcut.callback_id,
      ({ shortcut }) => ({ shortcut: shortcut.callback_id }),
    ),
  );
  app.view(
    { type: 'view_submission', callback_id: anyOf(VIEWS.map((row) => row.callbackId)) },
    ...kind<SubmissionArgs, ViewRow>(
      ctx,
      'submission',
      VIEWS,
      (row, { view }) => row.callbackId === view.callback_id,
      ({ view }) => ({ view: view.callback_id }),
    ),
  );
  app.event(
    anyOf(EVENTS.map((row) => row.event)),
    ...kind<EventArgs, EventRow>(
      ctx,
      'event',
      EVENTS,
      (row, { event }) => row.event === event.type,
      ({ event }) => ({ event: event.type }),
    ),
  );
  // complete() and fail() on the execution's own token come from app.function; the step is acked by readRequest,
  // first, like every other request, not by Bolt.
  for (const row of FUNCTIONS)
    app.function(
      row.callbackId,
      { autoAcknowledge: false },
      ...asStepMiddleware([
        readRequest(ctx, 'step', ({ body }) => stepLogFields(row.callbackId, body)),
        checkNeeds(ctx, () => row.needs),
        runRow<StepArgs>(ctx, stepListener(row)),
      ]),
    );
}

/**
 * The listener of one kind: the row the delivery names, then readRequest, checkNeeds with the row's needs, and the
 * row. Bolt gives the kind's middleware the arguments of the kind its registration matched (`A`).
 */
function kind<A extends AllMiddlewareArgs, Row extends ListenerRow<A>>(
  ctx: ListenerContext,
  requestKind: RequestKind,
  rows: readonly Row[],
  names: (row: Row, args: A) => boolean,
  fields: (args: A) => Record<string, unknown>,
) {
  const pickRow = async (args: A): Promise<void> => {
    const row = rows.find((candidate) => names(candidate, args));
    // Bolt matched one of the table's ids: a row names it.
    if (row === undefined) return;
    (args.context as { row?: Row }).row = row;
    await args.next();
  };
  return [
    pickRow,
    readRequest(ctx, requestKind, fields as unknown as LogFields),
    checkNeeds(ctx, ({ context }) => rowOf<Row>(context).needs),
    runRow<A>(ctx, {
      run: (ctx, req, args) => rowOf<Row>(args.context).run(ctx, req, args),
      unready: async (ctx, args) => (args.context as { row?: Row }).row?.unready?.(ctx, args),
    }),
  ] as const;
}

/**
 * A global middleware that serves one slash command with `middleware` as Bolt runs a listener's (each step's `next`
 * runs the one after it), and passes every other delivery on to Bolt. Served, the command goes no further: Bolt's
 * listener phase, and every listener's chain, is not run for it. One copy of the arguments for all the steps (Bolt
 * makes one per step); each step calls `next` once at most.
 */
function servedFirst(command: string, ...middleware: ((args: CommandArgs) => Promise<void>)[]): Middleware<AnyMiddlewareArgs> {
  return async (args) => {
    if (!('command' in args) || args.command?.command !== command) return args.next();
    const own = { ...args } as CommandArgs;
    let at = -1;
    own.next = () => {
      at += 1;
      const step = middleware[at];
      return step ? step(own) : Promise.resolve();
    };
    await own.next();
  };
}

type CommandArgs = SlackCommandMiddlewareArgs & AllMiddlewareArgs;

/** The row pickRow found; throws a coded error when it did not run. */
function rowOf<Row>(context: Context): Row {
  const row = (context as { row?: Row }).row;
  if (row === undefined) throw new MiddlewareMissingError('pickRow');
  return row;
}

/** Whether an id is one a row's id (or pattern) names, as Bolt matches it. */
function matches(id: string | RegExp, candidate: string): boolean {
  return typeof id === 'string' ? id === candidate : id.test(candidate);
}

/** One pattern for a table's ids (each id whole; a pattern as it is): Bolt's constraint for the kind's listener. */
function anyOf(ids: readonly (string | RegExp)[]): RegExp {
  const escape = (id: string) => id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(ids.map((id) => (typeof id === 'string' ? `^${escape(id)}$` : `(?:${id.source})`)).join('|'));
}

/**
 * A step's middleware as app.function takes it: Bolt types a function_executed listener's arguments apart from
 * AnyMiddlewareArgs (its `ack` is a function, an event's is undefined), though they are the same event arguments.
 */
function asStepMiddleware(middleware: readonly unknown[]): Middleware<SlackEventMiddlewareArgs<'function_executed'>>[] {
  return middleware as Middleware<SlackEventMiddlewareArgs<'function_executed'>>[];
}

/** A step's log fields: which step, and the ids of its execution and its workflow's (what the workflow's activity shows), never its token. */
function stepLogFields(callbackId: string, body: unknown): Record<string, unknown> {
  const event = (body as { event?: { function_execution_id?: unknown; workflow_execution_id?: unknown } }).event;
  return { step: callbackId, function_execution_id: event?.function_execution_id, workflow_execution_id: event?.workflow_execution_id };
}
