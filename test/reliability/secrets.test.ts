import { inspect } from 'node:util';
import { CHANGES } from '../../src/changes/definitions';
import { API_KEY, BOT_TOKEN, SIGNING_SECRET, useHarnessBehindFaults } from '../helpers/app-harness';
import { answerTo, CHANNEL, goodDisk, openForm, sleep, submit } from '../helpers/drive';
import * as faults from '../helpers/cloud-fault-server';

// With LOG_LEVEL=debug and the faults of the other reliability tests, no
// API key, bot token or signing secret shows up anywhere a person or a log
// pipeline could read it: logs, Slack messages and modals, audit records,
// errors (serialised, inspected, with their causes).

describe('secrets stay secret under faults', () => {
  // What the faults expose is gathered once, before the tests read it: nothing is reset between them.
  const { h, fault: cloud } = useHarnessBehindFaults({
    env: { VS_API_TIMEOUT_MS: '600', VS_OPERATORS: 'UOPER', VS_ADMINS: 'UADMIN', VS_AUDIT_CHANNEL: 'CAUDIT', LOG_LEVEL: 'debug' },
    reset: false,
  });
  let secrets: string[];
  const thrown: unknown[] = [];

  beforeAll(async () => {
    const credentials = Buffer.from(`${h.config.cloud.accountId}:${API_KEY}`).toString('base64');
    secrets = [API_KEY, credentials, BOT_TOKEN, SIGNING_SECRET];

    // A hostile or broken upstream that echoes the request's credentials back in its answers.
    const echo =
      (status: number): faults.FaultHandler =>
      (req, res) => {
        const text = JSON.stringify({ errors: [`bad credentials: ${req.headers.authorization} (key ${API_KEY})`], disk_size: [`${API_KEY}`] });
        res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) });
        res.end(text);
      };
    const cloudFaults: faults.FaultHandler[] = [
      faults.hang,
      faults.resetMidBody,
      faults.resetBeforeAnswer,
      faults.garbageJson,
      faults.htmlErrorPage(502),
      faults.rateLimited(120),
      faults.huge(8 * 1024 * 1024, false),
      echo(401),
      echo(403),
      echo(422),
      echo(500),
    ];
    for (const fault of cloudFaults) {
      cloud.handle(fault);
      await answerTo(h, 'firewall 42', { user: 'UOPER' });
      const view = await openForm(h, 'disk add 43', 'UOPER');
      await submit(h, 'disk_add', 'UOPER', view.private_metadata, goodDisk);
      // The client itself, called directly: what it throws is what any caller could log.
      await h.cloud.listAutoscaling(42).catch((e: unknown) => thrown.push(e));
      await h.cloud.send(CHANGES.disk_add.request.prepare(h.cloud.format, 42, { disk_type: 'SSD', disk_size: 1 })).catch((e: unknown) => thrown.push(e));
    }
    await cloud.refuse();
    await answerTo(h, 'firewall 42');
    await h.cloud.listFirewallRules(42).catch((e: unknown) => thrown.push(e));
    await cloud.accept();
    cloud.heal();

    // Slack failing too.
    h.slack.on('views.open', () => ({ status: 429, headers: { 'retry-after': '30' }, body: { ok: false, error: 'ratelimited' } }));
    await answerTo(h, 'backup restore 9', { user: 'UADMIN' });
    h.slack.on('views.open', () => ({ body: { ok: false, error: 'invalid_auth' } }));
    await answerTo(h, 'disk add 42', { user: 'UOPER' });
    h.slack.on('chat.postMessage', () => ({ status: 500, body: { ok: false } }));
    h.slack.failResponseUrl(404);
    const view = await submit(h, 'disk_add', 'UOPER', JSON.stringify({ channelId: CHANNEL, vsId: 44 }), goodDisk);
    expect(view.response_action).toBe('update');
    h.slack.failResponseUrl(200);
    await h.raw('payload=null', 'application/x-www-form-urlencoded');
    await h.raw('payload=%7B', 'application/x-www-form-urlencoded', { signature: 'v0=forged' });
    await sleep(1500);
  }, 60_000);

  const leaks = (text: string) => secrets.filter((s) => text.includes(s));

  test('the faults really happened and were logged at debug level', () => {
    expect(cloud.faulted).toBeGreaterThan(20);
    expect(h.logs.some((l) => l.includes('"level":"debug"'))).toBe(true);
    expect(h.logs.length).toBeGreaterThan(100);
    expect(thrown.length).toBeGreaterThan(15);
  });

  test('no secret in any log line', () => {
    expect(leaks(h.logs.join('\n'))).toEqual([]);
  });

  test('no capability in any log line: response_urls, trigger_ids, private_metadata', () => {
    const all = h.logs.join('\n');
    const responseUrlPrefix = h.slack.responseUrl('x').slice(0, -1);
    const metadata = JSON.stringify({ channelId: CHANNEL, vsId: 44 });
    for (const capability of [responseUrlPrefix, 'trigger.', metadata, JSON.stringify(metadata).slice(1, -1)]) expect(all).not.toContain(capability);
  });

  test('no secret in anything sent to Slack (Web API arguments, response_url posts, modals)', () => {
    expect(leaks(JSON.stringify(h.slack.calls.map((c) => c.args)))).toEqual([]);
    expect(leaks(JSON.stringify(h.slack.responses))).toEqual([]);
  });

  test('the bot token is sent only where it belongs: the Authorization header of Web API calls', () => {
    expect(h.slack.calls.length).toBeGreaterThan(0);
    expect(h.slack.calls.every((c) => c.token === BOT_TOKEN && !JSON.stringify(c.args).includes(BOT_TOKEN))).toBe(true);
  });

  test('no secret in the audit trail', async () => {
    const records = await h.store.audit.latest(200);
    expect(records.length).toBeGreaterThan(10);
    expect(leaks(JSON.stringify(records))).toEqual([]);
  });

  test('no secret in thrown errors, however they are printed', () => {
    for (const error of thrown) {
      const e = error as Error;
      const views = [
        String(e),
        e.message,
        e.stack ?? '',
        JSON.stringify(e),
        inspect(e, { depth: 10, showHidden: true }),
        inspect(e.cause, { depth: 10, showHidden: true }),
      ];
      expect(leaks(views.join('\n'))).toEqual([]);
    }
  });

  test('an upstream echoing the credentials cannot make the bot repeat them to the user', () => {
    const shown = JSON.stringify(h.slack.responses);
    expect(shown).toMatch(/REDACTED|refused|rejected/);
    expect(shown).toContain('Basic [REDACTED]');
    expect(shown).not.toMatch(/Basic (?!\[REDACTED\])/);
  });
});
