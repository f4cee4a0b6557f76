import { targetTitle } from '../../changes';
import type { TransactionStatus } from '../../cloud/schemas';
import type { FollowSubject } from '../../store';
import { code, oneLine, safe } from './mrkdwn';

// The cloud's transactions in words (docs/cloud-api.md, Transactions), in one
// place: what each action does and what each status means, for the server's
// card, a locked server's refusal and a followed change's progress.

/** What the cloud's transactions do; an action not listed is shown as the cloud names it. */
const TRANSACTION_ACTION_WORDS: Readonly<Record<string, string>> = {
  build_disk: 'building a disk',
  provisioning: 'provisioning the server',
  format_disk: 'formatting a disk',
  resize_disk: 'resizing a disk',
  update_fstab: 'updating the fstab',
  destroy_disk: 'removing a disk',
  startup_virtual_machine: 'starting the server',
  stop_virtual_machine: 'stopping the server',
  reboot_virtual_machine: 'rebooting the server',
  update_firewall: 'updating the firewall',
  rebuild_network: 'rebuilding the network',
  take_backup: 'taking a backup',
  take_incremental_backup: 'taking an incremental backup',
  restore_backup: 'restoring a backup',
  restore_incremental_backup: 'restoring an incremental backup',
};

/** A transaction's action in words, as mrkdwn: "taking an incremental backup", or the cloud's own name in code. */
export function transactionWords(action: string): string {
  return Object.hasOwn(TRANSACTION_ACTION_WORDS, action) ? TRANSACTION_ACTION_WORDS[action]! : code(action, 60);
}

/** The same without markup, for a line that may go anywhere (a workflow's output): the cloud's own name escaped. */
export function transactionText(action: string): string {
  return Object.hasOwn(TRANSACTION_ACTION_WORDS, action) ? TRANSACTION_ACTION_WORDS[action]! : safe(oneLine(action), 60);
}

/** What a change's transactions do to what they run on, as a verb: "building" disk 110. */
const TRANSACTION_STEP_VERBS: Readonly<Record<string, string>> = {
  build_disk: 'building',
  format_disk: 'formatting',
  resize_disk: 'resizing',
  update_fstab: 'updating the fstab for',
  destroy_disk: 'removing',
  startup_virtual_machine: 'starting',
  stop_virtual_machine: 'stopping',
  shutdown_virtual_machine: 'shutting down',
  reboot_virtual_machine: 'rebooting',
  restore_backup: 'restoring',
  restore_incremental_backup: 'restoring',
};

/** What a change's transactions run on (its parent), in words: "disk 110", "VS 42", "backup 15"; null for another kind. */
function parentWords(subject: Pick<FollowSubject, 'parentType' | 'parentId'>): string | null {
  switch (subject.parentType) {
    case 'Disk':
      return `disk ${subject.parentId}`;
    case 'VirtualMachine':
      return targetTitle({ kind: 'vs', id: subject.parentId });
    case 'Backup':
      return `backup ${subject.parentId}`;
    default:
      return null;
  }
}

/**
 * A step of a change in words, with what it ran on (docs/product.md, One outcome: "building disk 110 failed in the
 * cloud"), as mrkdwn; the action's words alone where the verb or its parent is not known.
 */
export function stepWords(action: string, subject: Pick<FollowSubject, 'parentType' | 'parentId'>): string {
  const verb = Object.hasOwn(TRANSACTION_STEP_VERBS, action) ? TRANSACTION_STEP_VERBS[action]! : null;
  const on = parentWords(subject);
  return verb && on ? `${verb} ${on}` : transactionWords(action);
}

/** The same without markup, for a line that may go anywhere (a notification's text). */
export function stepText(action: string, subject: Pick<FollowSubject, 'parentType' | 'parentId'>): string {
  const verb = Object.hasOwn(TRANSACTION_STEP_VERBS, action) ? TRANSACTION_STEP_VERBS[action]! : null;
  const on = parentWords(subject);
  return verb && on ? `${verb} ${on}` : transactionText(action);
}

/** Each status as mrkdwn; a failed transaction stands out. */
export const TRANSACTION_STATUS_WORDS: Readonly<Record<TransactionStatus, string>> = {
  pending: ':hourglass: pending',
  running: ':hourglass_flowing_sand: running',
  complete: ':white_check_mark: complete',
  failed: ':x: *failed*',
  cancelled: ':white_circle: cancelled',
  unknown: ':grey_question: status unknown',
};
