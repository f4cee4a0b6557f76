import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import fc from 'fast-check';
import type { ApprovedRun } from '../../../src/changes';
import {
  renderApprovalClosed,
  renderApprovalEnded,
  renderApprovalRequest,
  renderDenyReasonModal,
  renderRequesterTold,
  type ApprovalFacts,
} from '../../../src/slack/blocks/approvals';
import { renderDenied } from '../../../src/slack/blocks/messages';
import { renderAlreadyFrozen, renderFrozen, renderUnfrozen } from '../../../src/slack/blocks/freeze';
import { renderHome } from '../../../src/slack/blocks/home';
import { renderAuditPost } from '../../../src/slack/blocks/audit';
import type { Rendered } from '../../../src/slack/blocks/mrkdwn';
import { DISK_ADDED_WORDS } from '../../../src/slack/blocks/changes';
import { renderFollowEnded } from '../../../src/slack/blocks/followed';
import { followedMessage } from '../../../src/slack/follow-messages';
import { renderClaimClosed, renderWorkflowRequest } from '../../../src/slack/blocks/workflow-requests';
import type { Approval, AuditRecord, Freeze } from '../../../src/store';
import { acceptedChange, approval as fixture, auditRecord } from './fixtures';
import { dataMarkup, describeProblems, hostileString, messageViolations, unverbatimTexts } from './limits';

// Text that is not ours, from the cloud API or a workflow (a reason, a label,
// a rule's description), is shown as text: escaped, and in mrkdwn that Slack
// reads verbatim, so that a bare URL, `@here` or `#channel` in it is never
// turned into a link or a mention (docs/product.md "Security"). Every mrkdwn
// text object is made by src/slack/blocks/mrkdwn.ts `mrkdwn` (verbatim); the
// Slack-limits checker every renderer's test uses (limits.ts) refuses one that
// is not; this file holds the renderers of approvals, workflow requests, the
// freeze, the Home tab and audit posts to it with hostile text.

const SRC = join(__dirname, '../../../src/slack');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

test('no mrkdwn text object is written by hand outside mrkdwn.ts: every one is made verbatim by mrkdwn()', () => {
  const handWritten = sourceFiles(SRC)
    .filter((file) => !file.endsWith(join('blocks', 'mrkdwn.ts')))
    .filter((file) => /type:\s*['"]mrkdwn['"]/.test(readFileSync(file, 'utf8')))
    .map((file) => relative(SRC, file));
  expect(handWritten).toEqual([]);
});

/** What an attacker puts in a reason, a label or a description: bare links and mentions Slack would act on, and markup. */
const BARE = ['https://evil.example/login', 'www.evil.example', '@here', '@channel', '#general', 'mailto:ceo@evil.example'];
const untrusted = fc.oneof(
  hostileString(600),
  fc.tuple(fc.constantFrom(...BARE), hostileString(80)).map(([bare, rest]) => `${rest} ${bare} approve now`),
);

const T = Date.parse('2024-05-06T14:03:12.000Z');
const USERS = ['UOPER', 'UADMIN', 'UADMIN2'];

/** Our own markup (mentions of the people involved, date tokens) taken out; what is left is markup from data. */
function markupFromData(m: Rendered): string[] {
  const withoutDates = (text: string) => text.replace(/<!date\^\d+\^[^|>]*\|[^>]*>/g, '');
  const blocks = JSON.parse(withoutDates(JSON.stringify(m.blocks.filter((b) => b.type !== 'rich_text')))) as unknown;
  // The people and the user group who may decide, mentioned so that they are notified.
  const ours = (text: string) => withoutDates(text).replaceAll('<!subteam^SADMINS>', '');
  return dataMarkup(
    { text: ours(m.text), blocks: JSON.parse(ours(JSON.stringify(blocks))) as unknown },
    { users: USERS, channels: ['CINCIDENT', 'C0INCIDENT'] },
  );
}

function expectShownAsText(m: Rendered): void {
  const problems = [...messageViolations(m), ...unverbatimTexts(m.blocks), ...markupFromData(m).map((s) => `data markup: ${s}`)];
  if (problems.length > 0) throw new Error(describeProblems(problems));
}

const approval = (o: Partial<Approval>): Approval => fixture({ decidedBy: 'UADMIN', decidedAt: new Date(T).toISOString(), reason: null, ...o });
const facts = (a: Approval): ApprovalFacts => ({ approval: a, title: 'Add disk', target: { kind: 'vs', id: 42 }, needed: 'operator', sandbox: false });

describe('text that is not ours is shown as text, in verbatim mrkdwn, by every renderer that shows it', () => {
  test('approval requests, open and ended, and workflow requests: the reason and the workflow execution', () => {
    fc.assert(
      fc.property(untrusted, untrusted, (reason, execution) => {
        const asked = approval({ reason, workflowExecutionId: execution, decisionReason: reason });
        const done: ApprovedRun = { outcome: 'succeeded', value: {}, record: auditRecord({ detail: reason }), accepted: acceptedChange(), followed: true };
        const called = { ...facts(asked), deciders: { groups: ['SADMINS'], users: ['UADMIN2'] } };
        for (const m of [
          renderApprovalRequest(called),
          renderWorkflowRequest({ ...called, approval: { ...asked, requestedBy: '', status: 'awaiting_requester' }, uncalled: 2 }),
          renderRequesterTold(facts({ ...asked, status: 'rejected' }), { kind: 'rejected' })!,
          renderRequesterTold(facts({ ...asked, status: 'approved' }), { kind: 'approved', run: done, timeoutMs: 10_000 })!,
          { text: 'deny form', blocks: renderDenyReasonModal(facts(asked), '{}').blocks as Rendered['blocks'] },
          renderWorkflowRequest(facts({ ...asked, requestedBy: '', status: 'awaiting_requester' })),
          renderApprovalEnded(facts({ ...asked, status: 'approved' }), { kind: 'approved', run: done, timeoutMs: 10_000 }),
          renderApprovalEnded(facts({ ...asked, status: 'rejected' }), { kind: 'rejected' }),
          renderApprovalEnded(facts({ ...asked, status: 'expired' }), { kind: 'expired' }),
          renderApprovalEnded(facts({ ...asked, status: 'withdrawn' }), { kind: 'withdrawn' }),
          renderApprovalClosed({ ...asked, status: 'rejected' }),
          renderClaimClosed({ ...asked, status: 'requested' }),
        ])
          expectShownAsText(m);
      }),
      { numRuns: 40 },
    );
  });

  test("a followed change: the disk's label and mount point, the reason, the step the cloud names; and the reply in its thread", () => {
    fc.assert(
      fc.property(untrusted, untrusted, (text, step) => {
        const parts = { panelUrl: 'https://panel.example.com', config: { follow: { intervalMs: 5000, maxMs: 3_600_000 } }, sandbox: () => false };
        const subject = {
          serverId: 42,
          parentType: 'Disk',
          parentId: 7,
          actions: ['build_disk'],
          facts: { vsId: 42, diskId: 7, label: text, mountPoint: text, reason: text },
        };
        const change = {
          action: 'disk_add' as const,
          target: 'vs:42',
          subject,
          requestedBy: 'UOPER',
          approvedBy: 'UADMIN',
          transactionIds: [9],
          finalState: null,
          acceptedAtMs: T,
          endedAtMs: T,
        };
        const r = {
          title: 'Add disk',
          targetTitle: 'VS 42',
          words: DISK_ADDED_WORDS,
          panelUrl: parts.panelUrl,
          maxMinutes: 60,
          followed: true,
          sandbox: false,
        };
        for (const m of [followedMessage({ ...change, status: 'running', step }, parts)!, renderFollowEnded({ ...change, status: 'failed', step }, r)]) {
          // Its own markup: Slack's date token and the panel's link.
          expectShownAsText({
            text: m.text,
            blocks: JSON.parse(JSON.stringify(m.blocks).replace(/<!date\^[^>]+>|<https:\/\/panel\.example\.com[^>]*>/g, '')) as Rendered['blocks'],
          });
        }
      }),
      { numRuns: 40 },
    );
  });

  test('the freeze: its reason, in the channel, to whoever is refused, and on the Home tab', () => {
    fc.assert(
      fc.property(untrusted, (reason) => {
        const freeze: Freeze = { by: 'UADMIN', at: new Date(T).toISOString(), reason };
        for (const m of [
          renderFrozen(freeze, false),
          renderAlreadyFrozen(freeze),
          renderUnfrozen({ lifted: freeze, by: 'UADMIN2', sandbox: true }),
          renderDenied({ action: 'disk_add', role: 'operator', needed: 'operator', denial: { code: 'frozen', freeze } }),
        ])
          expectShownAsText(m);
        const home = renderHome({
          userId: 'UOPER',
          role: 'operator',
          allows: ['read', 'disk_add'],
          reads: [{ words: '/vs firewall', needs: 'read' }],
          mutationChannels: null,
          noChangeRolesConfigured: false,
          freeze,
          forms: ['disk_add'],
          approvals: { decidable: [facts(approval({ reason }))], own: [facts(approval({ reason, requestedBy: 'UOPER' }))] },
          changes: { scope: 'own', records: [auditRecord({ userId: 'UOPER', detail: reason, params: { label: reason } })], refused: 2 },
          nowMs: T,
          sandbox: false,
        });
        expectShownAsText({ text: 'home', blocks: home.blocks as Rendered['blocks'] });
      }),
      { numRuns: 40 },
    );
  });

  test('audit posts: what a record keeps of a form, its detail, and a workflow execution', () => {
    fc.assert(
      fc.property(untrusted, untrusted, (label, detail) => {
        const record: AuditRecord = auditRecord({ userId: 'UOPER', params: { label, mount_point: label }, detail, workflowExecutionId: label });
        expectShownAsText(renderAuditPost(record));
      }),
      { numRuns: 40 },
    );
  });
});
