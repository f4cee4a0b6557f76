import type { SubmissionContext } from '../../src/changes/changes';
import type { Config } from '../../src/config';
import { openDoor, T0, type Door, type DoorOptions } from '../helpers/door';

// Break glass at the door (docs/product.md, On call; src/changes/break-glass.ts): whoever holds the role of a change
// that waits for a second person opens a window with a reason; until it ends (its time, or closed early) their own
// such changes run at once, each flagged as a use in the audit, to be acknowledged by another admin. It grants no role,
// lifts no freeze, never outlasts its window, and does nothing for a change that waits for nobody. The clock is the
// door's, moved by the test.

const ROLES: Config['roles'] = {
  admins: ['UADMIN', 'UADMIN2'],
  operators: ['UOPER', 'SONCALL'],
  viewers: null,
  mutationChannels: null,
  groupCacheMs: 1000,
  workflowReads: 'viewers',
};
const WINDOW_MS = 60 * 60_000;
const CHANNEL = 'CINCIDENT';
const REBOOT = { power_action: 'reboot', confirm: '42', reason: 'kernel hung' };

function setup(options: Partial<DoorOptions> = {}): Door {
  return openDoor({
    roles: ROLES,
    groups: { SONCALL: ['UGROUPIE'] },
    approvals: { actions: ['power_reboot', 'backup_restore'], ttlMs: 30 * 60_000 },
    breakGlass: { on: true, windowMs: WINDOW_MS, roles: ROLES },
    ...options,
  });
}

let views = 0;
const as = (userId: string, more: Partial<SubmissionContext> = {}): SubmissionContext => ({
  userId,
  channelId: CHANNEL,
  submissionKey: `V${++views}`,
  ...more,
});
const ctx = (userId: string) => ({ userId, channelId: CHANNEL });

describe('opening a window', () => {
  test('an operator opens one with a reason: recorded with its end and who would have approved; the same again is already open', async () => {
    const t = setup();
    const opened = await t.changes.breakGlass(ctx('UOPER'), 'db-primary down, nobody awake to approve');
    expect(opened).toMatchObject({
      outcome: 'opened',
      window: { userId: 'UOPER', channelId: CHANNEL, reason: 'db-primary down, nobody awake to approve', endsAtMs: T0 + WINDOW_MS, endedBy: null },
      // Everyone who could approve an operator's change: the admins and the operators' group, people by id, never the opener.
      approvers: { groups: ['SONCALL'], users: ['UADMIN', 'UADMIN2'] },
      record: {
        action: 'breakglass',
        outcome: 'done',
        userId: 'UOPER',
        target: 'changes',
        params: {
          reason: 'db-primary down, nobody awake to approve',
          minutes: 60,
          ends_at: new Date(T0 + WINDOW_MS).toISOString(),
          approvers: ['SONCALL', 'UADMIN', 'UADMIN2'],
        },
      },
    });
    expect(t.recorded.map((r) => r.action)).toEqual(['breakglass']);
    t.advance(1000);
    expect(await t.changes.breakGlass(ctx('UOPER'), 'again')).toMatchObject({
      outcome: 'already_open',
      window: { reason: 'db-primary down, nobody awake to approve' },
    });
    expect(await t.store.audit.count()).toBe(1);
    await t.store.close();
  });

  test('never a role: a viewer may not open one, and is recorded as refused', async () => {
    const t = setup({ roles: { ...ROLES, viewers: ['UVIEW'] } });
    expect(await t.changes.breakGlass(ctx('UVIEW'), 'let me in')).toMatchObject({
      outcome: 'denied',
      decision: { role: 'viewer', needed: 'operator', denial: { code: 'role' } },
      record: { action: 'breakglass', outcome: 'refused', userId: 'UVIEW' },
    });
    expect(await t.changes.breakGlassOf('UVIEW')).toBeNull();
    await t.store.close();
  });

  test('never lifts a freeze: refused while frozen, recorded', async () => {
    const t = setup();
    await t.changes.freeze(ctx('UADMIN'), 'storage migration');
    expect(await t.changes.breakGlass(ctx('UOPER'), 'urgent')).toMatchObject({ outcome: 'denied', decision: { denial: { code: 'frozen' } } });
    await t.store.close();
  });

  test('off (VS_BREAKGLASS), or with nothing that waits for a second person: nothing to break, nothing written', async () => {
    const off = setup({ breakGlass: { on: false, windowMs: WINDOW_MS, roles: ROLES } });
    expect(await off.changes.breakGlass(ctx('UOPER'), 'urgent')).toEqual({ outcome: 'off' });
    const nothing = setup({ approvals: { actions: [], ttlMs: 1000 } });
    expect(await nothing.changes.breakGlass(ctx('UOPER'), 'urgent')).toEqual({ outcome: 'nothing_waits' });
    expect(await off.store.audit.count()).toBe(0);
    expect(await nothing.store.audit.count()).toBe(0);
    await off.store.close();
    await nothing.store.close();
  });
});

describe('under an open window', () => {
  test('the person’s change that would wait runs at once, flagged as a use of the window; the same change waits for anyone else', async () => {
    const t = setup();
    const opened = await t.changes.breakGlass(ctx('UOPER'), 'kernel hung on web-1');
    if (opened.outcome !== 'opened') throw new Error(opened.outcome);
    const ran = await t.changes.submit(as('UOPER'), 'power_reboot', 42, REBOOT);
    expect(ran).toMatchObject({ outcome: 'succeeded', breakGlass: { id: opened.window.id }, record: { breakGlass: opened.window.id, outcome: 'scheduled' } });
    expect(t.calls.map((c) => c.path)).toEqual(['/virtual_machines/42/reboot.json']);
    // Someone else's waits, as always.
    expect(await t.changes.submit(as('UADMIN'), 'power_reboot', 42, REBOOT)).toMatchObject({ outcome: 'requested' });
    expect(t.calls).toHaveLength(1);
    expect((await t.store.audit.latest(10, { breakGlass: 'uses' })).map((r) => [r.userId, r.action])).toEqual([['UOPER', 'power_reboot']]);
    await t.store.close();
  });

  test('it grants no role: a change the person may not make is refused as always, and is no use', async () => {
    const t = setup();
    await t.changes.breakGlass(ctx('UOPER'), 'restore needed');
    expect(await t.changes.submit(as('UOPER'), 'backup_restore', 9, { confirm: '9', reason: 'corrupted' })).toMatchObject({
      outcome: 'denied',
      decision: { role: 'operator', needed: 'admin' },
    });
    expect(t.calls).toEqual([]);
    expect(await t.store.audit.count({ breakGlass: 'uses' })).toBe(0);
    await t.store.close();
  });

  test('it never outlasts its window: at its end the person’s changes wait again', async () => {
    const t = setup();
    await t.changes.breakGlass(ctx('UOPER'), 'kernel hung');
    t.advance(WINDOW_MS - 1);
    expect((await t.changes.submit(as('UOPER'), 'power_reboot', 42, REBOOT)).outcome).toBe('succeeded');
    t.advance(1);
    expect(await t.changes.breakGlassOf('UOPER')).toBeNull();
    expect((await t.changes.submit(as('UOPER'), 'power_reboot', 42, REBOOT)).outcome).toBe('requested');
    expect(t.calls).toHaveLength(1);
    await t.store.close();
  });

  test('closed early by its person: recorded, and from then on their changes wait; closing again says none is open', async () => {
    const t = setup();
    await t.changes.breakGlass(ctx('UOPER'), 'kernel hung');
    t.advance(5 * 60_000);
    expect(await t.changes.endBreakGlass(ctx('UOPER'))).toMatchObject({
      outcome: 'ended',
      window: { endsAtMs: T0 + 5 * 60_000, endedBy: 'UOPER' },
      record: { action: 'breakglass_end', userId: 'UOPER' },
    });
    expect((await t.changes.submit(as('UOPER'), 'power_reboot', 42, REBOOT)).outcome).toBe('requested');
    expect(await t.changes.endBreakGlass(ctx('UOPER'))).toEqual({ outcome: 'not_open' });
    await t.store.close();
  });

  test('it lifts no freeze: a submission while frozen is refused, and is no use', async () => {
    const t = setup();
    await t.changes.breakGlass(ctx('UOPER'), 'kernel hung');
    await t.changes.freeze(ctx('UADMIN'), 'storage migration');
    expect(await t.changes.submit(as('UOPER'), 'power_reboot', 42, REBOOT)).toMatchObject({ outcome: 'denied', decision: { denial: { code: 'frozen' } } });
    expect(t.calls).toEqual([]);
    expect(await t.store.audit.count({ breakGlass: 'uses' })).toBe(0);
    await t.store.close();
  });

  test('a change that waits for nobody runs as always, and is no use', async () => {
    const t = setup();
    await t.changes.breakGlass(ctx('UOPER'), 'kernel hung');
    expect((await t.changes.submit(as('UOPER'), 'power_shutdown', 42, { power_action: 'shutdown', confirm: '42', reason: 'x' })).outcome).toBe('succeeded');
    expect(await t.store.audit.count({ breakGlass: 'uses' })).toBe(0);
    await t.store.close();
  });
});

describe('the review', () => {
  async function aUse(t: Door) {
    await t.changes.breakGlass(ctx('UOPER'), 'kernel hung');
    const ran = await t.changes.submit(as('UOPER'), 'power_reboot', 42, REBOOT);
    if (!('record' in ran)) throw new Error(ran.outcome);
    return ran.record;
  }

  test('another admin acknowledges a use, once, recorded; a second click is told who did', async () => {
    const t = setup();
    const use = await aUse(t);
    t.advance(3_600_000);
    const acked = await t.changes.acknowledge(use.id, ctx('UADMIN'));
    expect(acked).toMatchObject({
      outcome: 'acknowledged',
      use: { id: use.id, reviewedBy: 'UADMIN', reviewedAt: new Date(T0 + 3_600_000).toISOString() },
      record: { action: 'breakglass_ack', userId: 'UADMIN', target: 'vs:42', params: { record: use.id, changed_by: 'UOPER' } },
    });
    expect(await t.changes.acknowledge(use.id, ctx('UADMIN2'))).toMatchObject({ outcome: 'already', use: { reviewedBy: 'UADMIN' } });
    expect(await t.store.audit.latest(10, { breakGlass: 'unreviewed' })).toEqual([]);
    await t.store.close();
  });

  test('an operator may not, nor may the admin who made the change: both refused and recorded; a record that is no use is none', async () => {
    const t = setup();
    // An admin's own use.
    await t.changes.breakGlass(ctx('UADMIN'), 'restore needed');
    const own = await t.changes.submit(as('UADMIN'), 'backup_restore', 9, { confirm: '9', reason: 'corrupted' });
    if (!('record' in own) || !own.record.breakGlass) throw new Error('not a use');
    expect(await t.changes.acknowledge(own.record.id, ctx('UADMIN'))).toMatchObject({ outcome: 'denied', decision: { denial: { code: 'own_use' } } });
    expect(await t.changes.acknowledge(own.record.id, ctx('UOPER'))).toMatchObject({
      outcome: 'denied',
      decision: { needed: 'admin', denial: { code: 'role' } },
      record: { action: 'breakglass_ack', outcome: 'refused' },
    });
    expect(await t.changes.acknowledge(own.record.id, ctx('UADMIN2'))).toMatchObject({ outcome: 'acknowledged' });
    const plain = await t.changes.submit(as('UOPER'), 'power_shutdown', 42, { power_action: 'shutdown', confirm: '42', reason: 'x' });
    if (!('record' in plain)) throw new Error(plain.outcome);
    expect(await t.changes.acknowledge(plain.record.id, ctx('UADMIN'))).toEqual({ outcome: 'not_a_use' });
    expect(await t.changes.acknowledge(424_242, ctx('UADMIN'))).toEqual({ outcome: 'not_a_use' });
    await t.store.close();
  });
});
