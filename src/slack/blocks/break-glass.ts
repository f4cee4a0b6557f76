import type { ActionsBlock, Button, KnownBlock } from '@slack/types';
import { recordTargetTitle, type Deciders } from '../../changes';
import type { AuditRecord, BreakGlassWindow } from '../../store';
import { decidersLine } from './approvals';
import { context, fallback, groupMention, mrkdwn, oneLine, type Rendered, safe, section, slackTime, unrecordable, userMention, withSandbox } from './mrkdwn';

// Break glass as people read it (docs/product.md, On call): the loud post when a window opens (in its channel, and in
// the audit channel by its record), mentioning everyone who would have been asked to approve; the note on a change
// made under it, with the Acknowledge button (`breakglass_ack`, value the use's record id) that another admin presses
// after the incident; what the audit, `/vs whoami` and the Home tab say of windows and uses.

export const BREAKGLASS_ACK_ACTION_ID = 'breakglass_ack';

const reasonOf = (reason: string) => `“${safe(oneLine(reason), 300)}”`;

/** The Acknowledge button of a use (its record's id). */
export function acknowledgeButton(recordId: number): Button {
  return {
    type: 'button',
    action_id: BREAKGLASS_ACK_ACTION_ID,
    text: { type: 'plain_text', text: 'Acknowledge' },
    value: String(recordId),
    confirm: {
      title: { type: 'plain_text', text: 'Acknowledge this change?' },
      text: mrkdwn('It was made under break glass, without a second person. Acknowledge it once you have reviewed it.'),
      confirm: { type: 'plain_text', text: 'Acknowledge' },
      deny: { type: 'plain_text', text: 'Not yet' },
    },
  };
}

/** Everyone who would have been asked to approve, as mentions; null when nobody is named. */
function approversText(approvers: Deciders): string | null {
  return decidersLine(approvers);
}

/** `/vs breakglass <reason>`, opened: for the whole channel, loud. */
export function renderBreakGlassOpened(o: { window: BreakGlassWindow; approvers: Deciders; sandbox: boolean }): Rendered {
  const { window } = o;
  const who = approversText(o.approvers);
  const text =
    `:rotating_light: *Break glass*: ${userMention(window.userId)} opened it until ${slackTime(window.endsAtMs)}: ${reasonOf(window.reason)}\n` +
    `Until then their own changes that would wait for a second person run at once. Every one is flagged in the audit and waits for an admin's review.`;
  return {
    text: fallback(`Break glass: ${userMention(window.userId)} until ${slackTime(window.endsAtMs)}`, o.sandbox),
    blocks: withSandbox(
      [
        section(text),
        context(`${who ? `${who}: you would have been asked to approve. ` : ''}It grants no role and lifts no freeze. \`/vs breakglass end\` closes it early.`),
      ],
      o.sandbox,
    ),
  };
}

export function renderBreakGlassAlreadyOpen(window: BreakGlassWindow): Rendered {
  const text = `Your break-glass window is already open, until ${slackTime(window.endsAtMs)} (${reasonOf(window.reason)}). \`/vs breakglass end\` closes it.`;
  return { text: fallback('Your break-glass window is already open'), blocks: [section(`:rotating_light: ${text}`)] };
}

/** `/vs breakglass end`: for the channel, as the opening was. */
export function renderBreakGlassEnded(o: { window: BreakGlassWindow; sandbox: boolean }): Rendered {
  const text =
    `:lock: ${userMention(o.window.userId)} closed their break-glass window (opened ${slackTime(o.window.openedAt)}). ` +
    'Changes wait for a second person again.';
  return { text: fallback(`${userMention(o.window.userId)} closed their break-glass window`, o.sandbox), blocks: withSandbox([section(text)], o.sandbox) };
}

export const BREAK_GLASS_OFF = 'Break glass is off here: changes that need a second person wait for one (the bot operator turns it on with VS_BREAKGLASS=on).';
export const NOTHING_WAITS =
  'No change waits for a second person here (VS_APPROVALS names none), so there is no glass to break: your role lets you make your changes at once.';
export const NOT_OPEN = 'You have no break-glass window open; nothing to close.';
export const BREAK_GLASS_UNRECORDED = unrecordable('Break glass could not be switched', 'nothing was changed', 'Try again in a minute.');

/** A record's target in words ("VS 42"), as the audit names it; the stored key when of no known kind. */
function targetWords(target: string, label?: string | null): string {
  return safe(recordTargetTitle(target, label) ?? target, 80);
}

/** Posted in a change's channel when it ran under break glass: nobody approved it; an admin acknowledges it later. */
export function renderBreakGlassUse(o: { record: AuditRecord; window: BreakGlassWindow; sandbox: boolean }): Rendered {
  const { record } = o;
  const text =
    `:rotating_light: ${userMention(record.userId)} made this change to ${targetWords(record.target, record.serverLabel)} under break glass ` +
    `(${reasonOf(o.window.reason)}): no second person approved it. It waits for an admin's review.`;
  const actions: ActionsBlock = { type: 'actions', block_id: `breakglass_use_${record.id}`, elements: [acknowledgeButton(record.id)] };
  return {
    text: fallback(`A change to ${targetWords(record.target, record.serverLabel)} was made under break glass and waits for review`, o.sandbox),
    blocks: withSandbox(
      [section(text), actions, context(`Audit record ${record.id}. \`/vs audit breakglass\` lists every change made under break glass.`)],
      o.sandbox,
    ),
  };
}

/** An audit line's note of a break-glass use: " · break glass, waiting for review" or " · break glass, reviewed by @B". */
export function recordBreakGlassNote(r: Pick<AuditRecord, 'breakGlass' | 'reviewedBy' | 'reviewedAt'>): string {
  if (!r.breakGlass) return '';
  return r.reviewedBy
    ? ` · :rotating_light: break glass, reviewed by ${userMention(r.reviewedBy)}${r.reviewedAt ? ` ${slackTime(r.reviewedAt)}` : ''}`
    : " · :rotating_light: break glass, waiting for an admin's review";
}

/** An Acknowledge button below an audit line of a use nobody reviewed yet; null for any other record. */
export function acknowledgeBlock(r: Pick<AuditRecord, 'id' | 'breakGlass' | 'reviewedBy'>): KnownBlock | null {
  if (!r.breakGlass || r.reviewedBy) return null;
  return { type: 'actions', block_id: `breakglass_ack_${r.id}`, elements: [acknowledgeButton(r.id)] };
}

/** The audit channel's post of a window opened: loud, mentioning everyone who would have been asked. */
export function renderBreakGlassAuditPost(r: AuditRecord): Rendered | null {
  if (r.action !== 'breakglass' || r.outcome !== 'done') return null;
  const reason = typeof r.params.reason === 'string' ? r.params.reason : '';
  const endsAt = typeof r.params.ends_at === 'string' ? r.params.ends_at : null;
  const approvers = Array.isArray(r.params.approvers) ? r.params.approvers.filter((id): id is string => typeof id === 'string') : [];
  const mentions = approvers.map((id) => (id.startsWith('S') ? groupMention(id) : userMention(id))).join(' ');
  const text =
    `:rotating_light: *Break glass*: ${userMention(r.userId)} opened it${endsAt ? ` until ${slackTime(endsAt)}` : ''}` +
    `${r.channelId ? ` in <#${r.channelId}>` : ''}: ${reasonOf(reason)}`;
  return {
    text: fallback(`Break glass opened by ${userMention(r.userId)}`),
    blocks: [
      section(text),
      context(
        `${mentions ? `${mentions}: you would have been asked to approve. ` : ''}` +
          "Every change made under it waits for an admin's review (`/vs audit breakglass`).",
      ),
    ],
  };
}

/** Why a record of a window opened reads as it does: " · until <time>: “reason”" (the audit line's words; never an ISO time). */
export function breakGlassWhy(r: AuditRecord): string | null {
  if (r.action !== 'breakglass' || r.outcome !== 'done') return null;
  const reason = typeof r.params.reason === 'string' ? r.params.reason : '';
  const endsAt = typeof r.params.ends_at === 'string' ? r.params.ends_at : null;
  return `${endsAt ? ` · until ${slackTime(endsAt)}: ` : ' · '}${reasonOf(reason)}`;
}

/** What the person who clicked Acknowledge is told. */
export function acknowledgedText(o: { outcome: 'acknowledged' | 'already' | 'not_a_use'; use?: AuditRecord }): string {
  if (o.outcome === 'not_a_use' || !o.use) return 'That record is not a change made under break glass (or it is older than the retention).';
  const what = `${userMention(o.use.userId)}'s change to ${targetWords(o.use.target, o.use.serverLabel)} (record ${o.use.id})`;
  if (o.outcome === 'acknowledged') return `:white_check_mark: You acknowledged ${what}, made under break glass.`;
  const by = o.use.reviewedBy ? userMention(o.use.reviewedBy) : 'another admin';
  return `${what} was already acknowledged by ${by}${o.use.reviewedAt ? ` ${slackTime(o.use.reviewedAt)}` : ''}.`;
}

/** `/vs whoami`'s line about a window of theirs open now. */
export function breakGlassLine(window: BreakGlassWindow | null | 'unknown'): string | null {
  if (window === null) return null;
  if (window === 'unknown') return 'Whether you have a break-glass window open could not be read just now.';
  return (
    `:rotating_light: Your break-glass window is open until ${slackTime(window.endsAtMs)} (${reasonOf(window.reason)}): ` +
    'your changes that would wait for a second person run at once.'
  );
}

/** The Home tab's part: the windows open now, and the uses nobody has reviewed (admins: with Acknowledge). */
export function breakGlassHomeBlocks(o: {
  windows: readonly BreakGlassWindow[] | 'unreadable';
  unreviewed: readonly AuditRecord[] | 'unreadable' | null;
  lineOf: (r: AuditRecord) => string;
}): KnownBlock[] {
  const blocks: KnownBlock[] = [];
  if (o.windows === 'unreadable') blocks.push(section(':warning: The break-glass windows could not be read just now.'));
  else if (o.windows.length > 0)
    blocks.push(
      section(
        `:rotating_light: *Break glass open*\n${o.windows
          .slice(0, 10)
          .map((w) => `• ${userMention(w.userId)} until ${slackTime(w.endsAtMs)}: ${reasonOf(w.reason)}`)
          .join('\n')}`,
      ),
    );
  if (o.unreviewed === null) return blocks;
  if (o.unreviewed === 'unreadable') return [...blocks, section(':warning: The changes made under break glass could not be read just now.')];
  if (o.unreviewed.length === 0) return blocks;
  blocks.push(section(`*Made under break glass, waiting for review* (${o.unreviewed.length})`));
  for (const r of o.unreviewed.slice(0, 10)) {
    blocks.push({ type: 'section', block_id: `breakglass_home_${r.id}`, text: mrkdwn(o.lineOf(r)), accessory: acknowledgeButton(r.id) });
  }
  return blocks;
}
