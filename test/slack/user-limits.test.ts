import Database from 'better-sqlite3';
import { createLogger } from '../../src/log';
import { createUserLimits, MAX_REFUSED, STORE_REST_MS, type UserLimitsDeps } from '../../src/slack/user-limits';
import type { RateCounter, Store } from '../../src/store';
import { openSqliteStore } from '../../src/store/sqlite';
import { startHarness, useHarness } from '../helpers/app-harness';
import { answerTo, CHANNEL, goodDisk, openForm, runStep, submit, visibleText } from '../helpers/drive';
import { viewButtonClick } from '../helpers/payloads';
import { answerToClick, approvalIdIn } from '../helpers/requests';
import { waitFor } from '../helpers/wait';
import { createTestDatabase } from '../helpers/postgres';
import { useStarted } from '../helpers/use-started';

// Per-person limits counted in the store, shared by every instance, and
// counted by each instance alone while the store does not answer. First on a
// fake clock over a real store (SQLite in memory; the rates slice's contract
// suite covers both dialects), then over the real Bolt app: two instances on
// one PostgreSQL.

const stores: Store[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

function openStore(): Store {
  const store = openSqliteStore(':memory:');
  stores.push(store);
  return store;
}

function limits(rates: RateCounter | undefined, perMinute = { reads: 3, changes: 2 }, more: Partial<UserLimitsDeps> = {}) {
  const logs: Record<string, unknown>[] = [];
  const clock = { t: 5_000_000 };
  const logger = createLogger({ write: (line) => logs.push(JSON.parse(line) as Record<string, unknown>) });
  const perHour = { workflow_requests: 2, workflow_calls: 2 };
  return { limits: createUserLimits({ perMinute, perHour, rates, now: () => clock.t, logger, ...more }), logs, clock };
}

/** The store's rates, with its database reachable or not: `down` routes every take to a closed store. */
async function switchable() {
  const healthy = openStore();
  const broken = openSqliteStore(':memory:');
  // Used once, then closed: every take after that fails (one never used would be opened again on its first use).
  await broken.ping();
  await broken.close();
  const state = { down: false, asked: 0 };
  const rates: RateCounter = {
    take: (...args) => {
      state.asked++;
      return (state.down ? broken : healthy).rates.take(...args);
    },
  };
  return { rates, state };
}

describe('per-person limits over the store (fake clock)', () => {
  test('two instances over one store share one bucket per person and per kind', async () => {
    const store = openStore();
    const a = limits(store.rates).limits;
    const b = limits(store.rates).limits;
    expect([await a.reads.take('U1'), await b.reads.take('U1'), await a.reads.take('U1')]).toEqual([0, 0, 0]);
    // 3 a minute: the next one in 20 s, on either instance.
    expect(await b.reads.take('U1')).toBe(20);
    expect(await a.reads.take('U1')).toBe(20);
    // Change attempts are counted apart, and so is everyone else.
    expect([await b.changes.take('U1'), await a.changes.take('U1'), await b.changes.take('U1')]).toEqual([0, 0, 30]);
    expect(await b.reads.take('U2')).toBe(0);
    expect([a.reads.perMinute, a.changes.perMinute]).toEqual([3, 2]);
  });

  test('workflow limits count by the hour, shared by the instances, each kind and key apart', async () => {
    const store = openStore();
    const one = limits(store.rates);
    const b = limits(store.rates).limits;
    const { workflow_requests: requests, workflow_calls: calls } = one.limits.hourly;
    expect([requests.perHour, calls.perHour]).toEqual([2, 2]);
    expect([await requests.take('vs_request_disk:C1'), await b.hourly.workflow_requests.take('vs_request_disk:C1')]).toEqual([0, 0]);
    // 2 an hour: the next one in half an hour (whole seconds, rounded up), on either instance.
    const halfAnHour = [1800, 1801];
    expect(halfAnHour).toContain(await b.hourly.workflow_requests.take('vs_request_disk:C1'));
    expect(await requests.take('vs_request_disk:C2')).toBe(0);
    expect([await calls.take('UADMIN'), await calls.take('UADMIN')]).toEqual([0, 0]);
    expect(halfAnHour).toContain(await b.hourly.workflow_calls.take('UADMIN'));
    one.clock.t += 1_801_000;
    expect(await requests.take('vs_request_disk:C1')).toBe(0);
  });

  test('a refusal is remembered until the time it names: the store is not asked again before', async () => {
    const { rates, state } = await switchable();
    const { limits: l, clock } = limits(rates, { reads: 2, changes: 2 });
    expect([await l.reads.take('U1'), await l.reads.take('U1'), await l.reads.take('U1')]).toEqual([0, 0, 30]);
    expect(state.asked).toBe(3);
    clock.t += 10_500;
    expect(await l.reads.take('U1')).toBe(20);
    expect(await l.changes.take('U1')).toBe(0);
    expect(state.asked).toBe(4);
    clock.t += 19_500;
    expect(await l.reads.take('U1')).toBe(0);
    expect(state.asked).toBe(5);
  });

  test('the time to wait is whole seconds, rounded up, at least 1', async () => {
    const { limits: l, clock } = limits(openStore().rates, { reads: 1000, changes: 7 });
    for (let i = 0; i < 1000; i++) await l.reads.take('U1');
    // 60 ms to the next read: told 1 s.
    expect(await l.reads.take('U1')).toBe(1);
    for (let i = 0; i < 7; i++) await l.changes.take('U1');
    // 60 / 7 = 8.57 s.
    expect(await l.changes.take('U1')).toBe(9);
    clock.t += 8_000;
    expect(await l.changes.take('U1')).toBe(1);
  });

  test('the store failing: this instance counts alone, says so once, leaves the store alone a while, then asks it again', async () => {
    const { rates, state } = await switchable();
    const { limits: l, logs, clock } = limits(rates, { reads: 2, changes: 2 });
    state.down = true;
    expect([await l.reads.take('U1'), await l.reads.take('U1'), await l.reads.take('U1')]).toEqual([0, 0, 30]);
    // Both limits rest on the one store.
    expect(await l.changes.take('U1')).toBe(0);
    expect(state.asked).toBe(1);
    const warnings = logs.filter((line) => line.level === 'warn');
    expect(warnings).toEqual([expect.objectContaining({ msg: expect.stringContaining('counted by this instance alone') as unknown, restMs: STORE_REST_MS })]);
    expect(warnings[0]!.error).toBeDefined();

    clock.t += STORE_REST_MS - 1;
    await l.reads.take('U2');
    expect(state.asked).toBe(1);
    // Still down when asked again: rests again, no second warning.
    clock.t += 1;
    await l.reads.take('U2');
    expect(state.asked).toBe(2);
    expect(logs.filter((line) => line.level === 'warn')).toHaveLength(1);

    state.down = false;
    clock.t += STORE_REST_MS;
    // The shared bucket never saw U1's reads of the outage.
    expect(await l.reads.take('U1')).toBe(0);
    expect(state.asked).toBe(3);
    await l.reads.take('U1');
    expect(logs.filter((line) => line.msg === 'per-person limits are counted across instances again')).toHaveLength(1);
    expect(logs.filter((line) => line.level === 'warn')).toHaveLength(1);
    // A second outage is told again.
    state.down = true;
    await l.reads.take('U1');
    expect(logs.filter((line) => line.level === 'warn')).toHaveLength(2);
  });

  test('a store failing rests for the time given, then is asked again', async () => {
    const { rates, state } = await switchable();
    const { limits: l, clock } = limits(rates, { reads: 2, changes: 2 }, { restMs: 1000 });
    state.down = true;
    await l.reads.take('U1');
    state.down = false;
    clock.t += 999;
    await l.reads.take('U1');
    expect(state.asked).toBe(1);
    clock.t += 1;
    await l.reads.take('U1');
    expect(state.asked).toBe(2);
  });

  test('refusals remembered are bounded: past MAX_REFUSED people, they are forgotten (and asked of the store again)', async () => {
    let asked = 0;
    const refusing: RateCounter = {
      take: () => {
        asked++;
        return Promise.resolve({ allowed: false, retryInMs: 60_000 });
      },
    };
    const { limits: l } = limits(refusing);
    for (let i = 0; i < MAX_REFUSED; i++) await l.reads.take(`U${i}`);
    await l.reads.take('U0');
    await l.reads.take(`U${MAX_REFUSED - 1}`);
    expect(asked).toBe(MAX_REFUSED);
    await l.reads.take('UONEMORE');
    await l.reads.take('UONEMORE');
    expect(asked).toBe(MAX_REFUSED + 1);
    await l.reads.take('U0');
    expect(asked).toBe(MAX_REFUSED + 2);
  });

  test('each wait for the store leaves no timer behind', async () => {
    jest.useFakeTimers();
    try {
      const answering: RateCounter = { take: () => Promise.resolve({ allowed: true, retryInMs: 0 }) };
      const { limits: l } = limits(answering);
      expect(await l.reads.take('U1')).toBe(0);
      expect(jest.getTimerCount()).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });

  test('a store that does not answer in time counts as failing', async () => {
    const silent: RateCounter = { take: () => new Promise(() => undefined) };
    const { limits: l, logs } = limits(silent, { reads: 1, changes: 1 }, { waitMs: 5 });
    expect(await l.reads.take('U1')).toBe(0);
    expect(await l.reads.take('U1')).toBe(60);
    expect(logs).toEqual([
      expect.objectContaining({ level: 'warn', waitMs: 5, error: expect.objectContaining({ message: 'no answer within 5 ms' }) as unknown }),
    ]);
  });

  test('without a store each instance counts alone', async () => {
    const { limits: l, logs } = limits(undefined, { reads: 1, changes: 1 });
    expect([await l.reads.take('U1'), await l.reads.take('U1'), await l.changes.take('U1'), await l.changes.take('U1')]).toEqual([0, 60, 0, 60]);
    expect(logs).toEqual([]);
  });
});

describe('VS_CHANGES_PER_USER_PER_MINUTE over the real Bolt app: two instances on one PostgreSQL', () => {
  // One start and one close for the three: the instances close before their database is dropped.
  const both = useStarted(
    'two instances on one PostgreSQL',
    async () => {
      const database = await createTestDatabase();
      const env = { DATABASE_URL: database.url, VS_OPERATORS: 'UOPER', VS_CHANGES_PER_USER_PER_MINUTE: '3', VS_READS_PER_USER_PER_MINUTE: '3' };
      const [one, two] = await Promise.all([startHarness({ env }), startHarness({ env })]);
      return { database, one, two };
    },
    async ({ database, one, two }) => {
      await Promise.all([one.close(), two.close()]);
      await database.drop();
    },
  );

  test('forms opened and submitted on either instance count together; past the limit the person is told, only them, and it goes no further', async () => {
    const first = await openForm(both.one, 'disk add 42', 'UOPER');
    await openForm(both.two, 'disk add 43', 'UOPER');
    const done = await submit(both.two, 'disk_add', 'UOPER', first.private_metadata ?? '{}', goodDisk);
    expect(visibleText(done)).toContain('Scheduled');

    const limited = await answerTo(both.one, 'disk add 44', { user: 'UOPER', triggerId: 'trigger.limited' });
    expect(limited.response_type).toBe('ephemeral');
    expect(visibleText(limited)).toMatch(/made 3 change attempts in the last minute.*Try again in \d+ s/);
    expect(both.one.slack.callsTo('views.open').filter((c) => c.args.trigger_id === 'trigger.limited')).toEqual([]);
    const form = await submit(both.one, 'disk_add', 'UOPER', first.private_metadata ?? '{}', goodDisk);
    expect(visibleText(form)).toContain('nothing was changed or recorded');
    expect(both.one.sandbox.requests.filter((r) => r.method === 'POST')).toEqual([]);
    expect(both.two.sandbox.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    // Reads are counted apart.
    expect((await answerTo(both.two, 'firewall 42', { user: 'UOPER' })).response_type).toBe('in_channel');
  });

  test("a viewer's denied attempts: as many records as the limit, whichever instance they reach; the rest are only told", async () => {
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await answerTo(i % 2 === 0 ? both.one : both.two, 'disk add 45', { user: 'UVIEW' }));
    expect(answers.map((a) => (visibleText(a).includes('Try again in') ? 'limited' : 'denied'))).toEqual([
      'denied',
      'denied',
      'denied',
      'limited',
      'limited',
      'limited',
    ]);
    const records = await both.one.store.audit.latest(100, { userId: 'UVIEW' });
    expect(records.map((r) => r.outcome)).toEqual(['refused', 'refused', 'refused']);
  });
});

describe('approval clicks, claims and freeze switches count as change attempts (VS_CHANGES_PER_USER_PER_MINUTE)', () => {
  const h = useHarness({
    env: {
      VS_ADMINS: 'UADMIN',
      VS_OPERATORS: 'UOPER',
      VS_VIEWERS: 'UVIEW,UNOBODY',
      VS_APPROVALS: 'disk_add',
      VS_AUDIT_CHANNEL: 'CAUDIT',
      VS_CHANGES_PER_USER_PER_MINUTE: '3',
    },
  });
  const limitedOrTold = (answer: string) => (answer.includes('Try again in') ? 'limited' : 'told');

  test("past the limit a person's clicks and freezes are told when to try again, and nothing is recorded or queued for the audit channel", async () => {
    const view = await openForm(h, 'disk add 42', 'UOPER');
    await submit(h, 'disk_add', 'UOPER', view.private_metadata ?? '{}', goodDisk);
    const request = await waitFor('the approval request', () => h.slack.messagesIn(CHANNEL).find((m) => approvalIdIn(m.blocks) !== undefined));
    const posted = { id: approvalIdIn(request.blocks)!, channel: CHANNEL, ts: request.ts };
    const { execution } = await runStep(h, 'vs_request_disk', { vs_id: 43, disk_type: 'SSD', disk_size: 20, channel: CHANNEL, reason: 'full' });
    const workflowRequest = { id: String(execution.outputs!.request_id), channel: CHANNEL, ts: posted.ts };

    const approvals: string[] = [];
    for (let i = 0; i < 6; i++) approvals.push(limitedOrTold(await answerToClick(h, 'UVIEW', 'approval_approve', posted)));
    const claims: string[] = [];
    for (let i = 0; i < 3; i++) claims.push(limitedOrTold(await answerToClick(h, 'UVIEW', 'change_request_claim', workflowRequest)));
    const freezes: string[] = [];
    for (let i = 0; i < 5; i++) freezes.push(limitedOrTold(visibleText(await answerTo(h, 'freeze because I can', { user: 'UNOBODY' }))));

    // One bucket per person for every change attempt: three denials for the viewer (approvals first), three for the other.
    expect(approvals).toEqual(['told', 'told', 'told', 'limited', 'limited', 'limited']);
    expect(claims).toEqual(['limited', 'limited', 'limited']);
    expect(freezes).toEqual(['told', 'told', 'told', 'limited', 'limited']);
    expect(await answerToClick(h, 'UVIEW', 'approval_deny', posted)).toMatch(/made 3 change attempts in the last minute.*Try again in \d+ s/);
    const denied = (await h.store.audit.latest(100)).filter((r) => r.outcome === 'refused');
    expect(denied.map((r) => [r.userId, r.action])).toEqual([
      ['UNOBODY', 'freeze'],
      ['UNOBODY', 'freeze'],
      ['UNOBODY', 'freeze'],
      ['UVIEW', 'disk_add'],
      ['UVIEW', 'disk_add'],
      ['UVIEW', 'disk_add'],
    ]);
    // Each final record's post is queued with it: the request's, and six denials; not one per click.
    const db = new Database(h.dbPath, { readonly: true });
    try {
      expect(db.prepare('SELECT count(*) AS n FROM audit_outbox').get()).toEqual({ n: 1 + 1 + 6 });
    } finally {
      db.close();
    }
    expect(await h.store.freeze.current()).toBeNull();
  });
});

describe("a record's Details counts as a read (VS_READS_PER_USER_PER_MINUTE), by the needs middleware like every read", () => {
  const h = useHarness({ env: { VS_ADMINS: 'UADMIN', VS_READS_PER_USER_PER_MINUTE: '2' } });

  test('past the limit the Home tab says when to try again, in a modal, and no record is read or shown', async () => {
    const record = await h.store.audit.record({
      at: new Date().toISOString(),
      userId: 'UADMIN',
      channelId: CHANNEL,
      action: 'disk_add',
      target: 'vs:42',
      params: {},
      outcome: 'done',
      apiStatus: 201,
      durationMs: 1,
      detail: 'disk 7 added',
      apiRequest: { method: 'POST', path: '/virtual_machines/42/disks.json', body: '{}' },
    });
    const shown: string[] = [];
    for (let i = 0; i < 3; i++) {
      const before = h.slack.callsTo('views.open').length;
      await h.interact(viewButtonClick({ user: 'UADMIN', actionId: 'audit_details', value: String(record.id) }));
      shown.push(JSON.stringify((await h.slack.waitForCalls('views.open', before + 1))[before]!.args.view));
    }
    expect(shown.slice(0, 2).every((view) => view.includes('POST /virtual_machines/42/disks.json'))).toBe(true);
    expect(shown[2]).toMatch(/Try again in \d+ s/);
    expect(shown[2]).not.toContain('/virtual_machines/42');
  });
});
