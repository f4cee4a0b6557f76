import { request } from 'undici';
import { dailyShift, PAGERDUTY_STANDIN, startPagerDutyStandIn, type PagerDutyStandIn } from '../src';

// The PagerDuty stand-in (src/pagerduty.ts): the REST API's people and on-call entries with PagerDuty's paging and
// its key in `Authorization: Token token=…`, and the Events API's change events (202, 400 for an invalid one, and the
// answers a test scripts).

const TOKEN = 'stand-in-token';
const KEY = '0123456789abcdef0123456789abcdef';
const NOW = Date.parse('2025-06-01T12:00:00Z');
let pd: PagerDutyStandIn;
beforeAll(async () => {
  pd = await startPagerDutyStandIn({
    token: TOKEN,
    routingKey: KEY,
    users: [
      { id: 'PA', name: 'Ada', email: 'ada@example.com' },
      { id: 'PB', name: 'Bea', email: 'bea@example.com' },
    ],
    oncalls: [
      ...dailyShift('PA')(new Date(NOW)),
      { userId: 'PB', schedule: null, escalationPolicy: { id: 'PEP2', summary: 'Other' }, level: 2, start: null, end: null },
      {
        userId: 'PB',
        schedule: { id: 'PS9', summary: 'Old' },
        escalationPolicy: { id: 'PEP2', summary: 'Other' },
        level: 1,
        start: '2025-05-01T00:00:00Z',
        end: '2025-05-02T00:00:00Z',
      },
    ],
    now: () => new Date(NOW),
  });
});
afterAll(() => pd.close());
beforeEach(() => pd.reset());

async function get(path: string, token: string | null = TOKEN) {
  const res = await request(`${pd.url}${path}`, { headers: token === null ? {} : { authorization: `Token token=${token}` } });
  return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> };
}
async function enqueue(body: unknown) {
  const res = await request(`${pd.url}/v2/change/enqueue`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> };
}
const event = (o: Record<string, unknown> = {}) => ({
  routing_key: KEY,
  payload: { summary: 'VS 42: reboot done', source: 'vs-chatops', timestamp: '2025-06-01T12:00:00Z' },
  ...o,
});

describe('the REST API', () => {
  test('asks for the key, and answers 401 without it or with another', async () => {
    expect((await get('/users?query=ada', null)).status).toBe(401);
    expect((await get('/users?query=ada', 'wrong')).status).toBe(401);
    expect((await get('/users?query=ada')).status).toBe(200);
  });

  test('people by email, paged with limit, offset and more', async () => {
    expect((await get('/users?query=ada%40example.com')).body).toMatchObject({ users: [{ id: 'PA', email: 'ada@example.com' }], more: false });
    expect((await get('/users?query=example.com&limit=1')).body).toMatchObject({ users: [{ id: 'PA' }], limit: 1, offset: 0, more: true });
    expect((await get('/users?query=example.com&limit=1&offset=1')).body).toMatchObject({ users: [{ id: 'PB' }], more: false });
  });

  test('who is on call at an instant, by schedule, policy or person; a permanent entry has no start or end', async () => {
    const at = encodeURIComponent(new Date(NOW).toISOString());
    const bySchedule = await get(`/oncalls?schedule_ids[]=${PAGERDUTY_STANDIN.scheduleId}&since=${at}&until=${at}`);
    expect(bySchedule.body.oncalls).toEqual([
      expect.objectContaining({
        user: expect.objectContaining({ id: 'PA', summary: 'Ada' }),
        schedule: expect.objectContaining({ id: PAGERDUTY_STANDIN.scheduleId }),
        escalation_level: 1,
      }),
    ]);
    const byPolicy = await get(`/oncalls?escalation_policy_ids[]=PEP2&since=${at}&until=${at}`);
    expect(byPolicy.body.oncalls).toEqual([
      expect.objectContaining({ user: expect.objectContaining({ id: 'PB' }), schedule: null, start: null, end: null, escalation_level: 2 }),
    ]);
    expect((await get(`/oncalls?user_ids[]=PA&escalation_policy_ids[]=PEP2&since=${at}&until=${at}`)).body.oncalls).toEqual([]);
  });

  test('a failure a test asks for, and every request logged', async () => {
    pd.failRest(503);
    expect((await get('/users?query=ada')).status).toBe(503);
    expect(pd.requests.map((r) => [r.method, r.path, r.status])).toEqual([['GET', '/users', 503]]);
  });
});

describe('the Events API', () => {
  test('a change event is taken (202) and kept', async () => {
    const answer = await enqueue(event());
    expect(answer).toEqual({ status: 202, body: { status: 'success', message: 'Change event processed' } });
    expect(pd.events.map((e) => e.body)).toEqual([event()]);
  });

  test('an invalid one is refused with 400 and why: another routing key, no summary, one over 1,024 characters', async () => {
    expect(await enqueue(event({ routing_key: 'x'.repeat(32) }))).toMatchObject({
      status: 400,
      body: { errors: ["'routing_key' is not an integration key of any service"] },
    });
    expect(await enqueue(event({ payload: { source: 'x' } }))).toMatchObject({ status: 400, body: { errors: ["'payload.summary' is missing"] } });
    expect(await enqueue(event({ payload: { summary: 'x'.repeat(1025) } }))).toMatchObject({ status: 400 });
    expect(pd.events).toEqual([]);
  });

  test('answers a test scripts come first, in order; then 202 again', async () => {
    pd.answerEvents(429, 500);
    expect((await enqueue(event())).status).toBe(429);
    expect((await enqueue(event())).status).toBe(500);
    expect((await enqueue(event())).status).toBe(202);
    expect(pd.events).toHaveLength(1);
  });
});
