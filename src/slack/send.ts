import type { KnownBlock, View } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import { CodedError } from '../errors';
import { messageLimitProblems, viewLimitProblems } from './blocks/limits';

// Every message and view the bot sends through Slack's Web API goes through
// here (response_urls through response-url.ts, which checks the same way), and
// is checked against Block Kit's limits first (src/slack/blocks/limits.ts):
// what Slack would refuse is not sent, and fails as Slack's refusal would, with
// a coded error the caller logs and answers. test/slack/answers-within-limits.test.ts holds every
// file of src/ to it: none calls chat.* or views.* itself.

/** A message or view over Block Kit's limits: not sent. Its problems say where ("blocks: 53 blocks, more than 50"). */
export class OverLimitsError extends CodedError {
  override readonly name = 'OverLimitsError';
  readonly code = 'SLACK_OVER_LIMITS';
  constructor(
    readonly what: string,
    readonly problems: readonly string[],
  ) {
    super(`${what} is over Block Kit's limits, so it was not sent: ${problems.slice(0, 5).join('; ')}${problems.length > 5 ? '; …' : ''}`);
  }
}

/** The message as given, once it fits Block Kit's limits; throws OverLimitsError otherwise. */
export function checkedMessage<M extends { text?: string; blocks?: readonly KnownBlock[] }>(message: M, what = 'the message'): M {
  const problems = messageLimitProblems(message);
  if (problems.length > 0) throw new OverLimitsError(what, problems);
  return message;
}

/** The view as given, once it fits Block Kit's limits; throws OverLimitsError otherwise. */
export function checkedView<V extends View>(view: V, what = 'the view'): V {
  const problems = viewLimitProblems(view);
  if (problems.length > 0) throw new OverLimitsError(what, problems);
  return view;
}

/** A message as the bot posts it: its notification text and its blocks. */
interface Message {
  text: string;
  blocks?: KnownBlock[];
}

/** chat.postMessage, checked; the message's ts. */
export async function postMessage(client: WebClient, args: Message & { channel: string; thread_ts?: string }): Promise<string | undefined> {
  return (await client.chat.postMessage(checkedMessage(args))).ts;
}

/** chat.update, checked. */
export async function updateMessage(client: WebClient, args: Message & { channel: string; ts: string }): Promise<void> {
  await client.chat.update(checkedMessage(args));
}

/** chat.postEphemeral, checked. */
export async function postEphemeralMessage(client: WebClient, args: Message & { channel: string; user: string }): Promise<void> {
  await client.chat.postEphemeral(checkedMessage(args));
}

/** chat.unfurl, each card checked as a message. */
export async function unfurlLinks(
  client: WebClient,
  args: ({ channel: string; ts: string } | { unfurl_id: string; source: 'composer' | 'conversations_history' }) & {
    unfurls: Record<string, { blocks: KnownBlock[] }>;
  },
): Promise<void> {
  for (const card of Object.values(args.unfurls)) checkedMessage(card, 'the unfurl');
  await client.chat.unfurl(args);
}

/** views.open, checked. */
export async function openView(client: WebClient, args: { trigger_id: string; view: View }): Promise<void> {
  await client.views.open({ ...args, view: checkedView(args.view, 'the modal') });
}

/** views.update, checked. */
export async function updateView(client: WebClient, args: { view_id: string; view: View }): Promise<void> {
  await client.views.update({ ...args, view: checkedView(args.view, 'the modal') });
}

/** views.publish (the Home tab), checked. */
export async function publishView(client: WebClient, args: { user_id: string; view: View }): Promise<void> {
  await client.views.publish({ ...args, view: checkedView(args.view, 'the Home tab') });
}

/**
 * Why a message did not reach Slack, in a closed set (log lines, metrics): `over_limits` (ours, nothing sent),
 * `refused` (Slack answered that it would not take it: a platform error, a response_url's 4xx), `expired` (a
 * response_url used up or expired), `unreachable` (no answer, a 5xx, a rate limit).
 */
export type Undelivered = 'over_limits' | 'refused' | 'expired' | 'unreachable';

/** How a failed send ended, read from what it threw (OverLimitsError, a Web API error, a response_url's ResponseUrlError). */
export function undeliveredBy(error: unknown): Undelivered {
  if (error instanceof OverLimitsError) return 'over_limits';
  const e = (error ?? {}) as { code?: unknown; status?: unknown; slackError?: unknown };
  if (e.code === 'slack_webapi_platform_error') return 'refused';
  if (typeof e.status === 'number') {
    if (e.status === 404 || e.slackError === 'expired_url' || e.slackError === 'used_url') return 'expired';
    if (e.status >= 400 && e.status < 500 && e.status !== 429) return 'refused';
  }
  return 'unreachable';
}
