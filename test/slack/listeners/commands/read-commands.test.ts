import { API_KEY, BOT_TOKEN, SIGNING_SECRET, startHarness, useHarness, useHarnessBehindFaults, type Harness } from '../../../helpers/app-harness';
import { closedPortUrl, reply } from '../../../helpers/cloud-fault-server';
import { answerTo as answer } from '../../../helpers/drive';
import { buttonClick } from '../../../helpers/payloads';

type Message = {
  response_type?: string;
  replace_original?: boolean;
  text?: string;
  blocks?: { type: string; text?: { text?: string }; elements?: { text?: string | { text?: string }; action_id?: string; value?: string }[] }[];
};

/** All visible text of a message, for "the user can read X" assertions. */
function visibleText(m: Message): string {
  return JSON.stringify(m.blocks ?? []) + '\n' + (m.text ?? '');
}

const answerTo = async (h: Harness, text: string, opts: Parameters<Harness['command']>[1] = {}): Promise<Message> => (await answer(h, text, opts)) as Message;

describe('/vs read commands over the real Bolt app', () => {
  const h = useHarness({
    beforeEach: (h) => {
      h.sandbox.setDelay(0);
    },
  });

  test('firewall posts the rules of the server in the channel', async () => {
    const m = await answerTo(h, 'firewall 42');
    expect(m.response_type).toBe('in_channel');
    expect(m.blocks!.length).toBeGreaterThan(1);
    expect(m.blocks!.length).toBeLessThanOrEqual(50);
    const text = visibleText(m);
    expect(text).toContain('VS 42');
    expect(text).toContain('443');
    expect(text).toMatch(/ACCEPT/);
    expect(text).toMatch(/DROP/);
    expect(h.sandbox.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /virtual_machines/42/firewall_rules.json']);
  });

  test('API text is escaped, so a rule description cannot fake markup', async () => {
    const m = await answerTo(h, 'firewall 42');
    const text = visibleText(m);
    expect(text).not.toContain('<public>');
    expect(text).toContain('&lt;public&gt;');
  });

  test('a server without rules says so', async () => {
    const m = await answerTo(h, 'firewall 43');
    expect(m.response_type).toBe('in_channel');
    expect(visibleText(m)).toMatch(/no firewall rules/i);
  });

  test('an unknown server gets "VS N was not found", only for the user', async () => {
    const m = await answerTo(h, 'firewall 999');
    expect(m.response_type).toBe('ephemeral');
    expect(visibleText(m)).toContain('VS 999 was not found');
  });

  test('a typo in a server id is an info line without a stack trace, not a warning', async () => {
    h.logs.length = 0;
    await answerTo(h, 'firewall 998', { user: 'UTYPO' });
    await new Promise((r) => setTimeout(r, 50));
    const records = h.logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((r) => r.user === 'UTYPO');
    const line = records.find((r) => r.kind === 'not_found');
    expect(line).toMatchObject({ level: 'info', user: 'UTYPO', kind: 'not_found', status: 404 });
    expect(records.filter((r) => r.level === 'warn' || r.level === 'error')).toEqual([]);
    expect(h.logs.join('\n')).not.toMatch(/"stack"|\n\s+at /);
  });

  test.each(['firewall 0', 'firewall -3', 'firewall 4.2', 'autoscaling', 'disk add 1e3'])('"/vs %s" gets a clear error and makes no API call', async (text) => {
    const m = await answerTo(h, text);
    expect(m.response_type).toBe('ephemeral');
    expect(visibleText(m)).toMatch(/id|usage|\/vs/i);
    expect(h.sandbox.requests).toHaveLength(0);
  });

  test.each(['firewall abc', 'autoscaling web-9'])('"/vs %s" names no server: said so, and nothing but the server list is read', async (text) => {
    const m = await answerTo(h, text);
    expect(m.response_type).toBe('ephemeral');
    expect(visibleText(m)).toContain(`No server is named ${text.split(' ').pop()!}`);
    expect(h.sandbox.requests.every((r) => r.method === 'GET' && /^\/virtual_machines\.(json|xml)$/.test(r.path))).toBe(true);
  });

  test('a mistyped command suggests the closest valid one', async () => {
    const m = await answerTo(h, 'firewal 42');
    expect(m.response_type).toBe('ephemeral');
    expect(visibleText(m)).toContain('/vs firewall 42');
    expect(h.sandbox.requests).toHaveLength(0);
  });

  test('help and an empty command show the usage, only to the user', async () => {
    for (const text of ['help', '']) {
      const m = await answerTo(h, text);
      expect(m.response_type).toBe('ephemeral');
      expect(visibleText(m)).toContain('/vs firewall');
      expect(visibleText(m)).toContain('/vs backup restore');
    }
  });

  test('autoscaling (and its alias as) describes the six slots in words', async () => {
    for (const text of ['autoscaling 42', 'as 42']) {
      const m = await answerTo(h, text);
      expect(m.response_type).toBe('in_channel');
      const t = visibleText(m);
      expect(t).toMatch(/Memory/);
      expect(t).toMatch(/CPU/);
      expect(t).toMatch(/Disk/);
      expect(t).toMatch(/not configured/);
      expect(t).toMatch(/%/);
    }
  });

  test('templates filters the catalogue by text', async () => {
    const m = await answerTo(h, 'templates windows');
    const t = visibleText(m);
    expect(t).toMatch(/Windows 2012/);
    expect(t).not.toMatch(/CentOS/);
    expect(h.sandbox.requests).toHaveLength(0);
  });

  test('whoami tells an unconfigured workspace that nobody can change anything', async () => {
    const m = await answerTo(h, 'whoami', { user: 'UANYONE' });
    expect(m.response_type).toBe('ephemeral');
    const t = visibleText(m);
    expect(t).toMatch(/viewer/);
    expect(t).toMatch(/nobody/i);
  });

  test('a 300-rule server pages 20 at a time; Next in the channel shows the next page to the clicker alone', async () => {
    const first = await answerTo(h, 'firewall 45');
    expect(first.blocks!.length).toBeLessThanOrEqual(50);
    expect(visibleText(first)).toMatch(/1.20 of 300/);
    const next = first.blocks!.flatMap((b) => b.elements ?? []).find((e) => e.action_id === 'firewall_page_next');
    expect(next).toBeDefined();
    const responseUrl = h.slack.responseUrl('page');
    const res = await h.interact(buttonClick({ user: 'UVIEWER', channel: 'CINCIDENT', actionId: 'firewall_page_next', value: next!.value!, responseUrl }));
    expect(res.status).toBe(200);
    const [, page2] = await h.slack.waitForResponses(2);
    const body = page2!.body as Message;
    expect(page2!.id).toBe('page');
    expect(body).toMatchObject({ response_type: 'ephemeral', replace_original: false });
    expect(visibleText(body)).toMatch(/21.40 of 300/);
    // The page is fetched again: never a stale page.
    expect(h.sandbox.requests.filter((r) => r.path.includes('/45/'))).toHaveLength(2);
  });

  test('a slow cloud API does not delay the ack', async () => {
    h.sandbox.setDelay(1500);
    const res = await h.command('firewall 42');
    expect(res.status).toBe(200);
    expect(h.slack.responses).toHaveLength(0); // acked before the answer exists
    const [m] = await h.slack.waitForResponses(1, 5000);
    expect((m!.body as Message).response_type).toBe('in_channel');
  });

  test('people asking about the same server at once share one API request, and each gets the whole answer', async () => {
    h.sandbox.setDelay(300);
    const asks = [
      ...Array.from({ length: 12 }, (_, i) => ({ text: 'firewall 45', user: `UASK${i}` })),
      { text: 'autoscaling 42', user: 'UASK12' },
      { text: 'autoscaling 42', user: 'UASK13' },
    ];
    const acks = await Promise.all(asks.map((ask) => h.command(ask.text, { user: ask.user })));
    expect(acks.every((a) => a.status === 200)).toBe(true);
    const posts = await h.slack.waitForResponses(asks.length, 5000);
    expect(h.sandbox.requests.map((r) => `${r.method} ${r.path}`).sort()).toEqual([
      'GET /virtual_machines/42/auto_scaling.json',
      'GET /virtual_machines/45/firewall_rules.json',
    ]);
    const byUrl = new Map(posts.map((p) => [p.id, p.body as Message]));
    const firewall = acks.slice(0, 12).map((a) => byUrl.get(a.responseUrl.split('/response/')[1]!));
    for (const m of firewall) {
      expect(m?.response_type).toBe('in_channel');
      expect(visibleText(m!)).toContain('VS 45');
      expect(visibleText(m!)).toContain('rules 1–20 of 300');
    }
    // One answer, one page: the same blocks for everyone, "fetched at" included.
    for (const m of firewall) expect(m!.blocks).toEqual(firewall[0]!.blocks);
    const autoscaling = acks.slice(12).map((a) => byUrl.get(a.responseUrl.split('/response/')[1]!));
    for (const m of autoscaling) expect(visibleText(m!)).toContain('VS 42');
  });

  test('a timeout tells the user the API did not answer, and the bot keeps serving', async () => {
    h.sandbox.setDelay(3500); // above VS_API_TIMEOUT_MS=3000
    const m = await answerTo(h, 'firewall 42');
    expect(m.response_type).toBe('ephemeral');
    expect(visibleText(m)).toMatch(/did not answer within 3 s/);
    h.sandbox.setDelay(0);
    const again = await answerTo(h, 'firewall 44');
    expect(again.response_type).toBe('in_channel');
  });

  test('one log line per command names user, channel, subcommand, outcome and duration; no secret anywhere', async () => {
    await answerTo(h, 'firewall 42', { user: 'ULOGGED', channel: 'CLOGGED' });
    await new Promise((r) => setTimeout(r, 50));
    const line = h.logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((r) => r.msg === 'command' && r.user === 'ULOGGED');
    expect(line).toMatchObject({ channel: 'CLOGGED', subcommand: 'firewall', outcome: 'succeeded' });
    expect(typeof line!.ms).toBe('number');
    const all = h.logs.join('\n') + JSON.stringify(h.slack.calls) + JSON.stringify(h.slack.responses);
    for (const secret of [BOT_TOKEN, SIGNING_SECRET, API_KEY]) expect(all).not.toContain(secret);
  });
});

describe('request verification', () => {
  const h = useHarness();

  test.each([
    ['unsigned', { unsigned: true }],
    ['forged', { signature: 'v0=' + '0'.repeat(64) }],
    ['stale (replayed ten minutes later)', { timestamp: Math.floor(Date.now() / 1000) - 600 }],
  ])('a %s request is refused with 401 and calls nothing', async (_name, opts) => {
    h.sandbox.reset();
    h.slack.reset();
    const res = await h.command('firewall 42', opts);
    expect(res.status).toBe(401);
    await new Promise((r) => setTimeout(r, 100));
    expect(h.sandbox.requests).toHaveLength(0);
    expect(h.slack.responses).toHaveLength(0);
  });

  test('GET /healthz answers ok', async () => {
    const res = await fetch(h.eventsUrl.replace('/slack/events', '/healthz'));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'ok' });
  });
});

describe('presentation settings', () => {
  test('VS_RESPONSE_VISIBILITY=ephemeral keeps summaries to the user, and XML works like JSON', async () => {
    const h = await startHarness({ env: { VS_RESPONSE_VISIBILITY: 'ephemeral', VS_API_FORMAT: 'xml' } });
    try {
      const m = await answerTo(h, 'firewall 42');
      expect(m.response_type).toBe('ephemeral');
      expect(visibleText(m)).toContain('443');
      expect(h.sandbox.requests[0]!.path).toBe('/virtual_machines/42/firewall_rules.xml');
    } finally {
      await h.close();
    }
  });

  test('on the sandbox every summary says it is not a real cloud account', async () => {
    const h = await startHarness({ sandbox: true });
    try {
      const m = await answerTo(h, 'autoscaling 42');
      const notices = (msg: Message) => JSON.stringify(msg.blocks).match(/sandbox data/gi) ?? [];
      expect(notices(m)).toHaveLength(1);
      // Errors and usage too: nothing the bot posts on the sandbox goes unmarked, and nothing twice.
      for (const text of ['firewall 999', 'firewal 42', 'help']) expect(notices(await answerTo(h, text))).toHaveLength(1);
    } finally {
      await h.close();
    }
  });
});

describe('errors of the cloud API reach the user as docs/product.md words them', () => {
  const { h, fault } = useHarnessBehindFaults();

  test.each([
    ['401', (res: import('node:http').ServerResponse) => reply(res, 401, '{"error":"Unauthorized"}'), /refused the request.*API key/],
    ['403', (res: import('node:http').ServerResponse) => reply(res, 403, '{"errors":["Access denied"]}'), /refused the request/],
    [
      '500 with an HTML page',
      (res: import('node:http').ServerResponse) => reply(res, 500, '<html><body><h1>Internal Server Error</h1><pre>stack at foo.rb:12</pre></body></html>'),
      /cloud API failed/,
    ],
    ['garbage', (res: import('node:http').ServerResponse) => reply(res, 200, '{"firewall_rule": [tru'), /cloud API failed/],
  ])('%s', async (_name, handler, expected) => {
    fault.handle((_req, res) => handler(res));
    const m = await answerTo(h, 'firewall 42');
    expect(m.response_type).toBe('ephemeral');
    expect(visibleText(m)).toMatch(expected);
    expect(visibleText(m)).not.toMatch(/stack|foo\.rb/);
  });

  test('connection refused', async () => {
    const refusing = await startHarness({ cloudUrl: await closedPortUrl() });
    try {
      const m = await answerTo(refusing, 'firewall 42');
      expect(visibleText(m)).toMatch(/did not answer within 3 s/);
    } finally {
      await refusing.close();
    }
  });
});
