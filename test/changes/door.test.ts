import { createDoor, type DoorDeps, type Run } from '../../src/changes/door';
import { OutcomeNotRecordedError } from '../../src/changes/errors';
import { createPolicy, type Policy } from '../../src/changes/policy';
import { CloudError } from '../../src/cloud/errors';
import type { Disk } from '../../src/cloud/schemas';
import type { Config } from '../../src/config';
import { createLogger } from '../../src/log';
import type { AuditEntry, AuditRecord, Store } from '../../src/store';
import { openSqliteStore } from '../../src/store/sqlite';
import { CLOUD_ACCOUNT } from '../helpers/door';
import { fakeCloud } from '../helpers/fake-cloud';
import { goodDiskForm } from '../helpers/forms';

// The door's shared steps on their own (createDoor): the real SQLite store in
// memory, the cloud at its edge (the fake cloud of test/helpers), a fake clock, and the
// log lines as JSON. What changes.ts, approvals.ts and freeze.ts add on top is
// tested with them; here, what every way through the door relies on.

const ROLES: Config['roles'] = {
  admins: ['UADMIN'],
  operators: ['UOPER'],
  viewers: [],
  mutationChannels: null,
  groupCacheMs: 60_000,
  workflowReads: 'viewers',
};
const T0 = 1_700_000_000_000;
const LOCK_TTL_MS = 60_000;
/** The add-disk form as the door's callers hand it over, parsed (the size a number). */
const PARAMS = { ...goodDiskForm, disk_size: 20 } as const;

const stores: Store[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

function setup(overrides: Partial<DoorDeps> = {}) {
  const fake = fakeCloud();
  const store = openSqliteStore(':memory:');
  stores.push(store);
  const lines: string[] = [];
  const logger = createLogger({ level: 'debug', write: (line) => lines.push(line) });
  const clock = { t: T0 };
  const now = () => clock.t;
  const policy = createPolicy(ROLES, { membersOf: () => Promise.resolve([]) }, { now });
  let ids = 0;
  const door = createDoor({
    cloud: fake.cloud,
    cloudAccount: CLOUD_ACCOUNT,
    store,
    policy,
    now,
    logger,
    lockTtlMs: LOCK_TTL_MS,
    newId: () => `id${++ids}`,
    ...overrides,
  });
  const logs = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  const run = (claimKey = 'V1', names?: Run<'disk_add'>['names']): Run<'disk_add'> => ({
    ctx: { userId: 'UOPER', channelId: 'CINCIDENT' },
    action: 'disk_add',
    targetId: 42,
    params: PARAMS,
    prepared: fake.prepare('disk_add', 42, PARAMS),
    claimKey,
    startedMs: clock.t,
    names,
  });
  return { ...fake, store, door, clock, logger, logs, run };
}

const entry = (fields: Partial<AuditEntry> = {}): AuditEntry => ({
  at: new Date(T0).toISOString(),
  userId: 'UOPER',
  channelId: 'CINCIDENT',
  action: 'disk_add',
  target: 'vs:42',
  params: {},
  outcome: 'denied',
  apiStatus: null,
  durationMs: 0,
  detail: 'role viewer, needs operator',
  ...fields,
});

const tick = () => new Promise((resolve) => setImmediate(resolve));

function deferred<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((res) => {
    resolve = res;
  });
  return { promise, resolve };
}

describe('check: the policy’s answer', () => {
  test('a policy that fails is a refusal, and its error is logged', async () => {
    const failing: Policy = { ...createPolicy(ROLES, { membersOf: () => Promise.resolve([]) }), can: () => Promise.reject(new Error('directory exploded')) };
    const t = setup({ policy: failing });
    expect(await t.door.check('UADMIN', 'disk_add', 'C1', t.logger)).toEqual({
      allowed: false,
      action: 'disk_add',
      role: 'none',
      needed: 'operator',
      denial: { code: 'check_failed' },
    });
    expect(t.logs()).toContainEqual(
      expect.objectContaining({ level: 'error', msg: 'the role check failed; refusing', error: expect.objectContaining({ message: 'directory exploded' }) }),
    );
  });
});

describe('write: records before anyone is told', () => {
  test('a write that fails is logged with the whole entry, then thrown', async () => {
    const t = setup();
    t.store.audit.record = () => Promise.reject(new Error('SQLITE_FULL: database or disk is full'));
    await expect(t.door.write(entry({ detail: 'the lost one' }), t.logger)).rejects.toThrow('SQLITE_FULL');
    expect(t.logs()).toContainEqual(
      expect.objectContaining({
        level: 'error',
        msg: 'could not write the audit record',
        error: expect.objectContaining({ message: 'SQLITE_FULL: database or disk is full' }),
        entry: expect.objectContaining({ userId: 'UOPER', outcome: 'denied', detail: 'the lost one' }),
      }),
    );
  });
});

describe('notify: onRecorded hears of a record, never awaited', () => {
  const warnings = (t: ReturnType<typeof setup>) => t.logs().filter((l) => l.level === 'warn' || l.level === 'error');

  test('without onRecorded nothing happens, and nothing is logged', async () => {
    const t = setup();
    t.door.notify(await t.door.write(entry(), t.logger));
    await tick();
    expect(warnings(t)).toEqual([]);
  });

  test.each([
    ['nothing', undefined],
    ['null', null],
    ['a number', 5],
    ['an object', {}],
    ['an object whose then is not a function', { then: 'later' }],
  ])('what it returns that is not a promise (%s) is ignored', async (_name, returned) => {
    const heard: number[] = [];
    const t = setup({
      onRecorded: (record) => {
        heard.push(record.id);
        return returned;
      },
    });
    const record = await t.door.write(entry(), t.logger);
    t.door.notify(record);
    await tick();
    expect(heard).toEqual([record.id]);
    expect(warnings(t)).toEqual([]);
  });

  test('what it throws, or its promise rejects with, is logged with the record, and goes no further', async () => {
    const thrower = setup({
      onRecorded: () => {
        throw new Error('audit channel not found');
      },
    });
    const rejecter = setup({ onRecorded: () => Promise.reject(new Error('slack is down')) });
    for (const [t, message] of [
      [thrower, 'audit channel not found'],
      [rejecter, 'slack is down'],
    ] as const) {
      const record = await t.door.write(entry(), t.logger);
      expect(() => t.door.notify(record)).not.toThrow();
      await tick();
      expect(warnings(t)).toEqual([
        expect.objectContaining({ level: 'warn', msg: 'onRecorded failed', record: record.id, error: expect.objectContaining({ message }) }),
      ]);
    }
  });
});

describe('auditEntry: the one way a record is made', () => {
  const subject = { userId: 'U1', channelId: null, action: 'disk_add', target: 'vs:1', params: {} } as const;

  test('at is when it was asked for; the duration runs from then to now, and is never negative', () => {
    const t = setup();
    t.clock.t = T0 + 250;
    expect(t.door.auditEntry(T0, subject, 'denied', 'x')).toEqual({
      ...subject,
      outcome: 'denied',
      apiStatus: null,
      detail: 'x',
      at: new Date(T0).toISOString(),
      durationMs: 250,
    });
    // A clock stepped back (NTP) says 0, not a negative duration.
    expect(t.door.auditEntry(T0 + 1000, subject, 'denied', 'x').durationMs).toBe(0);
  });

  test('the API status when there is one; the detail bounded, whoever wrote it', () => {
    const t = setup();
    expect(t.door.auditEntry(T0, subject, 'failed', 'refused', 422).apiStatus).toBe(422);
    const long = t.door.auditEntry(T0, subject, 'failed', 'x'.repeat(5000)).detail!;
    expect(long).toHaveLength(1000);
    expect(long.endsWith('…')).toBe(true);
    expect(t.door.auditEntry(T0, subject, 'requested', null).detail).toBeNull();
  });
});

describe('execute: one allowed, valid change', () => {
  test('while the call runs it is on record as started, saying the call is in progress', async () => {
    const t = setup();
    const answer = deferred<Disk>();
    t.onAddDisk(() => answer.promise);
    const pending = t.door.execute(t.run(), t.logger);
    await tick();
    expect(await t.store.audit.latest(5)).toEqual([
      expect.objectContaining({ outcome: 'started', detail: 'the cloud API call is in progress', apiStatus: null }),
    ]);
    answer.resolve({ id: 5, disk_size: 20 });
    expect((await pending).outcome).toBe('succeeded');
  });

  test('a start that cannot be recorded is logged with the entry that was lost, and thrown; nothing is called', async () => {
    const t = setup();
    t.store.audit.beginChange = () => Promise.reject(new Error('SQLITE_BUSY'));
    await expect(t.door.execute(t.run(), t.logger)).rejects.toThrow('SQLITE_BUSY');
    expect(t.calls).toEqual([]);
    expect(t.logs()).toContainEqual(
      expect.objectContaining({
        level: 'error',
        msg: 'could not start the change on record',
        error: expect.objectContaining({ message: 'SQLITE_BUSY' }),
        entry: expect.objectContaining({ outcome: 'started', target: 'vs:42', detail: 'the cloud API call is in progress' }),
      }),
    );
  });

  test('a second delivery and a busy target are logged with the submission they concern', async () => {
    const t = setup();
    await t.door.execute(t.run('V1'), t.logger);
    expect(await t.door.execute(t.run('V1'), t.logger)).toEqual({ outcome: 'duplicate' });
    await t.store.leases.take('vs:42', 'someone else', T0, LOCK_TTL_MS);
    expect((await t.door.execute(t.run('V2'), t.logger)).outcome).toBe('busy');
    expect(t.logs()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ level: 'info', msg: 'duplicate submission ignored', submission: 'V1' }),
        expect.objectContaining({ level: 'info', msg: 'target busy', submission: 'V2' }),
      ]),
    );
  });

  test('how it ended is logged: succeeded with its duration, failed with the error’s kind and status', async () => {
    const t = setup();
    t.onAddDisk(() => {
      t.clock.t += 120;
      return Promise.resolve({ id: 5, disk_size: 20 });
    });
    await t.door.execute(t.run('V1'), t.logger);
    t.onAddDisk(() => Promise.reject(new CloudError('server', 'the cloud API failed (HTTP 503)', { status: 503 })));
    await t.door.execute(t.run('V2'), t.logger);
    expect(t.logs()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ level: 'info', msg: 'change succeeded', ms: 120 }),
        expect.objectContaining({ level: 'info', msg: 'change failed', kind: 'server', status: 503 }),
      ]),
    );
    // A CloudError is what the client is meant to throw: no error line for it.
    expect(t.logs().filter((l) => l.level === 'error')).toEqual([]);
  });

  test('something other than a CloudError from the client is logged as an error, with what was thrown', async () => {
    const t = setup();
    t.onAddDisk(() => Promise.reject(new TypeError('Cannot read properties of undefined')));
    expect((await t.door.execute(t.run(), t.logger)).outcome).toBe('failed');
    expect(t.logs()).toContainEqual(
      expect.objectContaining({
        level: 'error',
        msg: 'the cloud client threw something other than a CloudError',
        error: expect.objectContaining({ name: 'TypeError', message: 'Cannot read properties of undefined' }),
      }),
    );
  });

  test('a 2xx whose answer cannot be read names its status in the record, and is logged as applied', async () => {
    const t = setup();
    t.onAddDisk(() => Promise.reject(new CloudError('bad_response', 'the cloud API sent an answer that is not valid JSON', { status: 201 })));
    const result = await t.door.execute(t.run(), t.logger);
    expect(result).toMatchObject({ outcome: 'applied_unreadable', record: { apiStatus: 201 } });
    expect((result as { record: AuditRecord }).record.detail).toBe(
      'applied: the cloud API answered HTTP 201, but its answer could not be read (the cloud API sent an answer that is not valid JSON)',
    );
    expect(t.logs()).toContainEqual(expect.objectContaining({ level: 'warn', msg: 'change applied, answer unreadable', kind: 'bad_response', status: 201 }));
  });

  test('the API refusing the parameters of an approved change keeps its claim: nothing runs it again (a form’s is given back to be fixed)', async () => {
    const t = setup();
    t.onAddDisk(() => Promise.reject(new CloudError('validation', 'the cloud API rejected the parameters (HTTP 422)', { status: 422 })));
    const approved = t.run('approval:A1', { requestedBy: 'UOPER', decidedBy: 'UADMIN', approvalId: 'A1' });
    expect((await t.door.execute(approved, t.logger)).outcome).toBe('failed');
    expect(await t.door.execute(approved, t.logger)).toEqual({ outcome: 'duplicate' });
    expect((await t.door.execute(t.run('V1'), t.logger)).outcome).toBe('failed');
    expect((await t.door.execute(t.run('V1'), t.logger)).outcome).toBe('failed');
    expect(t.calls).toHaveLength(3);
  });

  test('a form’s claim that cannot be given back is logged; the failure is still returned', async () => {
    const t = setup();
    t.onAddDisk(() => Promise.reject(new CloudError('validation', 'the cloud API rejected the parameters (HTTP 422)', { status: 422 })));
    t.store.claims.release = () => Promise.reject(new Error('SQLITE_BUSY'));
    expect((await t.door.execute(t.run(), t.logger)).outcome).toBe('failed');
    expect(t.logs()).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        msg: 'could not release the submission key; the form must be opened again',
        error: expect.objectContaining({ message: 'SQLITE_BUSY' }),
      }),
    );
  });

  describe('the target’s lease', () => {
    /** Counts the door's own calls to release a lease (the settling transaction ends it otherwise). */
    function countReleases(t: ReturnType<typeof setup>): string[] {
      const released: string[] = [];
      const release = t.store.leases.release.bind(t.store.leases);
      t.store.leases.release = (target, owner) => {
        released.push(target);
        return release(target, owner);
      };
      return released;
    }

    test('a settled change ends its lease in the settling transaction, with no call of its own', async () => {
      const t = setup();
      const released = countReleases(t);
      expect((await t.door.execute(t.run(), t.logger)).outcome).toBe('succeeded');
      expect(released).toEqual([]);
      expect(await t.store.leases.take('vs:42', 'next', T0, LOCK_TTL_MS)).toBe(true);
    });

    test('an outcome that cannot be recorded: logged, thrown as not recorded (with its cause), and the lease let go at once', async () => {
      const t = setup();
      const released = countReleases(t);
      const cause = new Error('SQLITE_IOERR');
      t.store.audit.complete = () => Promise.reject(cause);
      const thrown = await t.door.execute(t.run(), t.logger).catch((error: unknown) => error);
      expect(thrown).toBeInstanceOf(OutcomeNotRecordedError);
      expect((thrown as Error).cause).toBe(cause);
      expect(t.calls).toHaveLength(1);
      expect(released).toEqual(['vs:42']);
      expect(await t.store.leases.take('vs:42', 'next', T0, LOCK_TTL_MS)).toBe(true);
      const [started] = await t.store.audit.latest(1);
      expect(t.logs()).toContainEqual(
        expect.objectContaining({
          level: 'error',
          msg: 'could not settle the audit record',
          record: started!.id,
          completion: expect.objectContaining({ outcome: 'scheduled', apiStatus: 201 }),
          error: expect.objectContaining({ message: 'SQLITE_IOERR' }),
        }),
      );
    });

    test('a lease that cannot be let go either is logged: it runs out on its own', async () => {
      const t = setup();
      t.store.audit.complete = () => Promise.reject(new Error('SQLITE_IOERR'));
      t.store.leases.release = () => Promise.reject(new Error('SQLITE_IOERR again'));
      await expect(t.door.execute(t.run(), t.logger)).rejects.toBeInstanceOf(OutcomeNotRecordedError);
      expect(t.logs()).toContainEqual(
        expect.objectContaining({
          level: 'warn',
          msg: 'could not release the target lock; it expires on its own',
          ttlMs: LOCK_TTL_MS,
          error: expect.objectContaining({ message: 'SQLITE_IOERR again' }),
        }),
      );
    });
  });
});
