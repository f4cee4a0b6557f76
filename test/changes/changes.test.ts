import { type SubmissionContext, type WorkflowStepContext } from '../../src/changes/changes';
import { createPolicy, type Policy } from '../../src/changes/policy';
import { CloudError } from '../../src/cloud/errors';
import { MAX_REASON_LENGTH } from '../../src/changes/restore-form';
import type { Disk } from '../../src/cloud/schemas';
import type { Config } from '../../src/config';
import type { AuditRecord } from '../../src/store';
import { openDoor, T0, type DoorOptions } from '../helpers/door';
import { goodDiskForm as goodDisk } from '../helpers/forms';

const ROLES: Config['roles'] = {
  admins: ['UADMIN'],
  operators: ['UOPER', 'SONCALL'],
  viewers: ['UVIEW'],
  mutationChannels: null,
  groupCacheMs: 60_000,
  workflowReads: 'viewers',
};

function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const tick = () => new Promise((r) => setImmediate(r));

/** Longer than any call of these tests. */
const LOCK_TTL_MS = 60_000;

const setup = (options: Partial<DoorOptions> = {}) => openDoor({ roles: ROLES, lockTtlMs: LOCK_TTL_MS, ...options });

let key = 0;
const as = (userId: string, channelId: string | null = 'CINCIDENT'): SubmissionContext => ({ userId, channelId, submissionKey: `V${++key}` });

describe('the changes door', () => {
  let t: ReturnType<typeof setup>;
  afterEach(() => t.store.close());

  describe('roles', () => {
    test('a viewer submitting an add-disk form is denied: no API call, a denied record naming the role', async () => {
      t = setup();
      const result = await t.changes.submit(as('UVIEW'), 'disk_add', 42, goodDisk);
      expect(result).toMatchObject({ outcome: 'denied', decision: { allowed: false, role: 'viewer', needed: 'operator' } });
      expect(t.calls).toEqual([]);
      expect(await t.store.audit.latest(5)).toEqual([
        expect.objectContaining({
          userId: 'UVIEW',
          channelId: 'CINCIDENT',
          action: 'disk_add',
          target: 'vs:42',
          outcome: 'refused',
          apiStatus: null,
          detail: 'role viewer, needs operator',
        }),
      ]);
    });

    test('an operator cannot restore a backup, even with a correct confirmation', async () => {
      t = setup();
      const result = await t.changes.submit(as('UOPER'), 'backup_restore', 9, { confirm: '9' });
      expect(result).toMatchObject({ outcome: 'denied', decision: { needed: 'admin' } });
      expect(t.calls).toEqual([]);
      expect((await t.store.audit.latest(1))[0]).toMatchObject({ action: 'backup_restore', target: 'backup:9', outcome: 'refused', params: { confirm: '9' } });
    });

    test('authorize records a denial when the command is typed, and records nothing when allowed', async () => {
      t = setup();
      expect(await t.changes.authorize({ userId: 'UVIEW', channelId: 'CINCIDENT' }, 'disk_add', 'vs:42')).toMatchObject({ allowed: false, needed: 'operator' });
      expect(await t.changes.authorize({ userId: 'UOPER', channelId: 'CINCIDENT' }, 'disk_add', 'vs:42')).toMatchObject({ allowed: true, denial: null });
      expect(await t.store.audit.latest(10)).toEqual([
        expect.objectContaining({ userId: 'UVIEW', action: 'disk_add', target: 'vs:42', outcome: 'refused', params: {} }),
      ]);
      expect(t.recorded).toHaveLength(1);
    });

    test('the role is checked again at submission: a role lost after the form opened denies the change', async () => {
      t = setup({ roles: { ...ROLES, groupCacheMs: 1000 }, groups: { SONCALL: ['UGROUPIE'] } });
      expect(await t.changes.authorize({ userId: 'UGROUPIE', channelId: 'CINCIDENT' }, 'disk_add', 'vs:42')).toMatchObject({ allowed: true });
      t.groups.SONCALL = [];
      t.advance(1001);
      expect(await t.changes.submit(as('UGROUPIE'), 'disk_add', 42, goodDisk)).toMatchObject({ outcome: 'denied' });
      expect(t.calls).toEqual([]);
    });

    test('outside VS_MUTATION_CHANNELS, or from an unknown channel, a change is denied with the channels to use', async () => {
      t = setup({ roles: { ...ROLES, mutationChannels: ['CINCIDENT'] } });
      const elsewhere = await t.changes.submit(as('UADMIN', 'CRANDOM'), 'disk_add', 42, goodDisk);
      const unknown = await t.changes.submit(as('UADMIN', null), 'disk_add', 42, goodDisk);
      for (const result of [elsewhere, unknown]) {
        expect(result.outcome).toBe('denied');
        if (result.outcome === 'denied') expect(result.decision.denial).toMatchObject({ code: 'channel', allowedChannels: ['CINCIDENT'] });
      }
      expect(t.calls).toEqual([]);
      expect(await t.changes.submit(as('UADMIN', 'CINCIDENT'), 'disk_add', 42, goodDisk)).toMatchObject({ outcome: 'succeeded' });
    });

    test('a channel picked in a shortcut form must be one the user is in; the channel a command was typed in is not looked up', async () => {
      const asked: string[] = [];
      const channels = {
        isMember: (userId: string, channelId: string) => {
          asked.push(`${userId} in ${channelId}`);
          return Promise.resolve(false);
        },
      };
      t = setup({ policy: createPolicy({ ...ROLES, mutationChannels: ['CINCIDENT'] }, { membersOf: async () => [] }, { channels }) });
      const picked = await t.changes.submit({ ...as('UOPER'), channelChosenInForm: true }, 'disk_add', 42, goodDisk);
      expect(picked).toMatchObject({ outcome: 'denied', decision: { denial: { code: 'not_member', channelId: 'CINCIDENT' } } });
      expect(t.calls).toEqual([]);
      expect(await t.changes.submit(as('UOPER'), 'disk_add', 42, goodDisk)).toMatchObject({ outcome: 'succeeded' });
      expect(asked).toEqual(['UOPER in CINCIDENT']);
    });

    test('a policy that fails is a denial, recorded, never a change', async () => {
      const broken: Policy = {
        changeRolesConfigured: true,
        workflowsMayRead: true,
        roleOf: async () => 'admin',
        standing: async () => ({ role: 'admin', configured: 'admin' }),
        can: async () => {
          throw new Error('directory exploded');
        },
        allows: () => [],
        holders: () => [],
      };
      t = setup({ policy: broken });
      const result = await t.changes.submit(as('UADMIN'), 'disk_add', 42, goodDisk);
      expect(result).toMatchObject({ outcome: 'denied', decision: { allowed: false, role: 'none' } });
      expect(t.calls).toEqual([]);
      expect((await t.store.audit.latest(1))[0]).toMatchObject({ outcome: 'refused' });
    });
  });

  describe('adding a disk', () => {
    test('an operator adds a disk: the API gets exactly the validated parameters and the record says so', async () => {
      t = setup();
      const result = await t.changes.submit(as('UOPER'), 'disk_add', 42, { ...goodDisk, vs_id: '42', channel: 'CINCIDENT', min_iops: '' });
      // The form as typed, with the size read as a number.
      const expectedParams = { ...goodDisk, disk_size: 20 };
      expect(t.calls).toEqual([t.prepare('disk_add', 42, expectedParams)]);
      expect(result).toMatchObject({ outcome: 'succeeded', value: { id: 901, disk_size: 20 } });
      const [record] = await t.store.audit.latest(5);
      expect(record).toEqual({
        id: expect.any(Number),
        at: new Date(T0).toISOString(),
        userId: 'UOPER',
        channelId: 'CINCIDENT',
        action: 'disk_add',
        target: 'vs:42',
        params: expectedParams,
        outcome: 'scheduled',
        apiStatus: 201,
        durationMs: 0,
        detail: expect.stringContaining('disk 901'),
        // The request exactly as sent; no approval.
        apiRequest: { method: 'POST', path: '/virtual_machines/42/disks.json', body: t.calls[0]!.body },
        requestedBy: null,
        decidedBy: null,
        approvalId: null,
        workflowExecutionId: null,
        cloudOutcome: null,
        transactionIds: null,
        cloudStep: null,
        formerOutcome: null,
        onCall: null,
        breakGlass: null,
        reviewedBy: null,
        serverLabel: null,
        reviewedAt: null,
      });
      if (result.outcome === 'succeeded') expect(result.record).toEqual(record);
    });

    test('the duration is measured from the check to the record', async () => {
      t = setup();
      t.onAddDisk(async () => {
        t.advance(1234);
        return { id: 1, disk_size: 20 };
      });
      await t.changes.submit(as('UOPER'), 'disk_add', 42, goodDisk);
      expect((await t.store.audit.latest(1))[0]!.durationMs).toBe(1234);
    });

    test('an invalid form calls nothing, is recorded as invalid, and the same view can be fixed and sent again', async () => {
      t = setup();
      const ctx = as('UOPER');
      const invalid = await t.changes.submit(ctx, 'disk_add', 42, { ...goodDisk, disk_size: '0', mount_point: 'data' });
      expect(invalid).toMatchObject({ outcome: 'invalid', fieldErrors: { disk_size: expect.any(String), mount_point: expect.any(String) } });
      expect(t.calls).toEqual([]);
      expect((await t.store.audit.latest(1))[0]).toMatchObject({
        outcome: 'refused',
        apiStatus: null,
        params: { disk_size: '0', mount_point: 'data' },
        detail: expect.stringContaining('disk_size'),
      });
      // Each field's message, in the form's order, told apart.
      expect((await t.store.audit.latest(1))[0]!.detail).toMatch(/^invalid form: disk_size: [^;]+; mount_point: [^;]+$/);
      const fixed = await t.changes.submit(ctx, 'disk_add', 42, goodDisk);
      expect(fixed.outcome).toBe('succeeded');
      expect(t.calls).toHaveLength(1);
    });

    test('what a user typed into a refused form is kept in the record only in bounded form', async () => {
      t = setup();
      await t.changes.submit(as('UOPER'), 'disk_add', 42, { ...goodDisk, label: 'x'.repeat(100_000), vs_id: 'y'.repeat(1000) });
      const { params } = (await t.store.audit.latest(1))[0]!;
      expect(String(params.label).length).toBeLessThanOrEqual(300);
      expect(params).not.toHaveProperty('vs_id');
    });

    test('a server id that is not a positive whole number is invalid and calls nothing', async () => {
      t = setup();
      expect(await t.changes.submit(as('UOPER'), 'disk_add', -1, goodDisk)).toMatchObject({ outcome: 'invalid', fieldErrors: { vs_id: expect.any(String) } });
      expect(await t.changes.submit(as('UOPER'), 'disk_add', 1.5, goodDisk)).toMatchObject({ outcome: 'invalid' });
      expect(t.calls).toEqual([]);
    });
  });

  describe('at most once, one at a time', () => {
    test('the same submission delivered twice calls the API once and records once', async () => {
      t = setup();
      const ctx = as('UOPER');
      expect((await t.changes.submit(ctx, 'disk_add', 42, goodDisk)).outcome).toBe('succeeded');
      expect(await t.changes.submit(ctx, 'disk_add', 42, goodDisk)).toEqual({ outcome: 'duplicate' });
      expect(t.calls).toHaveLength(1);
      expect(await t.store.audit.latest(10)).toHaveLength(1);
      expect(t.recorded).toHaveLength(1);
    });

    test('the same submission delivered concurrently calls the API once', async () => {
      t = setup();
      const answer = deferred<Disk>();
      t.onAddDisk(() => answer.promise);
      const ctx = as('UOPER');
      const both = Promise.all([
        t.changes.submit(ctx, 'disk_add', 42, goodDisk),
        t.changes.submit({ ...ctx }, 'disk_add', 42, goodDisk),
        t.changes.submit({ ...ctx }, 'disk_add', 42, goodDisk),
      ]);
      await tick();
      answer.resolve({ id: 5, disk_size: 20 });
      const outcomes = (await both).map((r) => r.outcome).sort();
      expect(outcomes).toEqual(['duplicate', 'duplicate', 'succeeded']);
      expect(t.calls).toHaveLength(1);
    });

    test('two different changes to one server at once: the second is refused and recorded as busy', async () => {
      t = setup();
      const answer = deferred<Disk>();
      t.onAddDisk(() => answer.promise);
      const first = t.changes.submit(as('UOPER'), 'disk_add', 42, goodDisk);
      await tick();
      const second = await t.changes.submit(as('UADMIN'), 'disk_add', 42, goodDisk);
      expect(second).toMatchObject({ outcome: 'busy' });
      expect((await t.store.audit.latest(1))[0]).toMatchObject({
        userId: 'UADMIN',
        outcome: 'refused',
        target: 'vs:42',
        detail: expect.stringContaining('VS 42 is in progress'),
      });
      // Another server is not blocked.
      t.onAddDisk(undefined);
      expect((await t.changes.submit(as('UADMIN'), 'disk_add', 43, goodDisk)).outcome).toBe('succeeded');
      answer.resolve({ id: 5, disk_size: 20 });
      expect((await first).outcome).toBe('succeeded');
      // Released once done.
      expect((await t.changes.submit(as('UADMIN'), 'disk_add', 42, goodDisk)).outcome).toBe('succeeded');
      expect(t.calls).toHaveLength(3);
    });

    test('a lock left by a holder that died is taken over after it expires', async () => {
      t = setup({ lockTtlMs: 10_000 });
      expect(await t.store.leases.take('vs:42', 'dead-process', T0, 10_000)).toBe(true);
      expect((await t.changes.submit(as('UOPER'), 'disk_add', 42, goodDisk)).outcome).toBe('busy');
      t.advance(10_000);
      expect((await t.changes.submit(as('UOPER'), 'disk_add', 42, goodDisk)).outcome).toBe('succeeded');
    });

    test('the lock is released after a failure too', async () => {
      t = setup();
      t.onAddDisk(async () => {
        throw new CloudError('server', 'the cloud API failed (HTTP 500)', { status: 500 });
      });
      expect((await t.changes.submit(as('UOPER'), 'disk_add', 42, goodDisk)).outcome).toBe('failed');
      t.onAddDisk(undefined);
      expect((await t.changes.submit(as('UOPER'), 'disk_add', 42, goodDisk)).outcome).toBe('succeeded');
    });
  });

  describe('failures from the cloud API', () => {
    test('a 422 is mapped onto the form fields it names; the rest become form errors; the view may be sent again', async () => {
      t = setup();
      t.onAddDisk(async () => {
        throw new CloudError('validation', 'the cloud API rejected the parameters (HTTP 422)', {
          status: 422,
          fieldErrors: {
            disk_size: ['exceeds the free space of the data store'],
            'disk[label]': ['is taken', 'is odd'],
            base: ['quota reached for this account'],
            data_store: ['is full'],
          },
          messages: ['try a smaller disk'],
        });
      });
      const ctx = as('UOPER');
      const result = await t.changes.submit(ctx, 'disk_add', 42, goodDisk);
      expect(result).toMatchObject({
        outcome: 'failed',
        error: { kind: 'validation', status: 422 },
        fieldErrors: { disk_size: 'exceeds the free space of the data store', label: 'is taken; is odd' },
        formErrors: ['quota reached for this account', 'data_store is full', 'try a smaller disk'],
      });
      expect((await t.store.audit.latest(1))[0]).toMatchObject({
        outcome: 'failed',
        apiStatus: 422,
        params: { disk_size: 20 },
        detail: expect.stringContaining('exceeds the free space'),
      });
      // Nothing was created, and the modal stays open: the fixed form goes through on the same view.
      t.onAddDisk(undefined);
      expect((await t.changes.submit(ctx, 'disk_add', 42, { ...goodDisk, disk_size: '10' })).outcome).toBe('succeeded');
      expect(t.calls).toHaveLength(2);
    });

    test('sentence-style 422 messages (the XML form) land on the field they start with', async () => {
      t = setup();
      t.onAddDisk(async () => {
        throw new CloudError('validation', 'the cloud API rejected the parameters (HTTP 422)', {
          status: 422,
          messages: ['disk_size must be a positive integer', 'Mount point is too long (maximum is 256 characters)', 'quota reached'],
        });
      });
      const result = await t.changes.submit(as('UOPER'), 'disk_add', 42, goodDisk);
      expect(result).toMatchObject({
        outcome: 'failed',
        fieldErrors: { disk_size: 'disk_size must be a positive integer', mount_point: 'Mount point is too long (maximum is 256 characters)' },
        formErrors: ['quota reached'],
      });
    });

    test('a 2xx whose answer cannot be read is recorded as applied_unreadable, not failed, and the submission is not run again', async () => {
      t = setup();
      t.onAddDisk(async () => {
        // What the client throws for a 201 with an unreadable body (CloudError.unreadableSuccess).
        throw new CloudError('bad_response', 'the cloud API sent an answer that is not valid JSON', { status: 201 });
      });
      const ctx = as('UOPER');
      const result = await t.changes.submit(ctx, 'disk_add', 42, goodDisk);
      expect(result).toMatchObject({ outcome: 'applied_unreadable', error: { kind: 'bad_response', status: 201 } });
      expect((await t.store.audit.latest(1))[0]).toMatchObject({ outcome: 'unknown', apiStatus: 201, detail: expect.stringContaining('applied') });
      expect(await t.changes.submit(ctx, 'disk_add', 42, goodDisk)).toEqual({ outcome: 'duplicate' });
      expect(t.calls).toHaveLength(1);
    });

    test('a timeout is recorded as failed with no status, flagged as uncertain, and the submission is not run again', async () => {
      t = setup();
      t.onAddDisk(async () => {
        throw new CloudError('timeout', 'the cloud API did not answer within 10 s');
      });
      const ctx = as('UOPER');
      const result = await t.changes.submit(ctx, 'disk_add', 42, goodDisk);
      expect(result).toMatchObject({ outcome: 'failed', error: { kind: 'timeout' }, fieldErrors: {}, formErrors: [] });
      expect((await t.store.audit.latest(1))[0]).toMatchObject({
        outcome: 'failed',
        apiStatus: null,
        detail: expect.stringContaining('may or may not have been applied'),
      });
      expect(await t.changes.submit(ctx, 'disk_add', 42, goodDisk)).toEqual({ outcome: 'duplicate' });
      expect(t.calls).toHaveLength(1);
    });

    test('something other than a CloudError is still recorded, and returned as a failure rather than thrown', async () => {
      t = setup();
      t.onRestore(async () => {
        throw new TypeError('Cannot read properties of undefined');
      });
      const result = await t.changes.submit(as('UADMIN'), 'backup_restore', 9, { confirm: '9', reason: 'corrupt' });
      expect(result).toMatchObject({ outcome: 'failed', error: { name: 'CloudError', kind: 'bad_response' } });
      expect((await t.store.audit.latest(1))[0]).toMatchObject({ outcome: 'failed', action: 'backup_restore', detail: expect.stringContaining('TypeError') });
      expect(t.logLines.some((l) => l.includes('"level":"error"'))).toBe(true);
    });
  });

  describe('restoring a backup', () => {
    test('an admin restores after typing the id again; the reason is kept in the record', async () => {
      t = setup();
      const result = await t.changes.submit(as('UADMIN'), 'backup_restore', 9, { confirm: ' 9 ', reason: 'corrupt table after deploy' });
      expect(result).toMatchObject({ outcome: 'succeeded', value: { id: 9, target_id: 42 } });
      expect(t.calls).toEqual([expect.objectContaining({ operation: 'restore_backup', method: 'POST', path: '/backups/9/restore.json', body: null })]);
      expect((await t.store.audit.latest(1))[0]).toMatchObject({
        action: 'backup_restore',
        target: 'backup:9',
        outcome: 'scheduled',
        apiStatus: 200,
        params: { backup_id: 9, reason: 'corrupt table after deploy' },
        // The API's target_type "VirtualMachine" is a VS in every word the bot says.
        detail: 'restore of backup 9 onto disk 7 of VS 42',
      });
    });

    test('a confirmation that does not match is invalid on the confirm field and calls nothing', async () => {
      t = setup();
      const result = await t.changes.submit(as('UADMIN'), 'backup_restore', 9, { confirm: '10', reason: 'corrupt' });
      expect(result).toMatchObject({ outcome: 'invalid', fieldErrors: { confirm: expect.stringContaining('9') } });
      expect(Object.keys(result.outcome === 'invalid' ? result.fieldErrors : {})).toEqual(['confirm']);
      expect(t.calls).toEqual([]);
      expect((await t.store.audit.latest(1))[0]).toMatchObject({ outcome: 'refused', params: { confirm: '10', reason: 'corrupt' } });
    });

    test('an API refusal (403) is a failure with its status on record, all on the form', async () => {
      t = setup();
      t.onRestore(async () => {
        throw new CloudError('forbidden', 'the cloud API refused the request (HTTP 403)', {
          status: 403,
          messages: ['You do not have permissions for this action'],
        });
      });
      const result = await t.changes.submit(as('UADMIN'), 'backup_restore', 12, { confirm: '12', reason: 'corrupt' });
      expect(result).toMatchObject({ outcome: 'failed', fieldErrors: {}, formErrors: ['You do not have permissions for this action'] });
      expect((await t.store.audit.latest(1))[0]).toMatchObject({ outcome: 'failed', apiStatus: 403 });
    });
  });

  describe('on record before the call', () => {
    test('an attempt is recorded as started while the cloud API call runs, and that same record is settled when it answers', async () => {
      t = setup();
      const answer = deferred<Disk>();
      t.onAddDisk(() => answer.promise);
      const pending = t.changes.submit(as('UOPER'), 'disk_add', 42, goodDisk);
      await tick();
      // A crash now would leave this: the attempt, its parameters, and no outcome yet.
      const during = await t.store.audit.latest(5);
      expect(during).toEqual([
        expect.objectContaining({ outcome: 'started', target: 'vs:42', userId: 'UOPER', params: expect.objectContaining({ disk_size: 20 }) }),
      ]);
      expect(t.recorded).toHaveLength(0);
      t.advance(250);
      answer.resolve({ id: 555, disk_size: 20, built: false, locked: true });
      const result = await pending;
      expect(result).toMatchObject({ outcome: 'succeeded', record: { id: during[0]!.id, outcome: 'scheduled', apiStatus: 201, durationMs: 250 } });
      expect(await t.store.audit.latest(5)).toHaveLength(1);
      expect(t.recorded.map((r) => r.outcome)).toEqual(['scheduled']);
    });

    test('a failed call settles the started record as failed', async () => {
      t = setup();
      t.onAddDisk(() => Promise.reject(new CloudError('timeout', 'the cloud API did not answer within 10 s')));
      const result = await t.changes.submit(as('UOPER'), 'disk_add', 42, goodDisk);
      expect(result.outcome).toBe('failed');
      expect(await t.store.audit.latest(5)).toEqual([expect.objectContaining({ outcome: 'failed', detail: expect.stringContaining('may or may not') })]);
    });
  });

  describe('onRecorded', () => {
    test('hears of every record, in order, after it is stored', async () => {
      t = setup();
      await t.changes.authorize({ userId: 'UVIEW', channelId: 'C1' }, 'backup_restore', 'backup:9');
      await t.changes.submit(as('UVIEW'), 'disk_add', 42, goodDisk);
      await t.changes.submit(as('UOPER'), 'disk_add', 42, { ...goodDisk, disk_size: 'big' });
      await t.changes.submit(as('UOPER'), 'disk_add', 42, goodDisk);
      await t.changes.submit(as('UADMIN'), 'backup_restore', 9, { confirm: '9', reason: 'corrupt' });
      expect(t.recorded.map((r) => r.outcome)).toEqual(['refused', 'refused', 'refused', 'scheduled', 'scheduled']);
      expect(t.recorded.map((r) => r.id)).toEqual((await t.store.audit.latest(10)).map((r) => r.id).reverse());
    });

    test('is told only after the lock is released', async () => {
      let lockFreeWhenTold: boolean | undefined;
      t = setup({
        onRecorded: async () => {
          lockFreeWhenTold = await t.store.leases.take('vs:42', 'probe', T0, 1);
          await t.store.leases.release('vs:42', 'probe');
        },
      });
      await t.changes.submit(as('UOPER'), 'disk_add', 42, goodDisk);
      await tick();
      expect(lockFreeWhenTold).toBe(true);
    });

    test('what it throws, or rejects with, is logged and does not change the result', async () => {
      t = setup({
        onRecorded: () => {
          throw new Error('audit channel not found');
        },
      });
      expect((await t.changes.submit(as('UOPER'), 'disk_add', 42, goodDisk)).outcome).toBe('succeeded');
      expect(t.logLines.some((l) => l.includes('audit channel not found'))).toBe(true);

      const rejecting = setup({ onRecorded: () => Promise.reject(new Error('slack is down')) });
      expect((await rejecting.changes.submit(as('UOPER'), 'disk_add', 42, goodDisk)).outcome).toBe('succeeded');
      await tick();
      expect(rejecting.logLines.some((l) => l.includes('slack is down'))).toBe(true);
      await rejecting.store.close();
    });
  });

  describe('the log', () => {
    const lines = () => t.logLines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const about = { user: 'UOPER', channel: 'CRANDOM', action: 'disk_add', target: 'vs:42' };

    test('a denied change is logged with who, where, what, on what, and why', async () => {
      t = setup({ roles: { ...ROLES, mutationChannels: ['CINCIDENT'] } });
      await t.changes.submit(as('UOPER', 'CRANDOM'), 'disk_add', 42, goodDisk);
      expect(lines()).toContainEqual(
        expect.objectContaining({ level: 'info', msg: 'change denied', ...about, role: 'operator', needed: 'operator', denial: 'channel' }),
      );
    });

    test('a role check that fails when a form is asked for is logged with who, where, what and on what', async () => {
      const failing = createPolicy(ROLES, { membersOf: async () => [] });
      failing.can = () => Promise.reject(new Error('directory exploded'));
      t = setup({ policy: failing });
      await t.changes.authorize({ userId: 'UOPER', channelId: 'CRANDOM' }, 'disk_add', 'vs:42');
      expect(lines()).toContainEqual(expect.objectContaining({ level: 'error', msg: 'the role check failed; refusing', ...about }));
    });
  });

  // The workflow's whole way (claims, decisions) is in workflow-requests.test.ts; here, what the request's records and log keep.
  describe("a workflow step's request", () => {
    const REASON = 'the data disk is full';
    const step = (reason: unknown): WorkflowStepContext => ({
      functionExecutionId: `Fx${++key}`,
      workflowExecutionId: 'Wx1',
      channelId: 'CINCIDENT',
      reason,
    });
    const lines = () => t.logLines.map((l) => JSON.parse(l) as Record<string, unknown>);

    test('an invalid request keeps what the step gave, bounded to the form’s fields and the reason, and every problem told apart', async () => {
      t = setup();
      const result = await t.changes.request(step(REASON), 'disk_add', 42, { disk_type: 'NVMe', disk_size: '0', label: 'data', vs_id: '42' });
      expect(result).toMatchObject({ outcome: 'invalid', record: { outcome: 'refused', workflowExecutionId: 'Wx1' } });
      const { record } = result as { record: AuditRecord };
      expect(record.params).toEqual({ disk_type: 'NVMe', disk_size: '0', label: 'data', reason: 'the data disk is full' });
      expect(record.detail).toBe('invalid workflow step: disk_type: Choose HDD or SSD; disk_size: Enter a whole number of GB, at least 1');
      expect(t.recorded).toEqual([record]);
    });

    test('the reason: at most its limit, and a step that gives none (or not as text) is told so, never thrown', async () => {
      t = setup();
      const longest = await t.changes.request(step('x'.repeat(MAX_REASON_LENGTH)), 'backup_restore', 9, { confirm: '9' });
      expect(longest.outcome).toBe('requested');
      const over = await t.changes.request(step('x'.repeat(MAX_REASON_LENGTH + 1)), 'backup_restore', 9, { confirm: '9' });
      expect(over).toMatchObject({ outcome: 'invalid', fieldErrors: { reason: `At most ${MAX_REASON_LENGTH} characters` } });
      for (const reason of [undefined, 5, { text: 'why' }]) {
        const result = await t.changes.request(step(reason), 'backup_restore', 9, { confirm: '9' });
        expect(result).toMatchObject({ outcome: 'invalid', fieldErrors: { reason: 'Give the reason the workflow asks for this change' } });
        expect((result as { record: AuditRecord }).record.params).toEqual({ confirm: '9', reason: '' });
      }
      expect(t.calls).toEqual([]);
    });

    test('a request refused while frozen keeps what the step gave, and is logged with where, what, on what, the workflow, and who froze', async () => {
      t = setup();
      await t.changes.freeze({ userId: 'UADMIN', channelId: 'CINCIDENT' }, 'maintenance');
      const result = await t.changes.request(step(REASON), 'disk_add', 42, { disk_type: 'SSD', disk_size: '20' });
      expect(result).toMatchObject({ outcome: 'frozen', record: { params: { disk_type: 'SSD', disk_size: '20', reason: 'the data disk is full' } } });
      expect(lines()).toContainEqual(
        expect.objectContaining({
          level: 'info',
          msg: 'workflow request denied: changes are frozen',
          by: 'UADMIN',
          channel: 'CINCIDENT',
          action: 'disk_add',
          target: 'vs:42',
          workflow_execution_id: 'Wx1',
        }),
      );
    });

    test('the same step delivered again asks nothing more and tells onRecorded nothing more', async () => {
      t = setup();
      const once = step(REASON);
      expect((await t.changes.request(once, 'disk_add', 42, { disk_type: 'SSD', disk_size: '20' })).outcome).toBe('requested');
      expect(await t.changes.request(once, 'disk_add', 42, { disk_type: 'SSD', disk_size: '20' })).toEqual({ outcome: 'duplicate' });
      expect(t.recorded.map((r) => r.outcome)).toEqual(['requested']);
    });
  });

  test('a store that cannot write makes the door throw rather than pretend, after logging the lost entry', async () => {
    t = setup();
    const full = () => {
      throw new Error('SQLITE_FULL: database or disk is full');
    };
    const changes = t.withAudit({ record: full, beginChange: full });
    await expect(changes.submit(as('UOPER'), 'disk_add', 42, goodDisk)).rejects.toThrow(/SQLITE_FULL/);
    // Without a record nothing is changed: the cloud API was never called.
    expect(t.calls).toEqual([]);
    expect(t.logLines.some((l) => l.includes('could not start the change on record') && l.includes('vs:42'))).toBe(true);
    // No lease is left behind (the start is one transaction).
    expect(await t.store.leases.take('vs:42', 'probe', t.now(), 1000)).toBe(true);
  });
});
