import type { WebClient } from '@slack/web-api';
import { TEAM } from '@vs-chatops/slack-standin';
import { createLogger } from '../../src/log';
import { botAuthorization } from '../../src/slack/bot-authorization';
import { forward, startCloudFaultServer } from '../helpers/cloud-fault-server';
import { startHarness, useHarness, type Harness } from '../helpers/app-harness';
import { answerTo, CHANNEL, goodDisk, newViewId, openForm, sleep, STACK_TRACE, submit, visibleText, type Message, postedIn } from '../helpers/drive';
import { useStarted } from '../helpers/use-started';
import { waitFor } from '../helpers/wait';
import { input, viewSubmission } from '../helpers/payloads';

// Slack itself failing: the Web API answering ok:false, rate-limiting with a
// long Retry-After, unreachable; response_urls that expired; a trigger that
// expired before views.open. Each is logged with who and where, the user is
// told whenever some way to reach them still works, nothing crashes and no
// listener hangs.

const ROLES = { VS_ADMINS: 'UADMIN', VS_OPERATORS: 'UOPER,SONCALL', VS_AUDIT_CHANNEL: 'CAUDIT' };
/** A listener must finish within this, whatever Slack does (2 retries with at most 2 s backoff, and no Retry-After sleeps). */
const LISTENER_BOUND_MS = 8000;

type LogLine = { level: string; msg: string; user?: string; channel?: string; outcome?: string; ms?: number; error?: unknown; [k: string]: unknown };
const parsed = (h: Harness): LogLine[] => h.logs.map((l) => JSON.parse(l) as LogLine);
const linesAbout = (h: Harness, msg: RegExp) => parsed(h).filter((l) => msg.test(l.msg));

/** Waits for the one-line summary a command writes when it is done, and returns it. */
async function commandDone(h: Harness, user: string, timeoutMs = LISTENER_BOUND_MS): Promise<LogLine> {
  return waitFor(`the command of ${user} to finish`, () => parsed(h).find((l) => l.msg === 'command' && l.user === user), { within: timeoutMs });
}

describe('Slack Web API and response_url failures', () => {
  const h = useHarness({
    env: ROLES,
    beforeEach: (h) => {
      h.slack.setGroup('SONCALL', ['UGROUPIE']);
      h.logs.length = 0;
    },
  });

  test('views.open after the trigger expired: the user is told to run the command again, and it is logged with context', async () => {
    h.slack.on('views.open', () => ({ body: { ok: false, error: 'expired_trigger_id' } }));
    const m = await answerTo(h, 'disk add 42', { user: 'UOPER', channel: CHANNEL });
    expect(m.response_type).toBe('ephemeral');
    expect(visibleText(m)).toMatch(/Could not open the form.*Run the command again/);
    const [warn] = linesAbout(h, /could not open the modal/);
    expect(warn).toMatchObject({ level: 'warn', user: 'UOPER', channel: CHANNEL });
    expect(JSON.stringify(warn!.error)).toContain('expired_trigger_id');
    expect(h.sandbox.requests).toHaveLength(0);
  });

  test('views.open rate-limited with Retry-After: 30 does not hold the listener for 30 s, and the user is told', async () => {
    h.slack.on('views.open', () => ({ status: 429, headers: { 'retry-after': '30' }, body: { ok: false, error: 'ratelimited' } }));
    const m = await answerTo(h, 'disk add 42', { user: 'UOPER', channel: CHANNEL }, LISTENER_BOUND_MS);
    expect(visibleText(m)).toMatch(/Could not open the form/);
    // Told after one call: the 30 s were not waited out, nor was the call retried.
    expect(h.slack.callsTo('views.open')).toHaveLength(1);
    expect((await commandDone(h, 'UOPER')).outcome).toBe('failed');
    // …and a rate limit on one method does not stall everything else the bot does.
    const next = await answerTo(h, 'firewall 42', { user: 'UVIEWER' }, 3000);
    expect(next.response_type).toBe('in_channel');
  });

  test('the Web API answering HTTP 500 to everything: bounded retries, then the user is told', async () => {
    h.slack.on('views.open', () => ({ status: 500, body: { ok: false, error: 'internal_error' } }));
    const m = await answerTo(h, 'backup restore 9', { user: 'UADMIN', channel: CHANNEL }, LISTENER_BOUND_MS);
    expect(visibleText(m)).toMatch(/Could not open the form/);
    expect(h.slack.callsTo('views.open').length).toBeLessThanOrEqual(3);
  });

  test('an expired response_url (404): a failure (the answer reached nobody), logged with context, no crash, and the bot keeps answering', async () => {
    h.slack.failResponseUrl(404);
    await h.command('firewall 42', { user: 'UVIEWER', channel: CHANNEL });
    const done = await commandDone(h, 'UVIEWER');
    expect(done).toMatchObject({ outcome: 'failed', undelivered: 'expired' });
    const [warn] = linesAbout(h, /could not deliver the answer to Slack/);
    expect(warn).toMatchObject({ level: 'warn', user: 'UVIEWER', channel: CHANNEL });
    expect(JSON.stringify(warn!.error)).toMatch(/404/);
    h.slack.failResponseUrl(200);
    const next = await answerTo(h, 'firewall 42');
    expect(next.response_type).toBe('in_channel');
  });

  test("a change's result reaches the channel through chat.postMessage (to be followed in place), whatever its response_url says", async () => {
    const view = await openForm(h, 'disk add 42', 'UOPER');
    h.slack.failResponseUrl(404);
    const ack = await submit(h, 'disk_add', 'UOPER', view.private_metadata, goodDisk);
    expect(visibleText(ack.view)).toMatch(/Scheduled/);
    const posts = await h.slack.waitForCalls('chat.postMessage', 2);
    expect(posts.map((p) => p.args.channel).sort()).toEqual(['CAUDIT', CHANNEL]);
    expect(h.slack.responses).toHaveLength(0);
  });

  test('chat.postMessage refused (a private channel without the bot): the result goes out through the response_url instead, logged', async () => {
    const view = await openForm(h, 'disk add 44', 'UOPER');
    h.slack.on('chat.postMessage', () => ({ body: { ok: false, error: 'not_in_channel' } }));
    await submit(h, 'disk_add', 'UOPER', view.private_metadata, goodDisk);
    const [result] = await h.slack.waitForResponses(1);
    expect(result!.body).toMatchObject({ response_type: 'in_channel', text: expect.stringMatching(/^Add disk · bastion \(VS 44\): Scheduled/) });
    expect(JSON.stringify(linesAbout(h, /using the response_url/)[0])).toContain('not_in_channel');
  });

  test('chat.postMessage failing (ok:false) after a change: the change is recorded, the modal says scheduled, and the failure is logged', async () => {
    const view = await openForm(h, 'disk add 43', 'UOPER');
    h.slack.failResponseUrl(404);
    h.slack.on('chat.postMessage', () => ({ body: { ok: false, error: 'not_in_channel' } }));
    const ack = await submit(h, 'disk_add', 'UOPER', view.private_metadata, goodDisk);
    expect(visibleText(ack.view)).toMatch(/Scheduled/);
    expect((await h.store.audit.latest(1))[0]).toMatchObject({ outcome: 'scheduled', target: 'vs:43' });
    await waitFor('the failed result post to be logged', () => linesAbout(h, /its message could not be posted/).length > 0);
    expect(JSON.stringify(linesAbout(h, /using the response_url/)[0])).toContain('not_in_channel');
    // The audit post stays in the outbox and is retried; the refusal is logged with Slack's reason.
    await waitFor('the refused audit post to be logged', () => linesAbout(h, /Slack did not take an audit post/).length > 0);
    expect(JSON.stringify(linesAbout(h, /Slack did not take an audit post/)[0])).toContain('not_in_channel');
  });

  test('a denial at submission whose ephemeral post fails is still shown in the modal and audited', async () => {
    h.slack.on('chat.postEphemeral', () => ({ body: { ok: false, error: 'channel_not_found' } }));
    const ack = await submit(h, 'disk_add', 'UVIEWER', JSON.stringify({ channelId: CHANNEL, vsId: 42 }), goodDisk);
    expect(visibleText(ack)).toMatch(/operator/);
    expect((await h.store.audit.latest(1))[0]).toMatchObject({ outcome: 'refused', userId: 'UVIEWER' });
    expect(h.sandbox.requests).toHaveLength(0);
  });

  test('usergroups.users.list failing: group members get no role from it (fail closed), and it is logged', async () => {
    h.slack.on('usergroups.users.list', () => ({ body: { ok: false, error: 'missing_scope' } }));
    // A fresh app, so no membership is cached from earlier tests.
    const fresh = await startHarness({ env: ROLES });
    try {
      fresh.slack.on('usergroups.users.list', () => ({ body: { ok: false, error: 'missing_scope' } }));
      const m = await answerTo(fresh, 'disk add 42', { user: 'UGROUPIE', channel: CHANNEL });
      expect(m.response_type).toBe('ephemeral');
      expect(visibleText(m)).toMatch(/operator/);
      expect(fresh.slack.callsTo('views.open')).toHaveLength(0);
      expect(fresh.logs.some((l) => l.includes('could not resolve a user group') && l.includes('SONCALL'))).toBe(true);
    } finally {
      await fresh.close();
    }
  });

  test('a modal submission whose views.update fails after a slow change still records the change and posts the result', async () => {
    h.sandbox.setDelay(2300);
    try {
      const view = await openForm(h, 'disk add 44', 'UOPER');
      h.slack.on('views.update', () => ({ body: { ok: false, error: 'not_found' } }));
      const ack = await submit(h, 'disk_add', 'UOPER', view.private_metadata, goodDisk, newViewId());
      expect(visibleText(ack.view)).toMatch(/Working on it/);
      await waitFor(
        'the change to vs:44 to end',
        async () => (await h.store.audit.latest(1))[0]?.target === 'vs:44' && (await h.store.audit.latest(1))[0]?.outcome !== 'started',
        { within: 6000 },
      );
      expect((await h.store.audit.latest(1))[0]).toMatchObject({ outcome: 'scheduled' });
      await waitFor('the failed views.update to be logged', () => linesAbout(h, /could not update the modal/).length > 0, { within: 3000 });
      const result = await postedIn(h, CHANNEL, 'Add disk · bastion (VS 44)', 3000);
      expect(visibleText(result)).toMatch(/20 ?GB/);
    } finally {
      h.sandbox.setDelay(0);
    }
  });
});

describe('the Slack Web API unreachable', () => {
  // SLACK_API_URL names a front whose Web API (/api/…) drops every connection, and which passes response_urls on to
  // the stand-in: the bot posts answers only to response_urls on SLACK_API_URL's origin (or Slack's hooks), as a
  // proxy in front of Slack would have them.
  const front = useStarted(
    'a front of the stand-in whose Web API is unreachable',
    () => startCloudFaultServer({ handler: (req, res) => (req.url.startsWith('/api/') ? void res.socket?.destroy() : forward(h.slack.origin, req, res)) }),
    (started) => started.close(),
  );
  // SLACK_TEAM_ID set, as production should: the workspace served is known without asking Slack (auth.test).
  const h = useHarness({ startWith: () => ({ env: { ...ROLES, SLACK_API_URL: `${front.url}/api/`, SLACK_TEAM_ID: TEAM.id } }) });
  let answered = 0;
  /** answerTo, with the command's response_url on the front. */
  async function answerThroughFront(text: string, opts: { user: string; channel?: string }): Promise<Message> {
    const id = `front-${++answered}`;
    const res = await h.command(text, { ...opts, responseUrl: `${front.url}/response/${id}` });
    expect(res.status).toBe(200);
    return (await waitFor(`an answer to "/vs ${text}"`, () => h.slack.responses.find((r) => r.id === id), { within: LISTENER_BOUND_MS })).body;
  }

  test('opening a form fails within bounded time, the user is told through the response_url, nothing crashes', async () => {
    const m = await answerThroughFront('disk add 42', { user: 'UOPER', channel: CHANNEL });
    expect(m.response_type).toBe('ephemeral');
    expect(visibleText(m)).toMatch(/Could not open the form/);
    expect(visibleText(m)).not.toMatch(STACK_TRACE);
    expect(h.logs.some((l) => l.includes('could not open the modal') && l.includes('UOPER'))).toBe(true);
  });

  test('a submission still executes once and is recorded, though its result cannot be posted', async () => {
    const meta = JSON.stringify({ channelId: CHANNEL, vsId: 45 });
    const res = await h.interact(
      viewSubmission({
        callbackId: 'disk_add',
        viewId: newViewId(),
        user: 'UOPER',
        privateMetadata: meta,
        fields: { ...goodDisk, label: input.text('offline') },
      }),
    );
    expect(res.status).toBe(200);
    expect(visibleText(res.json())).toMatch(/Scheduled/);
    expect((await h.store.audit.latest(1))[0]).toMatchObject({ outcome: 'scheduled', target: 'vs:45' });
    expect(h.sandbox.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    // The result post fails after its bounded retries, the audit post waits in the outbox; both are logged, not thrown.
    await waitFor('the refused audit post to be logged', () => h.logs.some((l) => l.includes('Slack did not take an audit post')), {
      within: LISTENER_BOUND_MS,
    });
    await sleep(50);
    expect(h.logs.some((l) => l.includes('"level":"error"') && l.includes('unhandled'))).toBe(false);
  });

  test('read commands still answer: they need only the response_url', async () => {
    const m = await answerThroughFront('firewall 42', { user: 'UVIEWER' });
    expect(m.response_type).toBe('in_channel');
  });

  test('without SLACK_TEAM_ID the bot cannot know its workspace while auth.test is unreachable: requests are refused, and the person told', async () => {
    const unpinned = await startHarness({ env: { ...ROLES, SLACK_API_URL: `${front.url}/api/` } });
    try {
      const res = await unpinned.command('firewall 42', { user: 'UVIEWER', responseUrl: `${front.url}/response/unpinned` });
      expect(res.status).toBe(200);
      // The front passes response_urls on to the describe's own stand-in.
      const m = (await waitFor('the refusal', () => h.slack.responses.find((r) => r.id === 'unpinned'), { within: LISTENER_BOUND_MS })).body;
      expect(visibleText(m)).toMatch(/does not know yet which workspace it serves.*nothing was done\. Try again in a moment/);
      expect(unpinned.sandbox.requests).toEqual([]);
      expect(unpinned.logs.some((l) => l.includes('auth.test failed') && l.includes('set SLACK_TEAM_ID'))).toBe(true);
    } finally {
      await unpinned.close();
    }
  });
});

describe('who the bot is, learnt from auth.test', () => {
  test('a failed auth.test at start-up is tried again later, and no request waits for it', async () => {
    let answerSecond: (value: unknown) => void = () => undefined;
    const second = new Promise((resolve) => (answerSecond = resolve));
    const answers: (() => Promise<unknown>)[] = [
      () => Promise.reject(Object.assign(new Error('An HTTP protocol error occurred: statusCode = 503'), { code: 'slack_webapi_http_error' })),
      () => second,
    ];
    let calls = 0;
    const client = { auth: { test: () => answers[Math.min(calls++, answers.length - 1)]!() } } as unknown as WebClient;
    const logs: string[] = [];
    const auth = botAuthorization(client, 'xoxb-configured', createLogger({ write: (l) => logs.push(l) }));
    await auth.learn();
    expect(logs.some((l) => l.includes('auth.test failed'))).toBe(true);
    const source = { isEnterpriseInstall: false } as Parameters<typeof auth.authorize>[0];
    // Slack still down for us: the request is authorized with the configured token while auth.test is still unanswered.
    expect(await auth.authorize(source)).toEqual({ botToken: 'xoxb-configured' });
    expect(calls).toBe(2);
    answerSecond({ ok: true, user_id: 'UBOT', bot_id: 'BBOT' });
    await auth.learn();
    expect(await auth.authorize(source)).toEqual({ botToken: 'xoxb-configured', botUserId: 'UBOT', botId: 'BBOT' });
    expect(calls).toBe(2);
    await auth.authorize(source);
    expect(calls).toBe(2);
  });
});
