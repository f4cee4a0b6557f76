import { startHarness, useHarness } from '../helpers/app-harness';
import { goodDisk, newViewId, openForm, reactionTo, sleep, submit, visibleText } from '../helpers/drive';
import { input, type StateValue } from '../helpers/payloads';

// Who may do what, table-driven over the real app: every action × role ×
// channel restriction, when the command is typed and again when the form is
// submitted. The cloud API is called only when the policy allowed it at
// submission; every denied change is audited.

type Role = 'none' | 'viewer' | 'operator' | 'admin';
type Action = 'read' | 'audit_read' | 'disk_add' | 'backup_restore';
type Where = 'unrestricted' | 'allowed channel' | 'other channel';

const USERS: Record<Role, string> = { none: 'UNOBODY', viewer: 'UVIEWER', operator: 'UOPER', admin: 'UADMIN' };
const RANK: Record<Role, number> = { none: 0, viewer: 1, operator: 2, admin: 3 };
const NEEDED: Record<Action, Role> = { read: 'viewer', audit_read: 'admin', disk_add: 'operator', backup_restore: 'admin' };
const ROLES = { VS_ADMINS: USERS.admin, VS_OPERATORS: USERS.operator, VS_VIEWERS: USERS.viewer };
const ALLOWED = 'CALLOWED';
const OTHER = 'COTHER';
const channelOf = (where: Where) => (where === 'other channel' ? OTHER : ALLOWED);

const isChange = (a: Action) => a === 'disk_add' || a === 'backup_restore';
const mayDo = (role: Role, action: Action, where: Where) => RANK[role] >= RANK[NEEDED[action]] && !(isChange(action) && where === 'other channel');

const COMMANDS: Record<Action, string> = { read: 'firewall 42', audit_read: 'audit 3', disk_add: 'disk add 42', backup_restore: 'backup restore 9' };
const restoreFields: Record<string, StateValue> = { confirm: input.text('9'), reason: input.text('authz table') };

const roles = Object.keys(USERS) as Role[];
const actions = Object.keys(NEEDED) as Action[];
const places: Where[] = ['unrestricted', 'allowed channel', 'other channel'];
const table = places.flatMap((where) => roles.flatMap((role) => actions.map((action) => ({ where, role, action, allowed: mayDo(role, action, where) }))));

describe('authorization, every action × role × channel restriction', () => {
  const harnesses = {
    unrestricted: useHarness({ env: ROLES }),
    restricted: useHarness({ env: { ...ROLES, VS_MUTATION_CHANNELS: ALLOWED } }),
  };
  const harnessFor = (where: Where) => (where === 'unrestricted' ? harnesses.unrestricted : harnesses.restricted);

  test.each(table)('command: $action by $role ($where) → allowed: $allowed', async ({ where, role, action, allowed }) => {
    const h = harnessFor(where);
    const before = (await h.store.audit.latest(1))[0]?.id ?? 0;
    const { message, modal } = await reactionTo(h, COMMANDS[action], { user: USERS[role], channel: channelOf(where) });
    if (isChange(action)) {
      expect(modal !== undefined).toBe(allowed);
      if (!allowed) {
        expect(message!.response_type).toBe('ephemeral');
        expect(visibleText(message)).toMatch(
          where === 'other channel' && RANK[role] >= RANK[NEEDED[action]] ? new RegExp(ALLOWED) : new RegExp(NEEDED[action]),
        );
        const record = (await h.store.audit.latest(1))[0]!;
        expect(record.id).toBeGreaterThan(before);
        expect(record).toMatchObject({ userId: USERS[role], action, outcome: 'refused', channelId: channelOf(where) });
      }
    } else if (allowed) {
      expect(message!.response_type).toBe(action === 'read' ? 'in_channel' : 'ephemeral');
      expect(visibleText(message)).toMatch(action === 'read' ? /443/ : /Audit trail/);
    } else {
      expect(message!.response_type).toBe('ephemeral');
      expect(visibleText(message)).toMatch(new RegExp(`needs the ${NEEDED[action]} role`));
    }
    // Only what is allowed reaches the cloud API at command time, and only reads: the firewall read, and the backup a
    // restore reads before its form opens (docs/product.md, Restore with eyes open); nothing is changed before submission.
    const READ_FIRST: Partial<Record<Action, string>> = { read: 'GET /virtual_machines/42/firewall_rules.json', backup_restore: 'GET /backups/9.json' };
    const expectedCalls = allowed && READ_FIRST[action] ? [READ_FIRST[action]] : [];
    expect(h.sandbox.requests.map((r) => `${r.method} ${r.path}`)).toEqual(expectedCalls);
  });

  const submissions = table.filter((row) => isChange(row.action));
  test.each(submissions)('submission: $action by $role ($where) → allowed: $allowed', async ({ where, role, action, allowed }) => {
    const h = harnessFor(where);
    const channelId = channelOf(where);
    // The form was opened by someone who could; the submitter is who counts.
    const metadata = action === 'disk_add' ? { channelId, vsId: 42 } : { channelId, backupId: 9 };
    const ack = await submit(h, action, USERS[role], JSON.stringify(metadata), action === 'disk_add' ? goodDisk : restoreFields);
    await sleep(20);
    const posts = h.sandbox.requests.filter((r) => r.method === 'POST');
    expect(posts).toHaveLength(allowed ? 1 : 0);
    const record = (await h.store.audit.latest(1))[0]!;
    expect(record).toMatchObject({ userId: USERS[role], action, channelId, outcome: allowed ? 'scheduled' : 'refused' });
    if (!allowed) expect(visibleText(ack)).toMatch(/Nothing was changed|needs the|only allowed/);
  });

  test.each([
    { opener: USERS.operator, submitter: USERS.viewer, action: 'disk_add' as const },
    { opener: USERS.operator, submitter: USERS.none, action: 'disk_add' as const },
    { opener: USERS.admin, submitter: USERS.operator, action: 'backup_restore' as const },
  ])('a form opened by $opener and submitted by $submitter is judged by the submitter: denied, nothing called', async ({ opener, submitter, action }) => {
    const h = harnesses.unrestricted;
    const view = await openForm(h, COMMANDS[action], opener, ALLOWED);
    await submit(h, action, submitter, view.private_metadata, action === 'disk_add' ? goodDisk : restoreFields);
    await sleep(20);
    expect(h.sandbox.requests.filter((r) => r.method === 'POST')).toHaveLength(0);
    expect((await h.store.audit.latest(1))[0]).toMatchObject({ userId: submitter, action, outcome: 'refused' });
  });

  test('metadata naming another channel cannot smuggle a change past the restriction', async () => {
    const h = harnesses.restricted;
    // Opened in the allowed channel…
    const view = await openForm(h, 'disk add 42', USERS.operator, ALLOWED);
    expect(view.callback_id).toBe('disk_add');
    // …but a shortcut form with a channel input is checked against the channel chosen there.
    const ack = await submit(h, 'disk_add', USERS.operator, '{}', { ...goodDisk, vs_id: input.text('42'), channel: input.channel(OTHER) });
    await sleep(20);
    expect(visibleText(ack)).toMatch(/only allowed/);
    expect(h.sandbox.requests.filter((r) => r.method === 'POST')).toHaveLength(0);
    expect((await h.store.audit.latest(1))[0]).toMatchObject({ outcome: 'refused', channelId: OTHER });
  });

  test('from a shortcut, a change is made only in an allowed channel the user is a member of: picking it is not enough', async () => {
    const h = harnesses.restricted;
    const shortcutForm = { ...goodDisk, vs_id: input.text('42'), channel: input.channel(ALLOWED) };
    h.slack.setChannelMembers(ALLOWED, ['USOMEONE']);
    const refused = await submit(h, 'disk_add', USERS.operator, '{}', shortcutForm);
    await sleep(20);
    expect(visibleText(refused)).toMatch(/you are not a member of/);
    expect(h.slack.callsTo('users.conversations').map((c) => c.args.user)).toEqual([USERS.operator]);
    expect(h.sandbox.requests.filter((r) => r.method === 'POST')).toHaveLength(0);
    expect((await h.store.audit.latest(1))[0]).toMatchObject({
      userId: USERS.operator,
      outcome: 'refused',
      channelId: ALLOWED,
      detail: expect.stringContaining('not a member'),
    });

    h.slack.setChannelMembers(ALLOWED, ['USOMEONE', USERS.operator]);
    const done = await submit(h, 'disk_add', USERS.operator, '{}', shortcutForm, newViewId());
    expect(visibleText(done)).toMatch(/Scheduled/);
    expect(h.sandbox.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    expect((await h.store.audit.latest(1))[0]).toMatchObject({ userId: USERS.operator, outcome: 'scheduled', channelId: ALLOWED });
  });

  test('from a shortcut, membership of a 50,000-member channel is checked in one Web API call, member or not', async () => {
    const h = harnesses.restricted;
    const others = Array.from({ length: 49_999 }, (_, i) => `UMEMBER${String(i).padStart(5, '0')}`);
    const shortcutForm = { ...goodDisk, vs_id: input.text('42'), channel: input.channel(ALLOWED) };

    h.slack.setChannelMembers(ALLOWED, [...others, USERS.operator]);
    expect(visibleText(await submit(h, 'disk_add', USERS.operator, '{}', shortcutForm))).toMatch(/Scheduled/);
    expect(h.slack.callsTo('users.conversations')).toHaveLength(1);

    h.slack.reset();
    h.slack.setChannelMembers(ALLOWED, [...others, 'USOMEONE']);
    expect(visibleText(await submit(h, 'disk_add', USERS.operator, '{}', shortcutForm, newViewId()))).toMatch(/you are not a member of/);
    expect(h.slack.callsTo('users.conversations')).toHaveLength(1);
    expect(h.slack.callsTo('conversations.members')).toHaveLength(0);
  });

  test('from a shortcut, when Slack cannot say who is in the channel, the change is refused and recorded', async () => {
    const h = harnesses.restricted;
    h.slack.fault('users.conversations', { error: 'missing_scope' });
    const refused = await submit(h, 'disk_add', USERS.operator, '{}', { ...goodDisk, vs_id: input.text('42'), channel: input.channel(ALLOWED) });
    await sleep(20);
    expect(visibleText(refused)).toMatch(/could not be checked/);
    expect(h.sandbox.requests.filter((r) => r.method === 'POST')).toHaveLength(0);
    expect((await h.store.audit.latest(1))[0]).toMatchObject({ outcome: 'refused', channelId: ALLOWED });
  });
});

describe('a role that changes between opening the form and submitting it', () => {
  test('an operator removed from VS_OPERATORS (bot restarted on the same audit store) is denied at submission', async () => {
    const h = await startHarness({ env: ROLES });
    try {
      const view = await openForm(h, 'disk add 42', USERS.operator, ALLOWED);
      await h.restart({ VS_ADMINS: USERS.admin });
      const ack = await submit(h, 'disk_add', USERS.operator, view.private_metadata, goodDisk);
      expect(visibleText(ack)).toMatch(/needs the operator role/);
      await sleep(20);
      expect(h.sandbox.requests.filter((r) => r.method === 'POST')).toHaveLength(0);
      expect((await h.store.audit.latest(1))[0]).toMatchObject({ userId: USERS.operator, outcome: 'refused', action: 'disk_add' });
      // Both attempts are in the one audit trail: the denial at submission on top.
      expect((await h.store.audit.latest(5)).map((r) => r.outcome)).toEqual(['refused']);
    } finally {
      await h.close();
    }
  });

  test("someone removed from the operators' user group is denied at submission once the cache expires; someone added gains the role", async () => {
    let now = Date.now();
    const h = await startHarness({ env: { VS_ADMINS: USERS.admin, VS_OPERATORS: 'SONCALL', VS_GROUP_CACHE_MS: '100' }, now: () => now });
    try {
      h.slack.setGroup('SONCALL', ['UONCALL1']);
      const view = await openForm(h, 'disk add 42', 'UONCALL1', ALLOWED);
      // The rota changes: UONCALL1 goes off call, UONCALL2 comes on; the cached membership expires.
      h.slack.setGroup('SONCALL', ['UONCALL2']);
      now += 150;
      const ack = await submit(h, 'disk_add', 'UONCALL1', view.private_metadata, goodDisk);
      expect(visibleText(ack)).toMatch(/needs the operator role/);
      await sleep(20);
      expect(h.sandbox.requests.filter((r) => r.method === 'POST')).toHaveLength(0);
      expect((await h.store.audit.latest(1))[0]).toMatchObject({ userId: 'UONCALL1', outcome: 'refused' });

      const ok = await submit(h, 'disk_add', 'UONCALL2', view.private_metadata, goodDisk, newViewId());
      expect(visibleText(ok.view)).toMatch(/Scheduled/);
      expect(h.sandbox.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
      expect((await h.store.audit.latest(1))[0]).toMatchObject({ userId: 'UONCALL2', outcome: 'scheduled' });
    } finally {
      await h.close();
    }
  });
});
