import { isChangeAction, type Action, type ControlAction, type Decision, type ReadAction, type Role, type RoleHolders } from '../../changes';
import type { Freeze } from '../../store';
import { CHANGE_FORMS } from './change-forms';
import { channelMention, groupMention, oneLine, safe, slackTime, userMention } from './mrkdwn';

// The words of refusals: the policy and the door say why as data (role,
// needed role, channel, reason code); these sentences are all there is. A
// change's own words are in its row of CHANGE_FORMS.

const OTHER_WORDS: Record<ReadAction | ControlAction, { doing: string; allows: string }> = {
  read: { doing: 'Reading server details', allows: 'use the read commands (`/vs help` lists them)' },
  audit_read: { doing: 'Reading the audit trail', allows: 'read the audit trail' },
  freeze: { doing: 'Freezing and unfreezing changes', allows: 'freeze and unfreeze every change (`/vs freeze`, `/vs unfreeze`)' },
  breakglass_ack: { doing: 'Acknowledging a change made under break glass', allows: 'acknowledge changes made under break glass' },
};

/** The action as the subject of a sentence: "Adding a disk". */
export function actionWords(action: Action): string {
  return isChangeAction(action) ? CHANGE_FORMS[action].doing : OTHER_WORDS[action].doing;
}

const ROLE_WITH_ARTICLE: Record<Role, string> = {
  none: 'you have no role',
  viewer: 'you are a viewer',
  operator: 'you are an operator',
  admin: 'you are an admin',
};

/** Where changes are allowed, as mrkdwn: `<#C1>, <#C2>` or "no channel". */
export function channelList(channels: readonly string[], max = 20): string {
  if (channels.length === 0) return 'no channel';
  const shown = channels.slice(0, max).map(channelMention).join(', ');
  return channels.length > max ? `${shown} and ${channels.length - max} more` : shown;
}

/** Why a decision refused, as mrkdwn (channel links included, nothing else unescaped). */
export function denialText(decision: Pick<Decision, 'action' | 'role' | 'needed' | 'denial'>): string {
  const { action, role, needed, denial } = decision;
  switch (denial?.code) {
    case 'role':
      return `${actionWords(action)} needs the ${needed} role; ${ROLE_WITH_ARTICLE[role]}. ${holdersText(needed, denial.holders)}`;
    case 'no_change_roles':
      return `${actionWords(action)} needs the ${needed} role; ${ROLE_WITH_ARTICLE[role]}. ${holdersText(needed, [])}`;
    case 'channel': {
      const here = denial.channelId === null ? 'the channel of this request is not known' : 'this is not one of them';
      return `Changes are only allowed in ${channelList(denial.allowedChannels)}; ${here}.`;
    }
    case 'not_member':
      return `From a shortcut, a change is allowed only in a channel you are a member of; you are not a member of ${channelMention(denial.channelId)}.`;
    case 'check_failed':
      return 'Your role could not be checked just now, so nothing was changed. Try again in a minute.';
    case 'frozen':
      return frozenText(denial.freeze);
    case 'own_request':
      return 'You asked for this change, so a second person must decide it: you cannot approve or deny your own request.';
    case 'not_requester':
      return `Only ${userMention(denial.requestedBy)}, who asked for this change, may withdraw it. Nothing was changed.`;
    case 'requester':
      return `${userMention(denial.requestedBy)} asked for this change and could not ask for it now: ${requesterText(action, denial.theirs)} Nothing was sent.`;
    case 'own_use':
      return 'You made this change under break glass, so another admin must acknowledge it: nobody reviews their own.';
    default:
      return `${actionWords(action)} needs the ${needed} role.`;
  }
}

/** At most this many people are named by their own id in a refusal; user groups are all named, first. */
export const MAX_NAMED_HOLDERS = 5;

const HOLDERS_TITLE: Record<RoleHolders['role'], string> = { viewer: 'Viewers', operator: 'Operators', admin: 'Admins' };

/**
 * Who holds the role a refusal needs, now, as mentions (docs/product.md, One outcome): "Operators: @oncall-infra,
 * @Otto. Admins: @Ada."; the user groups of each role first, then at most MAX_NAMED_HOLDERS people in all. Never a
 * setting's name: the person refused reads it, not whoever runs the bot. A refusal is told to that person alone
 * (ephemeral, or a modal), so its mentions notify nobody.
 */
export function holdersText(needed: Role, holders: readonly RoleHolders[]): string {
  if (holders.length === 0) return `Nobody holds the ${needed} role yet; ask whoever runs the bot.`;
  let named = 0;
  const lines = holders.map(({ role, groups, users }) => {
    const shown = users.slice(0, Math.max(0, MAX_NAMED_HOLDERS - named));
    named += shown.length;
    const more = users.length - shown.length;
    const mentions = [...groups.map(groupMention), ...shown.map(userMention)];
    if (mentions.length === 0) return `And ${more} ${role}${more === 1 ? '' : 's'}.`;
    return `${HOLDERS_TITLE[role]}: ${[...mentions, ...(more > 0 ? [`${more} more`] : [])].join(', ')}.`;
  });
  return lines.join(' ');
}

const THEIR_ROLE: Record<Role, string> = {
  none: 'they have no role',
  viewer: 'they are a viewer',
  operator: 'they are an operator',
  admin: 'they are an admin',
};

/** Why the one who asked could not ask for a change now (checked again when it is approved), as mrkdwn. */
function requesterText(action: Action, theirs: Pick<Decision, 'role' | 'needed' | 'denial'>): string {
  switch (theirs.denial?.code) {
    case 'channel':
      return `changes are only allowed in ${channelList(theirs.denial.allowedChannels)}, and this channel is not one of them now.`;
    case 'check_failed':
      return 'their role could not be checked just now. Try again in a minute.';
    default:
      return `${actionWords(action)} needs the ${theirs.needed} role; ${THEIR_ROLE[theirs.role]} now.`;
  }
}

/** What a role may do, for `/vs whoami`, as mrkdwn. */
export function allowsText(actions: readonly Action[], mutationChannels: readonly string[] | null): string[] {
  const where = mutationChannels === null ? '' : ` (only in ${channelList(mutationChannels)})`;
  return actions.map((action) => (isChangeAction(action) ? `${CHANGE_FORMS[action].allows}${where}` : OTHER_WORDS[action].allows));
}

/** Who froze changes, when and why (docs/product.md, Errors the user sees), as mrkdwn. */
export function frozenText(freeze: Freeze): string {
  return (
    `Changes are frozen: ${userMention(freeze.by)} froze them ${slackTime(freeze.at)} because “${safe(oneLine(freeze.reason), 300)}”. ` +
    'An admin can allow changes again with `/vs unfreeze`.'
  );
}
