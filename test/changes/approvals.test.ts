import { deciders, MAX_REASON_LENGTH, MAX_SHOWN_REQUEST } from '../../src/changes';
import { restoreFactsOf } from '../../src/changes/backups';
import { createChanges, type SubmissionContext } from '../../src/changes/changes';
import { createPolicy, type Policy } from '../../src/changes/policy';
import { CloudError } from '../../src/cloud/errors';
import type { Config } from '../../src/config';
import { createLogger } from '../../src/log';
import type { Approval, AuditRecord } from '../../src/store';
import { StoreUnavailableError } from '../../src/store/unavailable';
import { CLOUD_ACCOUNT, openDoor, T0, type Door, type DoorOptions } from '../helpers/door';
import { BACKUP_USABLE } from '../helpers/fake-cloud';
import { goodDiskForm } from '../helpers/forms';

// The second person, at the door (src/changes/approvals.ts): asking stores
// the prepared request and calls nothing; each click is checked (role now,
// not the requester, the request's channel, the freeze) and a refusal is
// recorded; the first decisive click wins; an approved change runs once,
// sending the request that was approved; requests nobody decides expire.

const ROLES: Config['roles'] = {
  admins: ['UADMIN', 'UADMIN2', 'SADMINS'],
  operators: ['UOPER', 'UOPER2'],
  viewers: ['UVIEW'],
  mutationChannels: null,
  groupCacheMs: 1000,
  workflowReads: 'viewers',
};
const TTL_MS = 30 * 60_000;
const CHANNEL = 'CINCIDENT';

function setup(options: Partial<DoorOptions> = {}) {
  let ids = 0;
  return openDoor({
    roles: ROLES,
    groups: { SADMINS: ['UGROUPIE'] },
    approvals: { actions: ['backup_restore', 'disk_add'], ttlMs: TTL_MS },
    newId: () => `A${++ids}`,
    ...options,
  });
}

let views = 0;
const as = (userId: string, channelId: string | null = CHANNEL, more: Partial<SubmissionContext> = {}): SubmissionContext => ({
  userId,
  channelId,
  submissionKey: `V${++views}`,
  ...more,
});
const RESTORE = { confirm: '9', reason: 'table corrupted after the deploy' };

/** A restore asked for by `by`, its approval. */
async function askRestore(t: Door, by = 'UADMIN'): Promise<Approval> {
  const result = await t.changes.submit(as(by), 'backup_restore', 9, RESTORE);
  if (result.outcome !== 'requested') throw new Error(`expected requested, got ${result.outcome}`);
  return result.approval;
}
const records = async (t: Door) => (await t.store.audit.latest(100)).reverse();

describe('asking', () => {
  let t: Door;
  afterEach(() => t.store.close());

  test('a change named in VS_APPROVALS calls nothing: its prepared request is stored with who, where, why and until when, and recorded', async () => {
    t = setup();
    const result = await t.changes.submit(as('UADMIN'), 'backup_restore', 9, RESTORE);
    expect(t.calls).toEqual([]);
    const apiRequest = { method: 'POST', path: '/backups/9/restore.json', body: null };
    expect(result).toEqual({
      outcome: 'requested',
      approval: {
        id: 'A1',
        action: 'backup_restore',
        target: 'backup:9',
        // What the restore overwrites, as the backup was read when it was asked for: whoever approves it sees it.
        params: { backup_id: 9, reason: 'table corrupted after the deploy', restores: restoreFactsOf(BACKUP_USABLE) },
        channelId: CHANNEL,
        requestedBy: 'UADMIN',
        requestedAt: new Date(T0).toISOString(),
        expiresAtMs: T0 + TTL_MS,
        reason: 'table corrupted after the deploy',
        apiRequest,
        status: 'requested',
        decidedBy: null,
        decidedAt: null,
        decisionReason: null,
        messageTs: null,
        workflowExecutionId: null,
        cloud: CLOUD_ACCOUNT,
      },
      record: expect.objectContaining({
        outcome: 'requested',
        userId: 'UADMIN',
        channelId: CHANNEL,
        action: 'backup_restore',
        target: 'backup:9',
        apiStatus: null,
        apiRequest,
        requestedBy: 'UADMIN',
        decidedBy: null,
        approvalId: 'A1',
        detail: `waits for a second person's approval until ${new Date(T0 + TTL_MS).toISOString()}`,
      }),
    });
    expect(await t.store.approvals.get('A1')).toEqual((result as { approval: Approval }).approval);
    expect(t.recorded).toEqual([(result as { record: AuditRecord }).record]);
  });

  test('the stored request is the one the client would send: an add-disk body in the configured format, no reason', async () => {
    t = setup({ format: 'xml' });
    const result = await t.changes.submit(as('UOPER'), 'disk_add', 42, goodDiskForm);
    expect(result).toMatchObject({ outcome: 'requested', approval: { reason: null, target: 'vs:42' } });
    const { approval } = result as { approval: Approval };
    const prepared = t.prepare('disk_add', 42, { ...goodDiskForm, disk_size: 20 });
    expect(approval.apiRequest).toEqual({ method: prepared.method, path: prepared.path, body: prepared.body });
    expect(approval.apiRequest.path).toBe('/virtual_machines/42/disks.xml');
  });

  test('a change not named in VS_APPROVALS runs at once', async () => {
    t = setup({ approvals: { actions: ['backup_restore'], ttlMs: TTL_MS } });
    expect((await t.changes.submit(as('UOPER'), 'disk_add', 42, goodDiskForm)).outcome).toBe('succeeded');
    expect(t.calls).toHaveLength(1);
    expect(await t.store.approvals.open(T0)).toEqual([]);
  });

  test('without VS_APPROVALS nothing waits; a change made to wait (a workflow step) waits 30 minutes', async () => {
    t = setup({ approvals: undefined });
    expect((await t.changes.submit(as('UADMIN'), 'backup_restore', 9, RESTORE)).outcome).toBe('succeeded');
    const forced = await t.changes.submit(as('UADMIN', CHANNEL, { needsApproval: true }), 'backup_restore', 9, RESTORE);
    expect(forced).toMatchObject({ outcome: 'requested', approval: { expiresAtMs: T0 + 30 * 60_000 } });
    expect(t.calls).toHaveLength(1);
  });

  test('the same submission asked twice stores one request', async () => {
    t = setup();
    const ctx = as('UADMIN');
    const results = await Promise.all([t.changes.submit(ctx, 'backup_restore', 9, RESTORE), t.changes.submit(ctx, 'backup_restore', 9, RESTORE)]);
    expect(results.map((r) => r.outcome).sort()).toEqual(['duplicate', 'requested']);
    expect(await t.store.approvals.open(T0)).toHaveLength(1);
    expect((await records(t)).map((r) => r.outcome)).toEqual(['requested']);
  });

  test('refused, frozen or invalid, nothing is asked', async () => {
    t = setup();
    expect(await t.changes.submit(as('UOPER'), 'backup_restore', 9, RESTORE)).toMatchObject({ outcome: 'denied', decision: { denial: { code: 'role' } } });
    expect(await t.changes.submit(as('UADMIN'), 'backup_restore', 9, { confirm: '8' })).toMatchObject({
      outcome: 'invalid',
      fieldErrors: { confirm: expect.any(String) },
    });
    await t.changes.freeze(as('UADMIN'), 'incident');
    expect(await t.changes.submit(as('UADMIN2'), 'backup_restore', 9, RESTORE)).toMatchObject({ outcome: 'denied', decision: { denial: { code: 'frozen' } } });
    expect(await t.store.approvals.open(T0)).toEqual([]);
  });

  test('a request needs a channel to be posted in: without one, the form says so', async () => {
    t = setup();
    const result = await t.changes.submit(as('UADMIN', null), 'backup_restore', 9, RESTORE);
    expect(result).toMatchObject({ outcome: 'invalid', fieldErrors: { channel: 'Choose the channel where the request for approval is posted' } });
    expect((result as { record: AuditRecord }).record.detail).toBe('invalid form: channel: Choose the channel where the request for approval is posted');
    // A change that does not wait needs none.
    t.deps.approvals = undefined;
    expect((await createChanges(t.deps).submit(as('UADMIN', null), 'backup_restore', 9, RESTORE)).outcome).toBe('succeeded');
  });

  test('an invalid form that also lacks a channel lists both', async () => {
    t = setup();
    const result = await t.changes.submit(as('UADMIN', null), 'backup_restore', 9, { confirm: '1', reason: 'corrupt' });
    expect(Object.keys((result as { fieldErrors: Record<string, string> }).fieldErrors).sort()).toEqual(['channel', 'confirm']);
  });
});

describe('deciding', () => {
  let t: Door;
  afterEach(() => t.store.close());

  test('an unknown request, or one of an action this version cannot run, is unknown; nothing is written', async () => {
    t = setup();
    expect(await t.changes.decide('nope', { userId: 'UADMIN2' }, 'approve')).toEqual({ outcome: 'unknown' });
    await t.store.approvals.request({ ...(await askRestore(t)), id: 'ODD', action: 'freeze' });
    expect(await t.changes.decide('ODD', { userId: 'UADMIN2' }, 'approve')).toEqual({ outcome: 'unknown' });
    expect((await records(t)).map((r) => r.outcome)).toEqual(['requested']);
  });

  test('the requester may neither approve nor deny: refused as their own request, recorded, nothing called', async () => {
    t = setup();
    const approval = await askRestore(t, 'UADMIN');
    for (const verdict of ['approve', 'reject'] as const) {
      const result = await t.changes.decide(approval.id, { userId: 'UADMIN' }, verdict);
      expect(result).toMatchObject({ outcome: 'denied', decision: { allowed: false, denial: { code: 'own_request' }, role: 'admin', needed: 'admin' } });
    }
    expect(t.calls).toEqual([]);
    expect((await t.store.approvals.get(approval.id))!.status).toBe('requested');
    // Refused clicks, not a denial of the request (which stays open).
    const denied = (await records(t)).filter((r) => r.outcome === 'refused');
    expect(denied).toHaveLength(2);
    expect(denied[0]).toMatchObject({
      userId: 'UADMIN',
      channelId: CHANNEL,
      action: 'backup_restore',
      target: 'backup:9',
      params: approval.params,
      apiRequest: approval.apiRequest,
      requestedBy: 'UADMIN',
      decidedBy: null,
      approvalId: approval.id,
      detail: 'the requester may not approve their own request',
    });
    expect(t.recorded.map((r) => r.outcome)).toEqual(['requested', 'refused', 'refused']);
  });

  test('the role the change needs, now: a viewer and an operator are refused a restore; an operator may decide an add-disk', async () => {
    t = setup();
    const approval = await askRestore(t);
    expect(await t.changes.decide(approval.id, { userId: 'UVIEW' }, 'approve')).toMatchObject({
      outcome: 'denied',
      decision: { denial: { code: 'role' }, role: 'viewer' },
    });
    expect(await t.changes.decide(approval.id, { userId: 'UOPER' }, 'reject')).toMatchObject({
      outcome: 'denied',
      decision: { denial: { code: 'role' }, role: 'operator' },
    });
    expect((await records(t)).at(-1)!.detail).toBe('role operator, needs admin');
    const disk = await t.changes.submit(as('UOPER'), 'disk_add', 42, goodDiskForm);
    expect(await t.changes.decide((disk as { approval: Approval }).approval.id, { userId: 'UOPER2' }, 'approve')).toMatchObject({ outcome: 'approved' });
  });

  test('a role lost since the request was asked (a user group that changed) is a role no longer held', async () => {
    t = setup();
    const approval = await askRestore(t);
    expect((await t.changes.decidable('UGROUPIE')).map((a) => a.id)).toEqual([approval.id]);
    t.groups.SADMINS = [];
    t.advance(2000);
    expect(await t.changes.decide(approval.id, { userId: 'UGROUPIE' }, 'approve')).toMatchObject({ outcome: 'denied', decision: { role: 'none' } });
    expect(t.calls).toEqual([]);
  });

  test('Approve is refused while the one who asked could not ask for the change now (a role lost), recorded; Deny still decides', async () => {
    t = setup();
    const approval = await askRestore(t, 'UGROUPIE');
    t.groups.SADMINS = [];
    t.advance(2000);
    expect(await t.changes.decide(approval.id, { userId: 'UADMIN2' }, 'approve')).toMatchObject({
      outcome: 'denied',
      decision: {
        allowed: false,
        role: 'admin',
        denial: { code: 'requester', requestedBy: 'UGROUPIE', theirs: { role: 'none', needed: 'admin', denial: { code: 'role' } } },
      },
    });
    expect((await records(t)).at(-1)).toMatchObject({
      outcome: 'refused',
      userId: 'UADMIN2',
      requestedBy: 'UGROUPIE',
      detail: 'the requester UGROUPIE could no longer ask for it: role none, needs admin',
    });
    expect((await t.store.approvals.get(approval.id))!.status).toBe('requested');
    expect(await t.changes.decide(approval.id, { userId: 'UADMIN2' }, 'reject')).toMatchObject({ outcome: 'rejected' });
    expect(t.calls).toEqual([]);
  });

  test("the channel restriction applies to the request's channel", async () => {
    t = setup();
    const approval = await askRestore(t);
    const restricted = createChanges({ ...t.deps, policy: createPolicy({ ...ROLES, mutationChannels: ['COTHER'] }, { membersOf: async () => [] }) });
    expect(await restricted.decide(approval.id, { userId: 'UADMIN2' }, 'approve')).toMatchObject({
      outcome: 'denied',
      decision: { denial: { code: 'channel', channelId: CHANNEL, allowedChannels: ['COTHER'] } },
    });
    expect(t.calls).toEqual([]);
  });

  test('a policy that fails answers no', async () => {
    t = setup();
    const approval = await askRestore(t);
    const failing: Policy = { ...createPolicy(ROLES, { membersOf: async () => [] }), can: () => Promise.reject(new Error('directory down')) };
    const result = await createChanges({ ...t.deps, policy: failing }).decide(approval.id, { userId: 'UADMIN2' }, 'approve');
    expect(result).toMatchObject({ outcome: 'denied', decision: { allowed: false, denial: { code: 'check_failed' }, role: 'none', needed: 'admin' } });
  });

  test('while frozen, Approve is refused with the freeze; Deny still decides (it changes nothing)', async () => {
    t = setup();
    const approval = await askRestore(t);
    const frozen = await t.changes.freeze(as('UADMIN'), 'storage migration');
    const result = await t.changes.decide(approval.id, { userId: 'UADMIN2' }, 'approve');
    expect(result).toMatchObject({ outcome: 'denied', decision: { denial: { code: 'frozen', freeze: (frozen as { freeze: unknown }).freeze } } });
    expect((await records(t)).at(-1)!.detail).toMatch(/^changes are frozen \(by UADMIN at .*: storage migration\)$/);
    expect(await t.changes.decide(approval.id, { userId: 'UADMIN2' }, 'reject')).toMatchObject({ outcome: 'rejected' });
    expect(t.calls).toEqual([]);
  });

  test('a freeze committed after Approve read the freeze: approved and recorded, then refused at its start (in its transaction); nothing sent', async () => {
    t = setup();
    const approval = await askRestore(t);
    const freeze = { by: 'UADMIN', at: new Date(T0).toISOString(), reason: 'storage migration' };
    const store = t.store;
    const racing = { ...store, freeze: { ...store.freeze, current: async () => (await store.freeze.current()) ?? (await store.freeze.start(freeze), null) } };
    const result = await createChanges({ ...t.deps, store: racing }).decide(approval.id, { userId: 'UADMIN2' }, 'approve');
    expect(result).toMatchObject({ outcome: 'approved', change: { outcome: 'frozen', freeze, record: { outcome: 'refused', decidedBy: 'UADMIN2' } } });
    expect(t.calls).toEqual([]);
    // The approval's record is the change's: refused, as it was never sent.
    expect((await records(t)).map((r) => r.outcome)).toEqual(['requested', 'refused']);
  });

  test('Deny: rejected, recorded with both people, nothing called; a later click hears who decided', async () => {
    t = setup();
    const approval = await askRestore(t);
    t.advance(5000);
    const result = await t.changes.decide(approval.id, { userId: 'UADMIN2' }, 'reject');
    expect(result).toEqual({
      outcome: 'rejected',
      approval: { ...approval, status: 'rejected', decidedBy: 'UADMIN2', decidedAt: new Date(T0 + 5000).toISOString() },
      record: expect.objectContaining({
        outcome: 'denied',
        userId: 'UADMIN2',
        requestedBy: 'UADMIN',
        decidedBy: 'UADMIN2',
        approvalId: approval.id,
        apiRequest: approval.apiRequest,
        detail: 'rejected by UADMIN2; nothing was changed',
        at: new Date(T0 + 5000).toISOString(),
      }),
    });
    expect(t.calls).toEqual([]);
    const later = await t.changes.decide(approval.id, { userId: 'UGROUPIE' }, 'approve');
    expect(later).toEqual({ outcome: 'closed', approval: (result as { approval: Approval }).approval });
    expect(t.recorded.map((r) => r.outcome)).toEqual(['requested', 'denied']);
  });

  test('Deny with a reason: kept with the request and in its record, as typed without the spaces around it, bounded; a blank one is none', async () => {
    t = setup();
    const first = await askRestore(t);
    const result = await t.changes.decide(first.id, { userId: 'UADMIN2' }, 'reject', '  wrong backup: restore last night’s\n ');
    expect(result).toMatchObject({
      outcome: 'rejected',
      approval: { status: 'rejected', decisionReason: 'wrong backup: restore last night’s' },
      record: { outcome: 'denied', detail: 'rejected by UADMIN2 because “wrong backup: restore last night’s”; nothing was changed' },
    });
    const blank = await askRestore(t);
    expect(await t.changes.decide(blank.id, { userId: 'UADMIN2' }, 'reject', '   ')).toMatchObject({ approval: { decisionReason: null } });
    const long = await askRestore(t);
    const kept = (await t.changes.decide(long.id, { userId: 'UADMIN2' }, 'reject', 'x'.repeat(5000))) as { approval: Approval };
    expect(kept.approval.decisionReason).toHaveLength(MAX_REASON_LENGTH);
    // An approval keeps none, whatever is passed.
    const approved = await askRestore(t);
    expect(await t.changes.decide(approved.id, { userId: 'UADMIN2' }, 'approve', 'looks fine')).toMatchObject({ approval: { decisionReason: null } });
  });

  test('Withdraw: the requester alone, while it is open (frozen or not, whatever their role now); recorded; later clicks hear it was withdrawn', async () => {
    t = setup();
    const approval = await askRestore(t, 'UGROUPIE');
    const other = await t.changes.withdraw(approval.id, { userId: 'UADMIN2' });
    expect(other).toMatchObject({ outcome: 'denied', decision: { allowed: false, denial: { code: 'not_requester', requestedBy: 'UGROUPIE' } } });
    expect((await records(t)).at(-1)).toMatchObject({ outcome: 'refused', userId: 'UADMIN2', detail: 'only the requester, UGROUPIE, may withdraw it' });
    // Their role lost and changes frozen: the requester may still take back what they asked for.
    t.groups.SADMINS = [];
    t.advance(2000);
    await t.changes.freeze(as('UADMIN'), 'storage migration');
    const withdrawn = await t.changes.withdraw(approval.id, { userId: 'UGROUPIE' });
    expect(withdrawn).toMatchObject({
      outcome: 'withdrawn',
      approval: { status: 'withdrawn', decidedBy: 'UGROUPIE' },
      record: {
        outcome: 'withdrawn',
        userId: 'UGROUPIE',
        requestedBy: 'UGROUPIE',
        decidedBy: 'UGROUPIE',
        detail: 'withdrawn by UGROUPIE, who asked for it; nothing was changed',
      },
    });
    expect(await t.changes.decide(approval.id, { userId: 'UADMIN2' }, 'reject')).toMatchObject({ outcome: 'closed', approval: { status: 'withdrawn' } });
    expect(await t.changes.withdraw(approval.id, { userId: 'UGROUPIE' })).toMatchObject({ outcome: 'closed' });
    expect(await t.changes.withdraw('nope', { userId: 'UGROUPIE' })).toEqual({ outcome: 'unknown' });
    expect(t.calls).toEqual([]);
    // Past its time, it is expired, not withdrawn.
    await t.changes.unfreeze(as('UADMIN'));
    const late = await askRestore(t);
    t.advance(TTL_MS);
    expect(await t.changes.withdraw(late.id, { userId: 'UADMIN' })).toMatchObject({ outcome: 'closed', approval: { status: 'expired' } });
  });

  test('Approve: recorded, then the approved request is sent once as the requester, and every record names both people', async () => {
    t = setup();
    const approval = await askRestore(t);
    t.advance(1000);
    const result = await t.changes.decide(approval.id, { userId: 'UADMIN2' }, 'approve');
    expect(result).toMatchObject({
      outcome: 'approved',
      approval: { status: 'approved', decidedBy: 'UADMIN2' },
      record: { outcome: 'approved', userId: 'UADMIN2', detail: 'approved by UADMIN2; the change runs now' },
      change: { outcome: 'succeeded', value: { id: 9 }, record: { outcome: 'scheduled', apiStatus: 200 } },
    });
    expect(t.calls).toEqual([expect.objectContaining({ operation: 'restore_backup', ...approval.apiRequest })]);
    // Two records: the request, and the approval, which is the change's record from then on (docs/product.md, One outcome).
    const [requested, approved, ...none] = await records(t);
    expect(none).toEqual([]);
    expect(requested).toMatchObject({ outcome: 'requested', userId: 'UADMIN' });
    expect(approved).toMatchObject({
      id: (result as { record: { id: number } }).record.id,
      outcome: 'scheduled',
      userId: 'UADMIN2',
      channelId: CHANNEL,
      requestedBy: 'UADMIN',
      decidedBy: 'UADMIN2',
      approvalId: approval.id,
      apiRequest: approval.apiRequest,
      at: new Date(T0 + 1000).toISOString(),
      detail: 'restore of backup 9 onto disk 7 of VS 42',
    });
    // Heard of as it was written, then as it was settled.
    expect(t.recorded.map((r) => r.outcome)).toEqual(['requested', 'approved', 'scheduled']);
    // Decided: the next click is told so, and nothing runs again.
    expect(await t.changes.decide(approval.id, { userId: 'UGROUPIE' }, 'approve')).toMatchObject({ outcome: 'closed', approval: { status: 'approved' } });
    expect(t.calls).toHaveLength(1);
  });

  test('two approvals at once: one wins and runs the change once, the other hears who decided', async () => {
    t = setup();
    const approval = await askRestore(t);
    const results = await Promise.all([
      t.changes.decide(approval.id, { userId: 'UADMIN2' }, 'approve'),
      t.changes.decide(approval.id, { userId: 'UGROUPIE' }, 'approve'),
    ]);
    expect(results.map((r) => r.outcome).sort()).toEqual(['approved', 'closed']);
    expect(t.calls).toHaveLength(1);
    const winner = results.find((r) => r.outcome === 'approved') as { approval: Approval };
    expect(results.find((r) => r.outcome === 'closed')).toEqual({ outcome: 'closed', approval: winner.approval });
  });

  test('a request past its time cannot be decided, though not yet swept: closed as expired, nothing written', async () => {
    t = setup();
    const approval = await askRestore(t);
    t.advance(TTL_MS);
    expect(await t.changes.decide(approval.id, { userId: 'UADMIN2' }, 'approve')).toEqual({ outcome: 'closed', approval: { ...approval, status: 'expired' } });
    expect((await records(t)).map((r) => r.outcome)).toEqual(['requested']);
    t.advance(-1);
  });

  test('the cloud API refusing an approved change (422): failed with its messages, recorded; it is not run again', async () => {
    t = setup();
    const approval = await askRestore(t);
    t.onRestore(() => Promise.reject(new CloudError('validation', 'refused', { status: 422, messages: ['Backup is locked'] })));
    const result = await t.changes.decide(approval.id, { userId: 'UADMIN2' }, 'approve');
    expect(result).toMatchObject({
      outcome: 'approved',
      change: { outcome: 'failed', error: { status: 422 }, formErrors: ['Backup is locked'], record: { apiStatus: 422 } },
    });
    expect((await records(t)).map((r) => r.outcome)).toEqual(['requested', 'failed']);
    expect(await t.changes.decide(approval.id, { userId: 'UGROUPIE' }, 'approve')).toMatchObject({ outcome: 'closed' });
    expect(t.calls).toHaveLength(1);
  });

  test('an answer that cannot be read after a 2xx: applied', async () => {
    t = setup();
    const approval = await askRestore(t);
    t.onRestore(() => Promise.reject(new CloudError('bad_response', 'not JSON', { status: 200 })));
    expect(await t.changes.decide(approval.id, { userId: 'UADMIN2' }, 'approve')).toMatchObject({ change: { outcome: 'applied_unreadable' } });
  });

  test('another change holding the target: approved, but busy, nothing called', async () => {
    t = setup();
    const approval = await askRestore(t);
    expect(await t.store.leases.take('backup:9', 'someone-else', T0, 60_000)).toBe(true);
    expect(await t.changes.decide(approval.id, { userId: 'UADMIN2' }, 'approve')).toMatchObject({ outcome: 'approved', change: { outcome: 'busy' } });
    expect(t.calls).toEqual([]);
  });

  test('what would be sent now differs from what was approved (VS_API_FORMAT changed): not sent, its record refused', async () => {
    t = setup();
    const approval = await askRestore(t);
    const xml = setup({ format: 'xml' });
    const now = createChanges({ ...t.deps, cloud: xml.cloud });
    const result = await now.decide(approval.id, { userId: 'UADMIN2' }, 'approve');
    expect(result).toMatchObject({
      outcome: 'approved',
      change: {
        outcome: 'not_sent',
        why: { code: 'changed', current: { method: 'POST', path: '/backups/9/restore.xml', body: null } },
        record: {
          outcome: 'refused',
          userId: 'UADMIN2',
          requestedBy: 'UADMIN',
          decidedBy: 'UADMIN2',
          apiRequest: approval.apiRequest,
          detail: 'not sent: the bot would now send POST /backups/9/restore.xml, not the request that was approved; nothing was changed',
        },
      },
    });
    expect([...t.calls, ...xml.calls]).toEqual([]);
    await xml.store.close();
  });

  test('stored parameters that cannot be read back: not sent', async () => {
    t = setup();
    const approval = await askRestore(t);
    await t.store.approvals.request({ ...approval, id: 'TAMPERED', params: { backup_id: 'nine' } });
    const result = await t.changes.decide('TAMPERED', { userId: 'UADMIN2' }, 'approve');
    expect(result).toMatchObject({
      change: {
        outcome: 'not_sent',
        why: { code: 'unreadable' },
        record: { detail: 'not sent: the approved request could not be read back; nothing was changed' },
      },
    });
    await t.store.approvals.request({ ...approval, id: 'ELSEWHERE', target: 'vs:9' });
    expect(await t.changes.decide('ELSEWHERE', { userId: 'UADMIN2' }, 'approve')).toMatchObject({
      change: { outcome: 'not_sent', why: { code: 'unreadable' } },
    });
    expect(t.calls).toEqual([]);
  });

  test('prepared for another cloud (VS_API_URL or VS_ACCOUNT_ID changed since), or stored before the cloud was kept: not sent, recorded', async () => {
    t = setup();
    const elsewhere = [
      { ...CLOUD_ACCOUNT, accountId: 'acct-2' },
      { ...CLOUD_ACCOUNT, apiUrl: 'https://other-cloud.example.com/api' },
    ];
    for (const cloudAccount of elsewhere) {
      const approval = await askRestore(t);
      const result = await createChanges({ ...t.deps, cloudAccount }).decide(approval.id, { userId: 'UADMIN2' }, 'approve');
      expect(result).toMatchObject({
        outcome: 'approved',
        change: {
          outcome: 'not_sent',
          why: { code: 'other_cloud' },
          record: {
            outcome: 'refused',
            decidedBy: 'UADMIN2',
            detail: 'not sent: it was prepared for another cloud API or account (VS_API_URL, VS_ACCOUNT_ID); nothing was changed',
          },
        },
      });
    }
    const before = await askRestore(t);
    await t.store.approvals.request({ ...before, id: 'BEFORE', cloud: null });
    expect(await t.changes.decide('BEFORE', { userId: 'UADMIN2' }, 'approve')).toMatchObject({ change: { outcome: 'not_sent', why: { code: 'other_cloud' } } });
    expect(t.calls).toEqual([]);
    // The same base URL written with a trailing slash is the same cloud.
    const same = await askRestore(t);
    const slashed = createChanges({ ...t.deps, cloudAccount: { ...CLOUD_ACCOUNT, apiUrl: `${CLOUD_ACCOUNT.apiUrl}/` } });
    expect(await slashed.decide(same.id, { userId: 'UADMIN2' }, 'approve')).toMatchObject({ change: { outcome: 'succeeded' } });
  });

  test('a request stored longer than its message shows (before such requests were refused): not sent, as nobody saw all of it', async () => {
    t = setup({ format: 'xml' });
    const asked = await t.changes.submit(as('UOPER'), 'disk_add', 42, goodDiskForm);
    if (asked.outcome !== 'requested') throw new Error(`expected requested, got ${asked.outcome}`);
    // Asked for today, this form is refused on its label and mount point: each apostrophe is six characters in XML.
    const params = { ...asked.approval.params, label: "'".repeat(255), mount_point: `/${"'".repeat(255)}` };
    expect(await t.changes.submit(as('UOPER'), 'disk_add', 42, { ...goodDiskForm, label: params.label, mount_point: params.mount_point })).toMatchObject({
      outcome: 'invalid',
      fieldErrors: { label: expect.stringContaining('Too long to ask for approval'), mount_point: expect.stringContaining('Too long') },
    });
    const prepared = t.prepare('disk_add', 42, params as Parameters<typeof t.prepare<'disk_add'>>[2]);
    expect(prepared.body!.length).toBeGreaterThan(MAX_SHOWN_REQUEST);
    const apiRequest = { method: prepared.method, path: prepared.path, body: prepared.body };
    await t.store.approvals.request({ ...asked.approval, id: 'LONG', params, apiRequest });
    const result = await t.changes.decide('LONG', { userId: 'UOPER2' }, 'approve');
    expect(result).toMatchObject({
      change: { outcome: 'not_sent', why: { code: 'unshown' }, record: { detail: expect.stringContaining('nobody saw all of it') } },
    });
    expect(t.calls).toEqual([]);
  });

  test('the run failing after the approval was recorded is said as such, not thrown', async () => {
    t = setup();
    const approval = await askRestore(t);
    const error = new StoreUnavailableError('database is down');
    const broken = t.withAudit({ beginChange: () => Promise.reject(error) });
    expect(await broken.decide(approval.id, { userId: 'UADMIN2' }, 'approve')).toMatchObject({ outcome: 'approved', change: { outcome: 'error', error } });
    expect(t.calls).toEqual([]);
  });

  test('the store failing before anything was decided throws (nothing was decided)', async () => {
    t = setup();
    const approval = await askRestore(t);
    const error = new StoreUnavailableError('database is down');
    const broken = t.withAudit({ record: () => Promise.reject(error) });
    await expect(broken.decide(approval.id, { userId: 'UVIEW' }, 'approve')).rejects.toBe(error);
  });
});

describe('expiry, the message, and who may decide', () => {
  let t: Door;
  afterEach(() => t.store.close());

  test('requests nobody decided expire once their time is up, each recorded once, naming the requester', async () => {
    t = setup();
    const first = await askRestore(t);
    t.advance(10 * 60_000);
    const second = await askRestore(t, 'UADMIN2');
    t.advance(TTL_MS - 10 * 60_000 - 1);
    expect(await t.changes.expire()).toEqual([]);
    t.advance(1);
    const expired = await t.changes.expire();
    expect(expired.map((a) => [a.id, a.status])).toEqual([[first.id, 'expired']]);
    expect(expired[0]!.record).toMatchObject({
      outcome: 'expired',
      userId: 'UADMIN',
      requestedBy: 'UADMIN',
      approvalId: first.id,
      apiRequest: first.apiRequest,
      at: new Date(T0 + TTL_MS).toISOString(),
      detail: `nobody approved or rejected it before ${new Date(T0 + TTL_MS).toISOString()}; nothing was changed`,
    });
    expect(t.recorded.filter((r) => r.outcome === 'expired')).toEqual([expired[0]!.record]);
    expect(await t.changes.expire()).toEqual([]);
    expect(await t.changes.decide(first.id, { userId: 'UADMIN2' }, 'approve')).toMatchObject({ outcome: 'closed', approval: { status: 'expired' } });
    t.advance(10 * 60_000);
    expect((await t.changes.expire()).map((a) => a.id)).toEqual([second.id]);
    expect(t.calls).toEqual([]);
  });

  test("a request's message is remembered, for any instance to update it", async () => {
    t = setup();
    const approval = await askRestore(t);
    await t.changes.setMessage(approval.id, '1714557600.000100');
    expect((await t.store.approvals.get(approval.id))!.messageTs).toBe('1714557600.000100');
  });

  test('the requests a person may decide: open, not their own, their role and the channel allowing it', async () => {
    t = setup();
    const restore = await askRestore(t, 'UADMIN');
    const disk = (await t.changes.submit(as('UOPER'), 'disk_add', 42, goodDiskForm)) as { approval: Approval };
    const ids = async (user: string) => (await t.changes.decidable(user)).map((a) => a.id);
    expect(await ids('UADMIN')).toEqual([disk.approval.id]);
    expect(await ids('UADMIN2')).toEqual([restore.id, disk.approval.id]);
    expect(await ids('UOPER')).toEqual([]);
    expect(await ids('UOPER2')).toEqual([disk.approval.id]);
    expect(await ids('UVIEW')).toEqual([]);
    await t.store.approvals.request({ ...restore, id: 'ODD', action: 'unfreeze' });
    expect(await ids('UADMIN2')).toEqual([restore.id, disk.approval.id]);
    const restricted = createChanges({ ...t.deps, policy: createPolicy({ ...ROLES, mutationChannels: ['COTHER'] }, { membersOf: async () => [] }) });
    expect(await restricted.decidable('UADMIN2')).toEqual([]);
    t.advance(TTL_MS);
    expect(await ids('UADMIN2')).toEqual([]);
  });
});

describe('what each step keeps, and logs', () => {
  let t: ReturnType<typeof setup>;
  afterEach(() => t.store.close());

  /** A logger whose lines a test reads back. */
  function logged() {
    const lines: string[] = [];
    return {
      logger: createLogger({ level: 'debug', write: (line) => lines.push(line) }),
      lines: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>),
    };
  }
  const iso = (ms: number) => new Date(ms).toISOString();
  const DISK = { disk_type: 'SSD', disk_size: '20' };
  let executions = 0;
  /** A workflow step's request for an add-disk on VS 42, its approval. */
  async function workflowRequest(changes = t.changes): Promise<Approval> {
    executions += 1;
    const step = { functionExecutionId: `Fx${executions}`, workflowExecutionId: `Wx${executions}`, channelId: CHANNEL, reason: 'the disk is full' };
    const result = await changes.request(step, 'disk_add', 42, DISK);
    if (result.outcome !== 'requested') throw new Error(`expected requested, got ${result.outcome}`);
    return result.approval;
  }

  test('asking is logged with the request, who asks and until when; a second delivery as such', async () => {
    const log = logged();
    t = setup({ logger: log.logger });
    const ctx = as('UADMIN');
    await t.changes.submit(ctx, 'backup_restore', 9, RESTORE);
    expect(await t.changes.submit({ ...ctx }, 'backup_restore', 9, RESTORE)).toEqual({ outcome: 'duplicate' });
    expect(log.lines()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ level: 'info', msg: 'approval requested', approval: 'A1', expiresAt: iso(T0 + TTL_MS), user: 'UADMIN', target: 'backup:9' }),
        expect.objectContaining({ level: 'info', msg: 'duplicate submission ignored', submission: ctx.submissionKey }),
      ]),
    );
  });

  test('a request that cannot be stored is logged with its record, and thrown: nothing is asked, nothing called', async () => {
    const log = logged();
    t = setup({ logger: log.logger });
    t.store.approvals.ask = () => Promise.reject(new StoreUnavailableError('database is down'));
    await expect(t.changes.submit(as('UADMIN'), 'backup_restore', 9, RESTORE)).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(t.calls).toEqual([]);
    expect(log.lines()).toContainEqual(
      expect.objectContaining({
        level: 'error',
        msg: 'could not store the approval request',
        error: expect.objectContaining({ message: 'database is down' }),
        entry: expect.objectContaining({ outcome: 'requested', target: 'backup:9', userId: 'UADMIN' }),
      }),
    );
  });

  test('a workflow’s request says on record which execution asked, and which role may claim it until when', async () => {
    t = setup();
    const approval = await workflowRequest();
    expect((await records(t)).map((r) => r.detail)).toEqual([
      `a workflow asked for it (Wx${executions}); waits for someone with the operator role to claim it until ${iso(T0 + TTL_MS)}`,
    ]);
    expect(approval.workflowExecutionId).toBe(`Wx${executions}`);
  });

  test('a click is logged with who, where, what, on what and which request; a refusal with its verdict, denial and role', async () => {
    const log = logged();
    t = setup({ logger: log.logger });
    const approval = await askRestore(t);
    await t.changes.decide(approval.id, { userId: 'UADMIN' }, 'approve');
    const about = { user: 'UADMIN', channel: CHANNEL, action: 'backup_restore', target: 'backup:9', approval: approval.id };
    expect(log.lines()).toContainEqual(
      expect.objectContaining({ level: 'info', msg: 'approval click refused', verdict: 'approve', denial: 'own_request', role: 'admin', ...about }),
    );
    const rejected = await askRestore(t);
    await t.changes.decide(rejected.id, { userId: 'UADMIN2' }, 'reject');
    await t.changes.decide(approval.id, { userId: 'UADMIN2' }, 'approve');
    expect(log.lines()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ level: 'info', msg: 'approval rejected', approval: rejected.id, user: 'UADMIN2' }),
        expect.objectContaining({ level: 'info', msg: 'approval approved; running the change', approval: approval.id, user: 'UADMIN2' }),
      ]),
    );
  });

  test('a click on a request already decided, or claimed, is closed before any check: nothing is written', async () => {
    t = setup();
    const approval = await askRestore(t);
    await t.changes.decide(approval.id, { userId: 'UADMIN2' }, 'reject');
    const claimed = await workflowRequest();
    await t.changes.claim(claimed.id, { userId: 'UOPER' });
    const before = await records(t);
    // Neither may decide or claim anything: were they checked, their refusals would be recorded.
    expect(await t.changes.decide(approval.id, { userId: 'UVIEW' }, 'approve')).toMatchObject({ outcome: 'closed', approval: { status: 'rejected' } });
    expect(await t.changes.decide(approval.id, { userId: 'UADMIN' }, 'reject')).toMatchObject({ outcome: 'closed' });
    expect(await t.changes.claim(claimed.id, { userId: 'UVIEW' })).toMatchObject({ outcome: 'closed', approval: { requestedBy: 'UOPER' } });
    expect(await records(t)).toEqual(before);
  });

  test('a refused claim names no requester on record (nobody has claimed it), and is logged as a refused claim', async () => {
    const log = logged();
    t = setup({ logger: log.logger });
    const approval = await workflowRequest();
    const refused = await t.changes.claim(approval.id, { userId: 'UVIEW' });
    expect(refused).toMatchObject({ outcome: 'denied', record: { outcome: 'refused', userId: 'UVIEW', requestedBy: null, approvalId: approval.id } });
    expect(log.lines()).toContainEqual(
      expect.objectContaining({
        level: 'info',
        msg: 'claim of a workflow request refused',
        denial: 'role',
        role: 'viewer',
        user: 'UVIEW',
        approval: approval.id,
      }),
    );
  });

  test('a claim is recorded as asked by the claimer, open anew until when, and logged so', async () => {
    const log = logged();
    t = setup({ logger: log.logger });
    const approval = await workflowRequest();
    t.advance(60_000);
    const claimed = await t.changes.claim(approval.id, { userId: 'UOPER' });
    const until = iso(T0 + 60_000 + TTL_MS);
    expect(claimed).toMatchObject({
      outcome: 'claimed',
      record: {
        outcome: 'requested',
        userId: 'UOPER',
        requestedBy: 'UOPER',
        detail: `claimed the workflow's request; waits for a second person's approval until ${until}`,
      },
    });
    expect(log.lines()).toContainEqual(
      expect.objectContaining({ level: 'info', msg: 'workflow request claimed; waits for a second person', expiresAt: until, user: 'UOPER' }),
    );
  });

  test('another instance deciding, or claiming, between a click’s read and its own: closed as the other left it, and logged', async () => {
    const log = logged();
    t = setup({ logger: log.logger });
    const other = createChanges({ ...t.deps, logger: createLogger({ level: 'error', write: () => undefined }) });
    const approvals = t.store.approvals;
    const decide = approvals.decide.bind(approvals);
    const claim = approvals.claim.bind(approvals);
    const approval = await askRestore(t);
    approvals.decide = async (...args) => {
      approvals.decide = decide;
      await other.decide(approval.id, { userId: 'UGROUPIE' }, 'reject');
      return decide(...args);
    };
    expect(await t.changes.decide(approval.id, { userId: 'UADMIN2' }, 'approve')).toMatchObject({
      outcome: 'closed',
      approval: { status: 'rejected', decidedBy: 'UGROUPIE' },
    });
    const requested = await workflowRequest();
    approvals.claim = async (...args) => {
      approvals.claim = claim;
      await other.claim(requested.id, { userId: 'UOPER2' });
      return claim(...args);
    };
    expect(await t.changes.claim(requested.id, { userId: 'UOPER' })).toMatchObject({ outcome: 'closed', approval: { requestedBy: 'UOPER2' } });
    expect(log.lines()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ level: 'info', msg: 'approval click came after the decision', verdict: 'approve', status: 'rejected', user: 'UADMIN2' }),
        expect.objectContaining({ level: 'info', msg: 'claim came after another', status: 'requested', by: 'UOPER2', user: 'UOPER' }),
      ]),
    );
    expect(t.calls).toEqual([]);
  });

  test('a request gone between a click’s read and its decision or claim (purged) is unknown', async () => {
    t = setup();
    const approval = await askRestore(t);
    const requested = await workflowRequest();
    t.store.approvals.decide = () => Promise.resolve({ won: false, approval: null });
    t.store.approvals.claim = () => Promise.resolve({ won: false, approval: null });
    expect(await t.changes.decide(approval.id, { userId: 'UADMIN2' }, 'approve')).toEqual({ outcome: 'unknown' });
    expect(await t.changes.claim(requested.id, { userId: 'UOPER' })).toEqual({ outcome: 'unknown' });
  });

  test('an approved run that fails is logged as an error; onRecorded hears only of records', async () => {
    const log = logged();
    t = setup({ logger: log.logger });
    const approval = await askRestore(t);
    const error = new StoreUnavailableError('database is down');
    const broken = createChanges({ ...t.deps, store: { ...t.store, audit: { ...t.store.audit, beginChange: () => Promise.reject(error) } } });
    await broken.decide(approval.id, { userId: 'UADMIN2' }, 'approve');
    // toStrictEqual: an undefined told to onRecorded is an item too.
    expect(t.recorded.map((r) => r?.outcome)).toStrictEqual(['requested', 'approved']);
    expect(log.lines()).toContainEqual(
      expect.objectContaining({
        level: 'error',
        msg: 'the approved change could not be run to its end',
        error: expect.objectContaining({ message: 'database is down' }),
        approval: approval.id,
      }),
    );
  });

  test('each approved request runs once under its own claim: two approved restores of one backup both run', async () => {
    t = setup();
    const first = await askRestore(t);
    const second = await askRestore(t);
    expect(await t.changes.decide(first.id, { userId: 'UADMIN2' }, 'approve')).toMatchObject({ change: { outcome: 'succeeded' } });
    expect(await t.changes.decide(second.id, { userId: 'UADMIN2' }, 'approve')).toMatchObject({ change: { outcome: 'succeeded' } });
    expect(t.calls).toHaveLength(2);
  });

  test('a request not sent as approved is logged with both paths', async () => {
    const log = logged();
    t = setup({ logger: log.logger });
    const approval = await askRestore(t);
    const xml = setup({ format: 'xml' });
    await createChanges({ ...t.deps, cloud: xml.cloud }).decide(approval.id, { userId: 'UADMIN2' }, 'approve');
    await xml.store.close();
    expect(log.lines()).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        msg: 'the approved request is not sent',
        why: 'changed',
        approved: '/backups/9/restore.json',
        now: '/backups/9/restore.xml',
        preparedFor: CLOUD_ACCOUNT.apiUrl,
        sendingTo: CLOUD_ACCOUNT.apiUrl,
      }),
    );
  });

  test('an expired workflow request is recorded with its execution, and each expiry is logged', async () => {
    const log = logged();
    t = setup({ logger: log.logger });
    const approval = await workflowRequest();
    t.advance(TTL_MS);
    const [expired] = await t.changes.expire();
    expect(expired!.record).toMatchObject({ outcome: 'expired', requestedBy: null, workflowExecutionId: `Wx${executions}` });
    expect(log.lines()).toContainEqual(
      expect.objectContaining({ level: 'info', msg: 'approval request expired', approval: approval.id, action: 'disk_add', target: 'vs:42' }),
    );
  });

  test('the open requests as one person sees them: those they may decide, and their own', async () => {
    t = setup();
    const restore = await askRestore(t, 'UADMIN');
    const disk = (await t.changes.submit(as('UOPER'), 'disk_add', 42, goodDiskForm)) as { approval: Approval };
    const ids = async (user: string) => {
      const { decidable, own } = await t.changes.waiting(user);
      return { decidable: decidable.map((a) => a.id), own: own.map((a) => a.id) };
    };
    expect(await ids('UADMIN')).toEqual({ decidable: [disk.approval.id], own: [restore.id] });
    expect(await ids('UOPER')).toEqual({ decidable: [], own: [disk.approval.id] });
    expect(await ids('UVIEW')).toEqual({ decidable: [], own: [] });
  });
});

describe('who may decide, as the request mentions them', () => {
  const roles = { admins: ['UADMIN', 'SADMINS', 'WORGADMIN'], operators: ['UOPER', 'SONCALL', 'UADMIN'] };

  test('the user groups and the people holding the role by their own id (admins for a restore, operators too for a disk), never the one who asked', () => {
    expect(deciders(roles, 'admin', 'UADMIN')).toEqual({ groups: ['SADMINS'], users: ['WORGADMIN'] });
    expect(deciders(roles, 'operator', 'UOPER')).toEqual({ groups: ['SADMINS', 'SONCALL'], users: ['UADMIN', 'WORGADMIN'] });
    expect(deciders({ admins: [], operators: [] }, 'operator', 'UOPER')).toEqual({ groups: [], users: [] });
  });

  test('people are named only while they are fewer than ten; the groups always', () => {
    const nine = Array.from({ length: 9 }, (_, i) => `UADMIN${i}`);
    expect(deciders({ admins: [...nine, 'UASKER'], operators: [] }, 'admin', 'UASKER').users).toEqual(nine);
    expect(deciders({ admins: [...nine, 'UTENTH', 'SADMINS'], operators: [] }, 'admin', 'UASKER')).toEqual({ groups: ['SADMINS'], users: [] });
  });
});
