import { startPagerDutyStandIn, type PagerDutyOnCall } from '@vs-chatops/cloud-sandbox';
import { useHarness } from '../helpers/app-harness';
import { answerTo, CHANNEL, openForm, submit, visibleText } from '../helpers/drive';
import { appHomeOpened, input } from '../helpers/payloads';
import { approvalIdIn, clickOn, updatedTo } from '../helpers/requests';
import { useStarted } from '../helpers/use-started';
import { waitFor } from '../helpers/wait';

// On-call roles over the real Bolt app (docs/product.md, On call; Roles), with PagerDuty's stand-in on loopback as the
// network edge: whoever is on call now holds at least VS_ONCALL_ROLE while on call, matched by the email of their
// Slack profile (users.info); the role is checked when the command is typed, when the form is submitted and when a
// request is approved, like any role; `/vs whoami`, `/vs oncall` and the audit say where it came from; and when
// PagerDuty cannot answer, only the configured roles count and the refusal says why. The bot's clock is the test's.

const TOKEN = 'pd-token-for-the-tests-0123456789';
const T0 = Date.now();
let clock = T0;
const iso = (ms: number) => new Date(ms).toISOString();
const SHIFT_END = T0 + 2 * 3_600_000;

// The Slack stand-in (lenient) gives every person it does not know the email `<id, lower case>@people.example`.
const USERS = [
  { id: 'PPAGED', name: 'Pia Paged', email: 'upaged@people.example' },
  { id: 'PPERM', name: 'Perm Anent', email: 'upermanent@people.example' },
  { id: 'POFF', name: 'Off Duty', email: 'uoffduty@people.example' },
];
const ROTA: PagerDutyOnCall[] = [
  {
    userId: 'PPAGED',
    schedule: { id: 'PSCHED1', summary: 'Infrastructure primary' },
    escalationPolicy: { id: 'PPOLIC1', summary: 'Infrastructure' },
    level: 1,
    start: iso(T0 - 3_600_000),
    end: iso(SHIFT_END),
  },
  { userId: 'PPERM', schedule: null, escalationPolicy: { id: 'PPOLIC1', summary: 'Infrastructure' }, level: 1, start: null, end: null },
];

const pd = useStarted(
  'the PagerDuty stand-in',
  () => startPagerDutyStandIn({ token: TOKEN, users: USERS, oncalls: ROTA, now: () => new Date(clock) }),
  (s) => s.close(),
);

const h = useHarness({
  now: () => clock,
  startWith: () => ({
    env: {
      VS_ADMINS: 'UADMIN',
      VS_OPERATORS: 'UOPER',
      VS_APPROVALS: 'power_reboot',
      VS_ONCALL_PROVIDER: 'pagerduty',
      VS_PAGERDUTY_TOKEN: TOKEN,
      VS_PAGERDUTY_API_URL: pd.url,
      VS_ONCALL_SCHEDULES: 'PSCHED1',
      VS_ONCALL_ESCALATION_POLICIES: 'PPOLIC1',
      VS_ONCALL_CACHE_S: '60',
    },
  }),
  beforeEach: () => {
    pd.reset();
    // Past every cache of the test before: each test asks PagerDuty afresh.
    clock += 10 * 60_000;
    if (clock >= SHIFT_END) throw new Error('the tests outlast the shift they are built on');
  },
});

const powerPosts = () => h.sandbox.requests.filter((r) => r.method === 'POST' && /\/(startup|shutdown|reboot|stop)\.json$/.test(r.path));
const filled = (action: string, server: number) => ({
  power_action: input.select(action),
  confirm: input.text(String(server)),
  reason: input.text('disk full on the primary'),
});

test('/vs whoami says the role came from being on call, until when, and through which schedule', async () => {
  const answer = visibleText(await answerTo(h, 'whoami', { user: 'UPAGED', channel: CHANNEL }));
  expect(answer).toContain('your role is *operator*');
  expect(answer).toMatch(/:pager: \*operator\* while on call until <!date\^\d+\^[^|]+\|[^>]+> \(PagerDuty: Infrastructure primary\)/);
  // Someone the policy names directly is on call permanently.
  const permanent = visibleText(await answerTo(h, 'whoami', { user: 'UPERMANENT', channel: CHANNEL }));
  expect(permanent).toContain('*operator* while on call permanently (PagerDuty: Infrastructure, level 1)');
  // Someone off call is what the configuration says: everyone is a viewer.
  expect(visibleText(await answerTo(h, 'whoami', { user: 'UOFFDUTY', channel: CHANNEL }))).toContain('your role is *viewer*');
});

test('the Home tab of someone on call says their role comes from it, and offers the forms it allows', async () => {
  const before = h.slack.callsTo('views.publish').length;
  await h.event(appHomeOpened({ user: 'UPAGED' }));
  const [call] = (await h.slack.waitForCalls('views.publish', before + 1)).slice(before);
  const home = visibleText(call!.args.view);
  expect(home).toContain('your role is *operator*.');
  expect(home).toMatch(/\*operator\* while on call until <!date\^\d+/);
  expect(home).toContain('home_open_vs_power');
});

test('on call, a viewer may shut a server down: checked when typed and when submitted, and the audit says the role came from on call', async () => {
  const view = await openForm(h, 'shutdown 44', 'UPAGED');
  expect(view.callback_id).toBe('vs_power');
  const ack = await submit(h, 'vs_power', 'UPAGED', view.private_metadata, filled('shutdown', 44));
  expect(ack.response_action).toBe('update');
  expect(powerPosts().map((r) => r.path)).toEqual(['/virtual_machines/44/shutdown.json']);
  const [record] = await h.store.audit.latest(1, { userId: 'UPAGED' });
  expect(record).toMatchObject({
    action: 'power_shutdown',
    outcome: 'scheduled',
    onCall: { role: 'operator', until: iso(SHIFT_END), schedule: 'Infrastructure primary', escalationPolicy: 'Infrastructure', level: 1 },
  });
  // And an audit line says so.
  expect(visibleText(await answerTo(h, 'audit 1 <@UPAGED|pia>', { user: 'UADMIN', channel: CHANNEL }))).toContain(
    'operator from on call (PagerDuty: Infrastructure primary)',
  );
});

test('off call, the same viewer is refused as a viewer; the role is checked again at submission, so a shift that ended meanwhile counts no more', async () => {
  expect(visibleText(await answerTo(h, 'shutdown 44', { user: 'UOFFDUTY', channel: CHANNEL }))).toMatch(
    /Shutting down a server needs the operator role; you are a viewer\./,
  );
  // Opened while on call; PagerDuty now says the shift is over (the rota changed), and the cache time has passed.
  const view = await openForm(h, 'shutdown 45', 'UPAGED');
  pd.setOnCall([]);
  clock += 61_000;
  const ack = await submit(h, 'vs_power', 'UPAGED', view.private_metadata, filled('shutdown', 45));
  expect(visibleText(ack)).toMatch(/needs the operator role; you are a viewer/);
  expect(powerPosts()).toEqual([]);
  expect((await h.store.audit.latest(1, { userId: 'UPAGED' }))[0]).toMatchObject({ outcome: 'refused', detail: 'role viewer, needs operator' });
});

test('an approver on call may approve; once their shift is over they may not, checked at the click', async () => {
  const askReboot = async (server: number) => {
    const view = await openForm(h, `reboot ${server}`, 'UOPER');
    await submit(h, 'vs_power', 'UOPER', view.private_metadata, filled('reboot', server));
    const message = await waitFor('the approval request', () =>
      h.slack.messagesIn(CHANNEL).find((m) => m.kind === 'bot' && approvalIdIn(m.blocks) !== undefined && visibleText(m.blocks).includes(`VS ${server}`)),
    );
    return { id: approvalIdIn(message.blocks)!, channel: CHANNEL, ts: message.ts };
  };
  const first = await askReboot(46);
  await clickOn(h, 'UPAGED', 'approval_approve', first);
  await updatedTo(h, first, /Approved by <@UPAGED>/);
  expect(powerPosts().map((r) => r.path)).toEqual(['/virtual_machines/46/reboot.json']);

  const second = await askReboot(42);
  pd.setOnCall([]);
  clock += 61_000;
  const click = await clickOn(h, 'UPAGED', 'approval_approve', second);
  expect(await click.told()).toMatch(/Rebooting a server needs the operator role; you are a viewer/);
  expect(powerPosts()).toHaveLength(1);
});

test('PagerDuty down: only the configured roles count, and the refusal says on call could not be checked', async () => {
  pd.failRest(503);
  const refused = visibleText(await answerTo(h, 'shutdown 44', { user: 'UPAGED', channel: CHANNEL }));
  expect(refused).toContain('Shutting down a server needs the operator role; you are a viewer.');
  expect(refused).toContain('On call could not be checked (PagerDuty did not answer), so only your configured role counted.');
  // The refusal still names who holds the role now, beside the note.
  expect(refused).toMatch(/Operators: .*<@UOPER>/);
  expect((await h.store.audit.latest(1, { userId: 'UPAGED' }))[0]).toMatchObject({
    outcome: 'refused',
    detail: 'role viewer, needs operator; on call could not be checked (PagerDuty did not answer)',
  });
  // Configured roles keep working, and no one with one is held up by PagerDuty.
  const asked = pd.requests.length;
  expect((await openForm(h, 'shutdown 44', 'UOPER')).callback_id).toBe('vs_power');
  expect(pd.requests).toHaveLength(asked);
  expect(visibleText(await answerTo(h, 'whoami', { user: 'UPAGED', channel: CHANNEL }))).toContain('Whether you are on call could not be checked just now');
});

test('/vs oncall lists who is on call now and what it grants; a read, for viewers', async () => {
  const answer = await answerTo(h, 'oncall', { user: 'UOFFDUTY', channel: CHANNEL });
  expect(answer.response_type).toBe('ephemeral');
  const text = visibleText(answer);
  expect(text).toContain('*Pia Paged*: Infrastructure primary');
  expect(text).toContain('*Perm Anent*: Infrastructure, level 1, permanently');
  expect(text).toContain('holds at least the *operator* role while on call');
  expect(text).toContain('You are not on call');
  pd.failRest(503);
  clock += 10 * 60_000;
  expect(visibleText(await answerTo(h, 'oncall', { user: 'UOFFDUTY', channel: CHANNEL }))).toContain('PagerDuty could not be asked just now');
});

test('the key goes to PagerDuty in its header only, and never into a log line', async () => {
  await answerTo(h, 'whoami', { user: 'UPAGED', channel: CHANNEL });
  expect(pd.requests.length).toBeGreaterThan(0);
  expect(h.logs.join('\n')).not.toContain(TOKEN);
});
