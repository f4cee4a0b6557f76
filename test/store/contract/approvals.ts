import { RECORDED_AS } from '../../../src/store';
import type { Approval, Store } from '../../../src/store';
import { APPROVAL_STATUSES, APPROVAL_STEPS, mayTake, type ApprovalStatus, type ApprovalStep } from '../../../src/store/approval-states';
import { approvalRequest, entry } from './entries';
import type { ContractStores } from './types';

// Approvals: asked for once per submission, with its record; the first
// decisive click wins across instances, with its record; expiry settles a
// request once, with its record; decided requests go with retention. A
// workflow's request waits for its requester: the first claim across
// instances makes it an approval request, and one nobody claims expires.

const requestedEntry = entry({ userId: 'UOPER', action: 'backup_restore', target: 'backup:9', outcome: 'requested', apiStatus: null, requestedBy: 'UOPER' });
const decidedEntry = (a: Approval) =>
  entry({
    userId: a.decidedBy!,
    action: a.action,
    target: a.target,
    outcome: a.status === 'approved' ? 'approved' : 'denied',
    apiStatus: null,
    requestedBy: a.requestedBy,
    decidedBy: a.decidedBy,
  });

export function approvalsContract({ instances, one }: ContractStores): void {
  test('an approval request is decided once, by the first decisive click across instances, and only the winner is recorded', async () => {
    const [a, b] = (await instances(2)) as [Store, Store];
    const requested = await a.approvals.request(approvalRequest());
    expect(requested).toMatchObject({
      id: 'A1',
      status: 'requested',
      decidedBy: null,
      decidedAt: null,
      messageTs: null,
      cloud: null,
      params: { backup_id: 9, reason: 'disk corrupted' },
      apiRequest: { method: 'POST', path: '/backups/9/restore.json', body: null },
    });
    await a.approvals.setMessage('A1', '1714557600.000100');
    expect(await b.approvals.open(5000)).toEqual([{ ...requested, messageTs: '1714557600.000100' }]);
    const at = '2024-05-01T10:01:00.000Z';
    const clicks = await Promise.all([
      a.approvals.decide('A1', { step: 'approve', by: 'UADMIN1', at, nowMs: 5000 }, decidedEntry),
      b.approvals.decide('A1', { step: 'reject', by: 'UADMIN2', at, nowMs: 5000 }, decidedEntry),
      b.approvals.decide('A1', { step: 'approve', by: 'UADMIN3', at, nowMs: 5000 }, decidedEntry),
    ]);
    const winners = clicks.filter((c) => c.won);
    expect(winners).toHaveLength(1);
    const decided = winners[0]!.approval;
    for (const loser of clicks.filter((c) => !c.won)) expect(loser).toEqual({ won: false, approval: decided });
    expect(await a.approvals.get('A1')).toEqual(decided);
    expect(await a.approvals.open(5000)).toEqual([]);
    // The winner's record, written with the decision, names both people and the request.
    const records = await a.audit.latest(10);
    expect(records).toHaveLength(1);
    expect(records[0]).toEqual(winners[0]!.won ? winners[0]!.record : undefined);
    expect(records[0]).toMatchObject({
      outcome: RECORDED_AS[decided.status],
      userId: decided.decidedBy,
      requestedBy: 'UOPER',
      decidedBy: decided.decidedBy,
      approvalId: 'A1',
    });
    expect(await a.approvals.decide('missing', { step: 'approve', by: 'U1', at, nowMs: 5000 })).toEqual({ won: false, approval: null });
  });

  test('asking claims the submission: the same submission asked twice stores one request and one record', async () => {
    const [a, b] = (await instances(2)) as [Store, Store];
    const ask = (store: Store, id: string) =>
      store.approvals.ask({ submissionKey: 'VIEW1', at: '2024-05-01T10:00:00.000Z', request: approvalRequest({ id }), requested: requestedEntry });
    const asked = await Promise.all([ask(a, 'A1'), ask(b, 'A2')]);
    expect(asked.map((x) => x.outcome).sort()).toEqual(['duplicate', 'requested']);
    const won = asked.find((x) => x.outcome === 'requested')!;
    if (won.outcome !== 'requested') throw new Error('unreachable');
    expect(await a.approvals.open(5000)).toEqual([won.approval]);
    expect(await a.audit.latest(10)).toEqual([won.record]);
    expect(won.record).toMatchObject({ outcome: 'requested', requestedBy: 'UOPER', approvalId: won.approval.id, decidedBy: null });
  });

  test('an approval request past its expiry cannot be decided, and is expired once, with its record', async () => {
    const [a, b] = (await instances(2)) as [Store, Store];
    await a.approvals.request(approvalRequest({ id: 'A2', expiresAtMs: 10_000 }));
    await a.approvals.request(approvalRequest({ id: 'A3', expiresAtMs: 20_000 }));
    expect((await a.approvals.decide('A2', { step: 'approve', by: 'UADMIN', at: '2024-05-01T10:01:00.000Z', nowMs: 10_000 })).won).toBe(false);
    const recordOf = (x: Approval) => entry({ userId: x.requestedBy, outcome: 'expired', apiStatus: null, requestedBy: x.requestedBy });
    const expired = await Promise.all([a.approvals.expire(10_000, recordOf), b.approvals.expire(10_000, recordOf)]);
    expect(expired.flat().map((x) => [x.id, x.status])).toEqual([['A2', 'expired']]);
    expect(expired.flat()[0]!.record).toMatchObject({ outcome: 'expired', approvalId: 'A2', requestedBy: 'UOPER' });
    expect(await a.audit.latest(10)).toEqual([expired.flat()[0]!.record]);
    expect((await a.approvals.open(10_000)).map((x) => x.id)).toEqual(['A3']);
    expect(await a.approvals.expire(10_000)).toEqual([]);
  });

  test("a workflow's request is claimed once, by the first claim across instances, and is then an approval request", async () => {
    const [a, b] = (await instances(2)) as [Store, Store];
    const asked = await a.approvals.ask({
      submissionKey: 'step:Fx1',
      at: '2024-05-01T10:00:00.000Z',
      request: approvalRequest({ id: 'W1', requestedBy: '', awaitingRequester: true, workflowExecutionId: 'Wx1', expiresAtMs: 10_000 }),
      requested: entry({ userId: '', action: 'backup_restore', target: 'backup:9', outcome: 'requested', apiStatus: null, workflowExecutionId: 'Wx1' }),
    });
    if (asked.outcome !== 'requested') throw new Error('not asked');
    expect(asked.approval).toMatchObject({ id: 'W1', status: 'awaiting_requester', requestedBy: '', workflowExecutionId: 'Wx1' });
    expect(asked.record).toMatchObject({ outcome: 'requested', userId: '', approvalId: 'W1', workflowExecutionId: 'Wx1' });
    // Nobody can decide it before someone claims it, and it is not among the requests to decide: among those to claim.
    expect(await b.approvals.open(5000)).toEqual([]);
    expect(await b.approvals.open(5000, 'claim')).toEqual([asked.approval]);
    expect(await b.approvals.open(10_000, 'claim')).toEqual([]);
    expect((await b.approvals.decide('W1', { step: 'approve', by: 'UADMIN', at: '2024-05-01T10:01:00.000Z', nowMs: 5000 })).won).toBe(false);
    const at = '2024-05-01T10:02:00.000Z';
    const claimedEntry = (x: Approval) =>
      entry({ userId: x.requestedBy, outcome: 'requested', apiStatus: null, requestedBy: x.requestedBy, workflowExecutionId: x.workflowExecutionId });
    const claims = await Promise.all(
      ['UOPER1', 'UOPER2', 'UOPER3'].map((by, i) => [a, b][i % 2]!.approvals.claim('W1', { by, at, nowMs: 5000, expiresAtMs: 50_000 }, claimedEntry)),
    );
    const winners = claims.filter((c) => c.won);
    expect(winners).toHaveLength(1);
    const claimed = winners[0]!.approval;
    expect(claimed).toMatchObject({ status: 'requested', requestedAt: at, expiresAtMs: 50_000, workflowExecutionId: 'Wx1' });
    expect(['UOPER1', 'UOPER2', 'UOPER3']).toContain(claimed.requestedBy);
    for (const loser of claims.filter((c) => !c.won)) expect(loser).toEqual({ won: false, approval: claimed });
    expect(winners[0]!.won && winners[0]!.record).toMatchObject({ userId: claimed.requestedBy, approvalId: 'W1', workflowExecutionId: 'Wx1' });
    expect(await a.approvals.open(20_000)).toEqual([claimed]);
    expect(await a.approvals.open(20_000, 'claim')).toEqual([]);
    expect(await a.approvals.claim('missing', { by: 'U1', at, nowMs: 5000, expiresAtMs: 50_000 })).toEqual({ won: false, approval: null });
  });

  test("a workflow's request nobody claims cannot be claimed past its expiry, and is expired once, with its record", async () => {
    const [a, b] = (await instances(2)) as [Store, Store];
    await a.approvals.request(approvalRequest({ id: 'W2', requestedBy: '', awaitingRequester: true, workflowExecutionId: 'Wx2', expiresAtMs: 10_000 }));
    expect((await b.approvals.claim('W2', { by: 'UOPER', at: '2024-05-01T10:01:00.000Z', nowMs: 10_000, expiresAtMs: 90_000 })).won).toBe(false);
    const recordOf = (x: Approval) => entry({ userId: '', outcome: 'expired', apiStatus: null, workflowExecutionId: x.workflowExecutionId });
    const expired = (await Promise.all([a.approvals.expire(10_000, recordOf), b.approvals.expire(10_000, recordOf)])).flat();
    expect(expired.map((x) => [x.id, x.status, x.requestedBy])).toEqual([['W2', 'expired', '']]);
    expect(expired[0]!.record).toMatchObject({ outcome: 'expired', approvalId: 'W2', workflowExecutionId: 'Wx2' });
  });

  test('every step of the table is taken from the states it lists and from no other: an illegal transition changes nothing', async () => {
    const store = await one();
    const at = '2024-05-01T10:01:00.000Z';
    // Each state, reached by the table's own steps from where requests start.
    const reach: Record<ApprovalStatus, (id: string) => Promise<unknown>> = {
      awaiting_requester: (id) => store.approvals.request(approvalRequest({ id, requestedBy: '', awaitingRequester: true })),
      requested: (id) => store.approvals.request(approvalRequest({ id })),
      approved: async (id) => (await reach.requested(id), store.approvals.decide(id, { step: 'approve', by: 'UADMIN', at, nowMs: 5000 })),
      rejected: async (id) => (await reach.requested(id), store.approvals.decide(id, { step: 'reject', by: 'UADMIN', at, nowMs: 5000 })),
      withdrawn: async (id) => (await reach.requested(id), store.approvals.withdraw(id, { by: 'UOPER', at, nowMs: 5000 })),
      expired: async (id) => (await reach.requested(id), store.approvals.expire(10_000)),
    };
    const take: Record<ApprovalStep, (id: string) => Promise<boolean>> = {
      claim: async (id) => (await store.approvals.claim(id, { by: 'UOPER', at, nowMs: 5000, expiresAtMs: 9000 })).won,
      approve: async (id) => (await store.approvals.decide(id, { step: 'approve', by: 'UADMIN', at, nowMs: 5000 })).won,
      reject: async (id) => (await store.approvals.decide(id, { step: 'reject', by: 'UADMIN', at, nowMs: 5000 })).won,
      withdraw: async (id) => (await store.approvals.withdraw(id, { by: 'UOPER', at, nowMs: 5000 })).won,
      // Requests of earlier rounds expire with it; each round reads only its own.
      expire: async (id) => (await store.approvals.expire(10_000)).some((x) => x.id === id),
    };
    let n = 0;
    const taken: string[] = [];
    for (const status of APPROVAL_STATUSES) {
      for (const step of Object.keys(APPROVAL_STEPS) as ApprovalStep[]) {
        const id = `T${++n}`;
        await reach[status](id);
        expect((await store.approvals.get(id))!.status).toBe(status);
        const won = await take[step](id);
        const after = (await store.approvals.get(id))!.status;
        if (won) taken.push(`${status} -${step}-> ${after}`);
        expect([won, after]).toEqual(mayTake(step, status) ? [true, APPROVAL_STEPS[step].to] : [false, status]);
      }
    }
    expect(taken).toEqual([
      'awaiting_requester -claim-> requested',
      'awaiting_requester -expire-> expired',
      'requested -approve-> approved',
      'requested -reject-> rejected',
      'requested -withdraw-> withdrawn',
      'requested -expire-> expired',
    ]);
    // Withdrawing is the requester's alone.
    await store.approvals.request(approvalRequest({ id: 'MINE' }));
    expect((await store.approvals.withdraw('MINE', { by: 'USOMEONE', at, nowMs: 5000 })).won).toBe(false);
    expect((await store.approvals.get('MINE'))!.status).toBe('requested');
  });

  test('a reason given to Deny is kept with the request; none is kept for an approval', async () => {
    const store = await one();
    const at = '2024-05-01T10:01:00.000Z';
    await store.approvals.request(approvalRequest({ id: 'D1' }));
    await store.approvals.request(approvalRequest({ id: 'D2' }));
    expect(
      (await store.approvals.decide('D1', { step: 'reject', by: 'UADMIN', at, nowMs: 5000, reason: 'wrong backup: take last night’s' })).approval,
    ).toMatchObject({
      status: 'rejected',
      decisionReason: 'wrong backup: take last night’s',
    });
    expect((await store.approvals.decide('D2', { step: 'approve', by: 'UADMIN', at, nowMs: 5000, reason: 'ignored' })).approval).toMatchObject({
      status: 'approved',
      decisionReason: null,
    });
    expect((await store.approvals.get('D1'))!.decisionReason).toBe('wrong backup: take last night’s');
  });

  test('decided requests go with the audit records of their time; open ones stay', async () => {
    const store = await one({ auditRetentionDays: 1 });
    const day = 24 * 60 * 60 * 1000;
    const now = Date.parse('2024-06-01T00:00:00.000Z');
    const old = new Date(now - 2 * day).toISOString();
    await store.approvals.request(approvalRequest({ id: 'OLD-DECIDED', requestedAt: old, expiresAtMs: now + day }));
    await store.approvals.request(approvalRequest({ id: 'OLD-OPEN', requestedAt: old, expiresAtMs: now + day }));
    await store.approvals.request(approvalRequest({ id: 'NEW-DECIDED', requestedAt: new Date(now).toISOString(), expiresAtMs: now + day }));
    for (const id of ['OLD-DECIDED', 'NEW-DECIDED']) await store.approvals.decide(id, { step: 'reject', by: 'UADMIN', at: old, nowMs: now });
    expect((await store.retention.prune(now)).housekeeping).toBe(1);
    expect(await store.approvals.get('OLD-DECIDED')).toBeNull();
    expect(await store.approvals.get('OLD-OPEN')).not.toBeNull();
    expect(await store.approvals.get('NEW-DECIDED')).not.toBeNull();
  });
}
