import type { Button, KnownBlock } from '@slack/types';
import { OUTCOME_SIGNS } from '../../changes';
import type { Approval } from '../../store';
import { asked, closedText, consequence, decidersLine, fromWorkflow, plain, requestBlock, type ApprovalFacts } from './approvals';
import { code, context, escapeMrkdwn, fallback, oneLine, section, slackTime, userMention, withSandbox, type Rendered } from './mrkdwn';

// A change a workflow step asked for (docs/product.md, Workflow steps), posted in
// the step's channel: what the workflow asks (the change, the reason, the
// exact API request) with a "Request this change" button. Nothing in a
// workflow proves who started it, so nobody is its requester until someone
// who may make the change claims it; the message then becomes the approval
// request (blocks/approvals.ts) and a second person decides.

/** The claim button's action_id (docs/product.md, Workflow steps); its value is the request's id. */
export const CLAIM_ACTION_ID = 'change_request_claim';

/** The request nobody has claimed yet, with its button. */
export function renderWorkflowRequest(f: ApprovalFacts): Rendered {
  const { approval } = f;
  const claim: Button = {
    type: 'button',
    action_id: CLAIM_ACTION_ID,
    text: { type: 'plain_text', text: 'Request this change' },
    style: 'primary',
    value: approval.id,
  };
  // Those who may claim it are mentioned, so that someone is notified (nobody has asked yet: none is left out), unless
  // workflow requests called them as often this hour as they may be (VS_WORKFLOW_CALLS_PER_HOUR): then the role is named.
  const who = decidersLine(f.deciders);
  const held = f.uncalled
    ? `${who ? ' and others' : `anyone with the ${f.needed} role`} (not called on this one: workflow requests called them as often this hour as they may be)`
    : '';
  const blocks: KnownBlock[] = [
    section(
      `${OUTCOME_SIGNS.requested} *A workflow asks for a change* · ${asked(f)}\n*Open until:* ${slackTime(approval.expiresAtMs)}` +
        (who || held ? `\n*Who may request it:* ${who ?? ''}${held}` : ''),
    ),
    ...consequence(approval),
    section('*The exact request the bot would send to the cloud API:*'),
    requestBlock(approval.apiRequest),
    { type: 'actions', block_id: 'workflow_request', elements: [claim] },
    context(
      `Nothing is changed by this message. Whoever clicks *Request this change* and holds the ${f.needed} role becomes its requester; ` +
        `a second person with that role then approves or denies it. Request ${code(approval.id, 40)}.${fromWorkflow(approval)}`,
    ),
  ];
  const line = `${approval.apiRequest.method} ${approval.apiRequest.path}`;
  return {
    text: fallback(`A workflow asks to ${f.title} · ${escapeMrkdwn(oneLine(line))}: someone with the ${f.needed} role may request it`, f.sandbox),
    blocks: withSandbox(blocks, f.sandbox),
  };
}

/** Told to someone who clicks a request that is no longer waiting for its requester. */
export function renderClaimClosed(approval: Approval): Rendered {
  const text = closedText(approval) ?? `${userMention(approval.requestedBy)} already requested this change; a second person decides it now.`;
  return { text: fallback(plain(text)), blocks: [section(`:information_source: ${text}`)] };
}

/** The claim was taken, but the message could not become the approval request: the requester hears it at least. */
export const CLAIMED_NOT_SHOWN =
  'You are the requester of this change now; a second person must approve it, but its message could not be updated here. `/vs audit` shows the request.';

/** A request that is not known (older than the audit retention, or never made). */
export const WORKFLOW_REQUEST_UNKNOWN = 'This request is not known (it may be older than the audit retention). Nothing was changed.';
