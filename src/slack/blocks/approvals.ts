import type { Button, KnownBlock, RichTextBlock } from '@slack/types';
import type { ApprovedRun, Role, Target } from '../../changes';
import { isOutcomeNotRecorded, targetTitle } from '../../changes';
import { isStoreUnavailable } from '../../store';
import type { Approval, RecordedRequest } from '../../store';
import { appliedUnreadableText } from './changes';
import { changeFailureMessage } from './cloud-errors';
import {
  channelMention,
  code,
  context,
  escapeMrkdwn,
  fallback,
  oneLine,
  type Rendered,
  safe,
  section,
  slackTime,
  truncate,
  unrecordable,
  userMention,
  withSandbox,
} from './mrkdwn';
import { lockedText, unfitText } from './power';

// The approval request (docs/product.md, Approvals), posted in the channel the
// change was asked from and updated in place by whichever instance settles
// it: who asks, for what, why, until when, and the exact API request, with
// Approve (behind Slack's confirmation dialog) and Deny buttons whose value is
// the request's id. The request is shown as preformatted rich text, which
// Slack displays as it is: no escaping, no markup, so what is shown is what
// is sent, byte for byte.

export const APPROVE_ACTION_ID = 'approval_approve';
export const DENY_ACTION_ID = 'approval_deny';

/** The request text shown is bounded; a longer body is cut and says so (the audit keeps it whole). */
export const MAX_SHOWN_REQUEST = 2800;

export interface ApprovalFacts {
  approval: Approval;
  /** What the change is called, e.g. "Restore backup" (its row of CHANGE_FORMS). */
  title: string;
  target: Target;
  /** The role a decider must hold. */
  needed: Role;
  sandbox: boolean;
}

/** How a request ended: approved (and how its change went), rejected, or expired. */
export type ApprovalEnd = { kind: 'approved'; run: ApprovedRun; timeoutMs: number } | { kind: 'rejected' } | { kind: 'expired' };

/** The request as it goes on the wire: its line, then its body. */
export function requestText(request: RecordedRequest): string {
  const text = `${request.method} ${request.path}${request.body === null ? '' : `\n\n${request.body}`}`;
  return text.length > MAX_SHOWN_REQUEST ? `${text.slice(0, MAX_SHOWN_REQUEST)}\n… (cut here; the audit record keeps it whole)` : text;
}

/** The request as preformatted rich text: shown as it is, byte for byte. */
export function requestBlock(request: RecordedRequest): RichTextBlock {
  return { type: 'rich_text', elements: [{ type: 'rich_text_preformatted', elements: [{ type: 'text', text: requestText(request) }] }] };
}

/** Who asks, for what and why; a workflow's request nobody claimed has no one who asks but the workflow. */
export function asked(f: ApprovalFacts): string {
  const { approval } = f;
  const why = approval.reason ? `“${safe(oneLine(approval.reason), 500)}”` : '_no reason given_';
  const who = approval.requestedBy === '' ? 'A workflow' : userMention(approval.requestedBy);
  return `${who} asks to *${safe(f.title, 40)}* · ${safe(targetTitle(f.target), 40)}\n*Why:* ${why}`;
}

/** For a workflow's request: the workflow's execution, as Slack's workflow activity shows it. */
export function fromWorkflow(approval: Approval): string {
  return approval.workflowExecutionId ? ` Asked for by workflow ${code(approval.workflowExecutionId, 40)}.` : '';
}

/** Approve (behind Slack's confirmation dialog) and Deny, their value the request's id: on its message and on the Home tab. */
export function approvalButtons(f: ApprovalFacts): Button[] {
  const { approval } = f;
  const approve: Button = {
    type: 'button',
    action_id: APPROVE_ACTION_ID,
    text: { type: 'plain_text', text: 'Approve' },
    style: 'primary',
    value: approval.id,
    confirm: {
      title: { type: 'plain_text', text: `Approve: ${truncate(f.title, 80)}?` },
      text: { type: 'mrkdwn', text: truncate(`The bot sends the request shown, now, for ${userMention(approval.requestedBy)}. This cannot be undone.`, 300) },
      confirm: { type: 'plain_text', text: 'Approve' },
      deny: { type: 'plain_text', text: 'Cancel' },
      style: 'primary',
    },
  };
  const deny: Button = { type: 'button', action_id: DENY_ACTION_ID, text: { type: 'plain_text', text: 'Deny' }, style: 'danger', value: approval.id };
  return [approve, deny];
}

/** The open request, with its buttons. */
export function renderApprovalRequest(f: ApprovalFacts): Rendered {
  const { approval } = f;
  const line = `${approval.apiRequest.method} ${approval.apiRequest.path}`;
  const blocks: KnownBlock[] = [
    section(`:raised_hand: *Approval needed* · ${asked(f)}\n*Open until:* ${slackTime(approval.expiresAtMs)}`),
    section('*The exact request the bot will send to the cloud API:*'),
    requestBlock(approval.apiRequest),
    { type: 'actions', block_id: 'approval', elements: approvalButtons(f) },
    context(
      `A second person with the ${f.needed} role decides, not ${userMention(approval.requestedBy)}. Request ${code(approval.id, 40)}.${fromWorkflow(approval)}`,
    ),
  ];
  const who = approval.requestedBy === '' ? 'a workflow' : userMention(approval.requestedBy);
  return {
    text: fallback(`Approval needed: ${who} asks to ${f.title} · ${targetTitle(f.target)} (${escapeMrkdwn(oneLine(line))})`, f.sandbox),
    blocks: withSandbox(blocks, f.sandbox),
  };
}

/** The request once settled: the same facts, no buttons, and how it ended. */
export function renderApprovalEnded(f: ApprovalFacts, end: ApprovalEnd): Rendered {
  const { approval } = f;
  const line = endLine(f, end);
  const blocks: KnownBlock[] = [
    section(`${line}\n${asked(f)}`),
    section('*The request:*'),
    requestBlock(approval.apiRequest),
    context(
      `Asked ${slackTime(Date.parse(approval.requestedAt))} · request ${code(approval.id, 40)}` +
        (approval.workflowExecutionId ? ` · workflow ${code(approval.workflowExecutionId, 40)}` : ''),
    ),
  ];
  return { text: fallback(`${plain(line)} (${f.title} · ${targetTitle(f.target)})`, f.sandbox), blocks: withSandbox(blocks, f.sandbox) };
}

function endLine(f: ApprovalFacts, end: ApprovalEnd): string {
  const by = f.approval.decidedBy ? userMention(f.approval.decidedBy) : 'someone';
  switch (end.kind) {
    case 'rejected':
      return `:no_entry: *Denied* by ${by}. Nothing was changed.`;
    case 'expired':
      return f.approval.requestedBy === ''
        ? `:hourglass: *Expired*: nobody claimed it before ${slackTime(f.approval.expiresAtMs)}. Nothing was changed.`
        : `:hourglass: *Expired*: nobody decided before ${slackTime(f.approval.expiresAtMs)}. Nothing was changed.`;
    case 'approved':
      return `${approvedLine(f, end.run, end.timeoutMs, by)}`;
  }
}

function approvedLine(f: ApprovalFacts, run: ApprovedRun, timeoutMs: number, by: string): string {
  const approved = `*Approved* by ${by}`;
  switch (run.outcome) {
    case 'succeeded':
      // Scheduled, never "done": the message is followed to its end from here (src/slack/follow-messages.ts).
      return `:hourglass: ${approved} · scheduled: ${safe(oneLine(run.record.detail ?? 'the cloud API accepted it'), 600)}`;
    case 'failed':
      return `:x: ${approved}, but it failed: ${safe(changeFailureMessage(run.error, f.target, timeoutMs), 2000)}`;
    case 'applied_unreadable':
      return `:warning: ${approved} · applied: ${safe(appliedUnreadableText(f.target, run.error.status), 600)}`;
    case 'busy':
      if (run.transaction !== undefined) return `:warning: ${approved}, but not sent. ${lockedText(f.target.id, run.transaction)}`;
      return `:warning: ${approved}, but another change to ${safe(targetTitle(f.target), 40)} was in progress. Nothing was changed; ask again later.`;
    case 'unfit':
      return `:warning: ${approved}, but not sent: ${unfitText(f.target.id, run.action, run.state)}`;
    case 'duplicate':
      return `:information_source: ${approved}; it had already been run (see \`/vs audit\`).`;
    case 'not_sent':
      return (
        `:x: ${approved}, but not sent: ` +
        (run.current
          ? `the bot would now send ${code(`${run.current.method} ${run.current.path}`, 200)} instead of the request approved (its configuration changed)`
          : 'the approved request could not be read back') +
        '. Nothing was changed; ask again.'
      );
    case 'error':
      if (isOutcomeNotRecorded(run.error))
        return (
          `:warning: ${approved}; the change was sent to the cloud API, but its outcome could not be recorded, so it may or may not have been applied. ` +
          `Check ${safe(targetTitle(f.target), 40)} and \`/vs audit\`.`
        );
      if (isStoreUnavailable(run.error))
        return `:x: ${approved}, but it could not be run: the audit store is unreachable, so nothing was changed. Ask again in a few minutes.`;
      return `:x: ${approved}, but something went wrong on our side running it. Check ${safe(targetTitle(f.target), 40)} and \`/vs audit\` before retrying.`;
  }
}

/** The fallback text of a line: mrkdwn's marks and tokens left out. */
export function plain(mrkdwn: string): string {
  return mrkdwn
    .replace(/:[a-z_]+: /g, '')
    .replace(/<!date\^\d+\^[^|]*\|([^>]*)>/g, '$1')
    .replace(/\*/g, '');
}

/** Told to a later clicker: the request was already decided, or expired. */
export function renderApprovalClosed(approval: Approval): Rendered {
  const by = approval.decidedBy ? userMention(approval.decidedBy) : 'someone';
  const at = approval.decidedAt ? ` ${slackTime(Date.parse(approval.decidedAt))}` : '';
  const text =
    approval.status === 'expired'
      ? `This request expired ${slackTime(approval.expiresAtMs)}: nobody decided it. Nothing was changed; ask again if it is still needed.`
      : `This request was already ${approval.status === 'approved' ? 'approved' : 'denied'} by ${by}${at}.`;
  return { text: fallback(plain(text)), blocks: [section(`:information_source: ${text}`)] };
}

export const APPROVAL_UNKNOWN = 'This approval request is not known (it may be older than the audit retention). Nothing was changed.';

/** What the form's window says once its change waits for a second person. */
export function requestedText(o: { channelId: string; expiresAtMs: number; needed: Role }): string {
  return (
    `:hourglass_flowing_sand: Sent for approval in ${channelMention(o.channelId)}: ` +
    `a second person with the ${o.needed} role must approve it before ${slackTime(o.expiresAtMs)}. ` +
    'Nothing has been changed yet; the request there shows who decides and how it ends.'
  );
}

/** The request could not be posted in its channel: whoever asked is told, where the form was. */
export function requestNotPostedText(channelId: string): string {
  return (
    `:warning: The request for approval could not be posted in ${channelMention(channelId)} (is the bot a member? \`/invite\` it there). ` +
    'Nothing has been changed; the request expires unanswered. Ask again once the bot can post there.'
  );
}

/** The store could not be reached before anything was decided. */
export const DECISION_UNRECORDED = unrecordable('Nothing can be decided');
