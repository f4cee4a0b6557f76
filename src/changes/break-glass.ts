import { randomUUID } from 'node:crypto';
import type { AuditRecord, BreakGlassWindow } from '../store';
import { deciders, type Deciders } from './approvals';
import { CHANGES, type ChangeAction } from './definitions';
import type { BreakGlassSettings, ChangeContext, Door } from './door';
import { atLeast, type Decision, type Role } from './policy';

// Break glass (docs/product.md, On call): at 3 a.m. the second person may not be awake. Whoever holds the role for a
// change that waits for a second person opens a window, with a reason, in which their own such changes run at once
// (changes.ts asks `openFor` at submission); the window ends at its time or when they close it. It grants no role
// (every change is checked as always) and lifts no freeze (a change under it is refused while frozen, and so is
// opening one). Opening it is recorded with everyone who could have approved, whom the Slack side mentions where it
// was opened and in the audit channel; every change made under it is flagged in its record (a use) and waits until
// another admin acknowledges it. Each step is recorded in the transaction that takes it (store.breakGlass).

export type { BreakGlassSettings } from './door';

export type BreakGlassResult =
  | { outcome: 'opened'; window: BreakGlassWindow; record: AuditRecord; approvers: Deciders }
  /** One of theirs is open: it stays as it is, nothing was written. */
  | { outcome: 'already_open'; window: BreakGlassWindow }
  /** Refused (recorded): they hold the role of no change that waits for a second person, their channel, the freeze. */
  | { outcome: 'denied'; decision: Decision; record: AuditRecord }
  /** VS_BREAKGLASS is off, or no change waits for a second person (VS_APPROVALS): nothing to break. Nothing written. */
  | { outcome: 'off' }
  | { outcome: 'nothing_waits' };

export type BreakGlassEndResult = { outcome: 'ended'; window: BreakGlassWindow; record: AuditRecord } | { outcome: 'not_open' };

export type AcknowledgeResult =
  | { outcome: 'acknowledged'; use: AuditRecord; record: AuditRecord }
  /** Someone acknowledged it first: who and when are on the use. */
  | { outcome: 'already'; use: AuditRecord }
  /** No such record, or a record of no change made under break glass. */
  | { outcome: 'not_a_use' }
  /** Refused (recorded): not an admin now, or their own use. */
  | { outcome: 'denied'; decision: Decision; record: AuditRecord };

/** What a break-glass window's records are about: every change of its owner, as the freeze's are about every change. */
export const BREAK_GLASS_TARGET = 'changes';

/** The longest reason kept. */
export const BREAK_GLASS_REASON_MAX_LENGTH = 200;

export function createBreakGlassSteps(door: Door, settings: BreakGlassSettings | undefined, approvalActions: readonly ChangeAction[]) {
  const { store, now, logger, check, frozenDenial, write, notify, auditEntry, denialEntry } = door;
  const iso = (ms: number) => new Date(ms).toISOString();

  /** The change that waits for a second person and needs the least role: holding its role is what opening asks. */
  function easiestWaiting(): ChangeAction | null {
    let easiest: ChangeAction | null = null;
    for (const action of approvalActions) if (easiest === null || !atLeast(CHANGES[action].needed, CHANGES[easiest].needed)) easiest = action;
    return easiest;
  }

  /** The person's window open now, when break glass is on; null otherwise (their changes wait as always). */
  async function openFor(userId: string): Promise<BreakGlassWindow | null> {
    if (!settings?.on || userId === '') return null;
    return store.breakGlass.current(userId, now());
  }

  async function open(ctx: ChangeContext, reason: string): Promise<BreakGlassResult> {
    if (!settings?.on) return { outcome: 'off' };
    const action = easiestWaiting();
    if (action === null) return { outcome: 'nothing_waits' };
    const startedMs = now();
    const log = logger.child({ user: ctx.userId, channel: ctx.channelId, action: 'breakglass' });
    const minutes = Math.round(settings.windowMs / 60_000);
    const params = { reason, minutes };
    // The role (and the channel) of the change that waits and needs the least; then the freeze, which it never lifts.
    const allowed = await check(ctx.userId, action, ctx.channelId, log);
    const decision = allowed.allowed ? ((await frozenDenial(allowed)) ?? allowed) : allowed;
    if (!decision.allowed) {
      log.info('break glass refused', { role: decision.role, needed: decision.needed, denial: decision.denial?.code });
      const record = await write(denialEntry(startedMs, { ...ctx, action: 'breakglass', target: BREAK_GLASS_TARGET, params }, decision), log);
      notify(record, log);
      return { outcome: 'denied', decision, record };
    }
    const needed: Role = CHANGES[action].needed;
    const approvers = deciders(settings.roles, needed, ctx.userId);
    const window: BreakGlassWindow = {
      id: randomUUID(),
      userId: ctx.userId,
      channelId: ctx.channelId,
      reason,
      openedAt: iso(startedMs),
      endsAtMs: startedMs + settings.windowMs,
      endedBy: null,
    };
    const entry = auditEntry(
      startedMs,
      {
        ...ctx,
        action: 'breakglass',
        target: BREAK_GLASS_TARGET,
        params: { ...params, window: window.id, ends_at: iso(window.endsAtMs), approvers: [...approvers.groups, ...approvers.users] },
      },
      'done',
      `break glass until ${iso(window.endsAtMs)}: ${reason}`,
    );
    const opened = await store.breakGlass.open(window, startedMs, entry);
    if (!opened.opened || !opened.record) {
      log.info('break glass already open', { window: opened.window.id, endsAtMs: opened.window.endsAtMs });
      return { outcome: 'already_open', window: opened.window };
    }
    log.warn('break glass opened: changes of this person that wait for a second person run at once until it ends', {
      window: window.id,
      endsAt: iso(window.endsAtMs),
    });
    notify(opened.record, log);
    return { outcome: 'opened', window: opened.window, record: opened.record, approvers };
  }

  async function end(ctx: ChangeContext): Promise<BreakGlassEndResult> {
    const endedMs = now();
    const ended = await store.breakGlass.end(ctx.userId, ctx.userId, endedMs, (window) =>
      auditEntry(
        endedMs,
        { ...ctx, action: 'breakglass_end', target: BREAK_GLASS_TARGET, params: { window: window.id, opened_at: window.openedAt } },
        'done',
        `closed the break-glass window opened at ${window.openedAt}, before its end`,
      ),
    );
    if (!ended.ended || !ended.record) return { outcome: 'not_open' };
    logger.info('break glass closed early', { user: ctx.userId, window: ended.ended.id });
    notify(ended.record);
    return { outcome: 'ended', window: ended.ended, record: ended.record };
  }

  /** A click on a use's Acknowledge: an admin now, not the one who made the change; the first click wins, recorded. */
  async function acknowledge(recordId: number, clicker: ChangeContext): Promise<AcknowledgeResult> {
    const startedMs = now();
    const log = logger.child({ user: clicker.userId, channel: clicker.channelId, action: 'breakglass_ack', record: recordId });
    const use = await store.audit.get(recordId);
    if (!use?.breakGlass) return { outcome: 'not_a_use' };
    if (use.reviewedBy) return { outcome: 'already', use };
    const about = {
      ...clicker,
      action: 'breakglass_ack' as const,
      target: use.target,
      params: { record: use.id, window: use.breakGlass, changed_by: use.userId },
    };
    const checked = await check(clicker.userId, 'breakglass_ack', clicker.channelId, log);
    const decision: Decision = checked.allowed && clicker.userId === use.userId ? { ...checked, allowed: false, denial: { code: 'own_use' } } : checked;
    if (!decision.allowed) {
      log.info('acknowledgement refused', { role: decision.role, denial: decision.denial?.code });
      const record = await write(denialEntry(startedMs, about, decision), log);
      notify(record, log);
      return { outcome: 'denied', decision, record };
    }
    const at = iso(startedMs);
    const acknowledged = await store.breakGlass.acknowledge(recordId, clicker.userId, at, (found) =>
      auditEntry(startedMs, about, 'done', `acknowledged the change ${found.userId} made under break glass (record ${found.id})`),
    );
    if (!acknowledged.acknowledged || !acknowledged.record || !acknowledged.use)
      return acknowledged.use?.breakGlass ? { outcome: 'already', use: acknowledged.use } : { outcome: 'not_a_use' };
    log.info('break-glass use acknowledged');
    notify(acknowledged.record, log);
    return { outcome: 'acknowledged', use: acknowledged.use, record: acknowledged.record };
  }

  return {
    openFor,
    open,
    end,
    acknowledge,
    /** Every window open now. */
    openWindows: () => store.breakGlass.openAt(now()),
  };
}
