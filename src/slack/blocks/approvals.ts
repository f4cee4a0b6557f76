import type { Button, InputBlock, KnownBlock, ModalView, RichTextBlock } from '@slack/types';
import type { ApprovedRun, Deciders, NotSent, Role, Target } from '../../changes';
import { isOutcomeNotRecorded, MAX_REASON_LENGTH, MAX_SHOWN_REQUEST, OUTCOME_SIGNS, restoreFactsIn, targetTitle } from '../../changes';
import { requestText } from '../../cloud/prepared';
import { isStoreUnavailable } from '../../store';
import type { Approval, ClosedStatus, RecordedRequest } from '../../store';
import { restoreConsequence, type Said } from './backups';
import { appliedUnreadableText } from './changes';
import { changeFailureMessage } from './cloud-errors';
import { frozenText } from './denials';
import {
  channelMention,
  code,
  context,
  escapeMrkdwn,
  fallback,
  groupMention,
  mrkdwn,
  oneLine,
  type Rendered,
  safe,
  preformattedBlock,
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
/** Deny opens the deny form (DENY_REASON_CALLBACK_ID), which asks why. */
export const DENY_ACTION_ID = 'approval_deny';
/** The requester's own button, while the request is open. */
export const WITHDRAW_ACTION_ID = 'approval_withdraw';
/** The deny form: its callback id, and its one input (optional), whose block id and action_id are both `reason`. */
export const DENY_REASON_CALLBACK_ID = 'approval_deny_reason';
export const DENY_REASON_INPUT = 'reason';
/** The deny form's title, and the title of what is said in its place. */
export const DENY_FORM_TITLE = 'Deny request';

export interface ApprovalFacts {
  approval: Approval;
  /** What the change is called, e.g. "Restore backup" (its row of CHANGE_FORMS). */
  title: string;
  target: Target;
  /** The role a decider must hold. */
  needed: Role;
  /** Who may decide it, mentioned on the open request so that they are notified (not on the Home tab). */
  deciders?: Deciders;
  /** How many of those who may decide it are not called on this one: called by workflow requests as often an hour as they may be. */
  uncalled?: number;
  /** An agent's request its owner may decide too (its action is not in VS_APPROVALS): said on the open request. */
  ownerDecides?: boolean;
  sandbox: boolean;
}

/** Who asked, as people read it: "agent `laptop` for @Ada" for an agent's request (docs/product.md, Agents ask, people decide). */
export function askedBy(approval: Pick<Approval, 'requestedBy' | 'agent'>): string {
  if (approval.requestedBy === '') return 'A workflow';
  return approval.agent ? `agent ${code(approval.agent, 32)} for ${userMention(approval.requestedBy)}` : userMention(approval.requestedBy);
}

/** How a request ended: one of its closed states (approval-states.ts), approved with how its change went. */
export type ApprovalEnd = { kind: 'approved'; run: ApprovedRun; timeoutMs: number } | { kind: Exclude<ClosedStatus, 'approved'> };

/**
 * The request as it goes on the wire: its line, then its body. The door asks for none longer than MAX_SHOWN_REQUEST;
 * one stored before it checked is cut here and says so (the door does not send it: what is shown is all there is).
 */
export function shownRequestText(request: RecordedRequest): string {
  const text = requestText(request);
  return text.length > MAX_SHOWN_REQUEST ? `${text.slice(0, MAX_SHOWN_REQUEST)}\n… (cut here: too long to be approved)` : text;
}

/**
 * The request as preformatted rich text: shown as it is, byte for byte, except for invisible formatting characters
 * (bidirectional controls, zero-width ones), which would reorder or hide what the approver reads: those are shown by
 * name, "<U+202E>", and a line under the request says so (they are sent as they are).
 */
export function requestBlock(request: RecordedRequest): RichTextBlock {
  return preformattedBlock(shownRequestText(request));
}

/** Who asks, for what and why; a workflow's request nobody claimed has no one who asks but the workflow. */
export function asked(f: ApprovalFacts): string {
  const { approval } = f;
  const why = approval.reason ? `“${safe(oneLine(approval.reason), 500)}”` : '_no reason given_';
  const who = askedBy(approval);
  return `${who} asks to *${safe(f.title, 40)}* · ${safe(targetTitle(f.target), 40)}\n*Why:* ${why}`;
}

/**
 * A restore's request: what it overwrites and loses, as read when it was asked for (docs/product.md, Restore with eyes
 * open), the ages counted to then; null for any other change. `said`: in a message, or in Approve's confirmation (no
 * date token there: see Said).
 */
export function restoreLine(approval: Approval, said: Said = 'message'): string | null {
  const facts = restoreFactsIn(approval.params);
  return facts ? `${restoreConsequence(facts, Date.parse(approval.requestedAt), undefined, said)}.` : null;
}

/** For a workflow's request: the workflow's execution, as Slack's workflow activity shows it. */
export function fromWorkflow(approval: Approval): string {
  return approval.workflowExecutionId ? ` Asked for by workflow ${code(approval.workflowExecutionId, 40)}.` : '';
}

/** What a restore overwrites and loses, as read when it was asked for: a warning block, or none. */
export const consequence = (approval: Approval): KnownBlock[] => {
  const line = restoreLine(approval);
  return line ? [section(`:warning: ${line}`)] : [];
};

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
      text: mrkdwn(
        truncate(
          [restoreLine(approval, 'dialog'), `The bot sends the request shown, now, for ${userMention(approval.requestedBy)}. This cannot be undone.`]
            .filter((line) => line !== null)
            .join(' '),
          300,
        ),
      ),
      confirm: { type: 'plain_text', text: 'Approve' },
      deny: { type: 'plain_text', text: 'Cancel' },
      style: 'primary',
    },
  };
  const deny: Button = { type: 'button', action_id: DENY_ACTION_ID, text: { type: 'plain_text', text: 'Deny' }, style: 'danger', value: approval.id };
  return [approve, deny];
}

/** Withdraw, for the one who asked (anyone else is refused), its value the request's id. */
export function withdrawButton(approval: Approval): Button {
  return { type: 'button', action_id: WITHDRAW_ACTION_ID, text: { type: 'plain_text', text: 'Withdraw' }, value: approval.id };
}

/** Who may decide, as mentions that notify them: the user groups, then the people (docs/product.md "Approvals"). */
export function decidersLine(deciders: Deciders | undefined): string | null {
  const mentions = [...(deciders?.groups ?? []).map(groupMention), ...(deciders?.users ?? []).map(userMention)];
  return mentions.length > 0 ? mentions.join(' ') : null;
}

/** The open request, with its buttons: Approve and Deny for a second person, Withdraw for the one who asked. */
export function renderApprovalRequest(f: ApprovalFacts): Rendered {
  const { approval } = f;
  const line = `${approval.apiRequest.method} ${approval.apiRequest.path}`;
  const who = decidersLine(f.deciders);
  const blocks: KnownBlock[] = [
    section(
      `${OUTCOME_SIGNS.requested} *Approval needed* · ${asked(f)}\n*Open until:* ${slackTime(approval.expiresAtMs)}` +
        (who ? `\n*Who may decide:* ${who}` : ''),
    ),
    ...consequence(approval),
    section('*The exact request the bot will send to the cloud API:*'),
    requestBlock(approval.apiRequest),
    { type: 'actions', block_id: 'approval', elements: [...approvalButtons(f), withdrawButton(approval)] },
    context(`${whoDecides(f)} Request ${code(approval.id, 40)}.${fromWorkflow(approval)}`),
  ];
  const asker = approval.requestedBy === '' ? 'a workflow' : askedBy(approval);
  const asking = `Approval needed: ${asker} asks to ${f.title} · ${targetTitle(f.target)} (${escapeMrkdwn(oneLine(line))})`;
  return { text: fallback(who ? `${asking} · for ${who}` : asking, f.sandbox), blocks: withSandbox(blocks, f.sandbox) };
}

/** Who decides an open request: a second person, or, for an agent's request, its owner too unless VS_APPROVALS lists it. */
function whoDecides(f: ApprovalFacts): string {
  const { approval } = f;
  const owner = userMention(approval.requestedBy);
  if (approval.agent && f.ownerDecides)
    return `An agent asked: nothing runs until a person with the ${f.needed} role approves it, ${owner} (who may withdraw it) or another.`;
  if (approval.agent)
    return `An agent asked, and this change needs a second person: someone with the ${f.needed} role decides, not ${owner}, who may withdraw it.`;
  return `A second person with the ${f.needed} role decides, not ${owner}, who may withdraw it.`;
}

/**
 * The deny form (Deny on a request's message or the Home tab): what is denied, and why, optionally. `metadata` carries
 * the request's id and where its click came from, for the submission.
 */
export function renderDenyReasonModal(f: ApprovalFacts, metadata: string): ModalView {
  const input: InputBlock = {
    type: 'input',
    block_id: DENY_REASON_INPUT,
    optional: true,
    label: { type: 'plain_text', text: 'Why' },
    hint: { type: 'plain_text', text: 'Shown on the request and kept in the audit record.' },
    element: { type: 'plain_text_input', action_id: DENY_REASON_INPUT, multiline: true, max_length: MAX_REASON_LENGTH },
  };
  return {
    type: 'modal',
    callback_id: DENY_REASON_CALLBACK_ID,
    private_metadata: metadata,
    title: { type: 'plain_text', text: DENY_FORM_TITLE },
    submit: { type: 'plain_text', text: 'Deny' },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks: withSandbox([section(`${OUTCOME_SIGNS.denied} You are denying this request. Nothing will be changed.\n${asked(f)}`), input], f.sandbox),
  };
}

/** The requester told in the request's thread, with a mention (which notifies them), how it ended; null for a workflow's request nobody claimed. */
export function renderRequesterTold(f: ApprovalFacts, end: ApprovalEnd): Rendered | null {
  const { requestedBy } = f.approval;
  if (requestedBy === '') return null;
  const line = endLine(f, end);
  return {
    text: fallback(`${userMention(requestedBy)} your request to ${f.title} · ${targetTitle(f.target)}: ${plain(line)}`, f.sandbox),
    blocks: [section(`${userMention(requestedBy)} ${line}`)],
  };
}

/** The request once settled: the same facts, no buttons, and how it ended. */
export function renderApprovalEnded(f: ApprovalFacts, end: ApprovalEnd): Rendered {
  const { approval } = f;
  const line = endLine(f, end);
  const blocks: KnownBlock[] = [
    section(`${line}\n${asked(f)}`),
    ...consequence(approval),
    section('*The request:*'),
    requestBlock(approval.apiRequest),
    context(
      `Asked ${slackTime(Date.parse(approval.requestedAt))} · request ${code(approval.id, 40)}` +
        (approval.workflowExecutionId ? ` · workflow ${code(approval.workflowExecutionId, 40)}` : ''),
    ),
  ];
  return { text: fallback(`${plain(line)} (${f.title} · ${targetTitle(f.target)})`, f.sandbox), blocks: withSandbox(blocks, f.sandbox) };
}

/** How a request ended, in one line: each closed state's words, and for an approved one how its change went. */
export function endLine(f: ApprovalFacts, end: ApprovalEnd): string {
  return end.kind === 'approved' ? approvedLine(f, end.run, end.timeoutMs, decider(f.approval)) : ENDED[end.kind](f.approval);
}

const decider = (approval: Approval) => (approval.decidedBy ? userMention(approval.decidedBy) : 'someone');
const because = (approval: Approval) => (approval.decisionReason ? `: “${safe(oneLine(approval.decisionReason), 500)}”` : '');

/**
 * The words of each closed state (approval-states.ts), as the request's message ends (an approved one's say how its
 * change went: approvedLine) and as a later click is told, with the sign of its outcome (src/changes/outcome.ts). A
 * state added to the table does not compile until it has its words here.
 */
const ENDED: { readonly [S in Exclude<ClosedStatus, 'approved'>]: (a: Approval) => string } = {
  rejected: (a) => `${OUTCOME_SIGNS.denied} *Denied* by ${decider(a)}${because(a)}. Nothing was changed.`,
  withdrawn: (a) => `${OUTCOME_SIGNS.withdrawn} *Withdrawn* by ${decider(a)}, who asked for it. Nothing was changed.`,
  expired: (a) =>
    `${OUTCOME_SIGNS.expired} *Expired*: nobody ${a.requestedBy === '' ? 'claimed it' : 'decided'} before ${slackTime(a.expiresAtMs)}. Nothing was changed.`,
};
const TOLD: { readonly [S in ClosedStatus]: (a: Approval) => string } = {
  approved: (a) => `This request was already approved by ${decider(a)}${decidedAt(a)}.`,
  rejected: (a) => `This request was already denied by ${decider(a)}${decidedAt(a)}${because(a)}.`,
  withdrawn: (a) => `This request was withdrawn by ${decider(a)}${decidedAt(a)}, who asked for it. Nothing was changed.`,
  expired: (a) =>
    `This request expired ${slackTime(a.expiresAtMs)}: nobody ${a.requestedBy === '' ? 'claimed' : 'decided'} it. ` +
    'Nothing was changed; ask again if it is still needed.',
};

const decidedAt = (a: Approval) => (a.decidedAt ? ` ${slackTime(Date.parse(a.decidedAt))}` : '');

/** What a later click on a request that is closed is told (the words of its state), or null while it is open. */
export function closedText(approval: Approval): string | null {
  const told = (TOLD as Partial<Record<string, (a: Approval) => string>>)[approval.status];
  return told ? told(approval) : null;
}

/**
 * How an approved request's change went, its outcome's sign first (docs/product.md, One outcome, told the same
 * everywhere): scheduled (followed in this message from here), failed, refused when not sent, or unknown.
 */
function approvedLine(f: ApprovalFacts, run: ApprovedRun, timeoutMs: number, by: string): string {
  const approved = `*Approved* by ${by}`;
  const { scheduled, failed, refused, unknown } = OUTCOME_SIGNS;
  switch (run.outcome) {
    case 'succeeded':
      // Scheduled, never "done": the message is followed to its end from here (src/slack/follow-messages.ts).
      return `${scheduled} ${approved} · *scheduled*: ${safe(oneLine(run.record.detail ?? 'the cloud API accepted it'), 600)}`;
    case 'failed':
      return `${failed} ${approved}, but it *failed*: ${safe(changeFailureMessage(run.error, run.about ?? f.target, timeoutMs), 2000)}`;
    case 'applied_unreadable':
      return `${unknown} ${approved} · *unknown*: ${safe(appliedUnreadableText(f.target, run.error.status), 600)}`;
    case 'busy':
      if (run.transaction !== undefined) return `${refused} ${approved}, but *refused*: not sent. ${lockedText(f.target.id, run.transaction)}`;
      return (
        `${refused} ${approved}, but *refused*: another change to ${safe(targetTitle(f.target), 40)} was in progress. ` +
        'Nothing was changed; ask again later.'
      );
    case 'unfit':
      return `${refused} ${approved}, but *refused*: ${unfitText(f.target.id, run.action, run.state)}`;
    case 'duplicate':
      return `:information_source: ${approved}; it had already been run (see \`/vs audit\`).`;
    case 'frozen':
      return `${refused} ${approved}, but *refused*: changes were frozen before it started. Nothing was changed. ${frozenText(run.freeze)}`;
    case 'not_sent':
      return `${refused} ${approved}, but *refused*: not sent, as ${notSentText(run.why)}. Nothing was changed; ask again.`;
    case 'error':
      if (isOutcomeNotRecorded(run.error))
        return (
          `${unknown} ${approved} · *unknown*: the change was sent to the cloud API, but its outcome could not be recorded, ` +
          'so it may or may not have been applied. ' +
          `Check ${safe(targetTitle(f.target), 40)} and \`/vs audit\`.`
        );
      if (isStoreUnavailable(run.error))
        return (
          `${refused} ${approved}, but *refused*: it could not be run, as the audit store is unreachable, so nothing was changed. ` +
          'Ask again in a few minutes.'
        );
      return (
        `${unknown} ${approved} · *unknown*: something went wrong on our side running it. ` +
        `Check ${safe(targetTitle(f.target), 40)} and \`/vs audit\` before retrying.`
      );
  }
}

/** Why an approved request was not sent, as mrkdwn. */
function notSentText(why: NotSent): string {
  switch (why.code) {
    case 'changed':
      return `the bot would now send ${code(`${why.current.method} ${why.current.path}`, 200)} instead of the request approved (its configuration changed)`;
    case 'unreadable':
      return 'the approved request could not be read back';
    case 'other_cloud':
      return 'it was prepared for another cloud API or account than the bot uses now (VS_API_URL or VS_ACCOUNT_ID changed since it was asked for)';
    case 'unshown':
      return 'it is longer than its message could show, so nobody saw all of it';
  }
}

/** The fallback text of a line: mrkdwn's marks and tokens left out. */
export function plain(mrkdwn: string): string {
  return mrkdwn
    .replace(/:[a-z0-9_+]+: /g, '')
    .replace(/<!date\^\d+\^[^|]*\|([^>]*)>/g, '$1')
    .replace(/\*/g, '');
}

/** Told to a later clicker: the request was already decided, withdrawn, or expired (or, unclaimed, is not open for a decision yet). */
export function renderApprovalClosed(approval: Approval): Rendered {
  const text = closedText(approval) ?? 'This request is not waiting for a decision: nobody has requested it yet.';
  return { text: fallback(plain(text)), blocks: [section(`:information_source: ${text}`)] };
}

export const APPROVAL_UNKNOWN = 'This approval request is not known (it may be older than the audit retention). Nothing was changed.';

/** What the form's window says once its change waits for a second person. */
export function requestedText(o: { channelId: string; expiresAtMs: number; needed: Role }): string {
  return (
    `${OUTCOME_SIGNS.requested} Sent for approval in ${channelMention(o.channelId)}: ` +
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
