import type { WebClient } from '@slack/web-api';
import { atLeast, isChangeAction, neededRole } from '../changes';
import type { Logger } from '../log';
import type { Approval } from '../store';
import { approvalFacts } from './approval-messages';
import type { ApprovalFacts } from './blocks/approvals';
import { HOME_RECORDS, HOME_UNREVIEWED, renderHome, UNREADABLE, type HomeFacts } from './blocks/home';
import { slackErrorSummary } from './channel-post';
import { publishView } from './send';
import type { ListenerContext } from './context';
import { READ_COMMANDS } from './listeners/commands';

// Draws a person's Home tab from what holds now (the policy for their role,
// the store for the freeze and the audit trail, the door for the approval
// requests they may decide) and publishes it. Run when
// they open it (app_home_opened) and after a decision taken from it. Reads
// that fail are shown as such on the tab rather than leaving it unpublished.

/** Publishes `userId`'s Home tab; false (logged) when Slack refused it. */
export async function publishHome(ctx: ListenerContext, client: WebClient, userId: string, log: Logger): Promise<boolean> {
  const view = renderHome(await homeFacts(ctx, userId, log));
  try {
    await publishView(client, { user_id: userId, view });
    return true;
  } catch (error) {
    log.warn('could not publish the Home tab', { error: slackErrorSummary(error) });
    return false;
  }
}

async function homeFacts(ctx: ListenerContext, userId: string, log: Logger): Promise<HomeFacts> {
  const standing = await ctx.policy.standing(userId);
  const { role } = standing;
  const allows = ctx.policy.allows(role);
  // Those who may read the audit trail see every change; everyone else their own.
  const scope = atLeast(role, neededRole('audit_read')) ? 'all' : 'own';
  const admin = atLeast(role, neededRole('breakglass_ack'));
  // One's own: the changes they made or asked for (an approved one's record is about whoever approved it).
  const whose = scope === 'all' ? {} : { involving: userId };
  const [freeze, records, waiting, windows, unreviewed] = await Promise.all([
    readable(ctx.store.freeze.current(), 'the freeze', log),
    // Changes, one record each: refusals are on record (`/vs audit refused`) and summed under them, not listed.
    readable(ctx.store.audit.latest(HOME_RECORDS, { ...whose, notOutcomes: ['refused'], perChange: true }), 'the audit trail', log),
    readable(ctx.changes.waiting(userId), 'the approval requests', log),
    // Break glass (docs/product.md, On call): the windows open now, and for admins the changes made under one that wait for review.
    readable(ctx.changes.openBreakGlass(), 'the break-glass windows', log),
    admin ? readable(ctx.store.audit.latest(HOME_UNREVIEWED, { breakGlass: 'unreviewed' }), 'the break-glass uses', log) : Promise.resolve(null),
  ]);
  // Over the time the list covers: since its oldest change when it is full, else all of them.
  const oldest = records !== UNREADABLE && records.length >= HOME_RECORDS ? records[records.length - 1] : undefined;
  // Their own attempts refused, not others' clicks on their requests.
  const mine = scope === 'all' ? {} : { userId };
  const refused = await readable(ctx.store.audit.count({ ...mine, outcomes: ['refused'], ...(oldest ? { minId: oldest.id } : {}) }), 'the refusals', log);
  const facts = (approvals: readonly Approval[]) =>
    approvals.map((a) => approvalFacts(a, ctx.sandbox, undefined, (vsId) => ctx.names.labelOf(vsId))).filter((f): f is ApprovalFacts => f !== null);
  return {
    userId,
    role,
    ...(standing.onCall ? { onCall: standing.onCall } : {}),
    allows,
    reads: READ_COMMANDS,
    mutationChannels: ctx.config.roles.mutationChannels,
    noChangeRolesConfigured: !ctx.policy.changeRolesConfigured,
    freeze,
    forms: allows.filter(isChangeAction),
    approvals: waiting === UNREADABLE ? UNREADABLE : { decidable: facts(waiting.decidable), own: facts(waiting.own) },
    changes: { scope, records, refused },
    breakGlass: { windows, unreviewed },
    nowMs: ctx.now(),
    sandbox: ctx.sandbox,
  };
}

async function readable<T>(read: Promise<T>, what: string, log: Logger): Promise<T | typeof UNREADABLE> {
  try {
    return await read;
  } catch (error) {
    log.warn(`could not read ${what} for the Home tab`, { error });
    return UNREADABLE;
  }
}
