import type { ChannelMessage } from '@vs-chatops/slack-standin';
import type { AuditRecord } from '../../src/store';
import type { Harness } from './app-harness';
import { submit, type Ack } from './drive';
import { buttonClick, input } from './payloads';
import { waitFor } from './wait';

// A request for a change that waits for people (an approval request, a
// workflow's request to be claimed), as the channel sees it: its message,
// found by its id, clicked, updated in place, and its records in the audit
// trail. Shared by the tests of approvals, the freeze and the change steps.

/** Where a request's message is: the request's id (its buttons' value), its channel and ts. */
export interface PostedRequest {
  id: string;
  channel: string;
  ts: string;
}

/** A click on a request's button: the id of its response_url, and what only the clicker was told there. */
export interface Click {
  responseId: string;
  /** The click's trigger_id: a form it opened was opened with it. */
  triggerId: string;
  /** The ephemeral answer to the click (waited for, bounded), as JSON text. */
  told(): Promise<string>;
}

/** The request id a message's Approve button (approval_approve) carries, if it has one. */
export function approvalIdIn(blocks: unknown): string | undefined {
  const elements = ((blocks ?? []) as { elements?: { action_id?: string; value?: string }[] }[]).flatMap((b) => b.elements ?? []);
  return elements.find((e) => e.action_id === 'approval_approve')?.value;
}

/**
 * `user` clicks the button `actionId` of the request's message (a signed block_actions, as Slack sends it);
 * `tweak` changes the payload first (another workspace's click).
 */
export async function clickOn(
  h: Harness,
  user: string,
  actionId: string,
  p: PostedRequest,
  tweak: (payload: Record<string, unknown>) => void = () => undefined,
): Promise<Click> {
  const responseUrl = h.slack.responseUrl();
  const payload = buttonClick({ user, channel: p.channel, actionId, value: p.id, responseUrl, messageTs: p.ts });
  tweak(payload);
  const res = await h.interact(payload);
  if (res.status !== 200) throw new Error(`the click on ${actionId} was answered HTTP ${res.status}`);
  const responseId = responseUrl.slice(responseUrl.lastIndexOf('/') + 1);
  return {
    responseId,
    triggerId: String(payload.trigger_id),
    async told() {
      const { body } = await waitFor(`${user} to be told after ${actionId}`, () => h.slack.responses.find((r) => r.id === responseId));
      if ((body as { response_type?: string }).response_type !== 'ephemeral')
        throw new Error(`the answer to ${user} is not ephemeral: ${JSON.stringify(body)}`);
      return JSON.stringify(body);
    },
  };
}

/**
 * `user` denies the request, with `reason` or none: clicks Deny, which opens the deny form (approval_deny_reason), and
 * submits it; what the form answers (nothing when it closes). Throws, bounded, when no form opens (the click was refused:
 * answerToClick says how).
 */
export async function deny(h: Harness, user: string, p: PostedRequest, reason?: string): Promise<Ack> {
  const click = await clickOn(h, user, 'approval_deny', p);
  const opened = await waitFor(`the deny form for ${user}`, () => h.slack.callsTo('views.open').find((c) => c.args.trigger_id === click.triggerId), {
    detail: () => `answers instead: ${JSON.stringify(h.slack.responses.filter((r) => r.id === click.responseId).map((r) => r.body))}`,
  });
  const view = opened.args.view as { callback_id: string; private_metadata: string };
  if (view.callback_id !== 'approval_deny_reason') throw new Error(`Deny opened ${view.callback_id}, not the deny form`);
  return submit(h, 'approval_deny_reason', user, view.private_metadata, { reason: input.text(reason ?? null) });
}

/** `user` clicks a button of the request's message: what only they were told (as answerTo is for a command). */
export async function answerToClick(...click: Parameters<typeof clickOn>): Promise<string> {
  return (await clickOn(...click)).told();
}

/** The request's message as its channel shows it now (updated in place: the same ts). */
export function messageOf(h: Harness, p: Pick<PostedRequest, 'channel' | 'ts'>): ChannelMessage {
  const message = h.slack.messagesIn(p.channel).find((m) => m.ts === p.ts);
  if (!message) throw new Error(`no message ${p.ts} in ${p.channel}`);
  return message;
}

/** Waits (bounded) until the request's message matches `pattern`, and returns it. */
export async function updatedTo(h: Harness, p: Pick<PostedRequest, 'channel' | 'ts'>, pattern: RegExp): Promise<ChannelMessage> {
  const seen = () => JSON.stringify(messageOf(h, p));
  await waitFor(`the request updated to ${pattern}`, () => pattern.test(seen()), { detail: seen });
  return messageOf(h, p);
}

/** The exact API request as a message shows it: its preformatted text. */
export function shownRequest(message: ChannelMessage): string {
  const found = /"type":"rich_text_preformatted","elements":\[\{"type":"text","text":("(?:[^"\\]|\\.)*")/.exec(JSON.stringify(message.blocks));
  if (!found) throw new Error(`no exact request shown in ${JSON.stringify(message.blocks)}`);
  return JSON.parse(found[1]!) as string;
}

/** The audit records of one request, oldest first. */
export async function recordsOf(h: Harness, id: string): Promise<AuditRecord[]> {
  return (await h.store.audit.latest(50)).filter((r) => r.approvalId === id).reverse();
}
