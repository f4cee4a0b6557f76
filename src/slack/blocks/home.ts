import type { ActionsBlock, HomeView, KnownBlock } from '@slack/types';
import { OUTCOME_SIGNS, targetTitle, type ChangeAction, type OnCallNote } from '../../changes';
import type { AuditRecord, BreakGlassWindow, Freeze } from '../../store';
import { breakGlassHomeBlocks } from './break-glass';
import { onCallLine } from './on-call';
import { approvalButtons, asked, requestBlock, withdrawButton, type ApprovalFacts } from './approvals';
import { CHANGE_FORMS, FORMS, homeFormButton } from './change-forms';
import { frozenText } from './denials';
import { recordLine, recordSection } from './audit';
import { roleLines, type RoleFacts } from './messages';
import { channelMention, context, header, LIMITS, safe, section, slackTime, truncate, withSandbox } from './mrkdwn';

// The Home tab (docs/product.md, App Home): who you are here and what your role
// allows, whether changes are frozen, the buttons that open the change forms,
// the approval requests you may decide (with the buttons their messages
// have), your own requests still waiting, and the latest changes (all of
// them for those who may read the audit trail, else your own). Pure: the
// listener reads the store, the policy and the door and hands the facts in; a
// fact that could not be read is shown as such, never left out.

/** How many of the latest changes the Home tab lists. */
export const HOME_RECORDS = 20;

/** How many requests the Home tab lists, of those waiting for you (three blocks each) and of your own (one each). */
export const HOME_APPROVALS = 10;

/** How many changes made under break glass and not yet reviewed the Home tab lists (admins). */
export const HOME_UNREVIEWED = 10;

/** A fact the store could not give just now. */
export const UNREADABLE = 'unreadable';
type Readable<T> = T | typeof UNREADABLE;

export interface HomeFacts extends RoleFacts {
  /** The freeze in force, or null. */
  freeze: Readable<Freeze | null>;
  /** The changes this user's role may make: the forms that make them have their buttons (unless changes are frozen). */
  forms: readonly ChangeAction[];
  /** The open approval requests: those this user may decide now, and their own waiting for someone. */
  approvals: Readable<{ decidable: readonly ApprovalFacts[]; own: readonly ApprovalFacts[] }>;
  /**
   * The latest changes, one record each (requested and later: an approval request as it stands, or the change it
   * became): every one (`all`, for those who may read the audit trail) or the user's own; and how many attempts were
   * refused (stopped before anything was sent) over the same time, summed in one line under them.
   */
  changes: { scope: 'all' | 'own'; records: Readable<readonly AuditRecord[]>; refused: Readable<number> };
  /** How being on call counted for the role: it came from a shift, or could not be checked. */
  onCall?: OnCallNote;
  /** Break-glass windows open now; for admins (else null) the changes made under one that wait for review. */
  breakGlass?: { windows: Readable<readonly BreakGlassWindow[]>; unreviewed: Readable<readonly AuditRecord[]> | null };
  /** When the view was drawn (epoch ms). */
  nowMs: number;
  sandbox: boolean;
}

export function renderHome(o: HomeFacts): HomeView {
  const blocks: KnownBlock[] = [
    header('vs-chatops'),
    { ...section([...roleLines(o), onCallLine(o.onCall)].filter((line) => line !== null).join('\n')), block_id: 'home_role' },
    { ...section(freezeText(o.freeze)), block_id: 'home_freeze' },
    ...formBlocks(o),
    ...breakGlassBlocks(o),
    ...approvalBlocks(o),
    { type: 'divider' },
    header(o.changes.scope === 'all' ? 'Latest changes' : 'Your latest changes'),
    ...changeBlocks(o.changes),
    context(`Updated ${slackTime(o.nowMs)}. The Home tab is drawn each time you open it.`),
  ];
  return { type: 'home', callback_id: 'home', blocks: withSandbox(blocks, o.sandbox) };
}

/** The break-glass windows open now and the uses waiting for review, under a divider; nothing when there are none. */
function breakGlassBlocks(o: HomeFacts): KnownBlock[] {
  if (!o.breakGlass) return [];
  const blocks = breakGlassHomeBlocks({ ...o.breakGlass, lineOf: (r) => truncate(recordLine(r), LIMITS.sectionText) });
  return blocks.length > 0 ? [{ type: 'divider' }, ...blocks] : [];
}

function freezeText(freeze: HomeFacts['freeze']): string {
  if (freeze === UNREADABLE) return ':warning: Whether changes are frozen could not be read just now; no change can be made until the store answers.';
  if (freeze === null) return ':large_green_circle: Changes are not frozen.';
  return `:ice_cube: ${frozenText(freeze)}\nUntil then no form opens, from any channel or here, and no request can be approved.`;
}

function formBlocks(o: HomeFacts): KnownBlock[] {
  // While frozen (or while the freeze cannot be read) the forms would only be refused: the line above says why instead.
  if (o.forms.length === 0 || o.freeze !== null) return [];
  const buttons: ActionsBlock = {
    type: 'actions',
    block_id: 'home_forms',
    elements: FORMS.filter((form) => o.forms.some((action) => CHANGE_FORMS[action].form === form)).map((form) => ({
      type: 'button',
      action_id: homeFormButton(form),
      text: { type: 'plain_text', text: form.shortcut.name },
    })),
  };
  return [context('Each form asks for the server or backup and for the channel that sees the result.'), buttons];
}

function approvalBlocks(o: HomeFacts): KnownBlock[] {
  if (o.approvals === UNREADABLE)
    return [{ type: 'divider' }, section(':warning: The approval requests could not be read just now. Open the Home tab again in a minute.')];
  const { decidable, own } = o.approvals;
  const blocks: KnownBlock[] = [];
  if (decidable.length > 0) {
    blocks.push({ type: 'divider' }, header('Waiting for your approval'));
    for (const f of decidable.slice(0, HOME_APPROVALS)) {
      blocks.push(
        section(`:raised_hand: ${asked(f)}\n*In:* ${channelMention(f.approval.channelId)} · *open until* ${slackTime(f.approval.expiresAtMs)}`),
        requestBlock(f.approval.apiRequest),
        { type: 'actions', block_id: `approval_${f.approval.id}`, elements: approvalButtons(f) },
      );
    }
    const more = decidable.length - HOME_APPROVALS;
    blocks.push(
      context(
        (more > 0 ? `${more} more waiting, in their channels. ` : '') +
          (o.freeze === null
            ? "Approve sends the request shown, at once, for whoever asked; the request's message in its channel says how it ended."
            : 'While changes are frozen, Approve is refused; Deny is not.'),
      ),
    );
  }
  if (own.length > 0) {
    blocks.push({ type: 'divider' }, header('Your requests waiting for a second person'));
    // One block each, its Withdraw button beside it.
    for (const f of own.slice(0, HOME_APPROVALS)) {
      const what = `*${safe(f.title, 40)}* · ${safe(targetTitle(f.target), 40)}`;
      const line = `${OUTCOME_SIGNS.requested} ${what} in ${channelMention(f.approval.channelId)}, open until ${slackTime(f.approval.expiresAtMs)}`;
      blocks.push({ ...section(line), block_id: `own_${f.approval.id}`, accessory: withdrawButton(f.approval) } as KnownBlock);
    }
    const more = own.length - HOME_APPROVALS;
    blocks.push(
      context(
        (more > 0 ? `… and ${more} more, in their channels. ` : '') +
          'A second person who holds the role each change needs decides it; you cannot decide your own, but you may withdraw it.',
      ),
    );
  }
  return blocks;
}

function changeBlocks(changes: HomeFacts['changes']): KnownBlock[] {
  if (changes.records === UNREADABLE) return [section(':warning: The audit trail could not be read just now. Open the Home tab again in a minute.')];
  const listed = changes.records.slice(0, HOME_RECORDS);
  const none = listed.length === 0 ? [section(changes.scope === 'all' ? 'No change has been asked for yet.' : 'You have not asked for any change yet.')] : [];
  return [...none, ...listed.map((r) => recordSection(r)), ...refusedLine(changes, listed)];
}

/** The refusals over the time the list covers, summed in one line (docs/product.md, App Home): none, none said. */
function refusedLine(changes: HomeFacts['changes'], listed: readonly AuditRecord[]): KnownBlock[] {
  const { refused, scope } = changes;
  if (refused === UNREADABLE) return [context(':warning: How many attempts were refused could not be read just now.')];
  if (refused === 0) return [];
  const oldest = listed.length >= HOME_RECORDS ? listed[listed.length - 1] : undefined;
  const since = oldest ? ` since ${slackTime(oldest.at)}` : '';
  const whose = scope === 'all' ? '' : ' of yours';
  const attempts = `${refused} attempt${refused === 1 ? '' : 's'}${whose}`;
  const list = scope === 'all' ? '`/vs audit refused` lists them' : 'each was answered when it was refused';
  return [
    context(
      `${OUTCOME_SIGNS.refused} ${attempts} refused${since} before anything was sent ` +
        `(role, channel, freeze, limit, invalid input, busy or unfit target): ${list}.`,
    ),
  ];
}
