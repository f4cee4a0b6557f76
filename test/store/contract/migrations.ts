import type { ContractStores } from './types';
import { approvalRequest, entry } from './entries';

// Migrations on data written by an older schema, as it wrote it: what a
// deployment upgrading in place has in its database.

const PENDING_AT_VERSION_2 = [
  `INSERT INTO audit_records (at, user_id, channel_id, action, target, params, outcome, api_status, duration_ms, detail) VALUES
     ('2024-05-01T10:00:00.000Z', 'UVIEWER', 'C1', 'disk_add', 'vs:41', '{}', 'denied', NULL, 1, 'needs operator'),
     ('2024-05-01T10:00:01.000Z', 'UOPER', 'C1', 'disk_add', 'vs:42', '{}', 'succeeded', 201, 1, NULL),
     ('2024-05-01T10:00:02.000Z', 'UVIEWER', 'C1', 'disk_add', 'vs:43', '{}', 'denied', NULL, 1, 'needs operator'),
     ('2024-05-01T10:00:03.000Z', 'UVIEWER', 'C1', 'disk_add', 'vs:44', '{}', 'denied', NULL, 1, 'needs operator')`,
  // Record 3's post was sent already; the others wait.
  `INSERT INTO audit_outbox (record_id, next_attempt_at_ms, sent_at_ms) VALUES (1, 0, NULL), (2, 0, NULL), (3, 0, 5), (4, 0, NULL)`,
];

/** An approval request asked for before version 8 kept no record of the cloud it was prepared for. */
const REQUEST_AT_VERSION_7 = [
  `INSERT INTO approvals (id, action, target, params, channel_id, requested_by, requested_at, expires_at_ms, reason, api_request, status)
   VALUES ('A6', 'backup_restore', 'backup:9', '{"backup_id":9}', 'C1', 'UOPER', '2024-05-01T10:00:00.000Z', 10000, NULL,
           '{"method":"POST","path":"/backups/9/restore.json","body":null}', 'requested')`,
];

export function migrationsContract({ freshAt }: ContractStores): void {
  test('a request asked for at schema version 7 reads back with no cloud (and is never sent); a new one keeps its cloud', async () => {
    const store = await (await freshAt(7, REQUEST_AT_VERSION_7)).open();
    expect(await store.approvals.get('A6')).toMatchObject({ id: 'A6', status: 'requested', cloud: null });
    const cloud = { apiUrl: 'https://cloud.example.com/api', accountId: 'acct-1' };
    expect(await store.approvals.request(approvalRequest({ id: 'A7', cloud }))).toMatchObject({ id: 'A7', cloud });
    expect((await store.approvals.get('A7'))!.cloud).toEqual(cloud);
  });

  test('posts pending at schema version 2: migration 3 groups each user’s denials as new ones are, and the change’s post comes first', async () => {
    const store = await (await freshAt(2, PENDING_AT_VERSION_2)).open();
    const fresh = await store.audit.record(entry({ userId: 'UVIEWER', outcome: 'denied' }));
    const claimed = await store.outbox.claim('me', 0, 30_000, 10);
    expect(claimed.map((p) => [p.record.id, p.group])).toEqual([
      [2, null],
      [1, 'denials:UVIEWER'],
      [4, 'denials:UVIEWER'],
      [fresh.id, 'denials:UVIEWER'],
    ]);
    expect(claimed.map((p) => p.record.target)).toEqual(['vs:42', 'vs:41', 'vs:44', 'vs:42']);
  });
}
