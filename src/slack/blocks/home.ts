import type { ActionsBlock, HomeView, KnownBlock } from '@slack/types';
import type { ChangeAction } from '../../changes';
import type { AuditRecord, Freeze } from '../../store';
import { CHANGE_FORMS } from './change-forms';
import { auditRecordSections, roleLines, type RoleFacts } from './messages';
import { context, header, safe, section, slackTime, userMention, withSandbox } from './mrkdwn';

// The Home tab (PRODUCT.md "App Home"): who you are here and what your role
// allows, whether changes are frozen, the buttons that open the change forms,
// and the latest changes (all of them for those who may read the audit trail,
// else your own). Pure: the listener reads the store and the policy and hands
// the facts in; a fact that could not be read is shown as such, never left out.

/** The button that opens a change's form from the Home tab; its action_id. */
export const HOME_FORM_BUTTONS: { readonly [A in ChangeAction]: `home_open_${A}` } = {
  disk_add: 'home_open_disk_add',
  backup_restore: 'home_open_backup_restore',
};

/** How many of the latest changes the Home tab lists. */
export const HOME_RECORDS = 20;

/** A fact the store could not give just now. */
export const UNREADABLE = 'unreadable';
type Readable<T> = T | typeof UNREADABLE;

export interface HomeFacts extends RoleFacts {
  /** The freeze in force, or null. */
  freeze: Readable<Freeze | null>;
  /** The change forms this user's role may open (their buttons are shown unless changes are frozen). */
  forms: readonly ChangeAction[];
  /** The latest changes: every one (`all`, for those who may read the audit trail) or the user's own. */
  changes: { scope: 'all' | 'own'; records: Readable<readonly AuditRecord[]> };
  /** When the view was drawn (epoch ms). */
  nowMs: number;
  sandbox: boolean;
}

export function renderHome(o: HomeFacts): HomeView {
  const blocks: KnownBlock[] = [
    header('vs-chatops'),
    { type: 'section', block_id: 'home_role', text: { type: 'mrkdwn', text: roleLines(o).join('\n') } },
    { ...section(freezeText(o.freeze)), block_id: 'home_freeze' },
    ...formBlocks(o),
    { type: 'divider' },
    header(o.changes.scope === 'all' ? 'Latest changes' : 'Your latest changes'),
    ...changeBlocks(o.changes),
    context(`Updated ${slackTime(o.nowMs)}. The Home tab is drawn each time you open it.`),
  ];
  return { type: 'home', callback_id: 'home', blocks: withSandbox(blocks, o.sandbox) };
}

function freezeText(freeze: HomeFacts['freeze']): string {
  if (freeze === UNREADABLE) return ':warning: Whether changes are frozen could not be read just now; no change can be made until the store answers.';
  if (freeze === null) return ':large_green_circle: Changes are not frozen.';
  const at = Date.parse(freeze.at);
  const since = Number.isFinite(at) ? ` since ${slackTime(at)}` : '';
  return (
    `:octagonal_sign: *Changes are frozen*${since} by ${userMention(freeze.by)}: ${safe(freeze.reason, 500)}\n` +
    'Nothing can be changed, from any channel or form, until an admin types `/vs unfreeze`.'
  );
}

function formBlocks(o: HomeFacts): KnownBlock[] {
  // While frozen (or while the freeze cannot be read) the forms would only be refused: the line above says why instead.
  if (o.forms.length === 0 || o.freeze !== null) return [];
  const buttons: ActionsBlock = {
    type: 'actions',
    block_id: 'home_forms',
    elements: o.forms.map((action) => ({
      type: 'button',
      action_id: HOME_FORM_BUTTONS[action],
      text: { type: 'plain_text', text: CHANGE_FORMS[action].shortcut.name },
    })),
  };
  return [context('Each form asks for the server or backup and for the channel that sees the result.'), buttons];
}

function changeBlocks(changes: HomeFacts['changes']): KnownBlock[] {
  if (changes.records === UNREADABLE) return [section(':warning: The audit trail could not be read just now. Open the Home tab again in a minute.')];
  if (changes.records.length === 0) return [section(changes.scope === 'all' ? 'No change has been attempted yet.' : 'You have not attempted any change yet.')];
  return auditRecordSections(changes.records.slice(0, HOME_RECORDS));
}
