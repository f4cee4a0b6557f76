import type { AuditRecord, Freeze } from '../store';
import type { ChangeContext, Door } from './door';
import type { Decision } from './policy';

// The switch that stops every change (docs/product.md, Freeze): admins turn it
// on with a reason and off again; each is recorded in the same transaction as
// the change of state, and a refusal is recorded too. While it is on, the
// door refuses every way in (door.ts frozenDenial: opening a form, a
// submission, an approval), reading it from the store each time, so that
// every instance holds it at once and it survives restarts.

export type FreezeResult =
  | { outcome: 'frozen'; freeze: Freeze; record: AuditRecord }
  /** Someone froze changes before: that freeze stays in force; nothing was written. */
  | { outcome: 'already_frozen'; freeze: Freeze }
  | { outcome: 'denied'; decision: Decision; record: AuditRecord };

export type UnfreezeResult =
  | { outcome: 'unfrozen'; lifted: Freeze; record: AuditRecord }
  /** Nothing was frozen; nothing was written. */
  | { outcome: 'not_frozen' }
  | { outcome: 'denied'; decision: Decision; record: AuditRecord };

/** What freeze and unfreeze records are about: every change. */
export const FREEZE_TARGET = 'changes';

export function createFreezeSteps(door: Door) {
  const { store, now, logger, check, write, notify, auditEntry, denialEntry } = door;

  /** The policy's answer for the freeze; a refusal is recorded. */
  async function refusal(ctx: ChangeContext, action: 'freeze' | 'unfreeze', startedMs: number, params: Record<string, unknown>) {
    const log = logger.child({ user: ctx.userId, channel: ctx.channelId, action });
    const decision = await check(ctx.userId, 'freeze', ctx.channelId, log);
    if (decision.allowed) return { log, denied: null };
    log.info('freeze refused', { role: decision.role, needed: decision.needed });
    const record = await write(denialEntry(startedMs, { ...ctx, action, target: FREEZE_TARGET, params }, decision), log);
    notify(record, log);
    return { log, denied: { outcome: 'denied' as const, decision, record } };
  }

  return {
    freeze: async (ctx: ChangeContext, reason: string): Promise<FreezeResult> => {
      const startedMs = now();
      const params = { reason };
      const { log, denied } = await refusal(ctx, 'freeze', startedMs, params);
      if (denied) return denied;
      const at = new Date(startedMs).toISOString();
      const entry = auditEntry(startedMs, { ...ctx, action: 'freeze', target: FREEZE_TARGET, params }, 'done', reason);
      const started = await store.freeze.start({ by: ctx.userId, at, reason }, entry);
      if (!started.started || !started.record) {
        log.info('already frozen', { by: started.freeze.by, at: started.freeze.at });
        return { outcome: 'already_frozen', freeze: started.freeze };
      }
      log.warn('changes frozen', { reason });
      notify(started.record, log);
      return { outcome: 'frozen', freeze: started.freeze, record: started.record };
    },

    unfreeze: async (ctx: ChangeContext): Promise<UnfreezeResult> => {
      const startedMs = now();
      const { log, denied } = await refusal(ctx, 'unfreeze', startedMs, {});
      if (denied) return denied;
      const { lifted, record } = await store.freeze.lift((freeze) =>
        auditEntry(
          startedMs,
          { ...ctx, action: 'unfreeze', target: FREEZE_TARGET, params: { frozen_by: freeze.by, frozen_at: freeze.at, reason: freeze.reason } },
          'done',
          `lifted the freeze of ${freeze.by} (${freeze.reason})`,
        ),
      );
      if (!lifted || !record) return { outcome: 'not_frozen' };
      log.warn('changes unfrozen', { frozenBy: lifted.by, frozenAt: lifted.at });
      notify(record, log);
      return { outcome: 'unfrozen', lifted, record };
    },

    frozen: () => store.freeze.current(),
  };
}
