import type { App, BlockButtonAction } from '@slack/bolt';
import { CHANGE_FORMS } from '../change-forms';
import type { ListenerContext } from '../context';
import { checkNeeds } from '../middleware/needs';
import { readRequest } from '../middleware/request';
import { firewallPageCallback } from './actions/firewall-page';
import { commandNeeds } from './commands';
import { commandOf, parseVsCommand, vsCommandCallback } from './commands/vs';
import { openFromShortcutCallback } from './shortcuts/open-from-shortcut';
import { changeFormSubmissionCallback } from './views/submission';

// Every listener, registered from the tables that define them:
//   `/vs` subcommands        listeners/commands/index.ts (COMMANDS)
//   buttons                  ACTIONS below
//   change forms             ../change-forms.ts (CHANGE_FORMS): a shortcut and a view each
// Each runs behind the same two middleware: readRequest (ack, child logger,
// one log line) and checkNeeds (the role check the table declares).

/** Buttons: the action_id, what pressing it needs, and its listener. */
const ACTIONS = [{ actionId: /^firewall_page_(prev|next)$/, needs: 'read', callback: firewallPageCallback }] as const;

export function registerListeners(app: App, ctx: ListenerContext): void {
  app.command(
    '/vs',
    parseVsCommand,
    readRequest(ctx, 'command', ({ context }) => ({ subcommand: commandOf(context).kind })),
    checkNeeds(ctx, ({ context }) => commandNeeds(commandOf(context))),
    vsCommandCallback(ctx),
  );

  for (const row of ACTIONS) {
    app.action<BlockButtonAction>(
      { type: 'block_actions', action_id: row.actionId },
      readRequest(ctx, 'action', (args) => ({ action_id: 'action' in args ? (args.action as { action_id?: string }).action_id : undefined })),
      checkNeeds(ctx, () => ({ need: row.needs })),
      row.callback(ctx),
    );
  }

  for (const form of Object.values(CHANGE_FORMS)) {
    const action = form.change.action;
    app.shortcut(
      form.shortcutId,
      readRequest(ctx, 'shortcut', () => ({ shortcut: form.shortcutId })),
      checkNeeds(ctx, () => ({ need: { opens: action }, target: 'shortcut', title: form.title })),
      openFromShortcutCallback(ctx, form),
    );
    app.view(
      { callback_id: form.callbackId, type: 'view_submission' },
      readRequest(ctx, 'submission', () => ({ view: form.callbackId })),
      checkNeeds(ctx, () => ({ need: { submits: action } })),
      changeFormSubmissionCallback(ctx, form),
    );
  }
}
