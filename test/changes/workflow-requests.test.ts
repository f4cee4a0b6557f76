import type { WorkflowStepContext } from '../../src/changes';
import type { Config } from '../../src/config';
import { openDoor, T0, type Door } from '../helpers/door';

// A workflow step's change at the door (src/changes/changes.ts `request`,
// approvals.ts `claim`): refused while changes are frozen, validated as the
// form would be and stored with nobody as its requester, nothing called,
// whatever VS_APPROVALS says;
// a claim is checked when it is made (the role the change needs now, the
// request's channel, the freeze) and the first one wins; the request is then
// an approval request that a second person decides. Every record names the
// workflow's execution.

const ROLES: Config['roles'] = {
  admins: ['UADMIN', 'UADMIN2'],
  operators: ['UOPER', 'UOPER2'],
  viewers: ['UVIEW'],
  mutationChannels: ['CINCIDENT', 'CGENERAL'],
  groupCacheMs: 1000,
  workflowReads: 'viewers',
};
const TTL_MS = 30 * 60_000;

function setup() {
  let ids = 0;
  return openDoor({
    roles: ROLES,
    // Not listed in VS_APPROVALS: a workflow's change waits for a second person all the same.
    approvals: { actions: [], ttlMs: TTL_MS },
    newId: () => `W${++ids}`,
  });
}

let executions = 0;
const step = (more: Partial<WorkflowStepContext> = {}): WorkflowStepContext => ({
  functionExecutionId: `Fx${++executions}`,
  workflowExecutionId: `Wx${executions}`,
  channelId: 'CINCIDENT',
  reason: 'the data disk is full',
  ...more,
});
const DISK = { disk_type: 'SSD', disk_size: '20', label: 'data' };

let t: Door;
beforeEach(() => {
  t = setup();
});
afterEach(() => t.store.close());

async function requested(s = step()) {
  const result = await t.changes.request(s, 'disk_add', 42, DISK);
  if (result.outcome !== 'requested') throw new Error(`expected requested, got ${result.outcome}`);
  return result;
}

test('a valid request is stored awaiting its requester, with its prepared request and the reason, recorded; nothing is called', async () => {
  const s = step();
  const { approval, record } = await requested(s);
  expect(approval).toMatchObject({
    status: 'awaiting_requester',
    requestedBy: '',
    channelId: 'CINCIDENT',
    reason: 'the data disk is full',
    expiresAtMs: T0 + TTL_MS,
    workflowExecutionId: s.workflowExecutionId,
    apiRequest: { method: 'POST', path: '/virtual_machines/42/disks.json', body: '{"disk":{"disk_type":"SSD","disk_size":"20","label":"data"}}' },
  });
  expect(record).toMatchObject({ outcome: 'requested', userId: '', requestedBy: null, approvalId: approval.id, workflowExecutionId: s.workflowExecutionId });
  expect(record.detail).toContain('waits for someone with the operator role to claim it');
  expect(t.recorded).toEqual([record]);
  expect(t.calls).toEqual([]);
  // The same execution again asks nothing more.
  expect(await t.changes.request(s, 'disk_add', 42, DISK)).toEqual({ outcome: 'duplicate' });
});

test('a request the form would refuse is recorded as invalid with every problem, the reason included; nothing is stored', async () => {
  const s = step({ reason: ' ' });
  const result = await t.changes.request(s, 'disk_add', 42, { disk_type: 'NVMe', disk_size: '0' });
  expect(result).toMatchObject({
    outcome: 'invalid',
    fieldErrors: { disk_type: 'Choose HDD or SSD', disk_size: 'Enter a whole number of GB, at least 1', reason: expect.stringContaining('reason') },
    record: { outcome: 'refused', userId: '', workflowExecutionId: s.workflowExecutionId },
  });
  expect((await t.changes.request(step({ reason: 'x'.repeat(501) }), 'backup_restore', 9, { confirm: '9' })).outcome).toBe('invalid');
  expect(await t.store.approvals.open(T0)).toEqual([]);
});

test('while changes are frozen a workflow cannot ask: refused with the freeze, recorded as denied with its execution; nothing stored', async () => {
  const { freeze } = (await t.changes.freeze({ userId: 'UADMIN', channelId: 'CINCIDENT' }, 'maintenance')) as { freeze: object };
  const s = step();
  expect(await t.changes.request(s, 'disk_add', 42, DISK)).toMatchObject({
    outcome: 'frozen',
    freeze,
    record: { outcome: 'refused', userId: '', action: 'disk_add', target: 'vs:42', workflowExecutionId: s.workflowExecutionId },
  });
  expect(t.recorded.at(-1)).toMatchObject({ outcome: 'refused', detail: expect.stringContaining('changes are frozen (by UADMIN') });
  expect(await t.store.approvals.open(T0 + TTL_MS * 2)).toEqual([]);
  expect(t.calls).toEqual([]);
});

test('asked before a freeze, nobody can claim it while frozen; unfrozen, the claim works', async () => {
  const { approval } = await requested();
  await t.changes.freeze({ userId: 'UADMIN', channelId: 'CINCIDENT' }, 'maintenance');
  const refused = await t.changes.claim(approval.id, { userId: 'UOPER' });
  expect(refused).toMatchObject({ outcome: 'denied', decision: { denial: { code: 'frozen' } }, record: { outcome: 'refused', userId: 'UOPER' } });
  await t.changes.unfreeze({ userId: 'UADMIN', channelId: 'CINCIDENT' });
  expect((await t.changes.claim(approval.id, { userId: 'UOPER' })).outcome).toBe('claimed');
});

test('a claim needs the role the change needs now and a channel where changes are allowed; each refusal is recorded', async () => {
  const { approval } = await requested();
  expect(await t.changes.claim(approval.id, { userId: 'UVIEW' })).toMatchObject({ outcome: 'denied', decision: { needed: 'operator' } });
  const elsewhere = (await requested(step({ channelId: 'CRANDOM' }))).approval;
  expect(await t.changes.claim(elsewhere.id, { userId: 'UOPER' })).toMatchObject({ outcome: 'denied', decision: { denial: { code: 'channel' } } });
  const restore = await t.changes.request(step(), 'backup_restore', 9, { confirm: '9' });
  if (restore.outcome !== 'requested') throw new Error(restore.outcome);
  expect(await t.changes.claim(restore.approval.id, { userId: 'UOPER' })).toMatchObject({ outcome: 'denied', decision: { needed: 'admin' } });
  const denials = (await t.store.audit.latest(20)).filter((r) => r.outcome === 'refused');
  expect(denials.map((r) => [r.userId, r.approvalId])).toEqual(
    expect.arrayContaining([
      ['UVIEW', approval.id],
      ['UOPER', elsewhere.id],
      ['UOPER', restore.approval.id],
    ]),
  );
  expect(await t.store.approvals.get(approval.id)).toMatchObject({ status: 'awaiting_requester', requestedBy: '' });
});

test('the first claim wins: the claimer is the requester, the request is open anew for the TTL, and a second person approves it once', async () => {
  const s = step();
  const { approval } = await requested(s);
  t.advance(10 * 60_000);
  const [first, second] = await Promise.all([t.changes.claim(approval.id, { userId: 'UOPER' }), t.changes.claim(approval.id, { userId: 'UOPER2' })]);
  expect(first).toMatchObject({ outcome: 'claimed', approval: { status: 'requested', requestedBy: 'UOPER', expiresAtMs: T0 + 10 * 60_000 + TTL_MS } });
  expect(second).toMatchObject({ outcome: 'closed', approval: { status: 'requested', requestedBy: 'UOPER' } });
  // The claimer cannot approve it: a second person must.
  expect(await t.changes.decide(approval.id, { userId: 'UOPER' }, 'approve')).toMatchObject({
    outcome: 'denied',
    decision: { denial: { code: 'own_request' } },
  });
  expect(t.calls).toEqual([]);
  const approved = await t.changes.decide(approval.id, { userId: 'UOPER2' }, 'approve');
  expect(approved).toMatchObject({ outcome: 'approved', change: { outcome: 'succeeded' } });
  expect(t.calls.map((c) => `${c.method} ${c.path}`)).toEqual(['POST /virtual_machines/42/disks.json']);
  const records = (await t.store.audit.latest(20)).filter((r) => r.approvalId === approval.id).reverse();
  expect(records.map((r) => [r.outcome, r.userId])).toEqual([
    ['requested', ''],
    ['requested', 'UOPER'],
    // Approving one's own claimed request is a refused click, not a denial of the request.
    ['refused', 'UOPER'],
    // The approval, the change's record from then on: scheduled once the cloud accepted it.
    ['scheduled', 'UOPER2'],
  ]);
  for (const r of records) expect(r.workflowExecutionId).toBe(s.workflowExecutionId);
});

test('a request nobody claims expires, recorded, and cannot be claimed after its time', async () => {
  const { approval } = await requested();
  t.advance(TTL_MS);
  expect(await t.changes.claim(approval.id, { userId: 'UOPER' })).toMatchObject({ outcome: 'closed', approval: { status: 'expired' } });
  const expired = await t.changes.expire();
  expect(expired.map((a) => [a.id, a.status])).toEqual([[approval.id, 'expired']]);
  expect(expired[0]!.record).toMatchObject({ outcome: 'expired', userId: '', requestedBy: null, detail: expect.stringContaining('nobody claimed') });
  expect(await t.changes.claim('nope', { userId: 'UOPER' })).toEqual({ outcome: 'unknown' });
});
