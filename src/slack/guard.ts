import type { Action, Decision } from '../changes';
import { renderDenied, renderReadLimited } from './blocks/messages';
import { createReadLimiter, type ReadLimiter } from './read-limit';
import type { ListenerContext } from './context';
import { replyEphemeral } from './reply';
import type { Invocation } from './context';

/**
 * The role check of read commands and actions: asks the policy and, when it
 * says no, tells the user which role is needed. Changes are checked (and
 * audited) by the changes door instead.
 */
export async function allowedToRead(ctx: ListenerContext, inv: Pick<Invocation, 'userId' | 'channelId' | 'respond' | 'log'>, action: Extract<Action, 'read' | 'audit_read'> = 'read'): Promise<boolean> {
  const waitSeconds = readLimiterOf(ctx).take(inv.userId);
  if (waitSeconds > 0) {
    inv.log.info('read limit reached', { action, perMinute: ctx.config.readsPerUserPerMinute, retryInSeconds: waitSeconds });
    await replyEphemeral(inv, renderReadLimited({ perMinute: ctx.config.readsPerUserPerMinute, retryInSeconds: waitSeconds }));
    return false;
  }
  const decision: Decision = await ctx.policy.can(inv.userId, action, inv.channelId);
  if (decision.allowed) return true;
  inv.log.info('denied', { action, role: decision.role, needed: decision.needed });
  await replyEphemeral(inv, renderDenied({ action, needed: decision.needed, reason: decision.reason }));
  return false;
}

/** One limiter per running app (its config), so tests and instances in one process do not share buckets. */
const limiters = new WeakMap<object, ReadLimiter>();
function readLimiterOf(ctx: ListenerContext): ReadLimiter {
  let limiter = limiters.get(ctx.config);
  if (!limiter) {
    limiter = createReadLimiter(ctx.config.readsPerUserPerMinute, ctx.now);
    limiters.set(ctx.config, limiter);
  }
  return limiter;
}
