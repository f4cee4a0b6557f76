import type { App } from '@slack/bolt';
import type { ListenerContext } from '../context';
import { firewallPageCallback } from './actions/firewall-page';
import { vsCommandCallback } from './commands/vs';
import { registerShortcuts } from './shortcuts';
import { backupRestoreSubmissionCallback } from './views/backup-restore';
import { diskAddSubmissionCallback } from './views/disk-add';

export function registerListeners(app: App, ctx: ListenerContext): void {
  app.command('/vs', vsCommandCallback(ctx));
  app.action<import('@slack/bolt').BlockButtonAction>({ type: 'block_actions', action_id: /^firewall_page_(prev|next)$/ }, firewallPageCallback(ctx));
  app.view({ callback_id: 'disk_add', type: 'view_submission' }, diskAddSubmissionCallback(ctx));
  app.view({ callback_id: 'backup_restore', type: 'view_submission' }, backupRestoreSubmissionCallback(ctx));
  registerShortcuts(app, ctx);
}
