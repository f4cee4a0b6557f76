import type { Store } from '../../../src/store';
import { approvalRequest } from './entries';
import type { ContractStores } from './types';

// Approvals: the first decisive click wins across instances; expiry settles a request once.

export function approvalsContract({ instances }: ContractStores): void {
  test('an approval request is decided once, by the first decisive click across instances', async () => {
    const [a, b] = (await instances(2)) as [Store, Store];
    const requested = await a.approvals.request(approvalRequest());
    expect(requested).toMatchObject({
      id: 'A1',
      status: 'requested',
      decidedBy: null,
      decidedAt: null,
      messageTs: null,
      params: { backup_id: 9, reason: 'disk corrupted' },
      apiRequest: { method: 'POST', path: '/backups/9/restore.json', body: null },
    });
    await a.approvals.setMessage('A1', '1714557600.000100');
    expect(await b.approvals.open(5000)).toEqual([{ ...requested, messageTs: '1714557600.000100' }]);
    const clicks = await Promise.all([
      a.approvals.decide('A1', { status: 'approved', by: 'UADMIN1', at: '2024-05-01T10:01:00.000Z', nowMs: 5000 }),
      b.approvals.decide('A1', { status: 'rejected', by: 'UADMIN2', at: '2024-05-01T10:01:00.000Z', nowMs: 5000 }),
      b.approvals.decide('A1', { status: 'approved', by: 'UADMIN3', at: '2024-05-01T10:01:00.000Z', nowMs: 5000 }),
    ]);
    const winners = clicks.filter((c) => c.won);
    expect(winners).toHaveLength(1);
    const decided = winners[0]!.approval;
    for (const loser of clicks.filter((c) => !c.won)) expect(loser.approval).toEqual(decided);
    expect(await a.approvals.get('A1')).toEqual(decided);
    expect(await a.approvals.open(5000)).toEqual([]);
    expect(await a.approvals.decide('missing', { status: 'approved', by: 'U1', at: '2024-05-01T10:01:00.000Z', nowMs: 5000 })).toEqual({
      won: false,
      approval: null,
    });
  });

  test('an approval request past its expiry cannot be decided, and is expired once', async () => {
    const [a, b] = (await instances(2)) as [Store, Store];
    await a.approvals.request(approvalRequest({ id: 'A2', expiresAtMs: 10_000 }));
    await a.approvals.request(approvalRequest({ id: 'A3', expiresAtMs: 20_000 }));
    expect((await a.approvals.decide('A2', { status: 'approved', by: 'UADMIN', at: '2024-05-01T10:01:00.000Z', nowMs: 10_000 })).won).toBe(false);
    const expired = await Promise.all([a.approvals.expire(10_000), b.approvals.expire(10_000)]);
    expect(expired.flat().map((x) => [x.id, x.status])).toEqual([['A2', 'expired']]);
    expect((await a.approvals.open(10_000)).map((x) => x.id)).toEqual(['A3']);
  });
}
