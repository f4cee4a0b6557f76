import { createPolicy, type Policy } from '../../src/changes/policy';
import type { Config } from '../../src/config';
import { createLogger } from '../../src/log';
import type { AuditRecord } from '../../src/store';
import { openDoor, T0, type Door, type DoorOptions } from '../helpers/door';
import { goodDiskForm } from '../helpers/forms';

// The freeze at the door (src/changes/freeze.ts): admins switch every change
// off with a reason and on again, each recorded with the switch; a refusal is
// recorded; while it is on, the door refuses opening a form and a submission
// (and an approval: approvals.test.ts) with who froze, when and why.

const ROLES: Config['roles'] = {
  admins: ['UADMIN', 'UADMIN2'],
  operators: ['UOPER'],
  viewers: null,
  mutationChannels: null,
  groupCacheMs: 1000,
  workflowReads: 'viewers',
};
const ctx = (userId: string) => ({ userId, channelId: 'CINCIDENT' });

const setup = (options: Partial<DoorOptions> = {}) => openDoor({ roles: ROLES, ...options });

/** The record of the freeze switched on or off by `userId`, at `at`. */
const switchRecord = (action: 'freeze' | 'unfreeze', userId: string, at: string, fields: Partial<AuditRecord>) =>
  expect.objectContaining({ action, target: 'changes', userId, outcome: 'done', at, ...fields });

describe('the freeze', () => {
  let t: Door;
  afterEach(() => t.store.close());

  test('an admin freezes with a reason: in force at once, recorded with the switch', async () => {
    t = setup();
    const result = await t.changes.freeze(ctx('UADMIN'), 'storage migration');
    const freeze = { by: 'UADMIN', at: new Date(T0).toISOString(), reason: 'storage migration' };
    expect(result).toEqual({
      outcome: 'frozen',
      freeze,
      record: switchRecord('freeze', 'UADMIN', freeze.at, {
        channelId: 'CINCIDENT',
        params: { reason: 'storage migration' },
        apiStatus: null,
        detail: 'storage migration',
      }),
    });
    expect(await t.changes.frozen()).toEqual(freeze);
    expect(t.recorded).toEqual([(result as { record: AuditRecord }).record]);
  });

  test('while frozen, opening a form and submitting one are refused with the freeze, and recorded; nothing is called', async () => {
    t = setup();
    await t.changes.freeze(ctx('UADMIN'), 'storage migration');
    const opening = await t.changes.authorize(ctx('UOPER'), 'disk_add', 'vs:42');
    expect(opening).toMatchObject({
      allowed: false,
      role: 'operator',
      needed: 'operator',
      denial: { code: 'frozen', freeze: { by: 'UADMIN', reason: 'storage migration' } },
    });
    const fromShortcut = await t.changes.authorize(ctx('UOPER'), 'disk_add', 'shortcut', { channelChosenLater: true });
    expect(fromShortcut.denial?.code).toBe('frozen');
    const submitted = await t.changes.submit({ ...ctx('UOPER'), submissionKey: 'V1' }, 'disk_add', 42, goodDiskForm);
    expect(submitted).toMatchObject({ outcome: 'denied', decision: { denial: { code: 'frozen' } } });
    expect(t.calls).toEqual([]);
    const denied = (await t.store.audit.latest(10)).filter((r) => r.outcome === 'refused');
    expect(denied.map((r) => r.detail)).toEqual(Array(3).fill(`changes are frozen (by UADMIN at ${new Date(T0).toISOString()}: storage migration)`));
  });

  test('a role refusal is said before the freeze: a viewer is told about the role', async () => {
    t = setup({ roles: { ...ROLES, viewers: ['UVIEW'] } });
    await t.changes.freeze(ctx('UADMIN'), 'x');
    expect((await t.changes.authorize(ctx('UVIEW'), 'disk_add', 'vs:42')).denial?.code).toBe('role');
  });

  test('freezing again keeps the first freeze and writes nothing', async () => {
    t = setup();
    await t.changes.freeze(ctx('UADMIN'), 'first');
    t.advance(1000);
    expect(await t.changes.freeze(ctx('UADMIN2'), 'second')).toEqual({
      outcome: 'already_frozen',
      freeze: { by: 'UADMIN', at: new Date(T0).toISOString(), reason: 'first' },
    });
    expect(await t.store.audit.latest(10)).toHaveLength(1);
    expect(t.recorded).toHaveLength(1);
  });

  test('an admin unfreezes: changes run again, the record says whose freeze was lifted', async () => {
    t = setup();
    await t.changes.freeze(ctx('UADMIN'), 'storage migration');
    t.advance(60_000);
    const result = await t.changes.unfreeze(ctx('UADMIN2'));
    const lifted = { by: 'UADMIN', at: new Date(T0).toISOString(), reason: 'storage migration' };
    expect(result).toEqual({
      outcome: 'unfrozen',
      lifted,
      record: switchRecord('unfreeze', 'UADMIN2', new Date(T0 + 60_000).toISOString(), {
        params: { frozen_by: 'UADMIN', frozen_at: lifted.at, reason: 'storage migration' },
        detail: 'lifted the freeze of UADMIN (storage migration)',
      }),
    });
    expect(await t.changes.frozen()).toBeNull();
    expect(t.recorded.map((r) => r.action)).toEqual(['freeze', 'unfreeze']);
    expect((await t.changes.submit({ ...ctx('UOPER'), submissionKey: 'V2' }, 'disk_add', 42, goodDiskForm)).outcome).toBe('succeeded');
    expect(await t.changes.authorize(ctx('UOPER'), 'disk_add', 'vs:42')).toMatchObject({ allowed: true, denial: null });
  });

  test('unfreezing when nothing is frozen says so and writes nothing', async () => {
    t = setup();
    expect(await t.changes.unfreeze(ctx('UADMIN'))).toEqual({ outcome: 'not_frozen' });
    expect(await t.store.audit.latest(10)).toEqual([]);
  });

  test('only admins: an operator is refused either way, recorded, and nothing switches', async () => {
    t = setup();
    const refused = await t.changes.freeze(ctx('UOPER'), 'because');
    expect(refused).toMatchObject({
      outcome: 'denied',
      decision: { action: 'freeze', role: 'operator', needed: 'admin', denial: { code: 'role' } },
      record: { action: 'freeze', target: 'changes', userId: 'UOPER', outcome: 'refused', params: { reason: 'because' }, detail: 'role operator, needs admin' },
    });
    expect(await t.changes.frozen()).toBeNull();
    await t.changes.freeze(ctx('UADMIN'), 'real');
    expect(await t.changes.unfreeze(ctx('UOPER'))).toMatchObject({ outcome: 'denied', record: { action: 'unfreeze', params: {} } });
    expect(await t.changes.frozen()).toMatchObject({ reason: 'real' });
    expect(t.recorded.map((r) => `${r.action} ${r.outcome}`)).toEqual(['freeze refused', 'freeze done', 'unfreeze refused']);
  });

  test('a policy that fails answers no', async () => {
    const policy: Policy = { ...createPolicy(ROLES, { membersOf: async () => [] }), can: () => Promise.reject(new Error('down')) };
    t = setup({ policy });
    expect(await t.changes.freeze(ctx('UADMIN'), 'x')).toMatchObject({ outcome: 'denied', decision: { denial: { code: 'check_failed' } } });
    expect(await t.changes.frozen()).toBeNull();
  });
});

describe('the log', () => {
  test('each switch, a second freeze and a refusal are logged with who, where, which switch, and what', async () => {
    const lines: string[] = [];
    const t = setup({ logger: createLogger({ level: 'debug', write: (line) => lines.push(line) }) });
    try {
      await t.changes.freeze(ctx('UOPER'), 'not mine to freeze');
      await t.changes.freeze(ctx('UADMIN'), 'storage migration');
      t.advance(1000);
      await t.changes.freeze(ctx('UADMIN2'), 'me too');
      await t.changes.unfreeze(ctx('UADMIN2'));
      const at = new Date(T0).toISOString();
      expect(lines.map((l) => JSON.parse(l) as Record<string, unknown>)).toEqual([
        expect.objectContaining({
          level: 'info',
          msg: 'freeze refused',
          role: 'operator',
          needed: 'admin',
          user: 'UOPER',
          channel: 'CINCIDENT',
          action: 'freeze',
        }),
        expect.objectContaining({ level: 'warn', msg: 'changes frozen', reason: 'storage migration', user: 'UADMIN', action: 'freeze' }),
        expect.objectContaining({ level: 'info', msg: 'already frozen', by: 'UADMIN', at, user: 'UADMIN2' }),
        expect.objectContaining({ level: 'warn', msg: 'changes unfrozen', frozenBy: 'UADMIN', frozenAt: at, user: 'UADMIN2', action: 'unfreeze' }),
      ]);
    } finally {
      await t.store.close();
    }
  });
});
