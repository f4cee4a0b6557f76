import { FORMS, openedAs } from '../../blocks/change-forms';
import { NOTHING_DONE_TEXT } from '../../blocks/change-outcome';
import { statusModal } from '../../blocks/status-modal';
import { DENY_FORM_TITLE, DENY_REASON_CALLBACK_ID } from '../../blocks/approvals';
import { denySubmission } from '../actions/approval';
import type { ListenerRow } from '../listener';
import { submitChangeForm, type SubmissionArgs } from './submission';

// The table of view submissions: each change form's, run through the change
// door, and the deny form of an approval request. The door checks the role and
// the channel with what the form names (and the change it chose), so the row
// asks nothing beforehand.

export interface ViewRow extends ListenerRow<SubmissionArgs> {
  callbackId: string;
}

export const VIEWS: readonly ViewRow[] = [
  ...FORMS.map((form): ViewRow => ({
    callbackId: form.callbackId,
    // Counted as a change attempt (the needs middleware asks nothing more of a submission).
    needs: { need: { submits: openedAs(form) }, title: form.title },
    run: (ctx, req, args) => submitChangeForm(ctx, req, form, args),
    unready: (ctx, { ack }) => ack({ response_action: 'update', view: statusModal({ title: form.title, mrkdwn: NOTHING_DONE_TEXT, sandbox: ctx.sandbox }) }),
  })),
  // Deny's form, a change attempt: the door checks the one who submits it again and rejects the request with its reason.
  {
    callbackId: DENY_REASON_CALLBACK_ID,
    needs: { need: 'change_attempt', title: DENY_FORM_TITLE },
    run: denySubmission,
    unready: (ctx, { ack }) =>
      ack({ response_action: 'update', view: statusModal({ title: DENY_FORM_TITLE, mrkdwn: NOTHING_DONE_TEXT, sandbox: ctx.sandbox }) }),
  },
];
