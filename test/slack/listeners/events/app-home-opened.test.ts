import type { HomeView } from '@slack/types';
import type { AuditEntry } from '../../../../src/store';
import { atLeast, neededRole, targetFieldOf, type Role } from '../../../../src/changes';
import { changesOf, FORMS, homeFormButton, openedAs } from '../../../../src/slack/blocks/change-forms';
import { HOME_RECORDS } from '../../../../src/slack/blocks/home';
import { useHarness } from '../../../helpers/app-harness';
import { CHANNEL, openForm, submit } from '../../../helpers/drive';
import { appHomeOpened, input, viewButtonClick } from '../../../helpers/payloads';
import { approvalIdIn } from '../../../helpers/requests';
import { waitFor } from '../../../helpers/wait';
import { entry as storeEntry } from '../../../store/contract/entries';

// The Home tab over the real Bolt app: Slack's signed app_home_opened event
// in, views.publish out, for each role, frozen and not; its buttons open the
// change forms as the global shortcuts do, checked as they are; the approval
// requests one may decide, with their buttons, decided through the same door
// as in the channel; a long audit trail stays within Slack's limits (the
// stand-in refuses what Slack would).

const USERS = { admin: 'UADMIN', admin2: 'UADMIN2', operator: 'UOPER', viewer: 'UVIEWER', nobody: 'UNOBODY' } as const;
const ALLOWED = CHANNEL;

// The sandbox keeps what it was asked across tests: the approval tests below count the restores sent so far.
const h = useHarness({
  env: {
    VS_ADMINS: `${USERS.admin},${USERS.admin2}`,
    VS_OPERATORS: USERS.operator,
    VS_VIEWERS: USERS.viewer,
    VS_MUTATION_CHANNELS: ALLOWED,
    VS_APPROVALS: 'backup_restore',
  },
  reset: false,
  beforeEach: (h) => h.slack.reset(),
});

beforeAll(async () => {
  // One change of each person's, told apart by their targets.
  for (const [i, userId] of [USERS.admin, USERS.operator, USERS.viewer, 'USOMEONE'].entries())
    await h.store.audit.record(entry({ userId, target: `vs:${101 + i}` }));
});

/** A record made now: older ones are the retention sweep's. */
const entry = (overrides: Partial<AuditEntry> = {}): AuditEntry => storeEntry({ at: new Date().toISOString(), channelId: ALLOWED, ...overrides });

/** Opens the Home tab as `user` (Slack's signed event) and returns the view the bot published for them. */
async function openHome(user: string): Promise<HomeView> {
  const before = h.slack.callsTo('views.publish').length;
  const res = await h.event(appHomeOpened({ user }));
  expect(res.status).toBe(200);
  const call = (await h.slack.waitForCalls('views.publish', before + 1))[before]!;
  // Published, not refused: the stand-in checks Block Kit's limits as Slack does.
  expect(call).toMatchObject({ ok: true, args: { user_id: user } });
  return call.args.view as HomeView;
}

/** Every text a person reads on the view, in order. */
function readable(view: HomeView): string {
  const texts: string[] = [];
  for (const block of view.blocks as { text?: { text: string }; elements?: { text?: string | { text: string } }[] }[]) {
    if (block.text) texts.push(block.text.text);
    for (const e of block.elements ?? []) texts.push(typeof e.text === 'string' ? e.text : (e.text?.text ?? ''));
  }
  return texts.join('\n');
}

type Element = { type: string; action_id?: string; value?: string; confirm?: unknown };
/** The buttons of actions blocks, and Withdraw beside each of one's own requests (a section's accessory). */
const buttonElements = (blocks: unknown[]) =>
  (blocks as { type: string; elements?: Element[]; accessory?: Element }[]).flatMap((b) =>
    b.type === 'actions' ? (b.elements ?? []) : b.accessory?.action_id === 'approval_withdraw' ? [b.accessory] : [],
  );
const buttons = (view: HomeView) => buttonElements(view.blocks).map((e) => e.action_id);

/** The Home tab buttons a role is offered: one per change form, when the role may make any of the changes it makes. */
const formButtonsFor = (role: Role) => FORMS.filter((form) => changesOf(form).some((action) => atLeast(role, neededRole(action)))).map(homeFormButton);
const ROLE_OF: Record<string, Role> = { [USERS.admin]: 'admin', [USERS.operator]: 'operator', [USERS.viewer]: 'viewer' };

describe('the Home tab, drawn for whoever opens it', () => {
  test('an admin: their role and all it allows, not frozen, both forms, every change', async () => {
    const view = await openHome(USERS.admin);
    const text = readable(view);
    expect(view.type).toBe('home');
    expect(text).toContain('<@UADMIN>, your role is *admin*');
    expect(text).toMatch(/restore a disk from a backup.*only in <#CINCIDENT>/);
    expect(text).toContain('Changes are not frozen');
    expect(buttons(view)).toEqual(formButtonsFor('admin'));
    expect(buttons(view)).toEqual(expect.arrayContaining(['home_open_disk_add', 'home_open_backup_restore']));
    expect(text).toContain('Latest changes');
    for (const target of ['VS 101', 'VS 102', 'VS 103', 'VS 104']) expect(text).toContain(target);
  });

  test('an operator: the forms of the changes an operator may make (not the restore), and only their own changes', async () => {
    const view = await openHome(USERS.operator);
    const text = readable(view);
    expect(text).toContain('your role is *operator*');
    expect(buttons(view)).toEqual(formButtonsFor('operator'));
    expect(buttons(view)).toContain('home_open_disk_add');
    expect(buttons(view)).not.toContain('home_open_backup_restore');
    expect(text).toContain('Your latest changes');
    expect(text).toContain('VS 102');
    for (const target of ['VS 101', 'VS 103', 'VS 104']) expect(text).not.toContain(target);
  });

  test('a viewer: no form, and only their own changes', async () => {
    const text = readable(await openHome(USERS.viewer));
    expect(text).toContain('your role is *viewer*');
    expect(text).toContain('VS 103');
    expect(text).not.toContain('VS 102');
    expect(buttons(await openHome(USERS.viewer))).toEqual([]);
  });

  test('someone with no role is told so, and sees nothing of anyone else', async () => {
    const text = readable(await openHome(USERS.nobody));
    expect(text).toContain('your role is *none*');
    expect(text).toContain('You may not use the read commands');
    expect(text).toContain('You have not asked for any change yet');
    expect(text).not.toMatch(/VS 10\d/);
  });

  test('while frozen: who froze, when and why, for every role, and no form to open', async () => {
    await h.store.freeze.start({ by: USERS.admin, at: '2024-05-02T08:30:00.000Z', reason: 'database migration <!channel>' });
    try {
      for (const user of [USERS.admin, USERS.operator, USERS.viewer]) {
        const view = await openHome(user);
        const text = readable(view);
        expect(text).toContain('Changes are frozen: <@UADMIN> froze them');
        // A Slack date token, with the UTC time for clients that cannot show it.
        expect(text).toContain(`<!date^${Date.parse('2024-05-02T08:30:00.000Z') / 1000}^`);
        expect(text).toContain('2024-05-02 08:30:00 UTC');
        // The reason is shown as typed, never as a mention.
        expect(text).toContain('database migration &lt;!channel&gt;');
        expect(buttons(view)).toEqual([]);
      }
    } finally {
      await h.store.freeze.lift();
    }
    expect(readable(await openHome(USERS.admin))).toContain('Changes are not frozen');
  });

  test('the Messages tab opened is not answered with a Home tab', async () => {
    const res = await h.event(appHomeOpened({ user: USERS.admin, tab: 'messages' }));
    expect(res.status).toBe(200);
    // Opened after it: the only publish is the Home tab's.
    await openHome(USERS.viewer);
    expect(h.slack.callsTo('views.publish').map((c) => c.args.user_id)).toEqual([USERS.viewer]);
  });
});

describe('the latest changes, one readable line each', () => {
  /** The record ids of the Details buttons on the view, in order. */
  const detailsOf = (view: HomeView) =>
    (view.blocks as { accessory?: { action_id: string; value: string } }[]).flatMap((b) =>
      b.accessory?.action_id === 'audit_details' ? [Number(b.accessory.value)] : [],
    );

  async function details(user: string, value: string) {
    const before = h.slack.callsTo('views.open').length;
    const res = await h.interact(viewButtonClick({ user, actionId: 'audit_details', value }));
    expect(res.status).toBe(200);
    const call = (await h.slack.waitForCalls('views.open', before + 1))[before]!;
    expect(call).toMatchObject({ ok: true });
    return JSON.stringify(call.args.view);
  }

  test('when, who, what in words, on what and how it ended; the exact request behind Details, not inline; forms that were not valid left out', async () => {
    const body = '{"disk":{"disk_type":"SSD","disk_size":20,"label":"scratch"}}';
    const executed = await h.store.audit.record(
      entry({
        userId: USERS.operator,
        target: 'vs:205',
        detail: 'disk 7 (20 GB) on VS 205',
        apiRequest: { method: 'POST', path: '/virtual_machines/205/disks.json', body },
      }),
    );
    const mistyped = await h.store.audit.record(
      entry({ userId: USERS.operator, target: 'vs:206', outcome: 'refused', detail: 'invalid form: disk_size: Enter a whole number' }),
    );
    const view = await openHome(USERS.operator);
    const text = readable(view);
    const line = text.split('\n').find((l) => l.includes('VS 205'))!;
    expect(line).toMatch(/^:clock4: <!date\^\d+\^\{date_short_pretty\} at \{time\}\|[^>]+ UTC> · <@UOPER> · \*Add disk\* · VS 205 → \*scheduled\* · /);
    expect(line).toMatch(/ → \*scheduled\* · disk 7 \(20 GB\) on VS 205 · <#CINCIDENT>$/);
    // Neither the request nor the audit's own spellings inline.
    expect(text).not.toContain('disks.json');
    expect(text).not.toContain('scratch');
    expect(text).not.toMatch(/disk_add|vs:20\d|\d{4}-\d\d-\d\dT/);
    // A mistyped form is on record, refused: not a change, summed under them.
    expect(text).not.toContain('VS 206');
    expect(detailsOf(view)).toContain(executed.id);
    expect(detailsOf(view)).not.toContain(mistyped.id);

    const modal = await details(USERS.operator, String(executed.id));
    expect(modal).toContain('POST /virtual_machines/205/disks.json');
    expect(modal).toContain(JSON.stringify(body).slice(1, -1));
  });

  test("Details of someone else's record is refused to a viewer, shown to an admin", async () => {
    const theirs = await h.store.audit.record(
      entry({ userId: USERS.operator, target: 'vs:207', apiRequest: { method: 'POST', path: '/virtual_machines/207/disks.json', body: '{}' } }),
    );
    const refused = await details(USERS.viewer, String(theirs.id));
    expect(refused).toContain('you may see the details of your own records only');
    expect(refused).not.toContain('/virtual_machines/207');
    expect(await details(USERS.admin, String(theirs.id))).toContain('POST /virtual_machines/207/disks.json');
    expect(await details(USERS.admin, '999999')).toContain('That record is not in the audit trail');
  });

  test('refusals are not listed among the changes but summed in one line under them; a second person’s no is a change’s end, listed', async () => {
    const whose = USERS.viewer;
    const frozen = 'changes are frozen (by UADMIN at 2026-11-27T14:30:51.858Z: storage migration)';
    for (const detail of [frozen, 'role viewer, needs operator', 'role viewer, needs operator'])
      await h.store.audit.record(entry({ userId: whose, target: 'vs:208', outcome: 'refused', detail }));
    await h.store.audit.record(entry({ userId: whose, target: 'vs:209', outcome: 'requested', approvalId: 'A-home' }));
    const denied = await h.store.audit.record(entry({ userId: whose, target: 'vs:209', outcome: 'denied', approvalId: 'A-home', decidedBy: USERS.admin }));
    const view = await openHome(whose);
    const text = readable(view);
    expect(text).not.toContain('VS 208');
    expect(text).toContain(
      ':no_entry: 3 attempts of yours refused before anything was sent (role, channel, freeze, limit, invalid input, busy or unfit target)',
    );
    // The request as it ended, one line: not its `requested` record besides.
    expect(text.split('\n').filter((l) => l.includes('VS 209'))).toEqual([expect.stringMatching(/^:no_entry_sign: .* → \*denied\* · denied by <@UADMIN>/)]);
    expect(detailsOf(view)).toContain(denied.id);
  });
});

describe('its buttons open the change forms, role-checked as the shortcuts are', () => {
  async function press(user: string, actionId: string) {
    const before = h.slack.callsTo('views.open').length;
    const payload = viewButtonClick({ user, actionId });
    const res = await h.interact(payload);
    expect(res.status).toBe(200);
    const call = (await h.slack.waitForCalls('views.open', before + 1))[before]!;
    expect(call.args.trigger_id).toBe(payload.trigger_id);
    return call.args.view as { callback_id?: string; title: { text: string }; blocks: { block_id?: string; text?: { text: string } }[] };
  }

  describe.each(FORMS.map((form) => [form.callbackId, form] as const))('the %s button', (_callbackId, form) => {
    const allowed = [USERS.viewer, USERS.operator, USERS.admin].find((user) => atLeast(ROLE_OF[user]!, neededRole(openedAs(form))))!;
    const refused = [USERS.viewer, USERS.operator].filter((user) => !atLeast(ROLE_OF[user]!, neededRole(openedAs(form))));

    test('opens its form for the lowest role that may make one of its changes, asking for the target and the channel', async () => {
      const opened = await press(allowed, homeFormButton(form));
      expect(opened.callback_id).toBe(form.callbackId);
      expect(opened.blocks.map((b) => b.block_id)).toEqual(expect.arrayContaining([targetFieldOf(openedAs(form)), 'channel']));
    });

    test.each(refused)('is refused in a modal for %s, and the refusal is recorded', async (user) => {
      const refusal = await press(user, homeFormButton(form));
      expect(refusal.callback_id ?? '').toBe('');
      expect(refusal.title.text).toBe(form.title);
      expect(JSON.stringify(refusal.blocks)).toContain(`needs the ${neededRole(openedAs(form))} role`);
      const [record] = await h.store.audit.latest(1);
      expect(record).toMatchObject({ userId: user, action: openedAs(form), target: 'home', outcome: 'refused' });
    });
  });

  test('an operator pressing the restore button of a stale Home tab is refused in a modal, and the refusal is recorded', async () => {
    const refusal = await press(USERS.operator, 'home_open_backup_restore');
    expect(refusal.callback_id ?? '').toBe('');
    expect(refusal.title.text).toBe('Restore backup');
    expect(JSON.stringify(refusal.blocks)).toContain('Restoring a backup needs the admin role; you are an operator.');
    const [record] = await h.store.audit.latest(1);
    expect(record).toMatchObject({ userId: USERS.operator, action: 'backup_restore', target: 'home', outcome: 'refused' });
  });

  test('while frozen, a button of a stale Home tab is refused in a modal saying who froze, when and why', async () => {
    await h.store.freeze.start({ by: USERS.admin, at: new Date().toISOString(), reason: 'storage maintenance' });
    try {
      const refusal = await press(USERS.operator, 'home_open_disk_add');
      expect(refusal.callback_id ?? '').toBe('');
      expect(JSON.stringify(refusal.blocks)).toMatch(/Changes are frozen: <@UADMIN> froze them <!date\^\d+\^.*storage maintenance/);
    } finally {
      await h.store.freeze.lift();
    }
  });

  test('an admin gets the restore form; a viewer pressing add disk is refused', async () => {
    expect((await press(USERS.admin, 'home_open_backup_restore')).callback_id).toBe('backup_restore');
    expect(JSON.stringify((await press(USERS.viewer, 'home_open_disk_add')).blocks)).toContain('Adding a disk needs the operator role; you are a viewer.');
  });
});

describe('approval requests on the Home tab', () => {
  /** A restore asked for by `user` through its form, in CHANNEL; the request's id and its message's ts. */
  async function askRestore(user: string, backupId: number): Promise<{ id: string; ts: string }> {
    const view = await openForm(h, `backup restore ${backupId}`, user);
    await submit(h, 'backup_restore', user, view.private_metadata, { confirm: input.text(String(backupId)), reason: input.text('corrupted by the deploy') });
    return waitFor(`the approval request for backup ${backupId}`, () => {
      let asked: { id: string; ts: string } | undefined;
      for (const m of h.slack.messagesIn(CHANNEL)) {
        const id = approvalIdIn(m.blocks);
        if (id && JSON.stringify(m.blocks).includes(`Backup ${backupId}`)) asked = { id, ts: m.ts };
      }
      return asked;
    });
  }

  /** Presses a button of `user`'s Home tab; waits for their Home tab to be drawn again and returns it. */
  async function pressOnHome(user: string, actionId: string, value: string): Promise<HomeView> {
    const published = () => h.slack.callsTo('views.publish').filter((c) => c.args.user_id === user);
    const before = published().length;
    expect((await h.interact(viewButtonClick({ user, actionId, value }))).status).toBe(200);
    return (await waitFor(`the Home tab of ${user} drawn again`, () => published()[before])).args.view as HomeView;
  }

  /** What only the clicker was told, in a modal (the Home tab has no conversation to answer in). */
  const toldInModal = async (before: number) => JSON.stringify((await h.slack.waitForCalls('views.open', before + 1))[before]!.args.view);

  const restores = () => h.sandbox.requests.filter((r) => r.method === 'POST' && r.path.startsWith('/backups/'));

  let restore9: { id: string; ts: string };
  beforeAll(async () => {
    restore9 = await askRestore(USERS.admin, 9);
  });

  test('a second admin sees it: who asks, for what, why, the exact request, and the buttons of its message', async () => {
    const view = await openHome(USERS.admin2);
    const text = readable(view);
    expect(text).toContain('Waiting for your approval');
    expect(text).toContain('<@UADMIN> asks to *Restore backup* · Backup 9');
    expect(text).toContain('corrupted by the deploy');
    expect(text).toContain(`*In:* <#${CHANNEL}>`);
    expect(JSON.stringify(view.blocks)).toContain('"text":"POST /backups/9/restore.json');
    // The same buttons as the request's message in the channel, but its requester's Withdraw: Approve behind a
    // confirmation dialog, Deny; the request's id.
    const message = h.slack.messagesIn(CHANNEL).find((m) => m.ts === restore9.ts)!;
    const onHome = buttonElements(view.blocks).filter((e) => e.value === restore9.id);
    expect(onHome).toEqual(buttonElements(message.blocks ?? []).filter((e) => e.action_id !== 'approval_withdraw'));
    expect(onHome.map((e) => e.action_id)).toEqual(['approval_approve', 'approval_deny']);
    expect(onHome[0]!.confirm).toBeDefined();
  });

  test('the one who asked sees it among their requests still waiting, with no button to decide it, but Withdraw', async () => {
    const view = await openHome(USERS.admin);
    const text = readable(view);
    expect(text).toContain('Your requests waiting for a second person');
    expect(text).toMatch(/\*Restore backup\* · Backup 9 in <#CINCIDENT>, open until <!date\^/);
    expect(text).not.toContain('Waiting for your approval');
    expect(buttons(view)).toEqual([...formButtonsFor('admin'), 'approval_withdraw']);
    expect(buttonElements(view.blocks).at(-1)).toMatchObject({ action_id: 'approval_withdraw', value: restore9.id });
  });

  test('an operator and a viewer, who may not decide it, see nothing of it', async () => {
    for (const user of [USERS.operator, USERS.viewer]) {
      const view = await openHome(user);
      expect(readable(view)).not.toContain('Waiting for your approval');
      expect(readable(view)).not.toContain('asks to');
      expect(buttons(view)).not.toContain('approval_approve');
    }
  });

  test('the one who asked, pressing Deny on a stale Home tab, is refused in a modal; the request stays open', async () => {
    const opened = h.slack.callsTo('views.open').length;
    const view = await pressOnHome(USERS.admin, 'approval_deny', restore9.id);
    expect(await toldInModal(opened)).toContain('you cannot approve or deny your own request');
    expect(readable(view)).toContain('Your requests waiting for a second person');
    expect(await h.store.approvals.get(restore9.id)).toMatchObject({ status: 'requested' });
  });

  test('while frozen, Approve on the Home tab is refused with who froze; nothing is sent and the request stays open', async () => {
    await h.store.freeze.start({ by: USERS.admin, at: new Date().toISOString(), reason: 'storage maintenance' });
    try {
      const opened = h.slack.callsTo('views.open').length;
      const view = await pressOnHome(USERS.admin2, 'approval_approve', restore9.id);
      expect(await toldInModal(opened)).toContain('Changes are frozen: <@UADMIN> froze them');
      // Still listed, with a word on what the freeze allows.
      expect(readable(view)).toContain('While changes are frozen, Approve is refused; Deny is not.');
      expect(buttons(view)).toEqual(['approval_approve', 'approval_deny']);
    } finally {
      await h.store.freeze.lift();
    }
    expect(restores()).toEqual([]);
    expect(await h.store.approvals.get(restore9.id)).toMatchObject({ status: 'requested' });
  });

  test('Approve on the Home tab runs the change once, updates the message in place and redraws the Home tab without it', async () => {
    const view = await pressOnHome(USERS.admin2, 'approval_approve', restore9.id);
    // Drawn after the decision: the request is gone, the change is among the latest.
    expect(readable(view)).not.toContain('Waiting for your approval');
    expect(readable(view)).toMatch(/\*Restore backup\* · Backup 9 → \*scheduled\*/);
    expect(restores().map((r) => r.path)).toEqual(['/backups/9/restore.json']);
    const settled = () => JSON.stringify(h.slack.messagesIn(CHANNEL).find((m) => m.ts === restore9.ts)?.blocks);
    await waitFor('the request message settled', () => /Approved\* by <@UADMIN2>/.test(settled()), { detail: settled });
    expect(settled()).not.toContain('approval_approve');
    // And the one who asked no longer sees it waiting.
    expect(readable(await openHome(USERS.admin))).not.toContain('Your requests waiting for a second person');
  });

  test('Deny on the Home tab asks why in its form, rejects it with the reason, and redraws the Home tab without it; nothing is sent', async () => {
    const restore10 = await askRestore(USERS.admin2, 10);
    const published = () => h.slack.callsTo('views.publish').filter((c) => c.args.user_id === USERS.admin);
    const before = published().length;
    const opened = h.slack.callsTo('views.open').length;
    expect((await h.interact(viewButtonClick({ user: USERS.admin, actionId: 'approval_deny', value: restore10.id }))).status).toBe(200);
    const form = JSON.parse(await toldInModal(opened)) as { callback_id: string; private_metadata: string };
    expect(form.callback_id).toBe('approval_deny_reason');
    expect(await h.store.approvals.get(restore10.id)).toMatchObject({ status: 'requested' });
    expect(await submit(h, 'approval_deny_reason', USERS.admin, form.private_metadata, { reason: input.text('wrong backup') })).toEqual({});
    const view = (await waitFor(`the Home tab of ${USERS.admin} drawn again`, () => published()[before])).args.view as HomeView;
    expect(buttons(view)).not.toContain('approval_deny');
    expect(await h.store.approvals.get(restore10.id)).toMatchObject({ status: 'rejected', decidedBy: USERS.admin, decisionReason: 'wrong backup' });
    expect(restores().map((r) => r.path)).toEqual(['/backups/9/restore.json']);
  });

  test('Withdraw on the Home tab withdraws one of your own; the Home tab is drawn again without it', async () => {
    const restore11 = await askRestore(USERS.admin2, 11);
    expect(buttonElements((await openHome(USERS.admin2)).blocks)).toContainEqual(
      expect.objectContaining({ action_id: 'approval_withdraw', value: restore11.id }),
    );
    const view = await pressOnHome(USERS.admin2, 'approval_withdraw', restore11.id);
    expect(buttons(view)).not.toContain('approval_withdraw');
    expect(await h.store.approvals.get(restore11.id)).toMatchObject({ status: 'withdrawn', decidedBy: USERS.admin2 });
    const settled = () => JSON.stringify(h.slack.messagesIn(CHANNEL).find((m) => m.ts === restore11.ts)?.blocks);
    await waitFor('the request message settled', () => /Withdrawn\* by <@UADMIN2>/.test(settled()), { detail: settled });
  });
});

describe('a long audit trail', () => {
  test("is bounded to Slack's limits: the latest changes only, each line cut, the view published", async () => {
    const long = 'x'.repeat(5000);
    for (let i = 0; i < 300; i++)
      await h.store.audit.record(
        entry({ userId: USERS.admin, target: `vs:${1000 + i}`, detail: `${long} <@UALL>`, params: { label: long }, outcome: 'failed' }),
      );
    const view = await openHome(USERS.admin);
    expect(view.blocks.length).toBeLessThanOrEqual(100);
    expect(JSON.stringify(view).length).toBeLessThan(250_000);
    const text = readable(view);
    const shown = [...text.matchAll(/VS (1\d\d\d)/g)].map((m) => Number(m[1]));
    expect(shown).toEqual(Array.from({ length: HOME_RECORDS }, (_, i) => 1299 - i));
    expect(text).not.toContain('<@UALL>');
    expect(h.slack.state.refusals).toEqual([]);
  });
});

describe('when the store cannot be read', () => {
  test('the Home tab is still published, saying what could not be read', async () => {
    await h.store.close();
    const text = readable(await openHome(USERS.admin));
    expect(text).toContain('your role is *admin*');
    expect(text).toContain('Whether changes are frozen could not be read just now');
    expect(text).toContain('The audit trail could not be read just now');
  });
});
