import { MAX_SHOWN_REQUEST, OutcomeNotRecordedError, type ApprovedRun } from '../../../src/changes';
import { CloudError } from '../../../src/cloud/errors';
import type { Approval, AuditRecord } from '../../../src/store';
import { StoreUnavailableError } from '../../../src/store/unavailable';
import {
  APPROVAL_UNKNOWN,
  asked,
  DECISION_UNRECORDED,
  renderApprovalClosed,
  renderApprovalEnded,
  renderApprovalRequest,
  requestedText,
  requestBlock,
  requestNotPostedText,
  shownRequestText,
  type ApprovalEnd,
  type ApprovalFacts,
} from '../../../src/slack/blocks/approvals';
import { freezeLine, NOT_FROZEN, renderAlreadyFrozen, renderFrozen, renderUnfrozen } from '../../../src/slack/blocks/freeze';
import { frozenText } from '../../../src/slack/blocks/denials';
import type { Rendered } from '../../../src/slack/blocks/mrkdwn';
import {
  acceptedChange,
  approval,
  APPROVAL_BODY,
  ASKED_MS,
  auditRecord,
  blocksOf,
  buttons,
  contextTexts,
  EXPIRES_MS,
  SANDBOX_NOTICE,
  sectionTexts,
} from './fixtures';
import { dataMarkup, expectWithinSlackLimits } from './limits';

// The approval request's message and the freeze's, as pure renderers: who,
// what, why, until when, the exact request as it goes on the wire (shown as
// preformatted text, never as markup), the buttons, and each way it can end.

const DATE = (ms: number) => `<!date^${Math.floor(ms / 1000)}^{date_short_pretty} at {time}|`;
const BODY = APPROVAL_BODY;

const facts = (o: Partial<Approval> = {}, sandbox = false): ApprovalFacts => ({
  approval: approval(o),
  title: 'Add disk',
  target: { kind: 'vs', id: 42 },
  needed: 'operator',
  sandbox,
});
/** The preformatted text of a message's request block. */
const shown = (m: Rendered): string[] =>
  blocksOf(m)
    .filter((b) => b.type === 'rich_text')
    .map((b) => (b as unknown as { elements: { type: string; elements: { type: string; text: string }[] }[] }).elements[0]!.elements[0]!.text);
/** Markup that came from data, outside the request block (preformatted: Slack shows it as it is) and the date tokens we write. */
const markupFromData = (m: Rendered, users: string[]) =>
  dataMarkup(
    { text: m.text.replace(/<!date\^[^>]+>/g, ''), blocks: blocksOf(m).filter((b) => b.type !== 'rich_text') },
    { users, channels: ['CINCIDENT'] },
  ).filter((found) => !found.includes('<!date^'));
const record = (o: Partial<AuditRecord> = {}) => auditRecord({ outcome: 'scheduled', detail: 'disk 311 (20 GB) on VS 42', ...o });

describe('the request', () => {
  test('says who asks, for what, why and until when, shows the exact request, and offers Approve (confirmed), Deny and Withdraw', () => {
    const m = renderApprovalRequest(facts());
    expect(sectionTexts(m)[0]).toBe(
      ':raised_hand: *Approval needed* · <@UOPER> asks to *Add disk* · VS 42\n*Why:* “the data disk is full”\n' +
        `*Open until:* ${DATE(EXPIRES_MS)}2024-05-06 14:33:12 UTC>`,
    );
    expect(sectionTexts(m)[1]).toBe('*The exact request the bot will send to the cloud API:*');
    expect(shown(m)).toEqual([`POST /virtual_machines/42/disks.json\n\n${BODY}`]);
    expect(buttons(m)).toEqual([
      { text: 'Approve', value: 'A-1', actionId: 'approval_approve' },
      { text: 'Deny', value: 'A-1', actionId: 'approval_deny' },
      { text: 'Withdraw', value: 'A-1', actionId: 'approval_withdraw' },
    ]);
    const [approve, deny] = blocksOf(m).find((b) => b.type === 'actions')!.elements as unknown as Record<string, unknown>[];
    expect(approve).toMatchObject({
      style: 'primary',
      confirm: {
        title: { type: 'plain_text', text: 'Approve: Add disk?' },
        text: { type: 'mrkdwn', text: 'The bot sends the request shown, now, for <@UOPER>. This cannot be undone.' },
        confirm: { type: 'plain_text', text: 'Approve' },
        deny: { type: 'plain_text', text: 'Cancel' },
        style: 'primary',
      },
    });
    expect(approve).toMatchObject({ text: { type: 'plain_text', text: 'Approve' } });
    expect(deny).toMatchObject({ style: 'danger', text: { type: 'plain_text', text: 'Deny' } });
    expect(deny!.confirm).toBeUndefined();
    expect(contextTexts(m)).toEqual(['A second person with the operator role decides, not <@UOPER>, who may withdraw it. Request `A-1`.']);
    expect(m.text).toBe('Approval needed: <@UOPER> asks to Add disk · VS 42 (POST /virtual_machines/42/disks.json)');
    expectWithinSlackLimits(m);
    expect(markupFromData(m, ['UOPER'])).toEqual([]);
  });

  test('a hostile reason is quoted and escaped; no reason says so; the sandbox is marked', () => {
    const hostile = renderApprovalRequest(facts({ reason: '<!channel> *approve me*\nfake line' }));
    expect(sectionTexts(hostile)[0]).toContain('*Why:* “&lt;!channel&gt; *approve me* fake line”');
    expect(markupFromData(hostile, ['UOPER'])).toEqual([]);
    expect(sectionTexts(renderApprovalRequest(facts({ reason: null })))[0]).toContain('*Why:* _no reason given_');
    const sandboxed = renderApprovalRequest(facts({}, true));
    expect(contextTexts(sandboxed).at(-1)).toContain(SANDBOX_NOTICE);
    expect(sandboxed.text.startsWith('[sandbox data] ')).toBe(true);
  });

  test('the request is shown as preformatted rich text: plain text in it, never markup', () => {
    expect(requestBlock({ method: 'POST', path: '/backups/9/restore.json', body: null })).toEqual({
      type: 'rich_text',
      elements: [{ type: 'rich_text_preformatted', elements: [{ type: 'text', text: 'POST /backups/9/restore.json' }] }],
    });
  });

  test('a request nobody has claimed is asked by a workflow; a workflow’s request names its execution, open and ended', () => {
    expect(asked(facts({ requestedBy: '' }))).toBe('A workflow asks to *Add disk* · VS 42\n*Why:* “the data disk is full”');
    const claimed = facts({ workflowExecutionId: 'Wx1' });
    expect(contextTexts(renderApprovalRequest(claimed))).toEqual([
      'A second person with the operator role decides, not <@UOPER>, who may withdraw it. Request `A-1`. Asked for by workflow `Wx1`.',
    ]);
    expect(contextTexts(renderApprovalEnded(claimed, { kind: 'rejected' }))).toEqual([
      `Asked ${DATE(ASKED_MS)}2024-05-06 14:03:12 UTC> · request \`A-1\` · workflow \`Wx1\``,
    ]);
    const unclaimed = renderApprovalEnded(facts({ requestedBy: '', status: 'expired', workflowExecutionId: 'Wx1' }), { kind: 'expired' });
    expect(sectionTexts(unclaimed)[0]).toBe(
      `:hourglass: *Expired*: nobody claimed it before ${DATE(EXPIRES_MS)}2024-05-06 14:33:12 UTC>. Nothing was changed.\n` +
        'A workflow asks to *Add disk* · VS 42\n*Why:* “the data disk is full”',
    );
  });

  test('a request without a body is its line alone; one stored longer than a message shows (before the door refused them) is cut and says so', () => {
    expect(shownRequestText({ method: 'POST', path: '/backups/9/restore.json', body: null })).toBe('POST /backups/9/restore.json');
    const long = shownRequestText({ method: 'POST', path: '/x.json', body: 'y'.repeat(5000) });
    expect(long).toBe(`${`POST /x.json\n\n${'y'.repeat(5000)}`.slice(0, MAX_SHOWN_REQUEST)}\n… (cut here: too long to be approved)`);
    const exact = shownRequestText({ method: 'POST', path: '/x.json', body: 'z'.repeat(MAX_SHOWN_REQUEST - 'POST /x.json\n\n'.length) });
    expect(exact).not.toContain('cut here');
    expect(exact).toHaveLength(MAX_SHOWN_REQUEST);
  });
});

describe('the request once it has ended', () => {
  const ended = (end: ApprovalEnd, o: Partial<Approval> = {}) => renderApprovalEnded(facts({ status: 'approved', decidedBy: 'UADMIN', ...o }), end);
  const approvedWith = (run: ApprovedRun) => sectionTexts(ended({ kind: 'approved', run, timeoutMs: 10_000 }))[0]!.split('\n')[0]!;
  const failed = (error: CloudError): ApprovedRun => ({ outcome: 'failed', error, fieldErrors: {}, formErrors: [], record: record({ outcome: 'failed' }) });
  const scheduled = (detail?: null): ApprovedRun => ({
    outcome: 'succeeded',
    value: {},
    record: record(detail === null ? { detail } : {}),
    accepted: acceptedChange(),
    followed: true,
  });

  test('keeps who asked, what and the request, loses its buttons, and says when it was asked', () => {
    const m = ended({ kind: 'approved', run: scheduled(), timeoutMs: 10_000 });
    expect(buttons(m)).toEqual([]);
    expect(blocksOf(m).some((b) => b.type === 'actions')).toBe(false);
    expect(sectionTexts(m)[0]).toBe(
      ':clock4: *Approved* by <@UADMIN> · *scheduled*: disk 311 (20 GB) on VS 42\n' + '<@UOPER> asks to *Add disk* · VS 42\n*Why:* “the data disk is full”',
    );
    expect(sectionTexts(m)[1]).toBe('*The request:*');
    expect(shown(m)).toEqual([`POST /virtual_machines/42/disks.json\n\n${BODY}`]);
    expect(contextTexts(m)).toEqual([`Asked ${DATE(ASKED_MS)}2024-05-06 14:03:12 UTC> · request \`A-1\``]);
    expect(m.text).toBe('Approved by <@UADMIN> · scheduled: disk 311 (20 GB) on VS 42 (Add disk · VS 42)');
    expectWithinSlackLimits(m);
    expect(markupFromData(m, ['UOPER', 'UADMIN'])).toEqual([]);
    expect(contextTexts(renderApprovalEnded(facts({}, true), { kind: 'rejected' })).at(-1)).toContain(SANDBOX_NOTICE);
  });

  test('denied (🚫, a second person said no), withdrawn and expired, each with its own sign', () => {
    expect(sectionTexts(ended({ kind: 'rejected' }, { status: 'rejected' }))[0]).toMatch(/^:no_entry_sign: \*Denied\* by <@UADMIN>\. Nothing was changed\.\n/);
    expect(sectionTexts(ended({ kind: 'withdrawn' }, { status: 'withdrawn' }))[0]).toMatch(/^:leftwards_arrow_with_hook: \*Withdrawn\* by <@UADMIN>/);
    const expired = ended({ kind: 'expired' }, { status: 'expired', decidedBy: null });
    expect(sectionTexts(expired)[0]).toMatch(new RegExp(`^:hourglass: \\*Expired\\*: nobody decided before ${DATE(EXPIRES_MS).replace(/[\^{}|]/g, '\\$&')}`));
    expect(expired.text).toBe('Expired: nobody decided before 2024-05-06 14:33:12 UTC. Nothing was changed. (Add disk · VS 42)');
    expect(sectionTexts(ended({ kind: 'rejected' }, { decidedBy: null }))[0]).toMatch(/^:no_entry_sign: \*Denied\* by someone\./);
  });

  test('each way an approved change can end, its outcome first (never ✅: it is scheduled at most), with the API messages of a refusal', () => {
    expect(approvedWith(scheduled(null))).toBe(':clock4: *Approved* by <@UADMIN> · *scheduled*: the cloud API accepted it');
    const refused = new CloudError('validation', 'refused', {
      status: 422,
      fieldErrors: { disk_size: ['exceeds the free space'] },
      messages: ['Disk limit <reached>'],
    });
    expect(approvedWith(failed(refused))).toBe(
      ':x: *Approved* by <@UADMIN>, but it *failed*: The cloud API refused the request: disk_size exceeds the free space; Disk limit &lt;reached&gt;',
    );
    expect(approvedWith(failed(new CloudError('timeout', 'slow')))).toBe(
      ':x: *Approved* by <@UADMIN>, but it *failed*: The cloud API did not answer within 10 s, so the change may or may not have been applied. ' +
        'Check VS 42 and `/vs audit` before trying again.',
    );
    expect(approvedWith({ outcome: 'applied_unreadable', error: new CloudError('bad_response', 'x', { status: 201 }), record: record() })).toMatch(
      /^:question: \*Approved\* by <@UADMIN> · \*unknown\*: .*VS 42/,
    );
    expect(approvedWith({ outcome: 'busy', record: record({ outcome: 'refused' }) })).toBe(
      ':no_entry: *Approved* by <@UADMIN>, but *refused*: another change to VS 42 was in progress. Nothing was changed; ask again later.',
    );
    const freeze = { by: 'UADMIN2', at: '2024-05-06T14:05:00.000Z', reason: 'storage migration' };
    expect(approvedWith({ outcome: 'frozen', freeze, record: record({ outcome: 'refused' }) })).toMatch(
      /^:no_entry: \*Approved\* by <@UADMIN>, but \*refused\*: changes were frozen before it started\. Nothing was changed\. Changes are frozen: <@UADMIN2>/,
    );
    expect(approvedWith({ outcome: 'duplicate' })).toBe(':information_source: *Approved* by <@UADMIN>; it had already been run (see `/vs audit`).');
    const changed = { code: 'changed' as const, current: { method: 'POST', path: '/virtual_machines/42/disks.xml', body: '<disk/>' } };
    expect(approvedWith({ outcome: 'not_sent', why: changed, record: record() })).toBe(
      ':no_entry: *Approved* by <@UADMIN>, but *refused*: not sent, as the bot would now send `POST /virtual_machines/42/disks.xml` ' +
        'instead of the request approved ' +
        '(its configuration changed). Nothing was changed; ask again.',
    );
    expect(approvedWith({ outcome: 'not_sent', why: { code: 'unreadable' }, record: record() })).toBe(
      ':no_entry: *Approved* by <@UADMIN>, but *refused*: not sent, as the approved request could not be read back. Nothing was changed; ask again.',
    );
    expect(approvedWith({ outcome: 'not_sent', why: { code: 'other_cloud' }, record: record() })).toBe(
      ':no_entry: *Approved* by <@UADMIN>, but *refused*: not sent, as it was prepared for another cloud API or account than the bot uses now ' +
        '(VS_API_URL or VS_ACCOUNT_ID changed since it was asked for). Nothing was changed; ask again.',
    );
    expect(approvedWith({ outcome: 'not_sent', why: { code: 'unshown' }, record: record() })).toBe(
      ':no_entry: *Approved* by <@UADMIN>, but *refused*: not sent, as it is longer than its message could show, so nobody saw all of it. ' +
        'Nothing was changed; ask again.',
    );
    expect(approvedWith({ outcome: 'error', error: new OutcomeNotRecordedError({ cause: new Error('disk full') }) })).toBe(
      ':question: *Approved* by <@UADMIN> · *unknown*: the change was sent to the cloud API, but its outcome could not be recorded, ' +
        'so it may or may not have been applied. ' +
        'Check VS 42 and `/vs audit`.',
    );
    expect(approvedWith({ outcome: 'error', error: new StoreUnavailableError('down') })).toBe(
      ':no_entry: *Approved* by <@UADMIN>, but *refused*: it could not be run, as the audit store is unreachable, so nothing was changed. ' +
        'Ask again in a few minutes.',
    );
    expect(approvedWith({ outcome: 'error', error: new Error('boom') })).toBe(
      ':question: *Approved* by <@UADMIN> · *unknown*: something went wrong on our side running it. Check VS 42 and `/vs audit` before retrying.',
    );
  });
});

describe('what a clicker or a requester is told', () => {
  test('a later click hears who decided and when, or that it expired', () => {
    const approved = renderApprovalClosed(approval({ status: 'approved', decidedBy: 'UADMIN', decidedAt: new Date(ASKED_MS + 60_000).toISOString() }));
    expect(sectionTexts(approved)).toEqual([
      `:information_source: This request was already approved by <@UADMIN> ${DATE(ASKED_MS + 60_000)}2024-05-06 14:04:12 UTC>.`,
    ]);
    expect(approved.text).toBe('This request was already approved by <@UADMIN> 2024-05-06 14:04:12 UTC.');
    expect(sectionTexts(renderApprovalClosed(approval({ status: 'rejected', decidedBy: null })))).toEqual([
      ':information_source: This request was already denied by someone.',
    ]);
    expect(sectionTexts(renderApprovalClosed(approval({ status: 'expired' })))[0]).toBe(
      `:information_source: This request expired ${DATE(EXPIRES_MS)}2024-05-06 14:33:12 UTC>: nobody decided it. ` +
        'Nothing was changed; ask again if it is still needed.',
    );
    expect(APPROVAL_UNKNOWN).toMatch(/not known/);
  });

  test('the form says where the request went, who decides and until when; or that it could not be posted', () => {
    expect(requestedText({ channelId: 'CINCIDENT', expiresAtMs: EXPIRES_MS, needed: 'admin' })).toBe(
      ':raised_hand: Sent for approval in <#CINCIDENT>: ' +
        `a second person with the admin role must approve it before ${DATE(EXPIRES_MS)}2024-05-06 14:33:12 UTC>. ` +
        'Nothing has been changed yet; the request there shows who decides and how it ends.',
    );
    expect(requestNotPostedText('CINCIDENT')).toBe(
      ':warning: The request for approval could not be posted in <#CINCIDENT> (is the bot a member? `/invite` it there). ' +
        'Nothing has been changed; the request expires unanswered. Ask again once the bot can post there.',
    );
    expect(DECISION_UNRECORDED).toBe('Nothing can be decided right now, because it could not be recorded; nothing was changed. Try again in a few minutes.');
  });
});

describe('the freeze', () => {
  const freeze = { by: 'UADMIN', at: new Date(ASKED_MS).toISOString(), reason: 'storage <!channel> migration' };

  test('frozen: who, when and why, for the channel', () => {
    const m = renderFrozen(freeze, false);
    expect(sectionTexts(m)).toEqual([
      `:ice_cube: *Changes are frozen* by <@UADMIN> ${DATE(ASKED_MS)}2024-05-06 14:03:12 UTC>: “storage &lt;!channel&gt; migration”`,
    ]);
    expect(contextTexts(m)).toEqual(['Every change is refused, on every instance, until an admin runs `/vs unfreeze`. Reads keep working.']);
    expect(m.text).toBe('Changes are frozen by <@UADMIN>: “storage &lt;!channel&gt; migration”');
    expect(contextTexts(renderFrozen(freeze, true)).at(-1)).toContain(SANDBOX_NOTICE);
  });

  test('unfrozen: who lifted whose freeze', () => {
    const m = renderUnfrozen({ lifted: freeze, by: 'UADMIN2', sandbox: false });
    expect(sectionTexts(m)).toEqual([':sunny: *Changes are allowed again*: <@UADMIN2> lifted the freeze.']);
    expect(contextTexts(m)).toEqual([`It was set by <@UADMIN> ${DATE(ASKED_MS)}2024-05-06 14:03:12 UTC>: “storage &lt;!channel&gt; migration”`]);
    expect(m.text).toBe('Changes are allowed again (unfrozen by <@UADMIN2>)');
  });

  test('already frozen, not frozen, and the lines of whoami and of a refusal', () => {
    expect(sectionTexts(renderAlreadyFrozen(freeze))[0]).toBe(
      `:ice_cube: Changes were already frozen: <@UADMIN> froze them ${DATE(ASKED_MS)}2024-05-06 14:03:12 UTC> because “storage &lt;!channel&gt; migration”. ` +
        'That freeze stays in force.',
    );
    expect(NOT_FROZEN).toBe('Changes are not frozen; nothing to unfreeze.');
    expect(freezeLine(null)).toBe('Changes are not frozen.');
    expect(freezeLine(freeze)).toBe(`:ice_cube: ${frozenText(freeze)}`);
    expect(frozenText(freeze)).toBe(
      `Changes are frozen: <@UADMIN> froze them ${DATE(ASKED_MS)}2024-05-06 14:03:12 UTC> because “storage &lt;!channel&gt; migration”. ` +
        'An admin can allow changes again with `/vs unfreeze`.',
    );
    // A time that cannot be read is shown as it is, escaped.
    expect(frozenText({ ...freeze, at: 'not a <time>' })).toContain('froze them not a &lt;time&gt; because');
    expect(sectionTexts(renderFrozen({ ...freeze, at: 'soon' }, false))[0]).toContain('by <@UADMIN> soon:');
  });
});
