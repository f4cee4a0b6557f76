import type { Action, Decision } from '../changes';
import { renderDenied } from './blocks/messages';
import type { ListenerContext } from './context';
import { replyEphemeral } from './reply';
import type { Invocation } from './context';

/**
 * The role check of read commands and actions: asks the policy and, when it
 * says no, tells the user which role is needed. Changes are checked (and
 * audited) by the changes door instead.
 */
export async function allowedToRead(ctx: ListenerContext, inv: Pick<Invocation, 'userId' | 'channelId' | 'respond' | 'log'>, action: Extract<Action, 'read' | 'audit_read'> = 'read'): Promise<boolean> {
  const decision: Decision = await ctx.policy.can(inv.userId, action, inv.channelId);
  if (decision.allowed) return true;
  inv.log.info('denied', { action, role: decision.role, needed: decision.needed });
  await replyEphemeral(inv, renderDenied({ action, needed: decision.needed, reason: decision.reason }));
  return false;
}
