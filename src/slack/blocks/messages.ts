import type { KnownBlock, ModalView } from '@slack/types';
import type { Action, Decision, Role } from '../../changes';
import type { AuditRecord, Freeze } from '../../store';
import { freezeLine } from './freeze';
import { allowsText, channelList, denialText } from './denials';
import {
  channelMention,
  code,
  context,
  escapeMrkdwn,
  fallback,
  header,
  oneLine,
  type Rendered,
  safe,
  section,
  truncate,
  unrecordable,
  userMention,
  utcTime,
  withSandbox,
} from './mrkdwn';
import { statusModal } from './status-modal';

/**
 * `/vs help`. `commands`: the help lines of the command table, in its order
 * (plain text with `code` spans; `<vs_id>` and the like are escaped here).
 */
export function renderHelp({ commands, role, sandbox }: { commands: readonly string[]; role?: Role; sandbox: boolean }): Rendered {
  const blocks: KnownBlock[] = [section(`*vs-chatops* inspects and changes virtual servers.\n${commands.map((l) => `• ${escapeMrkdwn(l)}`).join('\n')}`)];
  if (role !== undefined) blocks.push(context(`Your role: *${role}*. \`/vs whoami\` says what it allows.`));
  return {
    text: fallback('vs-chatops: inspect and change virtual servers. Try /vs firewall 42', sandbox),
    blocks: withSandbox(blocks, sandbox),
  };
}

/** Usage after a wrong command, with the closest valid one when there is one. */
// `message` is the parser's plain text (user input already cut to ~40
// characters); it is escaped here like any other text that echoes a user.
export function renderUsage({ message, suggestion, commands }: { message: string; suggestion?: string; commands: readonly string[] }): Rendered {
  const said = safe(message, 1000) || 'That is not a `/vs` command.';
  const hint = suggestion ? `\nDid you mean ${code(suggestion, 120)}?` : '';
  return {
    text: fallback(`${said}${suggestion ? ` Did you mean ${safe(suggestion, 120)}?` : ''}`),
    blocks: [section(`${said}${hint}`), context(`Commands: ${escapeMrkdwn(commands.map((l) => l.split(':')[0]).join(' · '))}`)],
  };
}

/** The store cannot be reached: a change could not be recorded, so none is started. */
export const CHANGES_UNRECORDABLE = unrecordable('Nothing can be changed');

/** When a listener fails in a way it did not foresee. */
export const SOMETHING_WENT_WRONG =
  'Something went wrong while handling this command; nothing was changed by it. Try again, and tell the bot operator if it repeats.';

/** Slack refused to open a form (views.open), typically an expired trigger_id. */
export const MODAL_NOT_OPENED = 'Could not open the form: Slack refused it (the request may have expired). Run the command again.';

/** A Prev/Next button whose value no longer parses (an old message, or a hand-made payload). */
export const BUTTON_OUT_OF_DATE = 'That button is out of date; run `/vs firewall <vs_id>` again.';

/** An ephemeral error: one section. The text may quote the cloud API, so all of it is escaped. */
export function renderError(text: string): Rendered {
  const shown = safe(text, 2900);
  return { text: fallback(shown), blocks: [section(`:warning: ${shown}`)] };
}

/** The same error where there is no channel to answer in (a global shortcut): a modal titled for the form. */
export function renderErrorModal({ title, text, sandbox }: { title?: string; text: string; sandbox: boolean }): ModalView {
  return statusModal({ title: title ?? 'vs-chatops', mrkdwn: `:warning: ${safe(text, 2900)}`, sandbox });
}

export function renderDenied(decision: Pick<Decision, 'action' | 'role' | 'needed' | 'denial'>): Rendered {
  const text = truncate(denialText(decision), 2000);
  const code = decision.denial?.code;
  const note =
    code === 'frozen' || code === 'own_request'
      ? 'Nothing was changed. `/vs whoami` shows your role and whether changes are frozen.'
      : 'Roles are set by the bot operator (VS_ADMINS, VS_OPERATORS, VS_VIEWERS). `/vs whoami` shows yours.';
  return { text: fallback(text), blocks: [section(`:no_entry: ${text}`), context(note)] };
}

/** A refusal where there is no channel to answer in (a global shortcut): a modal titled for the form. */
export function renderDeniedModal({
  title,
  decision,
  sandbox,
}: {
  title?: string;
  decision: Pick<Decision, 'action' | 'role' | 'needed' | 'denial'>;
  sandbox: boolean;
}): ModalView {
  return statusModal({ title: title ?? 'vs-chatops', mrkdwn: `:no_entry: ${denialText(decision)}`, sandbox });
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
      : `You have opened or submitted ${perMinute} change forms in the last minute, the most allowed per person; nothing was changed or recorded.`;
  return `${asked} Try again in ${retryInSeconds} s.`;
}

/** A user over a per-person limit (VS_READS_PER_USER_PER_MINUTE, VS_CHANGES_PER_USER_PER_MINUTE), told in the channel, only them. */
export function renderLimitReached(limit: LimitReached): Rendered {
  const text = limitText(limit);
  return { text: fallback(text), blocks: [section(`:hourglass: ${text}`), context(LIMIT_WHY[limit.kind])] };
}

/** The same where there is no channel to answer in (a global shortcut, a form submitted): a modal titled for the form. */
export function renderLimitReachedModal({ title, sandbox, ...limit }: LimitReached & { title?: string; sandbox: boolean }): ModalView {
  return statusModal({ title: title ?? 'vs-chatops', mrkdwn: `:hourglass: ${limitText(limit)}\n${LIMIT_WHY[limit.kind]}`, sandbox });
}

/** Who the user is here: their role, what it allows, where changes are allowed (for `/vs whoami` and the Home tab). */
export interface RoleFacts {
  userId: string;
  role: Role;
  allows: readonly Action[];
  mutationChannels: readonly string[] | null;
  noChangeRolesConfigured: boolean;
}

/** The lines that say a user's role and what it allows, as mrkdwn. */
export function roleLines(o: RoleFacts): string[] {
  const lines = [
    `${userMention(o.userId)}, your role is *${o.role}*.`,
    o.allows.length
      ? `You may: ${truncate(allowsText(o.allows, o.mutationChannels).join('; '), 1500)}.`
      : 'You may not use the read commands: ask an admin to add you to VS_VIEWERS.',
  ];
  if (o.noChangeRolesConfigured) lines.push('No admin or operator is configured, so nobody can change anything through this bot.');
  if (o.mutationChannels) {
    lines.push(
      o.mutationChannels.length
        ? `Changes are allowed only in ${channelList(o.mutationChannels)}.`
        : 'Changes are allowed in no channel (VS_MUTATION_CHANNELS is empty).',
    );
  }
  return lines;
}

export function renderWhoami(
  o: RoleFacts & {
    /** The freeze in force, null when none, `unknown` when the store could not say; left out, nothing is said. */
    freeze?: Freeze | null | 'unknown';
    sandbox: boolean;
  },
): Rendered {
  const lines = roleLines(o);
  if (o.freeze !== undefined) lines.push(o.freeze === 'unknown' ? 'Whether changes are frozen could not be read just now.' : freezeLine(o.freeze));
  const summary = o.noChangeRolesConfigured
    ? `Your role is ${o.role}; nobody can change anything (no admin or operator is configured)`
    : `Your role is ${o.role}`;
  return { text: fallback(summary, o.sandbox), blocks: withSandbox([section(lines.join('\n'))], o.sandbox) };
}

const OUTCOME_MARK: Record<AuditRecord['outcome'], string> = {
  succeeded: ':white_check_mark:',
  failed: ':x:',
  denied: ':no_entry:',
  invalid: ':pencil2:',
  // Still "started" after the call should have ended: the bot stopped mid-call; check the target.
  started: ':hourglass_flowing_sand:',
  busy: ':no_entry_sign:',
  applied_unreadable: ':warning:',
  interrupted: ':warning:',
  requested: ':raised_hand:',
  approved: ':ballot_box_with_check:',
  rejected: ':no_entry:',
  expired: ':hourglass:',
};

function recordLine(r: AuditRecord): string {
  const status = r.apiStatus != null ? ` · API ${r.apiStatus}` : '';
  const detail = r.detail ? ` · ${safe(oneLine(r.detail), 150)}` : '';
  const where = r.channelId ? ` · ${channelMention(r.channelId)}` : '';
  const who = `${OUTCOME_MARK[r.outcome] ?? ':grey_question:'} ${code(utcTime(r.at), 30)} ${actor(r)}`;
  const what = `*${safe(r.action, 20)}* ${code(r.target, 40)} → ${safe(r.outcome, 20)}${cloudOutcomeOf(r)}`;
  return `${who} ${what}${status} · ${Math.round(r.durationMs)} ms${where}${approvalNames(r)}${workflowOf(r)}${detail}`;
}

/** A change the cloud accepted, once followed to its end: " · cloud: failed (transactions 9, 10)" (docs/product.md, Audit). */
function cloudOutcomeOf(r: AuditRecord): string {
  if (!r.cloudOutcome) return '';
  const ids = r.transactionIds ?? [];
  return ` · cloud: ${safe(r.cloudOutcome, 20)}${ids.length > 0 ? ` (transaction${ids.length > 1 ? 's' : ''} ${ids.slice(0, 10).join(', ')})` : ''}`;
}

/** Who a record is about: a person, or, for a workflow step's request before anyone claimed it, the workflow. */
function actor(r: AuditRecord): string {
  return r.userId === '' ? 'a workflow' : userMention(r.userId);
}

/** The workflow execution whose step asked for the change: " · workflow `Wx…`". */
function workflowOf(r: AuditRecord): string {
  return r.workflowExecutionId ? ` · workflow ${code(r.workflowExecutionId, 40)}` : '';
}

/** The two people of an approval, whoever the record is about: " · asked by <@R> · approved by <@A>". */
function approvalNames(r: AuditRecord): string {
  const asked = r.requestedBy ? ` · asked by ${userMention(r.requestedBy)}` : '';
  const decided = r.decidedBy ? ` · ${r.outcome === 'rejected' ? 'rejected' : 'approved'} by ${userMention(r.decidedBy)}` : '';
  return `${asked}${decided}`;
}

/** The exact request of a record, on one line: method and path, then the body as sent (cut at `max`). */
function requestLine(r: AuditRecord, max: number): string | null {
  if (!r.apiRequest) return null;
  const { method, path, body } = r.apiRequest;
  return `request: ${code(`${method} ${path}`, 200)}${body === null ? '' : ` ${code(body, max)}`}`;
}

/** Records one a line, newest first as given, in as few sections as Slack's section limit allows. */
export function auditRecordSections(records: readonly AuditRecord[]): KnownBlock[] {
  const blocks: KnownBlock[] = [];
  let chunk: string[] = [];
  let size = 0;
  const lines = records.map((r) => {
    const request = requestLine(r, 300);
    return request ? `${recordLine(r)}\n      ${request}` : recordLine(r);
  });
  for (const line of lines) {
    if (size + line.length > 2900 && chunk.length) {
      blocks.push(section(chunk.join('\n')));
      chunk = [];
      size = 0;
    }
    chunk.push(line);
    size += line.length + 1;
  }
  if (chunk.length) blocks.push(section(chunk.join('\n')));
  return blocks;
}

export function renderAuditRecords({ records }: { records: readonly AuditRecord[] }): Rendered {
  if (records.length === 0) return { text: 'No audit records yet', blocks: [section('No audit records yet: nobody has attempted a change.')] };
  const blocks: KnownBlock[] = [header(`Audit trail · latest ${records.length}`), ...auditRecordSections(records)];
  return { text: fallback(`Latest ${records.length} audit records`), blocks: blocks.slice(0, 50) };
}

/** One record, as posted to VS_AUDIT_CHANNEL. */
export function renderAuditPost(r: AuditRecord): Rendered {
  const params = code(compactJson(r.params), 1500);
  const request = requestLine(r, 1500);
  return {
    text: fallback(escapeMrkdwn(`${r.action} ${r.target} by ${r.userId === '' ? 'a workflow' : r.userId}: ${r.outcome}`)),
    blocks: [section(recordLine(r)), context(`params: ${params}`, ...(request ? [request] : []))],
  };
}

/** Parameters as one compact line; never throws (cycles, BigInt). */
function compactJson(params: Record<string, unknown>): string {
  try {
    return JSON.stringify(params) ?? '{}';
  } catch {
    return '(parameters could not be shown)';
  }
}

/**
 * Several denials of one user, as one post to VS_AUDIT_CHANNEL (at most one
 * denial post per user a minute; each denial is still its own audit record).
 */
export function renderDenialSummary(userId: string, records: readonly AuditRecord[]): Rendered {
  const counts = new Map<string, number>();
  for (const r of records) {
    const what = `${r.action} ${r.target}`;
    counts.set(what, (counts.get(what) ?? 0) + 1);
  }
  const shown = [...counts].slice(0, 20).map(([what, n]) => `${code(what, 60)}${n > 1 ? ` ×${n}` : ''}`);
  const more = counts.size > 20 ? ` and ${counts.size - 20} more` : '';
  const first = records[0] ? utcTime(records[0].at) : '';
  const last = records.length > 0 ? utcTime(records[records.length - 1]!.at) : '';
  return {
    text: fallback(escapeMrkdwn(`${userId} was denied ${records.length} times: ${[...counts.keys()].slice(0, 20).join(', ')}`)),
    blocks: [
      section(`:no_entry: ${userMention(userId)} was denied *${records.length} times* (${code(first, 30)} to ${code(last, 30)}): ${shown.join(', ')}${more}`),
      context('Denials are posted at most once per user a minute; `/vs audit` lists each one.'),
    ],
  };
}
