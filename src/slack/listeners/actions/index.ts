import { FORMS, homeFormButton, openedAs } from '../../blocks/change-forms';
import type { ListenerRow } from '../listener';
import { APPROVE_ACTION_ID, DENY_ACTION_ID, WITHDRAW_ACTION_ID } from '../../blocks/approvals';
import { BACKUPS_PAGE_ACTION_IDS, RESTORE_BACKUP_ACTION_PREFIX } from '../../blocks/backups';
import { FIREWALL_PAGE_ACTION_IDS } from '../../blocks/firewall';
import { pagerActions } from '../../blocks/pages';
import { SERVER_CARD_ACTIONS } from '../../blocks/server-glance';
import { PICK_SERVER } from '../../blocks/names';
import { CLAIM_ACTION_ID } from '../../blocks/workflow-requests';
import { openFormWithoutTarget } from '../open-form-without-target';
import { approveClick, denyClick, withdrawClick } from './approval';
import { AUDIT_DETAILS_ACTION_ID, AUDIT_PAGE_ACTION_IDS } from '../../blocks/audit';
import { auditPage } from './audit-page';
import { backupsPage } from './backups-page';
import { claimClick } from './claim';
import { acknowledgeClick } from './break-glass-ack';
import { BREAKGLASS_ACK_ACTION_ID } from '../../blocks/break-glass';
import { commandOfButton } from './command-button';
import { restoreButton, restoreButtonNeeds } from './restore-button';
import { EXPORTS } from './export';
import { firewallPage } from './firewall-page';
import { RECORD_DETAILS_TITLE, recordDetails } from './record-details';
import { WATCH_SNOOZE_1H, WATCH_SNOOZE_4H, WATCH_UNWATCH } from '../../blocks/watch';
import { snoozeClick, unwatchClick } from './watch-buttons';

// The table of buttons: a row per action_id (or pattern of them), with what
// pressing it needs and what runs it. To add a button: its renderer in
// blocks/, a row here, and its listener beside this file.

import type { ButtonArgs } from './button-args';
export type { ButtonArgs };

export interface ActionRow extends ListenerRow<ButtonArgs> {
  actionId: string | RegExp;
}

export const ACTIONS: readonly ActionRow[] = [
  // Prev/Next of each paged list: a read of that list, under its role and the per-person limit.
  { actionId: pagerActions(FIREWALL_PAGE_ACTION_IDS), needs: { need: 'read' }, run: firewallPage },
  { actionId: pagerActions(BACKUPS_PAGE_ACTION_IDS), needs: { need: 'read' }, run: backupsPage },
  // A backup's Restore button in /vs backups: the restore form of its server with that backup picked.
  { actionId: new RegExp(`^${RESTORE_BACKUP_ACTION_PREFIX}[0-9]+$`), needs: restoreButtonNeeds, run: restoreButton },
  // The server card's buttons: each runs the `/vs` command its value names, checked as that command is.
  { actionId: SERVER_CARD_ACTIONS, needs: (args) => commandOfButton(args).need, run: (ctx, req, args) => commandOfButton(args).run(ctx, req) },
  // One of several servers a name matched: the same command on the server picked, read and checked as if typed.
  { actionId: PICK_SERVER, needs: (args) => commandOfButton(args).need, run: (ctx, req, args) => commandOfButton(args).run(ctx, req) },
  { actionId: pagerActions(AUDIT_PAGE_ACTION_IDS), needs: { need: 'audit_read' }, run: auditPage },
  // Export CSV of each list: a read of that list, under its role and the per-person limit.
  ...EXPORTS,
  // A record's Details: admins see any; anyone else their own (the listener decides), a read counted against their limit.
  { actionId: AUDIT_DETAILS_ACTION_ID, needs: { need: 'counted_read', title: RECORD_DETAILS_TITLE }, run: recordDetails },
  // The Home tab's buttons open each change's form as its global shortcut does, checked as the shortcut is.
  ...FORMS.map((form): ActionRow => ({
    actionId: homeFormButton(form),
    needs: { need: { opens: openedAs(form) }, target: 'home', title: form.title, channelChosenLater: true },
    run: (ctx, req) => openFormWithoutTarget(ctx, req, form),
  })),
  // An approval request's buttons, change attempts: the door checks the clicker (role now, not the requester, the
  // request's channel, the freeze; Withdraw: the requester alone) and records a refusal. Deny opens the form that asks why.
  { actionId: APPROVE_ACTION_ID, needs: { need: 'change_attempt' }, run: approveClick },
  { actionId: DENY_ACTION_ID, needs: { need: 'change_attempt' }, run: denyClick },
  { actionId: WITHDRAW_ACTION_ID, needs: { need: 'change_attempt' }, run: withdrawClick },
  // A workflow's request, a change attempt: the door checks the clicker (the role the change needs now, the request's channel, the freeze).
  { actionId: CLAIM_ACTION_ID, needs: { need: 'change_attempt' }, run: claimClick },
  // A change made under break glass, acknowledged: a change attempt; the door checks the clicker (an admin now, not
  // the one who made it) and records a refusal.
  { actionId: BREAKGLASS_ACK_ACTION_ID, needs: { need: 'change_attempt' }, run: acknowledgeClick },
  // A watch's buttons (a notification's Snooze and Unwatch, `/vs watches`' Unwatch): change attempts, then the operator role
  // (admin for the watch of every server), checked by the listener, which names who holds it.
  { actionId: WATCH_SNOOZE_1H, needs: { need: 'change_attempt' }, run: snoozeClick },
  { actionId: WATCH_SNOOZE_4H, needs: { need: 'change_attempt' }, run: snoozeClick },
  { actionId: WATCH_UNWATCH, needs: { need: 'change_attempt' }, run: unwatchClick },
];
