import type { App, BlockButtonAction } from '@slack/bolt';
import type { ListenerContext } from '../context';
import { checkNeeds } from '../middleware/needs';
import { readRequest } from '../middleware/request';
import { ACTIONS } from './actions';
import { commandOf, parseVsCommand } from './commands';
import { EVENTS } from './events';
import { runRow } from './listener';
import { SHORTCUTS } from './shortcuts';
import { VIEWS } from './views';

// Every listener, registered from the tables that declare them, by kind:
//   `/vs` subcommands   commands/index.ts (COMMANDS): one listener reads the line and runs its row
//   buttons             actions/index.ts (ACTIONS)
//   global shortcuts    shortcuts/index.ts (SHORTCUTS): one per change form of blocks/change-forms.ts
//   form submissions    views/index.ts (VIEWS): one per change form
//   Events API events   events/index.ts (EVENTS): one per event type
// Workflow steps will be a table of their own, registered here the same way.
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

  for (const row of VIEWS) {
    app.view(
      { callback_id: row.callbackId, type: 'view_submission' },
      readRequest(ctx, 'submission', () => ({ view: row.callbackId })),
      checkNeeds(ctx, () => row.needs),
      runRow(ctx, row),
    );
  }
}
