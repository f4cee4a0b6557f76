import { createServer } from 'node:http';
import { startPagerDutyStandIn, type PagerDutyOnCall, type PagerDutyUser } from '@vs-chatops/cloud-sandbox';
import { createOnCall, createPagerDutyRest, type OnCallSettings, type PagerDutyRest } from '../../src/oncall';
import { useStarted } from '../helpers/use-started';
import { freePort } from '../helpers/spawned-bot';

// Who is on call now (docs/product.md, On call), against PagerDuty's stand-in on loopback (the network edge): people
// matched by email, the entries of `GET /oncalls` now for the schedules or escalation policies configured, kept for
// the cache time with at most one look-up per person per period, and every failure (down, slow, refusing the key)
// an `unknown` that grants nothing. Time is the test's clock.

const T0 = Date.parse('2025-03-01T03:00:00.000Z');
const TOKEN = 'pd-read-only-token-0123456789';
const iso = (ms: number) => new Date(ms).toISOString();

const USERS: PagerDutyUser[] = [
  { id: 'PADA', name: 'Ada Lovelace', email: 'ada@example.com' },
  { id: 'PBEA', name: 'Bea', email: 'Bea@Example.com' },
  { id: 'PCAL', name: 'Cal', email: 'cal@example.com' },
  { id: 'PDEE', name: 'Dee', email: 'dee@example.com' },
];
const PRIMARY = { id: 'PSCHED1', summary: 'Infrastructure primary' };
const OTHER = { id: 'PSCHED9', summary: 'Payments' };
const POLICY = { id: 'PPOLICY1', summary: 'Infrastructure' };
const entry = (userId: string, o: Partial<PagerDutyOnCall> = {}): PagerDutyOnCall => ({
  userId,
  schedule: PRIMARY,
  escalationPolicy: POLICY,
  level: 1,
  start: iso(T0 - 3_600_000),
  end: iso(T0 + 3_600_000),
  ...o,
});
const ROTA: PagerDutyOnCall[] = [
  // Ada: on the primary schedule until 04:00.
  entry('PADA'),
  // Bea: named by the policy itself, permanently, at level 1 (no schedule, no start or end).
  entry('PBEA', { schedule: null, start: null, end: null }),
  // Cal: level 2 of the policy only.
  entry('PCAL', { schedule: null, level: 2 }),
  // Dee: on another team's schedule.
  entry('PDEE', { schedule: OTHER, escalationPolicy: { id: 'PPOLICY9', summary: 'Payments' } }),
];
/** Slack people and their profile emails. */
const EMAILS: Record<string, string | null> = {
  UADA: 'ada@example.com',
  UBEA: 'bea@example.com',
  UCAL: 'cal@example.com',
  UDEE: 'dee@example.com',
  UEVE: 'eve@example.com',
  UNOMAIL: null,
};

const pd = useStarted(
  'the PagerDuty stand-in',
  () => startPagerDutyStandIn({ token: TOKEN, users: USERS, oncalls: ROTA, now: () => new Date(clock) }),
  (s) => s.close(),
);
let clock = T0;
let rest: PagerDutyRest;
beforeAll(() => {
  rest = createPagerDutyRest({ apiUrl: pd.url, token: TOKEN, timeoutMs: 300 });
});
afterAll(() => rest.close());
beforeEach(() => {
  pd.reset();
  clock = T0;
});

function onCallOf(settings: Partial<OnCallSettings> = {}, o: { rest?: PagerDutyRest; emailFails?: boolean } = {}) {
  const asked: string[] = [];
  const onCall = createOnCall({
    rest: o.rest ?? rest,
    emails: {
      emailOf: async (userId) => {
        asked.push(userId);
        if (o.emailFails) throw new Error('slack_webapi_platform_error');
        return EMAILS[userId] ?? null;
      },
    },
    settings: { scheduleIds: [PRIMARY.id], escalationPolicyIds: [], maxLevel: 1, cacheMs: 60_000, ...settings },
    now: () => clock,
  });
  return { onCall, asked };
}
const lookups = (path: string) => pd.requests.filter((r) => r.path === path).length;

describe('on call and not', () => {
  test('a person on the configured schedule now is on call, until the end of their shift, matched by the email of their profile', async () => {
    const { onCall } = onCallOf();
    const answer = await onCall.shiftOf('UADA');
    expect(answer).toEqual({
      state: 'on_call',
      shift: {
        pagerDutyUserId: 'PADA',
        name: 'Ada Lovelace',
        schedule: { id: 'PSCHED1', name: 'Infrastructure primary' },
        escalationPolicy: { id: 'PPOLICY1', name: 'Infrastructure' },
        level: 1,
        start: iso(T0 - 3_600_000),
        end: iso(T0 + 3_600_000),
      },
    });
    // PagerDuty was asked with the read-only key, for now only, for that schedule.
    const oncalls = pd.requests.find((r) => r.path === '/oncalls')!;
    const query = new URLSearchParams(oncalls.query);
    expect(query.getAll('schedule_ids[]')).toEqual(['PSCHED1']);
    expect(query.get('since')).toBe(iso(T0));
    expect(query.get('until')).toBe(iso(T0));
    expect(pd.requests.every((r) => r.status === 200)).toBe(true);
  });

  test('someone on another schedule, or with no PagerDuty user, or no email, is not on call', async () => {
    const { onCall } = onCallOf();
    expect(await onCall.shiftOf('UDEE')).toEqual({ state: 'off_call' });
    expect(await onCall.shiftOf('UEVE')).toEqual({ state: 'off_call' });
    expect(await onCall.shiftOf('UNOMAIL')).toEqual({ state: 'off_call' });
    // Nobody with no email is looked up in PagerDuty.
    expect(pd.requests.filter((r) => r.path === '/users').map((r) => new URLSearchParams(r.query).get('query'))).toEqual([
      'dee@example.com',
      'eve@example.com',
    ]);
  });

  test('an email is matched whole and whatever its case, never as a part of another', async () => {
    pd.setUsers([{ id: 'PX', name: 'Not Ada', email: 'ada@example.com.evil' }, ...USERS]);
    const { onCall } = onCallOf({ scheduleIds: [], escalationPolicyIds: [POLICY.id] });
    expect(await onCall.shiftOf('UBEA')).toMatchObject({ state: 'on_call', shift: { pagerDutyUserId: 'PBEA' } });
    expect(await onCall.shiftOf('UADA')).toMatchObject({ state: 'on_call', shift: { pagerDutyUserId: 'PADA' } });
  });

  test('a shift kept in the cache stops counting when it ends, without asking again', async () => {
    const { onCall } = onCallOf({ cacheMs: 2 * 3_600_000 });
    expect((await onCall.shiftOf('UADA')).state).toBe('on_call');
    clock = T0 + 3_600_000 + 1;
    expect(await onCall.shiftOf('UADA')).toEqual({ state: 'off_call' });
    expect(lookups('/oncalls')).toBe(1);
  });

  test('the list is everyone on call now in what is configured', async () => {
    const { onCall } = onCallOf({ escalationPolicyIds: [POLICY.id] });
    const list = await onCall.list();
    expect(list.state === 'known' && list.entries.map((e) => e.pagerDutyUserId).sort()).toEqual(['PADA', 'PADA', 'PBEA']);
  });
});

describe('escalation policies and permanent on-call', () => {
  test('a user the policy names directly is on call permanently (no start, no end)', async () => {
    const { onCall } = onCallOf({ scheduleIds: [], escalationPolicyIds: [POLICY.id] });
    expect(await onCall.shiftOf('UBEA')).toMatchObject({ state: 'on_call', shift: { schedule: null, start: null, end: null, level: 1 } });
  });

  test('levels count up to VS_ONCALL_MAX_LEVEL: level 2 only when it is 2 or more', async () => {
    expect(await onCallOf({ scheduleIds: [], escalationPolicyIds: [POLICY.id], maxLevel: 1 }).onCall.shiftOf('UCAL')).toEqual({ state: 'off_call' });
    expect(await onCallOf({ scheduleIds: [], escalationPolicyIds: [POLICY.id], maxLevel: 2 }).onCall.shiftOf('UCAL')).toMatchObject({
      state: 'on_call',
      shift: { level: 2 },
    });
  });

  test('schedules and policies are asked separately (PagerDuty reads the two filters together as both)', async () => {
    await onCallOf({ escalationPolicyIds: [POLICY.id] }).onCall.list();
    const queries = pd.requests.filter((r) => r.path === '/oncalls').map((r) => new URLSearchParams(r.query));
    expect(queries.map((q) => [q.getAll('schedule_ids[]'), q.getAll('escalation_policy_ids[]')])).toEqual([
      [['PSCHED1'], []],
      [[], ['PPOLICY1']],
    ]);
  });

  test('every page of a long list is read (limit, offset, more)', async () => {
    const many = Array.from({ length: 230 }, (_, i) => ({ id: `PU${i}`, name: `Person ${i}`, email: `p${i}@example.com` }));
    pd.setUsers([...many, ...USERS]);
    pd.setOnCall([...many.map((u) => entry(u.id)), ...ROTA]);
    const list = await onCallOf().onCall.list();
    expect(list.state === 'known' && list.entries.length).toBe(231);
    expect(lookups('/oncalls')).toBe(3);
  });
});

describe('kept for the cache time, looked up once', () => {
  test('at most one look-up per person and one of the list per cache period, however many checks come at once', async () => {
    const { onCall, asked } = onCallOf();
    pd.setDelay(30);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => onCall.shiftOf(i % 2 === 0 ? 'UADA' : 'UDEE')));
    expect(answers.filter((a) => a.state === 'on_call')).toHaveLength(10);
    expect(lookups('/users')).toBe(2);
    expect(lookups('/oncalls')).toBe(1);
    expect(asked.sort()).toEqual(['UADA', 'UDEE']);
    clock = T0 + 59_000;
    await onCall.shiftOf('UADA');
    expect(lookups('/users')).toBe(2);
    // Past the cache time, asked again.
    clock = T0 + 61_000;
    await onCall.shiftOf('UADA');
    expect(lookups('/users')).toBe(3);
    expect(lookups('/oncalls')).toBe(2);
  });
});

describe('failing closed', () => {
  test('PagerDuty down: unknown at once, and not asked again before the failure has been kept a while', async () => {
    const port = await freePort();
    const down = createPagerDutyRest({ apiUrl: `http://127.0.0.1:${port}`, token: TOKEN, timeoutMs: 300 });
    try {
      const { onCall } = onCallOf({}, { rest: down });
      expect(await onCall.shiftOf('UADA')).toEqual({ state: 'unknown' });
      expect(await onCall.list()).toEqual({ state: 'unknown' });
    } finally {
      await down.close();
    }
  });

  test('PagerDuty slow: past its short deadline the check is unknown; the failure is kept, so the next checks do not wait on it again', async () => {
    // It would answer, after a second: the client's deadline (300 ms here) ends the wait first.
    pd.setDelay(1000);
    const { onCall } = onCallOf();
    expect(await onCall.shiftOf('UADA')).toEqual({ state: 'unknown' });
    const asked = pd.requests.length;
    expect(asked).toBe(2);
    expect(await onCall.shiftOf('UADA')).toEqual({ state: 'unknown' });
    expect(await onCall.list()).toEqual({ state: 'unknown' });
    // Nothing more was sent: the second check and the list came from the failure kept.
    expect(pd.requests).toHaveLength(asked);
    // Once the failure's time is over (at most 15 s), asked again: and now it answers.
    pd.setDelay(0);
    clock = T0 + 15_001;
    expect((await onCall.shiftOf('UADA')).state).toBe('on_call');
  });

  test('a key PagerDuty refuses (401), or any other error, is unknown; so is an email Slack would not give', async () => {
    const wrong = createPagerDutyRest({ apiUrl: pd.url, token: 'not-the-key', timeoutMs: 300 });
    try {
      expect(await onCallOf({}, { rest: wrong }).onCall.shiftOf('UADA')).toEqual({ state: 'unknown' });
      expect(pd.requests.every((r) => r.status === 401)).toBe(true);
    } finally {
      await wrong.close();
    }
    pd.failRest(503);
    expect(await onCallOf().onCall.shiftOf('UADA')).toEqual({ state: 'unknown' });
    pd.failRest(0);
    expect(await onCallOf({}, { emailFails: true }).onCall.shiftOf('UADA')).toEqual({ state: 'unknown' });
  });

  test('an answer that is not a page of on-call entries is unknown, never a role', async () => {
    const garbage = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('[]'));
    await new Promise<void>((resolve) => garbage.listen(0, '127.0.0.1', resolve));
    const port = (garbage.address() as { port: number }).port;
    const odd = createPagerDutyRest({ apiUrl: `http://127.0.0.1:${port}`, token: TOKEN, timeoutMs: 300 });
    try {
      expect(await onCallOf({}, { rest: odd }).onCall.shiftOf('UADA')).toEqual({ state: 'unknown' });
    } finally {
      await odd.close();
      garbage.closeAllConnections();
      await new Promise((resolve) => garbage.close(resolve));
    }
  });
});
