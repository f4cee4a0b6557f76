import type { App } from '@slack/bolt';
import { backupRestoreModal, diskAddModal } from '../../blocks/modals';
import type { ListenerContext } from '../../context';
import { openFromShortcut } from './open-from-shortcut';

/** Callback ids of the global shortcuts in manifest.yml. */
export const SHORTCUT_IDS = { diskAdd: 'disk_add_shortcut', backupRestore: 'backup_restore_shortcut' } as const;

export function registerShortcuts(app: App, ctx: ListenerContext): void {
  app.shortcut(SHORTCUT_IDS.diskAdd, openFromShortcut(ctx, 'disk_add', (privateMetadata) => diskAddModal({ privateMetadata, sandbox: ctx.sandbox })));
  app.shortcut(SHORTCUT_IDS.backupRestore, openFromShortcut(ctx, 'backup_restore', (privateMetadata) => backupRestoreModal({ privateMetadata, sandbox: ctx.sandbox })));
}
