import type { AllMiddlewareArgs, AnyMiddlewareArgs, App, BlockButtonAction } from '@slack/bolt';
import type { ListenerContext } from '../context';
import { checkNeeds } from '../middleware/needs';
import { readRequest } from '../middleware/request';
import { ACTIONS, type ButtonArgs } from './actions';
import { commandOf, parseVsCommand } from './commands';
import { EVENTS, type EventArgs } from './events';
import { runRow, type ListenerRow } from './listener';
import { SHORTCUTS, type ShortcutArgs } from './shortcuts';
import { VIEWS } from './views';
import type { SubmissionArgs } from './views/submission';

// Every listener, registered from the tables that declare them, by kind:
//   `/vs` subcommands   commands/index.ts (COMMANDS): one listener reads the line and runs its row
//   buttons             actions/index.ts (ACTIONS)
//   global shortcuts    shortcuts/index.ts (SHORTCUTS): one per change form of blocks/change-forms.ts
//   form submissions    views/index.ts (VIEWS): one per change form
//   Events API events   events/index.ts (EVENTS): one per event type
// Workflow steps will be a table of their own, registered here the same way.
// Each runs behind the same two middleware: readRequest (ack, the request
// object, child logger, one log line) and checkNeeds (what its row needs).
//
// One Bolt listener per kind, which finds its row in the kind's table: Bolt
// runs the middleware of every listener for every delivery, so a listener per
// row cost each `/vs` command one more chain per row (about 7 µs each,
// docs/benchmark.md). A delivery no row names goes no further, as when no
// listener matched it.

type Args = AnyMiddlewareArgs & AllMiddlewareArgs;

export function registerListeners(app: App, ctx: ListenerContext): void {
  app.command(
    '/vs',
    parseVsCommand,
    readRequest(ctx, 'command', ({ context }) => ({ subcommand: commandOf(context).command.kind })),
    checkNeeds(ctx, ({ context }) => commandOf(context).need),
    runRow(ctx, { run: (ctx, req, { context }) => commandOf(context).run(ctx, req) }),
  );

  const actionRow = rowFinder<ButtonArgs, (typeof ACTIONS)[number]>(ACTIONS, (row, { action }) =>
    typeof row.actionId === 'string' ? row.actionId === action.action_id : row.actionId.test(action.action_id),
  );
  app.action<BlockButtonAction>(
    { type: 'block_actions' },
    onlyWithRow(actionRow),
    readRequest(ctx, 'action', (args) => ({ action_id: 'action' in args ? (args.action as { action_id?: string }).action_id : undefined })),
    checkNeeds(ctx, (args) => actionRow(args as ButtonArgs)!.needs),
    runRow(ctx, rowRunner(actionRow)),
  );

  const shortcutRow = rowFinder<ShortcutArgs, (typeof SHORTCUTS)[number]>(SHORTCUTS, (row, { shortcut }) => row.callbackId === shortcut.callback_id);
  app.shortcut(
    {},
    onlyWithRow(shortcutRow),
    readRequest(ctx, 'shortcut', (args) => ({ shortcut: shortcutRow(args as ShortcutArgs)!.callbackId })),
    checkNeeds(ctx, (args) => shortcutRow(args as ShortcutArgs)!.needs),
    runRow(ctx, rowRunner(shortcutRow)),
  );

  const eventRow = rowFinder<EventArgs, (typeof EVENTS)[number]>(EVENTS, (row, { event }) => row.event === event.type);
  app.event(
    new RegExp(`^(${EVENTS.map((row) => row.event).join('|')})$`),
    onlyWithRow(eventRow),
    readRequest(ctx, 'event', (args) => ({ event: eventRow(args as EventArgs)!.event })),
    checkNeeds(ctx, (args) => eventRow(args as EventArgs)!.needs),
    runRow(ctx, rowRunner(eventRow)),
  );

  const viewRow = rowFinder<SubmissionArgs, (typeof VIEWS)[number]>(VIEWS, (row, { view }) => row.callbackId === view.callback_id);
  app.view(
    { type: 'view_submission' },
    onlyWithRow(viewRow),
    readRequest(ctx, 'submission', (args) => ({ view: viewRow(args as SubmissionArgs)!.callbackId })),
    checkNeeds(ctx, (args) => viewRow(args as SubmissionArgs)!.needs),
    runRow(ctx, rowRunner(viewRow)),
  );
}

/** The row of `rows` this delivery is for (a handful of rows: a walk costs less than a key built to look one up), or undefined. */
function rowFinder<A, Row>(rows: readonly Row[], matches: (row: Row, args: A) => boolean): (args: A) => Row | undefined {
  return (args) => rows.find((row) => matches(row, args));
}

/** The first middleware of a kind's listener: a delivery no row of its table names goes no further. */
function onlyWithRow<A>(rowOf: (args: A) => unknown) {
  return async (args: Args): Promise<void> => {
    if (rowOf(args as A) !== undefined) await args.next();
  };
}

/** Runs the delivery's row, and answers as that row does when its middleware did not run. */
function rowRunner<A extends Args, Row extends ListenerRow<A>>(rowOf: (args: A) => Row | undefined): Pick<ListenerRow<A>, 'run' | 'unready'> {
  return {
    run: (ctx, req, args) => rowOf(args)!.run(ctx, req, args),
    unready: async (ctx, args) => rowOf(args)?.unready?.(ctx, args),
  };
}
