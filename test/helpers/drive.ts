import type { ChannelMessage, Execution, ExecutionOptions } from '@vs-chatops/slack-standin';
import type { Harness } from './app-harness';
import { CHANNEL, newTriggerId, newViewId, viewSubmission, type StateValue } from './payloads';
import type { SlackHttpResponse, SlackRequestOptions } from './signed-requests';
import { waitFor } from './wait';

// Small verbs for driving the real app the way a user does: type a command
// and read the answer, open a form and submit it. Every wait is bounded and
// says what it waited for. Shared by the integration tests and the soak.

export { CHANNEL, newViewId } from './payloads';
export { goodDisk } from './forms';
export { sleep } from './wait';

export type Message = { response_type?: string; replace_original?: boolean; text?: string; blocks?: unknown[] };
export type View = { id?: string; callback_id: string; private_metadata: string; blocks: { block_id?: string; element?: { action_id?: string } }[] };
export type Ack = { response_action?: string; errors?: Record<string, string>; view?: { blocks: unknown[] } };

/** All text a user can read in a message or modal. */
export function visibleText(m: unknown): string {
  return JSON.stringify(m);
}

/** What a stack trace or a source location looks like in text a user reads. */
export const STACK_TRACE = /\n\s+at |at [\w.<>]+ \(|\.(ts|js):\d+|node_modules|Error: /;

const commandName = (text: string) => `"/vs ${text.slice(0, 40)}"`;
const idOf = (responseUrl: string) => responseUrl.slice(responseUrl.lastIndexOf('/') + 1);

/** Types `/vs <text>` and returns the one answer that reaches the response_url. */
export async function answerTo(h: Harness, text: string, opts: Parameters<Harness['command']>[1] = {}, timeoutMs = 8000): Promise<Message> {
  const responseUrl = h.slack.responseUrl();
  const res = await h.command(text, { ...opts, responseUrl });
  if (res.status !== 200) throw new Error(`the command was answered HTTP ${res.status}`);
  const id = idOf(responseUrl);
  const post = await waitFor(`an answer to ${commandName(text)}`, () => h.slack.responses.find((r) => r.id === id), { within: timeoutMs });
  return post.body;
}

/**
 * The bot's message for everyone in `channel` whose text starts with `start` (a change's result: posted with
 * chat.postMessage, so that it can be followed to its end and updated in place), once it is there.
 */
export async function postedIn(h: Harness, channel: string, start: string, timeoutMs = 8000): Promise<ChannelMessage> {
  return waitFor(
    `the bot's message "${start}…" in ${channel}`,
    () => h.slack.messagesIn(channel).find((m) => m.kind === 'bot' && !m.ephemeralTo && m.text.replace(/^\[sandbox data\] /, '').startsWith(start)),
    {
      within: timeoutMs,
      detail: () => `messages there: ${JSON.stringify(h.slack.messagesIn(channel).map((m) => m.text))}`,
    },
  );
}

/** Types the command that opens a form and returns the modal Slack was asked to open. */
export async function openForm(h: Harness, text: string, user: string, channel = CHANNEL): Promise<View> {
  const triggerId = newTriggerId();
  const res = await h.command(text, { user, channel, triggerId });
  if (res.status !== 200) throw new Error(`the command was answered HTTP ${res.status}`);
  const call = await waitFor(`a modal opened for ${commandName(text)}`, () => h.slack.callsTo('views.open').find((c) => c.args.trigger_id === triggerId), {
    within: 8000,
    detail: () => `answers instead: ${JSON.stringify(h.slack.responses.map((r) => r.body.text))}`,
  });
  return call.args.view as View;
}

/** Submits a form as `user` and returns the ack Slack would read. */
export async function submit(
  h: Harness,
  callbackId: string,
  user: string,
  metadata: string,
  fields: Record<string, StateValue>,
  viewId = newViewId(),
): Promise<Ack> {
  const res = await h.interact(viewSubmission({ callbackId, viewId, user, privateMetadata: metadata, fields }));
  if (res.status !== 200) throw new Error(`the submission was answered HTTP ${res.status}`);
  return (res.body ? res.json() : {}) as Ack;
}

/** Types `/vs <text>` and returns what the user sees first: an answer at the response_url, or a modal. */
export async function reactionTo(
  h: Harness,
  text: string,
  opts: Parameters<Harness['command']>[1] = {},
  timeoutMs = 8000,
): Promise<{ message?: Message; modal?: View }> {
  const responseUrl = h.slack.responseUrl();
  const triggerId = newTriggerId();
  const res = await h.command(text, { ...opts, responseUrl, triggerId });
  if (res.status !== 200) throw new Error(`the command was answered HTTP ${res.status}`);
  const id = idOf(responseUrl);
  return waitFor(
    `an answer or a modal for ${commandName(text)}`,
    () => {
      const post = h.slack.responses.find((r) => r.id === id);
      if (post) return { message: post.body };
      const call = h.slack.callsTo('views.open').find((c) => c.args.trigger_id === triggerId);
      return call && { modal: call.args.view as View };
    },
    { within: timeoutMs },
  );
}

/**
 * Runs one workflow step as Slack does: the function_executed of one execution (built by the stand-in, which
 * remembers its token and declared outputs), signed and sent; then its completion, once the bot ended it.
 */
export async function runStep(
  h: Harness,
  callbackId: string,
  inputs: Record<string, unknown>,
  opts: ExecutionOptions & SlackRequestOptions = {},
): Promise<{ execution: Execution; ack: SlackHttpResponse; envelope: Record<string, unknown> }> {
  const { envelope, execution } = h.slack.functionExecuted(callbackId, inputs, opts);
  const ack = await h.event(envelope, opts);
  if (ack.status !== 200) throw new Error(`function_executed was answered HTTP ${ack.status}`);
  return { execution: await h.slack.waitForExecution(execution.id), ack, envelope };
}

/** The calls that ended a step (functions.completeSuccess or completeError) and that Slack took. */
export function completionsOf(h: Harness, executionId: string) {
  return h.slack.calls.filter((c) => c.method.startsWith('functions.complete') && c.args.function_execution_id === executionId);
}
