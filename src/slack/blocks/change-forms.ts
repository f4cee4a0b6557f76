import type { ModalView } from '@slack/types';
import type { ChangeAction } from '../../changes';
import { BACKUP_RESTORED_WORDS, DISK_ADDED_WORDS } from './changes';
import type { FollowedWords } from './followed';
import { backupRestoreModal, diskAddModal } from './modals';

// The one table of change forms: what Slack is told of each change of
// src/changes (whose table says what the change is: its form's schema, its
// target, its cloud call, its audit text). A row is everything the Slack side
// needs to offer one change: the ids Slack knows it by, its words, its modal
// and the result posted to the channel. The command opens the modal, the
// global shortcut opens it without a target, the view submission runs it
// through the change door. The table is typed by ChangeAction, so a change
// without its row here does not compile; manifest.yml and the local page's
// shortcut menu are kept in step with it by test/slack/listeners/manifest.test.ts.

export interface ChangeFormModal {
  /** Undefined when opened from the global shortcut: the form then asks for it. */
  targetId?: number;
  /** Undefined when opened from the global shortcut: the form then asks for it. */
  channelId?: string;
  privateMetadata: string;
  sandbox: boolean;
}

export interface ChangeForm<A extends ChangeAction> {
  /** The modal's callback_id (docs/product.md, Modals): the change's action. */
  callbackId: A;
  /** The global shortcut that opens the form without a target (manifest.yml, the local page's menu). */
  shortcut: { callbackId: string; name: string; description: string };
  /** What the change is called in titles of status modals. */
  title: string;
  /** The change as the subject of a sentence: "Adding a disk needs the operator role". */
  doing: string;
  /** What `/vs whoami` says a role that may make it may do (where, if restricted, is added). */
  allows: string;
  modal(o: ChangeFormModal): ModalView;
  /**
   * An input present in every variant of the form, under which messages about
   * the whole form are shown when the submitted view does not list its blocks
   * (the first input is used when it does): Slack attaches modal errors to
   * inputs only.
   */
  formErrorBlock: string;
  /** Its result posted to the channel, followed to its end (src/slack/blocks/followed.ts): what was asked, what done means. */
  followed: FollowedWords;
}

export const CHANGE_FORMS: { readonly [A in ChangeAction]: ChangeForm<A> } = {
  disk_add: {
    callbackId: 'disk_add',
    shortcut: { callbackId: 'disk_add_shortcut', name: 'Add a disk to a server', description: 'Opens the add-disk form (operators and admins)' },
    title: 'Add disk',
    doing: 'Adding a disk',
    allows: 'add a disk to a server',
    modal: ({ targetId, ...rest }) => diskAddModal({ vsId: targetId, ...rest }),
    formErrorBlock: 'disk_type',
    followed: DISK_ADDED_WORDS,
  },
  backup_restore: {
    callbackId: 'backup_restore',
    shortcut: { callbackId: 'backup_restore_shortcut', name: 'Restore a backup', description: 'Opens the restore form (admins)' },
    title: 'Restore backup',
    doing: 'Restoring a backup',
    allows: 'restore a disk from a backup',
    modal: ({ targetId, ...rest }) => backupRestoreModal({ backupId: targetId, ...rest }),
    formErrorBlock: 'confirm',
    followed: BACKUP_RESTORED_WORDS,
  },
};
