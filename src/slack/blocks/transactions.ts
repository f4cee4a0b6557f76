import type { TransactionStatus } from '../../cloud/schemas';
import { code } from './mrkdwn';

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

/** Each status as mrkdwn; a failed transaction stands out. */
export const TRANSACTION_STATUS_WORDS: Readonly<Record<TransactionStatus, string>> = {
  pending: ':hourglass: pending',
  running: ':hourglass_flowing_sand: running',
  complete: ':white_check_mark: complete',
  failed: ':x: *failed*',
  cancelled: ':white_circle: cancelled',
  unknown: ':grey_question: status unknown',
};
