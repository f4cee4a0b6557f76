import type { AllMiddlewareArgs, BlockButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { FORMS, homeFormButton, openedAs } from '../../blocks/change-forms';
import type { ListenerRow } from '../listener';
import { APPROVE_ACTION_ID, DENY_ACTION_ID, WITHDRAW_ACTION_ID } from '../../blocks/approvals';
import { CLAIM_ACTION_ID } from '../../blocks/workflow-requests';
import { openFormWithoutTarget } from '../open-form-without-target';
import { approveClick, denyClick, withdrawClick } from './approval';
import { AUDIT_DETAILS_ACTION_ID, AUDIT_PAGE_ACTION_IDS } from '../../blocks/audit';
import { auditPage } from './audit-page';
import { claimClick } from './claim';
import { EXPORTS } from './export';
import { firewallPage } from './firewall-page';
import { recordDetails } from './record-details';

// The table of buttons: a row per action_id (or pattern of them), with what
// pressing it needs and what runs it. To add a button: its renderer in
// blocks/, a row here, and its listener beside this file.

export type ButtonArgs = AllMiddlewareArgs & SlackActionMiddlewareArgs<BlockButtonAction>;

export interface ActionRow extends ListenerRow<ButtonArgs> {
  actionId: string | RegExp;
}

export const ACTIONS: readonly ActionRow[] = [
  { actionId: /^firewall_page_(prev|next)$/, needs: { need: 'read' }, run: firewallPage },
  { actionId: new RegExp(`^(${AUDIT_PAGE_ACTION_IDS.prev}|${AUDIT_PAGE_ACTION_IDS.next})$`), needs: { need: 'audit_read' }, run: auditPage },
  // Export CSV of each list: a read of that list, under its role and the per-person limit.
  ...EXPORTS,
  // A record's Details: admins see any; anyone else their own (the listener decides), a read counted against their limit.
  { actionId: AUDIT_DETAILS_ACTION_ID, needs: { need: 'everyone' }, run: recordDetails },
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
];
