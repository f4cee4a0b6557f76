import type { ModalView } from '@slack/types';
import { fallback, type Rendered, section } from './mrkdwn';
import { statusModal } from './status-modal';

// What a person is told when their request comes from a workspace the bot does
// not serve (src/slack/workspaces.ts), or before the bot knows its own. No
// setting is named: the person asking is not the one who configures the bot.

/** A request from a workspace the bot does not serve: a Slack Connect user's, another workspace of an org-wide install. */
export const OTHER_WORKSPACE =
  'This bot serves its own workspace only: requests from other workspaces, Slack Connect users included, are refused. Nothing was done.';

/** The bot does not know yet which workspace it serves (auth.test has not answered). */
export const WORKSPACE_UNKNOWN = 'The bot does not know yet which workspace it serves (Slack has not told it), so nothing was done. Try again in a moment.';

/** The refusal where the person asked (ephemeral). */
export function renderWorkspaceRefusal(text: string): Rendered {
  return { text: fallback(text), blocks: [section(`:no_entry: ${text}`)] };
}

/** The same where there is no channel to answer in (a global shortcut, a form). */
export function renderWorkspaceRefusalModal({ text, sandbox }: { text: string; sandbox: boolean }): ModalView {
  return statusModal({ title: 'vs-chatops', mrkdwn: `:no_entry: ${text}`, sandbox });
}
