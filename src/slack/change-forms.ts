import type { ModalView } from '@slack/types';
import { BACKUP_RESTORE, DISK_ADD, type ChangeDefinition, type FormValues } from '../changes';
import type { ChangeAction } from '../store';
import { renderBackupRestored, renderDiskAdded } from './blocks/changes';
import { backupRestoreModal, diskAddModal } from './blocks/modals';
import type { Rendered } from './blocks/mrkdwn';

// The one table of change forms. Each row is everything Slack needs to offer
// one change: the command opens its modal, the global shortcut opens it
// without a target, the view submission runs it through the change door
// (`change`: what it changes, how it is validated, which API call makes it)
// and the result is rendered for the channel. Adding a form: a definition in
// src/changes/definitions.ts, a modal in blocks/modals.ts, a row here, a
// `/vs` subcommand in listeners/commands/index.ts and the shortcut in
// manifest.yml. (Approvals will read the same rows.)

export interface ChangeFormModal {
  /** Undefined when opened from the global shortcut: the form then asks for it. */
  targetId?: number;
  /** Undefined when opened from the global shortcut: the form then asks for it. */
  channelId?: string;
  privateMetadata: string;
  sandbox: boolean;
}

export interface ChangeForm<T = unknown> {
  change: ChangeDefinition<never, T>;
  /** The modal's callback_id (PRODUCT.md). */
  callbackId: ChangeAction;
  /** The global shortcut's callback_id (manifest.yml). */
  shortcutId: string;
  /** What the change is called in titles of status modals. */
  title: string;
  modal(o: ChangeFormModal): ModalView;
  /**
   * An input present in every variant of the form, under which messages about
   * the whole form are shown when the submitted view does not list its blocks
   * (the first input is used when it does): Slack attaches modal errors to
   * inputs only.
   */
  formErrorBlock: string;
  /** The result posted to the channel. */
  renderResult(o: { value: T; targetId: number; userId: string; values: FormValues; sandbox: boolean }): Rendered;
}

const diskAdd: ChangeForm<import('../cloud/schemas').Disk> = {
  change: DISK_ADD as ChangeDefinition<never, import('../cloud/schemas').Disk>,
  callbackId: 'disk_add',
  shortcutId: 'disk_add_shortcut',
  title: 'Add disk',
  modal: ({ targetId, ...rest }) => diskAddModal({ vsId: targetId, ...rest }),
  formErrorBlock: 'disk_type',
  renderResult: ({ value, targetId, userId, sandbox }) => renderDiskAdded({ vsId: targetId, disk: value, user: userId, sandbox }),
};

const backupRestore: ChangeForm<import('../cloud/schemas').Backup> = {
  change: BACKUP_RESTORE as ChangeDefinition<never, import('../cloud/schemas').Backup>,
  callbackId: 'backup_restore',
  shortcutId: 'backup_restore_shortcut',
  title: 'Restore backup',
  modal: ({ targetId, ...rest }) => backupRestoreModal({ backupId: targetId, ...rest }),
  formErrorBlock: 'confirm',
  renderResult: ({ value, userId, values, sandbox }) =>
    renderBackupRestored({ backup: value, user: userId, reason: typeof values.reason === 'string' ? values.reason : null, sandbox }),
};

export const CHANGE_FORMS: { readonly [A in ChangeAction]: ChangeForm<never> } = {
  disk_add: diskAdd as ChangeForm<never>,
  backup_restore: backupRestore as ChangeForm<never>,
};
