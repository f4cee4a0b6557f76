import { isChangeAction, neededFor, OUTCOME_SIGNS, targetTitle, type ChangeResult, type Target } from '../../changes';
import { requestedText } from './approvals';
import { appliedUnreadableText } from './changes';
import { changeFailureMessage } from './cloud-errors';
import { denialText } from './denials';
import { markSandbox, safe, section, type Rendered } from './mrkdwn';
import { lockedText, unfitText } from './power';
import { CHANGES_UNRECORDABLE } from './messages';

// What the form's window says once a submission has an outcome, as mrkdwn for
// statusModal, each with its outcome's sign (docs/product.md, One outcome, told
// the same everywhere: accepted is scheduled, never done); and the words of the
// moments in between.

/**
 * What the door answered, or why it could not: `unrecorded`, the store could
 * not be reached before anything was sent, so nothing was changed;
 * `not_recorded`, the change was sent to the cloud API but its outcome could
 * not be written; `crashed`, anything else.
 */
export type SubmissionOutcome<T> = ChangeResult<T> | { outcome: 'crashed' } | { outcome: 'unrecorded' } | { outcome: 'not_recorded' };

/** docs/product.md, Errors the user sees: the audit store is unreachable. */
export const UNRECORDED_TEXT = `${OUTCOME_SIGNS.refused} ${CHANGES_UNRECORDABLE}`;

/** A form that could not be run at all (a wiring fault of ours, found before the door was asked). */
export const NOTHING_DONE_TEXT =
  `${OUTCOME_SIGNS.refused} Something went wrong on our side before anything was done; nothing was changed. ` +
  'Try again, and tell the bot operator if it repeats.';

export const WORKING_TEXT =
  `${OUTCOME_SIGNS.running} Working on it: the cloud API is taking a while.` +
  ' This window shows the outcome when it answers; ' +
  'a result is also posted in the channel, and if this window is closed by then, a failure is sent to you there.';

/** The outcome told in the channel, to the submitter only, when the form's window was closed before it came. */
export function renderOutcomeNotice(mrkdwn: string, sandbox: boolean): Rendered {
  return markSandbox({ text: mrkdwn, blocks: [section(mrkdwn)] }, sandbox);
}

export function changeOutcomeText<T>(r: SubmissionOutcome<T>, o: { target: Target; timeoutMs: number }): string {
  switch (r.outcome) {
    case 'succeeded':
      // docs/product.md, Following a change to its end: accepted is scheduled, never "done".
      return r.followed
        ? `${OUTCOME_SIGNS.scheduled} *Scheduled*: the cloud accepted the change and has not started it yet. Its message in the channel follows it to its end.`
        : `${OUTCOME_SIGNS.scheduled} *Scheduled*: the cloud accepted the change and has not started it yet. Its message is posted in the channel.`;
    case 'denied':
      return `${OUTCOME_SIGNS.refused} ${denialText(r.decision)}\nNothing was changed.`;
    case 'busy':
      // Locked by the cloud's own transaction, or by another change of ours.
      if (r.transaction !== undefined) return `${OUTCOME_SIGNS.refused} ${lockedText(o.target.id, r.transaction)}`;
      return `${OUTCOME_SIGNS.refused} ${busyText(o.target)}\nNothing was changed. Run the command again when it has finished.`;
    case 'unfit':
      return `${OUTCOME_SIGNS.refused} ${unfitText(o.target.id, r.action, r.state)}`;
    case 'failed':
      return `${OUTCOME_SIGNS.failed} *Failed*: ${safe(changeFailureMessage(r.error, r.about ?? o.target, o.timeoutMs), 2500)}`;
    case 'invalid':
      return `${OUTCOME_SIGNS.refused} The form had errors: ${safe(
        Object.entries(r.fieldErrors)
          .map(([f, m]) => `${f}: ${m}`)
          .join('; '),
        2000,
      )}. Nothing was changed; run the command again.`;
    case 'applied_unreadable':
      // Not done: whether the cloud finished it is not known (docs/product.md, One outcome: ✅ is done's alone).
      return `${OUTCOME_SIGNS.unknown} *Unknown*: ${appliedUnreadableText(o.target, r.error.status)} The result is posted in the channel.`;
    case 'duplicate':
      return 'This form was already submitted; its result is posted in the channel.';
    case 'requested': {
      const { approval } = r;
      return requestedText({
        channelId: approval.channelId,
        expiresAtMs: approval.expiresAtMs,
        needed: isChangeAction(approval.action) ? neededFor(approval.action, approval.params) : 'admin',
      });
    }
    case 'unrecorded':
      return UNRECORDED_TEXT;
    case 'not_recorded':
      return (
        `${OUTCOME_SIGNS.unknown} *Unknown*: the change was sent to the cloud API, but its outcome could not be recorded, ` +
        'so it may or may not have been applied. ' +
        `Check ${targetTitle(o.target)} and \`/vs audit\` before trying again.`
      );
    case 'crashed':
      return (
        `${OUTCOME_SIGNS.unknown} Something went wrong on our side; the attempt is recorded in the audit trail. ` +
        'Check the channel and the audit trail before trying again.'
      );
  }
}

export function busyText(target: Target): string {
  return `Another change to ${targetTitle(target)} is in progress; wait until it has finished.`;
}

/** API messages that name no field of the form: said about the whole form (Slack shows them under its first input). */
export function formLevelError(messages: readonly string[]): string {
  return `The cloud API refused the request: ${messages.join('; ')}`;
}
