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

/**
 * Records at schema version 9, each outcome its vocabulary had then: refusals (`denied`, `invalid`, `busy`), a second
 * person's no (`rejected`), an approval (`approved`) and the change it ran as a record of its own, changes the cloud
 * accepted (`succeeded`: followed to each of its ends, still followed, or from before changes were followed), the
 * freeze, an unreadable answer and an interrupted change; with a post of a refusal still waiting.
 */
const RECORDS_AT_VERSION_9 = [
  `INSERT INTO audit_records
     (at, user_id, channel_id, action, target, params, outcome, api_status, duration_ms, detail, approval_id, cloud_outcome, transaction_ids) VALUES
     ('2024-05-01T10:00:00.000Z', 'UVIEWER', 'C1', 'disk_add', 'vs:42', '{}', 'denied', NULL, 1, 'role viewer, needs operator', NULL, NULL, NULL),
     ('2024-05-01T10:00:01.000Z', 'UOPER', 'C1', 'disk_add', 'vs:42', '{}', 'invalid', NULL, 1, 'invalid form: disk_size: at least 1', NULL, NULL, NULL),
     ('2024-05-01T10:00:02.000Z', 'UOPER', 'C1', 'power_reboot', 'vs:44', '{}', 'busy', NULL, 1, 'not sent: VS 44 is locked', NULL, NULL, NULL),
     ('2024-05-01T10:00:03.000Z', 'UOPER', 'C1', 'backup_restore', 'backup:9', '{}', 'requested', NULL, 1, 'waits', 'A1', NULL, NULL),
     ('2024-05-01T10:00:04.000Z', 'UADMIN', 'C1', 'backup_restore', 'backup:9', '{}', 'rejected', NULL, 1, 'rejected by UADMIN', 'A1', NULL, NULL),
     ('2024-05-01T10:00:05.000Z', 'UOPER', 'C1', 'power_reboot', 'vs:48', '{}', 'requested', NULL, 1, 'waits', 'A2', NULL, NULL),
     ('2024-05-01T10:00:06.000Z', 'UADMIN', 'C1', 'power_reboot', 'vs:48', '{}', 'approved', NULL, 1, 'approved by UADMIN', 'A2', NULL, NULL),
     ('2024-05-01T10:00:07.000Z', 'UOPER', 'C1', 'power_reboot', 'vs:48', '{}', 'succeeded', 201, 1, 'reboot of VS 48 scheduled', 'A2', 'failed', '[31]'),
     ('2024-05-01T10:00:08.000Z', 'UOPER', 'C1', 'disk_add', 'vs:42', '{}', 'succeeded', 201, 1, 'disk 110 scheduled on VS 42', NULL, 'complete', '[32, 33]'),
     ('2024-05-01T10:00:09.000Z', 'UOPER', 'C1', 'disk_add', 'vs:42', '{}', 'succeeded', 201, 1, 'disk 111 scheduled on VS 42', NULL, 'cancelled', '[34]'),
     ('2024-05-01T10:00:10.000Z', 'UOPER', 'C1', 'disk_add', 'vs:42', '{}', 'succeeded', 201, 1, 'disk 112 (20 GB) scheduled on VS 42', NULL, 'unknown', '[]'),
     ('2024-05-01T10:00:11.000Z', 'UOPER', 'C1', 'disk_add', 'vs:42', '{}', 'succeeded', 201, 1, 'disk 113 (20 GB) scheduled on VS 42', NULL, NULL, NULL),
     ('2024-05-01T10:00:12.000Z', 'UOPER', 'C1', 'disk_add', 'vs:42', '{}', 'succeeded', 201, 1, 'disk 114 (20 GB) scheduled on VS 42', NULL, NULL, NULL),
     ('2024-05-01T10:00:13.000Z', 'UOPER', 'C1', 'disk_add', 'vs:42', '{}', 'succeeded', 201, 1, 'disk 100 (20 GB) scheduled on VS 42', NULL, NULL, NULL),
     ('2024-05-01T10:00:14.000Z', 'UADMIN', 'C1', 'freeze', 'changes', '{"reason":"deploy"}', 'succeeded', NULL, 1, 'deploy', NULL, NULL, NULL),
     ('2024-05-01T10:00:15.000Z', 'UOPER', 'C1', 'disk_add', 'vs:42', '{}', 'applied_unreadable', 201, 1, 'applied: unreadable', NULL, NULL, NULL),
     ('2024-05-01T10:00:16.000Z', 'UOPER', 'C1', 'disk_add', 'vs:42', '{}', 'interrupted', NULL, 1, 'stopped', NULL, NULL, NULL),
     ('2024-05-01T10:00:17.000Z', 'UOPER', 'C1', 'disk_add', 'vs:42', '{}', 'failed', 422, 1, 'the cloud API refused the request', NULL, NULL, NULL)`,
  `INSERT INTO followed_changes
     (record_id, action, target, subject, requested_by, channel_id, accepted_at_ms, status, transaction_ids, step, interval_ms, next_poll_at_ms, ended_at_ms)
   VALUES
     (8, 'power_reboot', 'vs:48', '{}', 'UOPER', 'C1', 0, 'failed', '[31]', 'reboot_virtual_machine', 5000, 0, 10),
     (9, 'disk_add', 'vs:42', '{}', 'UOPER', 'C1', 0, 'complete', '[32, 33]', 'format_disk', 5000, 0, 10),
     (12, 'disk_add', 'vs:42', '{}', 'UOPER', 'C1', 0, 'running', '[35]', 'build_disk', 5000, 0, NULL),
     (13, 'disk_add', 'vs:42', '{}', 'UOPER', 'C1', 0, 'pending', '[36]', 'build_disk', 5000, 0, NULL)`,
  `INSERT INTO audit_outbox (record_id, next_attempt_at_ms, sent_at_ms, group_key) VALUES (1, 0, NULL, 'denials:UVIEWER')`,
];

export function migrationsContract({ freshAt }: ContractStores): void {
  test('records at schema version 9 take the outcomes of one vocabulary, each keeping what it said before; a followed change its last step', async () => {
    const store = await (await freshAt(9, RECORDS_AT_VERSION_9)).open();
    const records = (await store.audit.latest(50)).reverse();
    expect(records.map((r) => [r.id, r.outcome, r.formerOutcome])).toEqual([
      [1, 'refused', 'denied'],
      [2, 'refused', 'invalid'],
      [3, 'refused', 'busy'],
      [4, 'requested', null],
      [5, 'denied', 'rejected'],
      [6, 'requested', null],
      // The approval takes the outcome of the change it ran, a record of its own then.
      [7, 'failed', 'approved'],
      [8, 'failed', 'succeeded'],
      [9, 'done', 'succeeded'],
      [10, 'cancelled', 'succeeded'],
      [11, 'unknown', 'succeeded'],
      [12, 'running', 'succeeded'],
      [13, 'scheduled', 'succeeded'],
      // Accepted before changes were followed: whether the cloud finished it is not known.
      [14, 'unknown', 'succeeded'],
      [15, 'done', 'succeeded'],
      [16, 'unknown', 'applied_unreadable'],
      [17, 'unknown', 'interrupted'],
      [18, 'failed', null],
    ]);
    // Nothing else is lost: the details, the cloud's own word, the transactions; the step a followed change ended on.
    expect(records[7]).toMatchObject({
      detail: 'reboot of VS 48 scheduled',
      cloudOutcome: 'failed',
      cloudStep: 'reboot_virtual_machine',
      transactionIds: [31],
    });
    expect(records[8]).toMatchObject({ cloudOutcome: 'complete', cloudStep: 'format_disk', transactionIds: [32, 33] });
    expect(records[11]).toMatchObject({ cloudOutcome: null, cloudStep: null });
    // The filters find them in their new words: `/vs audit failed` both failures, in the cloud or not; `denied` the
    // second person's no alone; `refused` what was stopped before sending.
    expect((await store.audit.latest(50, { outcomes: ['failed'] })).map((r) => r.id)).toEqual([18, 8, 7]);
    expect((await store.audit.latest(50, { outcomes: ['denied'] })).map((r) => r.id)).toEqual([5]);
    expect((await store.audit.latest(50, { outcomes: ['refused'] })).map((r) => r.id)).toEqual([3, 2, 1]);
    // A refusal's post still waiting stays in its user's group, as new refusals are grouped.
    const fresh = await store.audit.record(entry({ userId: 'UVIEWER', outcome: 'refused' }));
    expect((await store.outbox.claim('sender', 0, 30_000, 10)).map((p) => [p.record.id, p.group])).toEqual([
      [1, 'denials:UVIEWER'],
      [fresh.id, 'denials:UVIEWER'],
    ]);
  });

  test('a request asked for at schema version 7 reads back with no cloud (and is never sent); a new one keeps its cloud', async () => {
    const store = await (await freshAt(7, REQUEST_AT_VERSION_7)).open();
    expect(await store.approvals.get('A6')).toMatchObject({ id: 'A6', status: 'requested', cloud: null });
    const cloud = { apiUrl: 'https://cloud.example.com/api', accountId: 'acct-1' };
    expect(await store.approvals.request(approvalRequest({ id: 'A7', cloud }))).toMatchObject({ id: 'A7', cloud });
    expect((await store.approvals.get('A7'))!.cloud).toEqual(cloud);
  });

  test('posts pending at schema version 2: migration 3 groups each user’s denials as new ones are, and the change’s post comes first', async () => {
    const store = await (await freshAt(2, PENDING_AT_VERSION_2)).open();
    // A refusal, as what was called a denial then is now.
    const fresh = await store.audit.record(entry({ userId: 'UVIEWER', outcome: 'refused' }));
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
