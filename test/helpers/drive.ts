import type { Execution } from '../../src/local/functions';
import type { ExecutionOptions } from '../../src/local/interactions';
import type { Harness } from './app-harness';
import type { SlackHttpResponse, SlackRequestOptions } from './signed-requests';
import { input, viewSubmission, type StateValue } from './payloads';

// Small verbs for driving the real app the way a user does: type a command
// and read the answer, open a form and submit it. Shared by the reliability
// tests and the soak.

export type Message = { response_type?: string; replace_original?: boolean; text?: string; blocks?: unknown[] };
export type View = { id?: string; callback_id: string; private_metadata: string; blocks: { block_id?: string; element?: { action_id?: string } }[] };
export type Ack = { response_action?: string; errors?: Record<string, string>; view?: { blocks: unknown[] } };

export const CHANNEL = 'CINCIDENT';

export const goodDisk: Record<string, StateValue> = {
  disk_type: input.select('SSD'),
  disk_size: input.number('20'),
  label: input.text('data'),
  mount_point: input.text('/mnt/data'),
  file_system: input.select('ext4'),
  min_iops: input.number(null),
  primary: input.check(false),
  is_swap: input.check(false),
  hot_attach: input.check(true),
  add_to_linux_fstab: input.check(true),
  add_to_freebsd_fstab: input.check(false),
  require_format_disk: input.check(true),
};

/** All text a user can read in a message or modal. */
export function visibleText(m: unknown): string {
  return JSON.stringify(m);
}

/** What a stack trace or a source location looks like in text a user reads. */
export const STACK_TRACE = /\n\s+at |at [\w.<>]+ \(|\.(ts|js):\d+|node_modules|Error: /;

/** Types `/vs <text>` and returns the one answer that reaches the response_url. */
export async function answerTo(h: Harness, text: string, opts: Parameters<Harness['command']>[1] = {}, timeoutMs = 8000): Promise<Message> {
  const responseUrl = h.slack.responseUrl();
  const res = await h.command(text, { ...opts, responseUrl });
  if (res.status !== 200) throw new Error(`the command was answered HTTP ${res.status}`);
  const id = responseUrl.slice(responseUrl.lastIndexOf('/') + 1);
  const started = Date.now();
  for (;;) {
    const post = h.slack.responses.find((r) => r.id === id);
    if (post) return post.body;
    if (Date.now() - started > timeoutMs) throw new Error(`no answer to "/vs ${text.slice(0, 40)}" within ${timeoutMs} ms`);
    await sleep(10);
  }
}

/** Types the command that opens a form and returns the modal Slack was asked to open. */
export async function openForm(h: Harness, text: string, user: string, channel = CHANNEL): Promise<View> {
  const triggerId = `trigger.${Math.random().toString(36).slice(2)}`;
  const res = await h.command(text, { user, channel, triggerId });
  if (res.status !== 200) throw new Error(`the command was answered HTTP ${res.status}`);
  const started = Date.now();
  for (;;) {
    const call = h.slack.callsTo('views.open').find((c) => c.args.trigger_id === triggerId);
    if (call) return call.args.view as View;
    if (Date.now() - started > 8000) throw new Error(`no modal opened for "/vs ${text}"`);
    await sleep(10);
  }
}

let views = 0;
export const newViewId = () => `V${process.pid}x${++views}x${Math.random().toString(36).slice(2, 8)}`;

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

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `check` is true or `timeoutMs` passes; returns whether it became true. */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<boolean> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) return false;
    await sleep(10);
  }
  return true;
}

/** Types `/vs <text>` and returns what the user sees first: an answer at the response_url, or a modal. */
export async function reactionTo(
  h: Harness,
  text: string,
  opts: Parameters<Harness['command']>[1] = {},
  timeoutMs = 8000,
): Promise<{ message?: Message; modal?: View }> {
  const responseUrl = h.slack.responseUrl();
  const triggerId = `trigger.${Math.random().toString(36).slice(2)}`;
  const res = await h.command(text, { ...opts, responseUrl, triggerId });
  if (res.status !== 200) throw new Error(`the command was answered HTTP ${res.status}`);
  const id = responseUrl.slice(responseUrl.lastIndexOf('/') + 1);
  const started = Date.now();
  for (;;) {
    const post = h.slack.responses.find((r) => r.id === id);
    if (post) return { message: post.body };
    const call = h.slack.callsTo('views.open').find((c) => c.args.trigger_id === triggerId);
    if (call) return { modal: call.args.view as View };
    if (Date.now() - started > timeoutMs) throw new Error(`nothing came back for "/vs ${text.slice(0, 40)}" within ${timeoutMs} ms`);
    await sleep(10);
  }
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
  const ack = await h.raw(JSON.stringify(envelope), 'application/json', opts);
  if (ack.status !== 200) throw new Error(`function_executed was answered HTTP ${ack.status}`);
  return { execution: await h.slack.waitForExecution(execution.id), ack, envelope };
}

/** The calls that ended a step (functions.completeSuccess or completeError) and that Slack took. */
export function completionsOf(h: Harness, executionId: string) {
  return h.slack.calls.filter((c) => c.method.startsWith('functions.complete') && c.args.function_execution_id === executionId);
}
