import type { KnownBlock, ModalView } from '@slack/types';
import { OUTCOME_SIGNS, type Action, type Decision, type OnCallNote, type ReadAction, type Role } from '../../changes';
import type { BreakGlassWindow, Freeze } from '../../store';
import { breakGlassLine } from './break-glass';
import { onCallLine, onCallUncheckedNote } from './on-call';
import { freezeLine } from './freeze';
import { allowsText, channelList, denialText } from './denials';
import { code, context, escapeMrkdwn, fallback, type Rendered, safe, section, truncate, unrecordable, userMention, withSandbox } from './mrkdwn';
import { statusModal } from './status-modal';

/** The groups of `/vs help`, in its order. */
export const HELP_GROUPS = ['reads', 'changes', 'admin'] as const;
export type HelpGroup = (typeof HELP_GROUPS)[number];

/** One group of `/vs help`: its help lines (plain text with `code` spans), in the command table's order. */
export interface HelpSection {
  group: HelpGroup;
  lines: readonly string[];
}

const HELP_GROUP_TITLES: Record<HelpGroup, string> = {
  reads: '*Reads*: posted in the channel',
  changes: '*Changes*: each opens a form, checked against your role and recorded',
  admin: '*Admin*',
};

/** `/vs help`: the commands by group, reads, changes and admin (`<vs_id>` and the like are escaped here). */
export function renderHelp({ groups, role, sandbox }: { groups: readonly HelpSection[]; role?: Role; sandbox: boolean }): Rendered {
  const blocks: KnownBlock[] = [section('*vs-chatops* inspects and changes virtual servers.')];
  for (const { group, lines } of groups) {
    if (lines.length > 0) blocks.push(section(`${HELP_GROUP_TITLES[group]}\n${lines.map((l) => `• ${escapeMrkdwn(l)}`).join('\n')}`));
  }
  if (role !== undefined) blocks.push(context(`Your role: *${role}*. \`/vs whoami\` says what it allows.`));
  return {
    text: fallback('vs-chatops: inspect and change virtual servers. Try /vs firewall 42', sandbox),
    blocks: withSandbox(blocks, sandbox),
  };
}

/**
 * After a wrong command: why, the closest valid command when there is one, and how to type the command it names or
 * comes closest to; not the whole list (`/vs help` has it). `message` is the parser's plain text (user input already
 * cut to ~40 characters); it is escaped here like any other text that echoes a user.
 */
export function renderUsage({ message, suggestion, usage }: { message: string; suggestion?: string; usage?: string }): Rendered {
  const said = safe(message, 1000) || 'That is not a `/vs` command.';
  const hint = suggestion ? `\nDid you mean ${code(suggestion, 120)}?` : '';
  // The usage is said once: many refusals quote it already.
  const how = usage && !message.includes(usage) ? `Usage: ${code(usage, 120)} · ` : '';
  return {
    text: fallback(`${said}${suggestion ? ` Did you mean ${safe(suggestion, 120)}?` : ''}`),
    blocks: [section(`${said}${hint}`), context(`${how}\`/vs help\` lists every command.`)],
  };
}

/** The store cannot be reached: a change could not be recorded, so none is started. */
export const CHANGES_UNRECORDABLE = unrecordable('Nothing can be changed');

/** When a listener fails in a way it did not foresee. */
export const SOMETHING_WENT_WRONG =
  'Something went wrong while handling this command; nothing was changed by it. Try again, and tell the bot operator if it repeats.';

/** Slack would not take the answer to a request (too large, or malformed): the person is told in its place, in a few words. */
export const ANSWER_NOT_SHOWN =
  'Slack would not show the answer to this (it was too large or malformed for a Slack message), so it is not shown; nothing was changed by it. ' +
  'This is a fault of the bot, not yours: tell the bot operator (its log says what Slack refused).';

/** Slack refused to open a form (views.open), typically an expired trigger_id. */
export const MODAL_NOT_OPENED = 'Could not open the form: Slack refused it (the request may have expired). Run the command again.';

/** An ephemeral error: one section. The text may quote the cloud API, so all of it is escaped. */
export function renderError(text: string): Rendered {
  const shown = safe(text, 2900);
  return { text: fallback(shown), blocks: [section(`:warning: ${shown}`)] };
}

/** The same error where there is no channel to answer in (a global shortcut): a modal titled for the form. */
export function renderErrorModal({ title, text, sandbox }: { title?: string; text: string; sandbox: boolean }): ModalView {
  return statusModal({ title: title ?? 'vs-chatops', mrkdwn: `:warning: ${safe(text, 2900)}`, sandbox });
}

export function renderDenied(decision: Pick<Decision, 'action' | 'role' | 'needed' | 'denial' | 'onCall'>): Rendered {
  const text = truncate(denialText(decision) + onCallUncheckedNote(decision), 2000);
  const code = decision.denial?.code;
  const note =
    code === 'frozen' || code === 'own_request' || code === 'requester' || code === 'not_requester'
      ? 'Nothing was changed. `/vs whoami` shows your role and whether changes are frozen.'
      : '`/vs whoami` shows your role and what it allows.';
  return { text: fallback(text), blocks: [section(`:no_entry: ${text}`), context(note)] };
}

/** A refusal where there is no channel to answer in (a global shortcut): a modal titled for the form. */
export function renderDeniedModal({
  title,
  decision,
  sandbox,
}: {
  title?: string;
  decision: Pick<Decision, 'action' | 'role' | 'needed' | 'denial' | 'onCall'>;
  sandbox: boolean;
}): ModalView {
  return statusModal({ title: title ?? 'vs-chatops', mrkdwn: `:no_entry: ${denialText(decision)}${onCallUncheckedNote(decision)}`, sandbox });
}

/** Which per-person limit was reached, how big it is, and when the next attempt is allowed. */
export interface LimitReached {
  kind: 'reads' | 'changes';
  perMinute: number;
  retryInSeconds: number;
}

const LIMIT_WHY: Record<LimitReached['kind'], string> = {
  reads: 'The limit keeps the cloud API free for everyone during an incident (VS_READS_PER_USER_PER_MINUTE).',
  changes: "The limit keeps one person's attempts from crowding out everyone's changes and the audit channel (VS_CHANGES_PER_USER_PER_MINUTE).",
};

/** What happened and when to try again, in one line. */
function limitText({ kind, perMinute, retryInSeconds }: LimitReached): string {
  const asked =
    kind === 'reads'
      ? `You have asked for ${perMinute} reads in the last minute, the most allowed per person.`
      : `You have made ${perMinute} change attempts in the last minute (forms opened or submitted, approvals, freezes), the most allowed per person; ` +
        'nothing was changed or recorded.';
  return `${asked} Try again in ${retryInSeconds} s.`;
}

/** A user over a per-person limit (VS_READS_PER_USER_PER_MINUTE, VS_CHANGES_PER_USER_PER_MINUTE), told in the channel, only them. */
export function renderLimitReached(limit: LimitReached): Rendered {
  const text = limitText(limit);
  return { text: fallback(text), blocks: [section(`${OUTCOME_SIGNS.refused} ${text}`), context(LIMIT_WHY[limit.kind])] };
}

/** The same where there is no channel to answer in (a global shortcut, a form submitted): a modal titled for the form. */
export function renderLimitReachedModal({ title, sandbox, ...limit }: LimitReached & { title?: string; sandbox: boolean }): ModalView {
  return statusModal({ title: title ?? 'vs-chatops', mrkdwn: `${OUTCOME_SIGNS.refused} ${limitText(limit)}\n${LIMIT_WHY[limit.kind]}`, sandbox });
}

/** A read command of `/vs`, as `/vs whoami` lists it: its words ("/vs firewall") and the read it needs, from the command table. */
export interface ReadCommand {
  words: string;
  needs: ReadAction;
}

/** Who the user is here: their role, what it allows, where changes are allowed (for `/vs whoami` and the Home tab). */
export interface RoleFacts {
  userId: string;
  role: Role;
  allows: readonly Action[];
  /** Every read command (the command table's rows that need a read): those the role allows are listed. */
  reads: readonly ReadCommand[];
  mutationChannels: readonly string[] | null;
  noChangeRolesConfigured: boolean;
}

const isRead = (action: Action): action is ReadAction => action === 'read' || action === 'audit_read';

/** The lines that say a user's role and what it allows (each read command by name, then the rest), as mrkdwn. */
export function roleLines(o: RoleFacts): string[] {
  const reads = o.reads.filter((read) => o.allows.includes(read.needs)).map((read) => code(read.words, 60));
  const others = o.allows.filter((action) => !isRead(action));
  const lines = [
    `${userMention(o.userId)}, your role is *${o.role}*.`,
    reads.length
      ? `You may read: ${reads.join(', ')} (\`/vs help\` says what each shows).`
      : 'You may not use the read commands; ask whoever runs the bot for a role.',
  ];
  if (others.length) lines.push(`You may also: ${truncate(allowsText(others, o.mutationChannels).join('; '), 1500)}.`);
  if (o.noChangeRolesConfigured) lines.push('No admin or operator is configured, so nobody can change anything through this bot.');
  if (o.mutationChannels) {
    lines.push(o.mutationChannels.length ? `Changes are allowed only in ${channelList(o.mutationChannels)}.` : 'Changes are allowed in no channel.');
  }
  return lines;
}

export function renderWhoami(
  o: RoleFacts & {
    /** The freeze in force, null when none, `unknown` when the store could not say; left out, nothing is said. */
    freeze?: Freeze | null | 'unknown';
    /** How being on call counted (the role came from a shift, or it could not be checked); left out, nothing is said. */
    onCall?: OnCallNote;
    /** Their break-glass window open now, null when none, `unknown` when the store could not say. */
    breakGlass?: BreakGlassWindow | null | 'unknown';
    sandbox: boolean;
  },
): Rendered {
  const lines = roleLines(o);
  const onCall = onCallLine(o.onCall);
  if (onCall) lines.splice(1, 0, onCall);
  const window = o.breakGlass === undefined ? null : breakGlassLine(o.breakGlass);
  if (window) lines.push(window);
  if (o.freeze !== undefined) lines.push(o.freeze === 'unknown' ? 'Whether changes are frozen could not be read just now.' : freezeLine(o.freeze));
  const summary = o.noChangeRolesConfigured
    ? `Your role is ${o.role}; nobody can change anything (no admin or operator is configured)`
    : `Your role is ${o.role}`;
  return { text: fallback(summary, o.sandbox), blocks: withSandbox([section(lines.join('\n'))], o.sandbox) };
}
