import type { AllMiddlewareArgs, App, BlockButtonAction, Middleware, SlackEventMiddlewareArgs } from '@slack/bolt';
import type { ListenerContext, RequestKind } from '../context';
import { checkNeeds } from '../middleware/needs';
import { readRequest, type LogFields } from '../middleware/request';
import { ACTIONS } from './actions';
import { commandOf, parseVsCommand } from './commands';
import { EVENTS } from './events';
import { FUNCTIONS } from './functions';
import { stepListener, type StepArgs } from './functions/step';
import { runRow, type ListenerRow } from './listener';
import { SHORTCUTS } from './shortcuts';
import { VIEWS } from './views';

// Every listener, registered with Bolt from the tables that declare them:
//   `/vs` subcommands   commands/index.ts (COMMANDS): app.command('/vs') reads the line, then runs its row
//   buttons             actions/index.ts (ACTIONS): app.action, by action_id (or a pattern of them)
//   global shortcuts    shortcuts/index.ts (SHORTCUTS): app.shortcut, one per change form of blocks/change-forms.ts
//   form submissions    views/index.ts (VIEWS): app.view, one per change form
//   Events API events   events/index.ts (EVENTS): app.event, one per event type
//   workflow steps      functions/index.ts (FUNCTIONS): app.function, one per custom step (function_executed)
// Each runs behind the same two listener middleware: readRequest (ack, the
// request object, child logger, one log line) and checkNeeds (what its row
// needs). A row's ids are its own: no delivery matches two rows
// (test/slack/listeners/routes.test.ts).

export function registerListeners(app: App, ctx: ListenerContext): void {
  app.command(
    '/vs',
    parseVsCommand,
    readRequest(ctx, 'command', ({ context }) => ({ subcommand: commandOf(context).command.kind })),
    checkNeeds(ctx, ({ context }) => commandOf(context).need),
    runRow(ctx, { run: (ctx, req, { context }) => commandOf(context).run(ctx, req) }),
  );
  // Buttons of Block Kit (in a message, the Home tab or a modal), not of legacy attachments.
  for (const row of ACTIONS)
    app.action<BlockButtonAction>(
      { type: 'block_actions', action_id: row.actionId },
      ...behind(ctx, 'action', row, ({ action }) => ({ action_id: action.action_id })),
    );
  // Global shortcuts only: a message shortcut of the same callback_id is another thing, which no row offers.
  for (const row of SHORTCUTS)
    app.shortcut({ type: 'shortcut', callback_id: row.callbackId }, ...behind(ctx, 'shortcut', row, () => ({ shortcut: row.callbackId })));
  for (const row of VIEWS)
    app.view({ type: 'view_submission', callback_id: row.callbackId }, ...behind(ctx, 'submission', row, () => ({ view: row.callbackId })));
  for (const row of EVENTS) app.event(row.event, ...behind(ctx, 'event', row, () => ({ event: row.event })));
  // complete() and fail() on the execution's own token come from app.function; the step is acked by readRequest,
  // first, like every other request, not by Bolt.
  for (const row of FUNCTIONS)
    app.function(
      row.callbackId,
      { autoAcknowledge: false },
      ...asStepMiddleware(behind(ctx, 'step', stepListener(row), ({ body }) => stepLogFields(row.callbackId, body))),
    );
}

/** A row's listener, behind the middleware every listener runs behind: readRequest, then checkNeeds with the row's needs. */
function behind<A extends AllMiddlewareArgs>(ctx: ListenerContext, kind: RequestKind, row: ListenerRow<A>, fields: (args: A) => Record<string, unknown>) {
  // Bolt gives a row's middleware the arguments of the kind its registration matched.
  return [readRequest(ctx, kind, fields as unknown as LogFields), checkNeeds(ctx, () => row.needs), runRow<A>(ctx, row)] as const;
}

/**
 * A step's middleware as app.function takes it: Bolt types a function_executed listener's arguments apart from
 * AnyMiddlewareArgs (its `ack` is a function, an event's is undefined), though they are the same event arguments.
 */
function asStepMiddleware(middleware: readonly unknown[]): Middleware<SlackEventMiddlewareArgs<'function_executed'>>[] {
  return middleware as Middleware<SlackEventMiddlewareArgs<'function_executed'>>[];
}

/** A step's log fields: which step, and the ids of its execution and its workflow's (what the workflow's activity shows), never its token. */
function stepLogFields(callbackId: string, body: StepArgs['body']): Record<string, unknown> {
  const event = (body as { event?: { function_execution_id?: unknown; workflow_execution_id?: unknown } }).event;
  return { step: callbackId, function_execution_id: event?.function_execution_id, workflow_execution_id: event?.workflow_execution_id };
}
