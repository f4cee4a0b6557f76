import {
  AUDIT_PAGE_SIZE,
  parseAuditExportValue,
  parseAuditListValue,
  recordLine,
  renderAuditList,
  renderAuditPost,
  renderDenialSummary,
  renderRecordDetails,
} from '../../../src/slack/blocks/audit';
import { AUDIT_RECORD_COLUMNS, toCsv } from '../../../src/slack/blocks/csv';
import { OUTCOMES } from '../../../src/store';
import { auditRecord, blocksOf, buttons, contextTexts, headerText, sectionTexts } from './fixtures';
import { brokenUnicode, expectNoDataMarkup, expectWithinSlackLimits, modalViolations } from './limits';

// The audit trail as people read it (docs/product.md, Audit): one line per record, people as mentions and times as
// Slack's date tokens, the exact request behind Details; `/vs audit` paged with "page n of m" and Export CSV.

const AT = '2024-05-06T14:03:12.345Z';
const DATE = `<!date^${Math.floor(Date.parse(AT) / 1000)}^{date_short_pretty} at {time}|2024-05-06 14:03:12 UTC>`;

describe('a record, one line', () => {
  test('says when (a date token), who (a mention), what in words, on what and how it ended, with the channel', () => {
    expect(recordLine(auditRecord({ detail: 'disk 7 (20 GB) on VS 42', transactionIds: [5012] }))).toBe(
      `:white_check_mark: ${DATE} · <@U0ADMIN01> · *Add disk* · VS 42 → *done* · disk 7 (20 GB) on VS 42 · transaction 5012 · <#C0INCIDENT>`,
    );
  });

  test('each outcome has its own sign, ✅ for done alone; in flight reads as running, scheduled never as done', () => {
    const signs = OUTCOMES.map((outcome) => recordLine(auditRecord({ outcome })).split(' ')[0]);
    expect(new Set(signs).size).toBe(OUTCOMES.length);
    expect(signs.filter((sign) => sign === ':white_check_mark:')).toHaveLength(1);
    expect(recordLine(auditRecord({ outcome: 'done' }))).toMatch(/^:white_check_mark: /);
    for (const kept of ['started', 'approved'] as const)
      expect(recordLine(auditRecord({ outcome: kept }))).toMatch(/^:arrows_counterclockwise: .* → \*running\*/);
    expect(recordLine(auditRecord({ outcome: 'scheduled', detail: 'restore of backup 15 onto disk 101 of VS 42' }))).toMatch(
      /^:clock4: .* → \*scheduled\* · restore of backup 15 onto disk 101 of VS 42 · /,
    );
  });

  test('a change that failed in the cloud is failed, with the step in words; the API status is never the headline', () => {
    const line = recordLine(
      auditRecord({
        action: 'power_reboot',
        target: 'vs:48',
        outcome: 'failed',
        apiStatus: 201,
        cloudOutcome: 'failed',
        cloudStep: 'reboot_virtual_machine',
        transactionIds: [31],
        detail: 'reboot of VS 48',
      }),
    );
    expect(line).toMatch(/^:x: .* · \*Reboot server\* · VS 48 → \*failed\* in the cloud while rebooting the server · reboot of VS 48 · transaction 31 · /);
    expect(line).not.toMatch(/succeeded|201|:white_check_mark:/);
    expect(recordLine(auditRecord({ outcome: 'cancelled', cloudOutcome: 'cancelled', cloudStep: 'build_disk' }))).toContain(
      '→ *cancelled* in the cloud while building a disk',
    );
    expect(recordLine(auditRecord({ outcome: 'unknown', cloudOutcome: 'unknown' }))).toContain('→ *unknown*: no longer followed, check the control panel');
  });

  test('shows neither raw action ids, raw targets, ISO times nor the request body', () => {
    const line = recordLine(
      auditRecord({ action: 'backup_restore', target: 'backup:9', apiRequest: { method: 'POST', path: '/backups/9/restore.json', body: '{"secret":1}' } }),
    );
    expect(line).toContain('*Restore backup* · Backup 9');
    expect(line).not.toMatch(/backup_restore|backup:9|2024-05-06T|restore\.json|secret/);
  });

  test('a denial because changes were frozen names who froze as a mention and when as a date token', () => {
    const line = recordLine(
      auditRecord({ outcome: 'refused', apiStatus: null, detail: 'changes are frozen (by U0ADMIN at 2026-11-27T14:30:51.858Z: storage <!here> migration)' }),
    );
    expect(line).toContain(`changes were frozen by <@U0ADMIN> <!date^${Math.floor(Date.parse('2026-11-27T14:30:51.858Z') / 1000)}^`);
    expect(line).toContain('“storage &lt;!here&gt; migration”');
    expect(line).not.toContain('U0ADMIN at');
  });

  test('the records of an approval name both people by mention, never by the audit text that names them by id', () => {
    const approved = recordLine(
      auditRecord({
        outcome: 'approved',
        userId: 'U0ADMIN2',
        requestedBy: 'U0OPER',
        decidedBy: 'U0ADMIN2',
        detail: 'approved by U0ADMIN2; the change runs now',
      }),
    );
    expect(approved).toContain('<@U0ADMIN2> · *Add disk* · VS 42 → *running* · asked by <@U0OPER>');
    expect(approved).not.toContain('approved by U0ADMIN2');
    const ran = recordLine(auditRecord({ userId: 'U0OPER', requestedBy: 'U0OPER', decidedBy: 'U0ADMIN2' }));
    expect(ran).toContain('approved by <@U0ADMIN2>');
  });

  test('the freeze and its lifting say why and whose freeze, people as mentions', () => {
    expect(recordLine(auditRecord({ action: 'freeze', target: 'changes', params: { reason: 'deploy' }, detail: 'deploy' }))).toMatch(
      /<@U0ADMIN01> · \*Freeze changes\* → \*done\* · “deploy”/,
    );
    const lifted = recordLine(
      auditRecord({
        action: 'unfreeze',
        target: 'changes',
        params: { frozen_by: 'U0ADMIN2', frozen_at: AT, reason: 'x' },
        detail: 'lifted the freeze of U0ADMIN2 (x)',
      }),
    );
    expect(lifted).toContain(`*Unfreeze changes* → *done* · lifted the freeze <@U0ADMIN2> set ${DATE}`);
    expect(lifted).not.toContain('of U0ADMIN2');
  });

  test('a workflow request nobody claimed is "a workflow"', () => {
    expect(recordLine(auditRecord({ userId: '', outcome: 'requested', workflowExecutionId: 'Wx0001' }))).toContain('· a workflow · *Add disk*');
  });
});

describe('/vs audit, paged in place', () => {
  const records = (n: number) => Array.from({ length: n }, (_, i) => auditRecord({ id: 100 - i }));

  test('a page of records, each with its Details button, "page n of m", Prev/Next and Export CSV', () => {
    const m = renderAuditList({ records: records(25), limit: 25, filter: { kind: 'vs', id: 42 }, page: 2, anchorId: 100, sandbox: false });
    expect(headerText(m)).toBe('Audit trail');
    expect(contextTexts(m)[0]).toBe('latest 25 records · VS 42 · page 2 of 3');
    const details = blocksOf(m).filter((b) => (b as { accessory?: { action_id: string } }).accessory?.action_id === 'audit_details');
    expect(details.map((b) => (b as unknown as { accessory: { value: string } }).accessory.value)).toEqual(
      Array.from({ length: AUDIT_PAGE_SIZE }, (_, i) => String(90 - i)),
    );
    const [prev, next, exported] = buttons(m);
    expect(prev).toMatchObject({ actionId: 'audit_page_prev', text: '← Prev' });
    expect(parseAuditListValue(prev!.value!)).toEqual({ n: 25, p: 1, a: 100, f: { kind: 'vs', id: 42 } });
    expect(parseAuditListValue(next!.value!)).toEqual({ n: 25, p: 3, a: 100, f: { kind: 'vs', id: 42 } });
    expect(exported).toMatchObject({ actionId: 'audit_export', text: 'Export CSV' });
    expect(parseAuditExportValue(exported!.value!)).toEqual({ f: { kind: 'vs', id: 42 } });
    expectWithinSlackLimits(m);
  });

  test('the last page has no Next; one page has neither, and still Export CSV', () => {
    const last = renderAuditList({ records: records(25), limit: 25, filter: undefined, page: 9, anchorId: 100, sandbox: false });
    expect(contextTexts(last)[0]).toBe('latest 25 records · page 3 of 3');
    expect(buttons(last).map((b) => b.actionId)).toEqual(['audit_page_prev', 'audit_export']);
    const one = renderAuditList({ records: records(3), limit: 10, filter: { kind: 'person', userId: 'U0BOB' }, page: 1, anchorId: 100, sandbox: false });
    expect(contextTexts(one)[0]).toBe('latest 3 records · <@U0BOB> · page 1 of 1');
    expect(buttons(one).map((b) => b.actionId)).toEqual(['audit_export']);
  });

  test('nothing to list says so, for the filter, without buttons', () => {
    const m = renderAuditList({ records: [], limit: 10, filter: { kind: 'outcome', outcome: 'failed' }, page: 1, anchorId: 0, sandbox: false });
    expect(sectionTexts(m)).toEqual(['No audit record matches: failed changes.']);
    expect(buttons(m)).toEqual([]);
    expect(sectionTexts(renderAuditList({ records: [], limit: 10, filter: undefined, page: 1, anchorId: 0, sandbox: false }))).toEqual([
      'No audit records yet: nobody has attempted a change.',
    ]);
  });

  test('50 records with long hostile details stay within limits and escaped, every record on its own line', () => {
    const hostile = Array.from({ length: 50 }, (_, i) => auditRecord({ id: i + 1, detail: `<!channel>\n${'&'.repeat(3000)}`, target: '<@U123>'.repeat(50) }));
    for (let page = 1; page <= 5; page++) {
      const m = renderAuditList({ records: hostile, limit: 50, filter: undefined, page, anchorId: 50, sandbox: true });
      expectWithinSlackLimits(m);
      expectNoDataMarkup(m, { users: ['U0ADMIN01'], channels: ['C0INCIDENT'] });
      expect(sectionTexts(m).filter((t) => t.includes('<@U0ADMIN01>'))).toHaveLength(10);
    }
  });

  test("a button's value that was not made by the list is out of date, not obeyed", () => {
    for (const value of [
      '',
      '{}',
      'x',
      '{"n":10,"p":1,"a":1,"f":{"kind":"person","userId":"<!channel>"}}',
      '{"n":100000,"p":1,"a":1}',
      '{"n":10,"p":0,"a":1}',
    ]) {
      expect(parseAuditListValue(value)).toBeNull();
    }
    expect(parseAuditExportValue('{"f":{"kind":"vs","id":-1}}')).toBeNull();
    expect(parseAuditExportValue('{}')).toEqual({});
  });
});

describe("a record's Details", () => {
  test('shows every field, the parameters and the exact request, each as it is, within a modal’s limits', () => {
    const request = { method: 'POST', path: '/virtual_machines/42/disks.json', body: '{"disk":{"label":"<!channel> & co"}}' };
    const view = renderRecordDetails(
      auditRecord({ id: 7, apiRequest: request, approvalId: 'A-1', detail: 'disk 7 <@U1>', params: { label: '<!channel> & co' } }),
      false,
    );
    expect(view).toMatchObject({ type: 'modal', callback_id: 'audit_details', title: { text: 'Record 7' } });
    const preformatted = JSON.stringify(view.blocks.filter((b) => b.type === 'rich_text'));
    expect(preformatted).toContain('POST /virtual_machines/42/disks.json');
    expect(preformatted).toContain(JSON.stringify(request.body).slice(1, -1));
    expect(preformatted).toContain('disk 7 <@U1>');
    expect(JSON.stringify(view.blocks)).toContain('*Approval request* `A-1`');
    expect(modalViolations(view as never)).toEqual([]);
  });

  test('a request longer than a message holds (sent without approval) is cut where it must be, pointing to the whole of it in Export CSV', () => {
    const body = `<disk><label>${'&apos;'.repeat(1000)}</label></disk>`;
    const view = renderRecordDetails(auditRecord({ apiRequest: { method: 'POST', path: '/virtual_machines/42/disks.xml', body } }), false);
    const shown = JSON.stringify(view.blocks);
    expect(shown).toContain('POST /virtual_machines/42/disks.xml');
    expect(shown).not.toContain('too long to be approved');
    expect(shown).toContain('the Export CSV of `/vs audit` holds the whole request (`request_body`)');
    expect(modalViolations(view as never)).toEqual([]);
    // One that fits is shown whole, with no such note.
    expect(JSON.stringify(renderRecordDetails(auditRecord({ apiRequest: { method: 'POST', path: '/x.json', body: '{}' } }), false).blocks)).not.toContain(
      'Export CSV of',
    );
  });

  test('a record with no request says none was sent', () => {
    expect(JSON.stringify(renderRecordDetails(auditRecord({ outcome: 'refused' }), false).blocks)).toContain('No request was sent');
  });

  test('Details names the outcome in the vocabulary, with the cloud’s own word, the step and what the record said before', () => {
    const details = JSON.stringify(
      renderRecordDetails(
        auditRecord({ outcome: 'failed', cloudOutcome: 'failed', cloudStep: 'build_disk', transactionIds: [7], formerOutcome: 'succeeded', apiStatus: 201 }),
        false,
      ).blocks,
    );
    expect(details).toContain('*Outcome* :x: failed');
    expect(details).toContain('*In the cloud* `failed` at `build_disk`');
    expect(details).toContain('*Recorded before as* `succeeded`');
    expect(details).toContain('*Cloud API status* 201');
  });
});

describe('the audit channel', () => {
  test('a time among the parameters is shown as Slack’s date token between the spans, never as an ISO string beside the line’s token', () => {
    const params = { reason: 'rows lost', restores: { id: 9, built_at: '2024-05-05T02:00:00+00:00' }, frozen_at: '2024-05-06T14:03:12.000Z' };
    const text = contextTexts(renderAuditPost(auditRecord({ params })))[0]!;
    expect(text).toBe(
      'params: `{"reason":"rows lost","restores":{"id":9,"built_at":`<!date^1714874400^{date_short_pretty} at {time}|2024-05-05 02:00:00 UTC>`}' +
        ',"frozen_at":`<!date^1715004192^{date_short_pretty} at {time}|2024-05-06 14:03:12 UTC>`}`',
    );
  });

  test('a post shows the record’s line and its parameters; its fallback names the person by mention', () => {
    const m = renderAuditPost(auditRecord({ params: { disk_type: 'SSD', disk_size: 20, label: '<!channel> `x`' } }));
    expect(sectionTexts(m)[0]).toContain('*Add disk* · VS 42 → *done*');
    expect(contextTexts(m)[0]).toBe(`params: \`{"disk_type":"SSD","disk_size":20,"label":"&lt;!channel&gt; 'x'"}\``);
    expect(m.text).toBe('Add disk · VS 42 by <@U0ADMIN01>: done');
    expectNoDataMarkup(m, { users: ['U0ADMIN01'], channels: ['C0INCIDENT'] });
    expectWithinSlackLimits(m);
  });

  test('an emoji that falls on the parameter cut is dropped whole, never left as half a character', () => {
    // 2,990 invisible C1 controls collapse to one space after the cut at 3,001 characters, which lands inside the emoji.
    const m = renderAuditPost(auditRecord({ params: { label: `${'\u0085'.repeat(2990)}😀` } }));
    expect(brokenUnicode(m)).toEqual([]);
  });

  test('parameters that cannot be serialised do not break the post', () => {
    const params: Record<string, unknown> = { n: BigInt(1) };
    params.self = params;
    const m = renderAuditPost(auditRecord({ params }));
    expect(contextTexts(m)[0]).toContain('parameters could not be shown');
  });

  test("one user's refusals in one post: the count, each change and target in words with how often, times as date tokens", () => {
    const records = [
      auditRecord({ outcome: 'refused', userId: 'U0MALLORY', target: 'vs:42', at: '2026-01-01T10:00:05.000Z' }),
      auditRecord({ outcome: 'refused', userId: 'U0MALLORY', target: 'vs:42', at: '2026-01-01T10:00:20.000Z' }),
      auditRecord({ outcome: 'refused', userId: 'U0MALLORY', action: 'backup_restore', target: 'backup:9', at: '2026-01-01T10:00:50.000Z' }),
    ];
    const m = renderDenialSummary('U0MALLORY', records);
    expect(sectionTexts(m)[0]).toContain(':no_entry: <@U0MALLORY> was *refused 3 times*');
    expect(sectionTexts(m)[0]).toContain('Add disk · VS 42 ×2');
    expect(sectionTexts(m)[0]).toContain('Restore backup · Backup 9');
    expect(sectionTexts(m)[0]).toMatch(/\(<!date\^1767261605\^[^>]+> to <!date\^1767261650\^[^>]+>\)/);
    expectNoDataMarkup(m, { users: ['U0MALLORY'] });
    expectWithinSlackLimits(m);
  });

  test('hundreds of distinct targets stay within Slack limits', () => {
    const records = Array.from({ length: 300 }, (_, i) => auditRecord({ outcome: 'refused', userId: 'U0MALLORY', target: `vs:${i + 1}` }));
    const m = renderDenialSummary('U0MALLORY', records);
    expect(sectionTexts(m)[0]).toContain('and 280 more');
    expectWithinSlackLimits(m);
  });
});

describe('the audit export', () => {
  test('times are ISO 8601 in UTC, those among the parameters too (a backup’s time as the cloud wrote it, with its offset)', () => {
    const record = auditRecord({ at: '2024-05-06T14:03:12.345Z', params: { restores: { id: 9, built_at: '2024-05-05T04:00:00+02:00' }, reason: 'x' } });
    const csv = toCsv(AUDIT_RECORD_COLUMNS, [record]);
    expect(csv).toContain(',2024-05-06T14:03:12.345Z,');
    expect(csv).toContain('""built_at"":""2024-05-05T02:00:00.000Z""');
    expect(csv).not.toContain('+02:00');
  });

  test("a row's outcome is the vocabulary's; a followed change's row has the cloud's word, its step and transactions; others leave them empty", () => {
    const followed = auditRecord({
      id: 3,
      outcome: 'failed',
      cloudOutcome: 'failed',
      cloudStep: 'build_disk',
      transactionIds: [5011, 5012],
      formerOutcome: 'succeeded',
    });
    const [header, first, second, third] = toCsv(AUDIT_RECORD_COLUMNS, [followed, auditRecord({ id: 2, outcome: 'started' }), auditRecord({ id: 1 })])
      .trimEnd()
      .split('\r\n');
    const names = header!.split(',');
    const cells = (line: string) => {
      const values = line.split(',');
      // The params' JSON holds commas: what follows it is counted from the end, what comes before the detail from the start.
      const at = (n: string) => (names.indexOf(n) < names.indexOf('detail') ? names.indexOf(n) : names.indexOf(n) - names.length);
      return Object.fromEntries(['outcome', 'cloud_outcome', 'cloud_step', 'transaction_ids', 'former_outcome'].map((n) => [n, values.at(at(n))]));
    };
    expect(names.slice(-5)).toEqual(['params', 'cloud_outcome', 'cloud_step', 'transaction_ids', 'former_outcome']);
    expect(cells(first!)).toEqual({
      outcome: 'failed',
      cloud_outcome: 'failed',
      cloud_step: 'build_disk',
      transaction_ids: '5011 5012',
      former_outcome: 'succeeded',
    });
    // In flight, it reads as running: the vocabulary has no other word for it.
    expect(cells(second!)).toMatchObject({ outcome: 'running' });
    expect(cells(third!)).toEqual({ outcome: 'done', cloud_outcome: '', cloud_step: '', transaction_ids: '', former_outcome: '' });
  });
});
