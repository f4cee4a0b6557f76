import type { App, BlockButtonAction, Middleware, SlackEventMiddlewareArgs } from '@slack/bolt';
import type { ListenerContext } from '../context';
import { checkNeeds } from '../middleware/needs';
import { readRequest } from '../middleware/request';
import { ACTIONS } from './actions';
import { commandOf, parseVsCommand } from './commands';
import { EVENTS } from './events';
import { FUNCTIONS } from './functions';
import { stepListener, type StepArgs } from './functions/step';
import { runRow } from './listener';
import { SHORTCUTS } from './shortcuts';
import { VIEWS } from './views';

// Every listener, registered from the tables that declare them, by kind:
//   `/vs` subcommands   commands/index.ts (COMMANDS): one listener reads the line and runs its row
//   buttons             actions/index.ts (ACTIONS)
//   global shortcuts    shortcuts/index.ts (SHORTCUTS): one per change form of blocks/change-forms.ts
//   form submissions    views/index.ts (VIEWS): one per change form
//   Events API events   events/index.ts (EVENTS): one per event type
//   workflow steps      functions/index.ts (FUNCTIONS): one per custom step (function_executed, by callback id)
// Each runs behind the same two middleware: readRequest (ack, the request
// object, child logger, one log line) and checkNeeds (what its row needs).

export function registerListeners(app: App, ctx: ListenerContext): void {
  app.command(
    '/vs',
    parseVsCommand,
    readRequest(ctx, 'command', ({ context }) => ({ subcommand: commandOf(context).command.kind })),
    checkNeeds(ctx, ({ context }) => commandOf(context).need),
    runRow(ctx, { run: (ctx, req, { context }) => commandOf(context).run(ctx, req) }),
  );

  for (const row of ACTIONS) {
    app.action<BlockButtonAction>(
      { type: 'block_actions', action_id: row.actionId },
      readRequest(ctx, 'action', (args) => ({ action_id: 'action' in args ? (args.action as { action_id?: string }).action_id : undefined })),
      checkNeeds(ctx, () => row.needs),
      runRow(ctx, row),
    );
  }

  for (const row of SHORTCUTS) {
    app.shortcut(
      row.callbackId,
      readRequest(ctx, 'shortcut', () => ({ shortcut: row.callbackId })),
      checkNeeds(ctx, () => row.needs),
      runRow(ctx, row),
    );
  }

  for (const row of EVENTS) {
    app.event(
      row.event,
      readRequest(ctx, 'event', () => ({ event: row.event })),
      checkNeeds(ctx, () => row.needs),
      runRow(ctx, row),
    );
  }

  for (const row of FUNCTIONS) {
    const step = stepListener(row);
    app.function(
      row.callbackId,
      // Acked by readRequest, like every other request: first, before any work.
      { autoAcknowledge: false },
      ...asStepMiddleware(
        readRequest(ctx, 'step', ({ body }) => stepLogFields(row.callbackId, body)),
        checkNeeds(ctx, () => step.needs),
        runRow<StepArgs>(ctx, step),
      ),
    );
  }

  for (const row of VIEWS) {
    app.view(
      { callback_id: row.callbackId, type: 'view_submission' },
      readRequest(ctx, 'submission', () => ({ view: row.callbackId })),
      checkNeeds(ctx, () => row.needs),
      runRow(ctx, row),
    );
  }
}

/** A step's log fields: which step, and the ids of its execution and its workflow's (what the workflow's activity shows), never its token. */
function stepLogFields(callbackId: string, body: unknown): Record<string, unknown> {
  const event = (body as { event?: { function_execution_id?: unknown; workflow_execution_id?: unknown } }).event;
  return { step: callbackId, function_execution_id: event?.function_execution_id, workflow_execution_id: event?.workflow_execution_id };
}

/**
 * The middleware every listener runs behind, for a step: Bolt types a function_executed listener's arguments apart
 * from AnyMiddlewareArgs (its `ack` is a function, an event's is undefined), though they are the same event arguments.
 */
function asStepMiddleware(...middleware: ((args: never) => Promise<void>)[]): Middleware<SlackEventMiddlewareArgs<'function_executed'>>[] {
  return middleware as unknown as Middleware<SlackEventMiddlewareArgs<'function_executed'>>[];
}
