import { runningTransaction } from '../../src/changes/power';
import type { SubmissionContext } from '../../src/changes/changes';
import { CloudError } from '../../src/cloud/errors';
import type { TransactionStatus } from '../../src/cloud/schemas';
import type { Config } from '../../src/config';
import { openDoor, type DoorOptions } from '../helpers/door';

// The power actions through the change door (src/changes/power.ts and their
// rows of CHANGES), without Slack: who may make each, what is read of the
// server before anything is sent, the exact request, and the approval path.
// docs/product.md, Power actions; docs/cloud-api.md, Power actions.

const ROLES: Config['roles'] = {
  admins: ['UADMIN', 'UADMIN2'],
  operators: ['UOPER', 'UOPER2'],
  viewers: ['UVIEW'],
  mutationChannels: null,
  groupCacheMs: 60_000,
  workflowReads: 'viewers',
};

const setup = (options: Partial<DoorOptions> = {}) => openDoor({ roles: ROLES, lockTtlMs: 60_000, ...options });

let key = 0;
const as = (userId: string): SubmissionContext => ({ userId, channelId: 'CINCIDENT', submissionKey: `V${++key}` });

/** The power form as Slack sends it for VS 42. */
const form = (power_action: string, o: { confirm?: string; reason?: string } = {}) => ({
  power_action,
  confirm: o.confirm ?? '42',
  reason: o.reason ?? 'unresponsive since the deploy',
});

/** An action the server's state allows: a start finds it off, the rest find it on. */
const FITTING = { startup: { booted: false }, shutdown: { booted: true }, reboot: { booted: true }, reboot_recovery: { booted: true }, stop: { booted: true } };

describe('the power actions through the door', () => {
  let t: ReturnType<typeof setup>;
  afterEach(() => t.store.close());

  // docs/product.md, Roles: operators start, shut down and reboot; admins also stop and reboot into the recovery image.
  const roles = [
    ['power_start', 'startup', 'UOPER', 'succeeded'],
    ['power_shutdown', 'shutdown', 'UOPER', 'succeeded'],
    ['power_reboot', 'reboot', 'UOPER', 'succeeded'],
    ['power_reboot', 'reboot_recovery', 'UOPER', 'denied'],
    ['power_reboot', 'reboot_recovery', 'UADMIN', 'succeeded'],
    ['power_stop', 'stop', 'UOPER', 'denied'],
    ['power_stop', 'stop', 'UADMIN', 'succeeded'],
    ['power_start', 'startup', 'UVIEW', 'denied'],
  ] as const;

  test.each(roles)('%s (%s) by %s: %s', async (action, choice, user, outcome) => {
    t = setup();
    t.onServer(FITTING[choice]);
    const result = await t.changes.submit(as(user), action, 42, form(choice));
    expect(result.outcome).toBe(outcome);
    const [record] = await t.store.audit.latest(1);
    expect(record).toMatchObject({ userId: user, action, target: 'vs:42', outcome: outcome === 'denied' ? 'refused' : 'scheduled' });
    if (outcome === 'denied') {
      expect(t.calls).toEqual([]);
      expect(record!.detail).toMatch(/^role (operator|viewer), needs (admin|operator)$/);
    } else {
      expect(t.calls).toHaveLength(1);
      expect(record).toMatchObject({ apiStatus: 201, params: { power_action: choice, reason: 'unresponsive since the deploy' } });
    }
  });

  test('each sends its exact request, recorded as sent: the path of its action, no body but the recovery mode, JSON and XML', async () => {
    t = setup();
    for (const [action, choice, path] of [
      ['power_start', 'startup', '/virtual_machines/42/startup.json'],
      ['power_shutdown', 'shutdown', '/virtual_machines/42/shutdown.json'],
      ['power_reboot', 'reboot', '/virtual_machines/42/reboot.json'],
      ['power_stop', 'stop', '/virtual_machines/42/stop.json'],
    ] as const) {
      t.onServer(FITTING[choice]);
      expect(await t.changes.submit(as('UADMIN'), action, 42, form(choice))).toMatchObject({ outcome: 'succeeded' });
      expect(t.calls.at(-1)).toMatchObject({ method: 'POST', path, body: null, operation: action });
    }
    t.onServer(FITTING.reboot_recovery);
    await t.changes.submit(as('UADMIN'), 'power_reboot', 42, form('reboot_recovery'));
    expect(t.calls.at(-1)).toMatchObject({ path: '/virtual_machines/42/reboot.json', body: '{"mode":"recovery"}' });
    const [record] = await t.store.audit.latest(1);
    expect(record!.apiRequest).toEqual({ method: 'POST', path: '/virtual_machines/42/reboot.json', body: '{"mode":"recovery"}' });
    expect(record!.detail).toBe('reboot of VS 42');
    await t.store.close();

    t = setup({ format: 'xml' });
    await t.changes.submit(as('UADMIN'), 'power_reboot', 42, form('reboot_recovery'));
    expect(t.calls.at(-1)).toMatchObject({ path: '/virtual_machines/42/reboot.xml', body: '<?xml version="1.0" encoding="UTF-8"?><mode>recovery</mode>' });
  });

  describe('the server is read before anything is sent', () => {
    test.each([
      ['power_start', 'startup', { booted: true }, 'on'],
      ['power_shutdown', 'shutdown', { booted: false }, 'off'],
      ['power_reboot', 'reboot', { booted: false }, 'off'],
      ['power_stop', 'stop', { booted: false }, 'off'],
      ['power_start', 'startup', { booted: false, suspended: true }, 'suspended'],
    ] as const)('%s (%s) of a server %j is refused with its state (%s), recorded as invalid, nothing sent', async (action, choice, server, power) => {
      t = setup();
      t.onServer(server);
      const result = await t.changes.submit(as('UADMIN'), action, 42, form(choice));
      expect(result).toMatchObject({ outcome: 'unfit', action, state: { power, locked: false } });
      expect(t.calls).toEqual([]);
      expect(t.reads).toEqual(['server']);
      const [record] = await t.store.audit.latest(1);
      expect(record).toMatchObject({ action, outcome: 'refused', detail: `not sent: VS 42 is ${power}, which ${action} does not fit` });
    });

    test('a reboot of a server in the recovery image is sent: it is on', async () => {
      t = setup();
      t.onServer({ booted: true, recovery_mode: true });
      expect(await t.changes.submit(as('UOPER'), 'power_reboot', 42, form('reboot'))).toMatchObject({ outcome: 'succeeded' });
    });

    test('a server locked by a running transaction is busy, naming the transaction; recorded as busy, nothing sent', async () => {
      t = setup();
      t.onServer({ booted: true, locked: true }, [
        { id: 9002, action: 'reboot_virtual_machine', status: 'running' },
        { id: 9001, action: 'build_disk', status: 'complete' },
      ]);
      const result = await t.changes.submit(as('UOPER'), 'power_reboot', 42, form('reboot'));
      expect(result).toMatchObject({ outcome: 'busy', transaction: { id: 9002, action: 'reboot_virtual_machine', status: 'running' } });
      expect(t.calls).toEqual([]);
      expect(t.reads).toEqual(['server', 'transactions']);
      const [record] = await t.store.audit.latest(1);
      expect(record).toMatchObject({ outcome: 'refused', detail: 'not sent: VS 42 is locked by a running transaction (reboot_virtual_machine 9002)' });
    });

    test('locked, with no transaction the cloud lists as running: busy all the same, unnamed', async () => {
      t = setup();
      t.onServer({ booted: true, locked: true }, []);
      expect(await t.changes.submit(as('UOPER'), 'power_shutdown', 42, form('shutdown'))).toMatchObject({ outcome: 'busy', transaction: null });
      expect(t.calls).toEqual([]);
    });

    test('a server that cannot be read is not sent to: failed, with what the cloud said', async () => {
      t = setup();
      t.onServer(() => Promise.reject(new CloudError('not_found', 'the cloud API has no such object', { status: 404 })));
      const result = await t.changes.submit(as('UOPER'), 'power_start', 42, form('startup'));
      expect(result).toMatchObject({ outcome: 'failed', error: { kind: 'not_found' }, fieldErrors: {}, formErrors: [] });
      expect(t.calls).toEqual([]);
      const [record] = await t.store.audit.latest(1);
      expect(record).toMatchObject({ outcome: 'failed', apiStatus: 404 });
      expect(record!.detail).toMatch(/^not sent: VS 42 could not be read first/);
    });

    test('a disk add reads nothing first', async () => {
      t = setup();
      await t.changes.submit(as('UOPER'), 'disk_add', 42, { disk_type: 'SSD', disk_size: '20' });
      expect(t.reads).toEqual([]);
    });
  });

  describe('the form', () => {
    test('the reason is required, the server id must be typed again, and the choice must be one of the change', async () => {
      t = setup();
      const invalid = await t.changes.submit(as('UOPER'), 'power_reboot', 42, { power_action: 'stop', confirm: '41', reason: '  ' });
      expect(invalid).toMatchObject({
        outcome: 'invalid',
        fieldErrors: {
          power_action: 'Choose what to do with the server',
          confirm: 'Type the server id (42) to confirm',
          reason: 'Give the reason: it is kept in the audit trail',
        },
      });
      expect(t.calls).toEqual([]);
      expect(t.reads).toEqual([]);
      expect((await t.store.audit.latest(1))[0]).toMatchObject({ outcome: 'refused' });
      expect(await t.changes.submit(as('UOPER'), 'power_reboot', 42, form('reboot', { confirm: ' #42 ' }))).toMatchObject({ outcome: 'succeeded' });
    });
  });

  describe('with VS_APPROVALS naming a power action', () => {
    const approvals = { actions: ['power_reboot'] as const, ttlMs: 30 * 60_000 };

    test('a reboot waits for a second person, then runs once, reading the server again before it is sent', async () => {
      t = setup({ approvals: { ...approvals, actions: [...approvals.actions] } });
      const asked = await t.changes.submit(as('UOPER'), 'power_reboot', 42, form('reboot'));
      expect(asked).toMatchObject({ outcome: 'requested', approval: { action: 'power_reboot', target: 'vs:42' } });
      if (asked.outcome !== 'requested') throw new Error('not requested');
      expect(asked.approval.apiRequest).toEqual({ method: 'POST', path: '/virtual_machines/42/reboot.json', body: null });
      expect(t.calls).toEqual([]);
      expect(t.reads).toEqual(['server']);

      const decided = await t.changes.decide(asked.approval.id, { userId: 'UOPER2' }, 'approve');
      expect(decided).toMatchObject({ outcome: 'approved', change: { outcome: 'succeeded' } });
      expect(t.calls).toHaveLength(1);
      expect(t.reads).toEqual(['server', 'server']);
    });

    test('a server off by the time it is approved is not sent to: the approved run is unfit', async () => {
      t = setup({ approvals: { ...approvals, actions: [...approvals.actions] } });
      const asked = await t.changes.submit(as('UOPER'), 'power_reboot', 42, form('reboot'));
      if (asked.outcome !== 'requested') throw new Error('not requested');
      t.onServer({ booted: false });
      expect(await t.changes.decide(asked.approval.id, { userId: 'UOPER2' }, 'approve')).toMatchObject({
        outcome: 'approved',
        change: { outcome: 'unfit', state: { power: 'off' } },
      });
      expect(t.calls).toEqual([]);
    });

    test('a reboot into the recovery image is approved by an admin only; an operator clicking Approve is refused and recorded', async () => {
      t = setup({ approvals: { ...approvals, actions: [...approvals.actions] } });
      const asked = await t.changes.submit(as('UADMIN'), 'power_reboot', 42, form('reboot_recovery'));
      if (asked.outcome !== 'requested') throw new Error('not requested');
      expect(await t.changes.decidable('UOPER')).toEqual([]);
      const refused = await t.changes.decide(asked.approval.id, { userId: 'UOPER' }, 'approve');
      expect(refused).toMatchObject({ outcome: 'denied', decision: { role: 'operator', needed: 'admin', denial: { code: 'role' } } });
      expect(t.calls).toEqual([]);
      expect(await t.changes.decide(asked.approval.id, { userId: 'UADMIN2' }, 'approve')).toMatchObject({ change: { outcome: 'succeeded' } });
      expect(t.calls.at(-1)).toMatchObject({ body: '{"mode":"recovery"}' });
    });

    test('a server that is busy is refused before anyone is asked', async () => {
      t = setup({ approvals: { ...approvals, actions: [...approvals.actions] } });
      t.onServer({ booted: true, locked: true }, [{ id: 7, action: 'build_disk', status: 'pending' }]);
      expect(await t.changes.submit(as('UOPER'), 'power_reboot', 42, form('reboot'))).toMatchObject({ outcome: 'busy' });
      expect(await t.store.approvals.open(Date.now())).toEqual([]);
    });
  });

  test('inspect: what the form shows before it opens, without a record', async () => {
    t = setup();
    t.onServer({ label: 'web-1', booted: true });
    expect(await t.changes.inspect('power_stop', 42)).toEqual({ outcome: 'fit', state: { label: 'web-1', power: 'on', locked: false } });
    expect(await t.changes.inspect('power_start', 42)).toMatchObject({ outcome: 'unfit' });
    expect(await t.changes.inspect('disk_add', 42)).toBeNull();
    expect(await t.store.audit.latest(5)).toEqual([]);
  });
});

describe('the transaction holding a server (runningTransaction), of its transactions newest first', () => {
  const t = (id: number, status: TransactionStatus) => ({ id, status });
  test('the one running, else the oldest not final: a status this version does not know counts as still running', () => {
    expect(runningTransaction([t(3, 'pending'), t(2, 'running'), t(1, 'complete')])?.id).toBe(2);
    expect(runningTransaction([t(3, 'pending'), t(2, 'pending'), t(1, 'complete')])?.id).toBe(2);
    expect(runningTransaction([t(2, 'unknown'), t(1, 'complete')])?.id).toBe(2);
    expect(runningTransaction([t(2, 'failed'), t(1, 'complete'), t(0, 'cancelled')])).toBeUndefined();
  });
});
