import { request as httpRequest } from 'node:http';
import fc from 'fast-check';
import { decodeResponse, parseErrorBody } from '../../src/cloud/codec';
import { Responses } from '../../src/cloud/shapes';
import { READS } from '../../src/cloud/reads';
import { CloudError } from '../../src/cloud/errors';
import { SIGNING_SECRET, useHarness, type Harness } from '../helpers/app-harness';
import { answerTo, CHANNEL, goodDisk, newViewId, reactionTo, sleep, STACK_TRACE, visibleText } from '../helpers/drive';
import { buttonClick, FORM, globalShortcut, input, interactiveBody, slashCommandBody, viewSubmission, type StateValue } from '../helpers/payloads';
import { sign } from '../helpers/signed-requests';

// What an attacker, a buggy proxy or a confused client can send: signed but
// malformed payloads, unsigned, forged and replayed ones, arbitrary text. The
// answer is 200 or 4xx, the process survives (the run fails on any unhandled
// rejection), nothing reaches the cloud API, and the bot keeps serving.

const ROLES = { VS_ADMINS: 'UADMIN', VS_OPERATORS: 'UOPER' };

const cloudCalls = (h: Harness) => h.sandbox.requests.length;
/** An add-disk form for VS `vsId`, submitted by `user` from the incident channel. */
const diskSubmission = (user: string, vsId = 42, fields: Record<string, StateValue> = goodDisk) =>
  viewSubmission({ callbackId: 'disk_add', viewId: newViewId(), user, privateMetadata: JSON.stringify({ channelId: CHANNEL, vsId }), fields });
const cloudChanges = (h: Harness) => h.sandbox.requests.filter((r) => r.method === 'POST').length;

// One bot for the file: what one hostile request leaves behind must not matter to the next.
const h = useHarness({ env: ROLES });

describe('hostile and malformed requests to /slack/events', () => {
  afterEach(async () => {
    // Whatever came before, the bot still answers a normal command.
    const m = await answerTo(h, 'firewall 42');
    expect(m.response_type).toBe('in_channel');
  });

  const submissionOf = (over: Record<string, unknown>) => ({ ...diskSubmission('UOPER'), ...over });
  const viewOf = (over: Record<string, unknown>) => {
    const s = submissionOf({});
    return { ...s, view: { ...s.view, ...over } };
  };

  const signedMalformed: [string, string, string][] = [
    ['payload that is not JSON', 'payload=%7Bnot%20json', FORM],
    ['payload that is a JSON array', interactiveBody([1, 2, 3]), FORM],
    ['payload that is a JSON string', interactiveBody('view_submission'), FORM],
    ['payload that is JSON null', 'payload=null', FORM],
    ['payload that is a number', 'payload=42', FORM],
    ['an empty form body', '', FORM],
    ['a form body with neither command nor payload', 'hello=world&x=1', FORM],
    ['a JSON body that is not an object', '[1,2,3]', 'application/json'],
    ['a JSON body that is a string', '"url_verification"', 'application/json'],
    ['a JSON body that does not parse', '{"type":', 'application/json'],
    ['a url_verification challenge', JSON.stringify({ type: 'url_verification', challenge: 'abc' }), 'application/json'],
    ['an event callback of an unknown kind', JSON.stringify({ type: 'event_callback', team_id: 'T1', event: { type: 'strange_event' } }), 'application/json'],
    ['a body of an odd content type', '<xml/>', 'text/xml'],
    ['a view_submission without a view', interactiveBody({ ...submissionOf({}), view: undefined }), FORM],
    ['a view_submission without a user', interactiveBody({ ...submissionOf({}), user: undefined }), FORM],
    ['a view_submission whose user is a string', interactiveBody(submissionOf({ user: 'UOPER' })), FORM],
    ['a view_submission whose state is a string', interactiveBody(viewOf({ state: 'values' })), FORM],
    ['a view_submission whose state values are numbers', interactiveBody(viewOf({ state: { values: { disk_size: 5, disk_type: [1] } } })), FORM],
    ['a view_submission with metadata that is not JSON', interactiveBody(viewOf({ private_metadata: '{"vsId":' })), FORM],
    [
      'a view_submission with metadata naming a negative server',
      interactiveBody(viewOf({ private_metadata: JSON.stringify({ vsId: -4, channelId: CHANNEL }) })),
      FORM,
    ],
    ['a view_submission with an unknown callback id', interactiveBody(viewOf({ callback_id: 'drop_database' })), FORM],
    [
      'a block action with an unknown action id',
      interactiveBody({ ...buttonClick({ user: 'UOPER', channel: CHANNEL, actionId: 'delete_server', value: '42', responseUrl: 'http://127.0.0.1:1/x' }) }),
      FORM,
    ],
    [
      'a block action with no actions',
      interactiveBody({
        ...buttonClick({ user: 'UOPER', channel: CHANNEL, actionId: 'firewall_page_next', value: '42', responseUrl: 'http://127.0.0.1:1/x' }),
        actions: [],
      }),
      FORM,
    ],
    [
      'a firewall page button whose value is garbage',
      interactiveBody(
        buttonClick({ user: 'UOPER', channel: CHANNEL, actionId: 'firewall_page_next', value: '{"vs":"42; DROP TABLE"}', responseUrl: 'http://127.0.0.1:1/x' }),
      ),
      FORM,
    ],
    ['a shortcut with an unknown callback id', interactiveBody(globalShortcut({ user: 'UOPER', callbackId: 'rm_rf' })), FORM],
    ['a shortcut without a user', interactiveBody({ ...globalShortcut({ user: 'UOPER', callbackId: 'disk_add_shortcut' }), user: undefined }), FORM],
    ['an interactive payload of an unknown type', interactiveBody({ type: 'workflow_step_edit', user: { id: 'UOPER' } }), FORM],
    ['a slash command without user, channel or text', new URLSearchParams({ command: '/vs', team_id: 'T1' }).toString(), FORM],
    ['a slash command of another app', slashCommandBody({ text: 'disk add 42', command: '/rm', user: 'UOPER', responseUrl: 'http://127.0.0.1:1/x' }), FORM],
    [
      'a slash command whose response_url points elsewhere',
      slashCommandBody({ text: 'help', user: 'UOPER', responseUrl: 'http://169.254.169.254/latest/meta-data' }),
      FORM,
    ],
  ];

  /** Refused by the guard with 400 before Bolt reads them (they cannot come from Slack), and logged. */
  const refusedByTheGuard = new Set([
    'payload that is not JSON',
    'payload that is JSON null',
    'payload that is a JSON array',
    'a view_submission without a view',
    'a view_submission without a user',
    'a JSON body that is not an object',
  ]);
  /** Well-formed, but no listener takes them: Bolt answers them only after its 3 s wait, so they are sent together. */
  const takenByNoListener = new Set([
    'a view_submission with an unknown callback id',
    'a block action with an unknown action id',
    'a block action with no actions',
    'a shortcut with an unknown callback id',
    'an interactive payload of an unknown type',
    'a slash command of another app',
  ]);
  const answeredAtOnce = signedMalformed.filter(([name]) => !takenByNoListener.has(name));

  /** Nothing of a malformed request reached the cloud API or opened a form. */
  const expectNothingDone = async () => {
    await sleep(20);
    expect(cloudCalls(h)).toBe(0);
    expect(h.slack.callsTo('views.open')).toHaveLength(0);
  };

  test.each(answeredAtOnce)('signed but malformed: %s → 200 or 4xx, no stack trace, nothing called or opened', async (name, body, contentType) => {
    const res = await h.raw(body, contentType);
    if (refusedByTheGuard.has(name)) {
      expect(res.status).toBe(400);
      expect(h.logs.some((l) => l.includes('refused a malformed request'))).toBe(true);
    } else {
      expect(res.status).toBeGreaterThanOrEqual(200);
      expect(res.status).toBeLessThan(500);
    }
    expect(res.body).not.toMatch(STACK_TRACE);
    await expectNothingDone();
  });

  test('signed, well-formed, but taken by no listener (unknown callback and action ids, another app’s command) → 4xx, nothing called or opened', async () => {
    const sent = signedMalformed.filter(([name]) => takenByNoListener.has(name));
    const answers = await Promise.all(sent.map(async ([name, body, contentType]) => ({ name, res: await h.raw(body, contentType) })));
    for (const { name, res } of answers) {
      expect([name, res.status >= 200 && res.status < 500]).toEqual([name, true]);
      expect(res.body).not.toMatch(STACK_TRACE);
    }
    await expectNothingDone();
  });

  test('a submission with the wrong types in the form is refused on the fields and changes nothing', async () => {
    const weird = {
      disk_type: input.select('NVMe; rm -rf /'),
      disk_size: input.number('1e9'),
      label: input.text('\u0000\u202e\u{1F4A5}'),
      mount_point: input.text('../../etc'),
    };
    const res = await h.interact(diskSubmission('UOPER', 42, weird));
    expect(res.status).toBe(200);
    expect((res.json() as { response_action: string }).response_action).toBe('errors');
    expect(cloudChanges(h)).toBe(0);
    expect((await h.store.audit.latest(1))[0]).toMatchObject({ outcome: 'refused' });
  });

  test('100 KB of command text gets a short usage answer and no cloud call', async () => {
    const m = await answerTo(h, 'firewall ' + 'x'.repeat(100 * 1024));
    expect(m.response_type).toBe('ephemeral');
    expect(JSON.stringify(m).length).toBeLessThan(12_000);
    expect(cloudCalls(h)).toBe(0);
  });

  test.each([
    ['control characters', 'firewall \u0000\u0007\u001b[31m42'],
    ['right-to-left override', 'disk add \u202e24'],
    ['full-width digits', 'firewall \uff14\uff12'],
    ['Arabic-Indic digits', 'firewall \u0664\u0662'],
    ['emoji and combining marks', 'fire\u0301wall 🔥42'],
    ['a lone surrogate', 'firewall \ud800'],
    ['Slack markup injection', 'firewall <!everyone> <@U123> *42*'],
    ['zero-width joiners', 'disk\u200badd 42'],
  ])('%s: an ephemeral answer, no markup echoed raw, no cloud call', async (_name, text) => {
    const m = await answerTo(h, text, { user: 'UOPER' });
    expect(m.response_type).toBe('ephemeral');
    expect(visibleText(m)).not.toMatch(STACK_TRACE);
    expect(visibleText(m)).not.toContain('<!everyone>');
    expect(cloudCalls(h)).toBe(0);
    expect(h.slack.callsTo('views.open')).toHaveLength(0);
  });

  describe('requests not signed by Slack', () => {
    const body = () => slashCommandBody({ text: 'disk add 42', user: 'UOPER', channel: CHANNEL, responseUrl: h.slack.responseUrl() });

    test.each([
      ['unsigned', { unsigned: true }],
      ['signed with another secret', { signature: sign('not-the-secret', Math.floor(Date.now() / 1000), 'x') }],
      ['a malformed signature', { signature: 'v0=zz' }],
      ['a signature of another version', { signature: 'v1=' + 'a'.repeat(64) }],
      ['replayed 10 minutes later', { timestamp: Math.floor(Date.now() / 1000) - 600 }],
      ['signed 10 minutes in the future', { timestamp: Math.floor(Date.now() / 1000) + 600 }],
      ['signed 5 minutes and 30 seconds in the future', { timestamp: Math.floor(Date.now() / 1000) + 330 }],
    ])('%s → 401, nothing runs, nothing is called', async (_name, opts) => {
      const res = await h.raw(body(), FORM, opts);
      expect(res.status).toBe(401);
      await sleep(50);
      expect(h.slack.calls).toHaveLength(0);
      expect(h.slack.responses).toHaveLength(0);
      expect(cloudCalls(h)).toBe(0);
    });

    test('a clock up to 4 minutes ahead of ours is still accepted', async () => {
      const m = await answerTo(h, 'firewall 42', { timestamp: Math.floor(Date.now() / 1000) + 240 });
      expect(m.response_type).toBe('in_channel');
    });

    test('a forged request is refused for its signature before its body is parsed: 401, not 400, and no JSON.parse', async () => {
      const deep = '['.repeat(100_000) + ']'.repeat(100_000);
      const parse = jest.spyOn(JSON, 'parse');
      try {
        for (const payload of [deep, '{"type":', 'null']) {
          const res = await h.raw(`payload=${encodeURIComponent(payload)}`, FORM, { signature: 'v0=' + 'f'.repeat(64) });
          expect(res.status).toBe(401);
        }
        const json = await h.raw(deep, 'application/json', { signature: 'v0=' + 'f'.repeat(64) });
        expect(json.status).toBe(401);
        // Only the forged bodies count: the process parses its own JSON meanwhile (the Web API's answers, undici's options).
        const forged = new Set([deep, '{"type":', 'null']);
        expect(parse.mock.calls.filter(([text]) => forged.has(text))).toEqual([]);
      } finally {
        parse.mockRestore();
      }
    });

    test('a body announced larger than 1 MB is refused with 413 before it is sent', async () => {
      const res = await new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
        const req = httpRequest(
          h.eventsUrl,
          {
            method: 'POST',
            headers: {
              'content-type': FORM,
              'content-length': String(50 * 1024 * 1024),
              'x-slack-request-timestamp': String(Math.floor(Date.now() / 1000)),
              'x-slack-signature': 'v0=' + 'a'.repeat(64),
            },
          },
          (r) => {
            r.resume();
            resolve({ status: r.statusCode ?? 0, connection: r.headers.connection });
          },
        );
        req.on('error', reject);
        // Headers only: the answer must come without a byte of the body.
        req.flushHeaders();
        setTimeout(() => reject(new Error('no answer without the body')), 8000).unref();
      });
      expect(res).toEqual({ status: 413, connection: 'close' });
    });

    test('a chunked body that grows past 1 MB is refused with 413 once the bound is reached', async () => {
      const res = await new Promise<number>((resolve, reject) => {
        const req = httpRequest(
          h.eventsUrl,
          {
            method: 'POST',
            headers: { 'content-type': FORM, 'x-slack-request-timestamp': String(Math.floor(Date.now() / 1000)), 'x-slack-signature': 'v0=' + 'a'.repeat(64) },
          },
          (r) => {
            r.resume();
            resolve(r.statusCode ?? 0);
          },
        );
        req.on('error', () => undefined);
        // Just past the bound, then nothing more and no end: the refusal must come once the bound is reached, not at the
        // body's end. Writing on while the server closes would make its kernel reset the connection before the client
        // has read the answer (bytes left unread at close), a race a loaded machine loses.
        const chunk = Buffer.alloc(64 * 1024, 'a');
        const chunks = 1024 / 64 + 1;
        let sent = 0;
        const pump = () => {
          while (sent < chunks && req.write(chunk)) sent += 1;
          if (sent < chunks) req.once('drain', pump);
        };
        pump();
        setTimeout(() => reject(new Error('no answer')), 8000).unref();
      });
      expect(res).toBe(413);
    });

    test('an unsigned ssl_check from Slack is still answered 200', async () => {
      const res = await h.raw('ssl_check=1&token=legacy', FORM, { unsigned: true });
      expect(res.status).toBe(200);
    });

    test('a body changed after signing → 401', async () => {
      const original = body();
      const ts = Math.floor(Date.now() / 1000);
      const tampered = original.replace('UOPER', 'UADMIN');
      const res = await h.raw(tampered, FORM, { signature: sign(SIGNING_SECRET, ts, original), timestamp: ts });
      expect(res.status).toBe(401);
    });

    test('a forged view_submission (valid payload, wrong signature) changes nothing', async () => {
      const payload = interactiveBody(diskSubmission('UADMIN'));
      const res = await h.raw(payload, FORM, { signature: 'v0=' + '0'.repeat(64) });
      expect(res.status).toBe(401);
      await sleep(50);
      expect(cloudChanges(h)).toBe(0);
      expect((await h.store.audit.latest(5)).filter((r) => r.userId === 'UADMIN')).toHaveLength(0);
    });
  });

  test('a signed submission replayed within the signature window executes once', async () => {
    const body = interactiveBody(diskSubmission('UOPER', 43));
    const ts = Math.floor(Date.now() / 1000);
    const signature = sign(SIGNING_SECRET, ts, body);
    const answers = await Promise.all([0, 1, 2].map(() => h.raw(body, FORM, { signature, timestamp: ts })));
    await h.raw(body, FORM, { signature, timestamp: ts });
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    await sleep(100);
    expect(cloudChanges(h)).toBe(1);
  });
});

describe('properties over arbitrary input', () => {
  test('any command text, from anyone: exactly one answer, no stack trace, never a change', async () => {
    const text = fc.oneof(
      fc.string({ maxLength: 200, unit: 'binary' }),
      fc.string({ maxLength: 200, unit: 'grapheme' }),
      fc
        .tuple(
          fc.constantFrom('firewall', 'as', 'autoscaling', 'templates', 'disk add', 'backup restore', 'audit', 'whoami', 'help', 'disk', 'backup'),
          fc.oneof(fc.integer({ min: -5, max: 1e6 }).map(String), fc.string({ maxLength: 30 })),
        )
        .map(([a, b]) => `${a} ${b}`),
    );
    const user = fc.constantFrom('UADMIN', 'UOPER', 'UVIEWER', 'W123', '', 'U<@x>');
    await fc.assert(
      fc.asyncProperty(text, user, async (t, u) => {
        const before = h.sandbox.requests.length;
        const { message: m = {}, modal } = await reactionTo(h, t, { user: u, channel: CHANNEL });
        // A form opens only for the roles that may use it.
        if (modal) expect(['UADMIN', 'UOPER']).toContain(u);
        else expect(['ephemeral', 'in_channel']).toContain(m.response_type);
        expect(JSON.stringify(m).length).toBeLessThan(40_000);
        expect((m.blocks ?? []).length).toBeLessThanOrEqual(50);
        expect(visibleText(m)).not.toMatch(/\n\s+at |node_modules/);
        // Reads may reach the API; a change never does without a submitted form.
        for (const r of h.sandbox.requests.slice(before)) expect(r.method).toBe('GET');
      }),
      { numRuns: 50 },
    );
  });

  // A bot of its own: the disks the tests above added are still followed by the harness's bot, and a poll of their
  // transactions landing in a batch would read as a call the payloads made.
  describe('on a bot that follows nothing', () => {
    const fresh = useHarness({ env: ROLES });

    test('any JSON as an interactive payload: 200 or 4xx, never a cloud call', async () => {
      const payload = fc.oneof(
        fc.jsonValue(),
        fc.record(
          {
            type: fc.constantFrom('view_submission', 'block_actions', 'shortcut', 'message_action', 'view_closed'),
            user: fc.oneof(fc.record({ id: fc.string() }), fc.jsonValue()),
            view: fc.jsonValue(),
            actions: fc.jsonValue(),
            callback_id: fc.string(),
          },
          { requiredKeys: ['type'] },
        ),
      );
      // 25 at a time: a well-formed payload no listener takes is answered only after Bolt's 3 s wait.
      await fc.assert(
        fc.asyncProperty(fc.array(payload, { minLength: 25, maxLength: 25 }), async (batch) => {
          fresh.sandbox.reset();
          const answers = await Promise.all(batch.map((p) => fresh.interact(p)));
          for (const res of answers) expect(res.status).toBeLessThan(500);
          await sleep(50);
          expect(fresh.sandbox.requests).toHaveLength(0);
        }),
        { numRuns: 2 },
      );
    });
  });
});

describe('properties of the decoders', () => {
  const shapes = [...Object.values(READS).map((row) => row.answer), ...Object.values(Responses)];
  const onlyCloudErrors = (run: () => unknown) => {
    try {
      run();
    } catch (error) {
      expect(error).toBeInstanceOf(CloudError);
      expect((error as CloudError).kind).toBe('bad_response');
    }
  };

  test('decodeResponse of any string, in either format, for any operation, throws nothing but CloudError', () => {
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 300 }),
      fc.json(),
      fc.jsonValue().map((v) => JSON.stringify({ firewall_rules: v, disk: v })),
      xmlish(),
    );
    fc.assert(
      fc.property(fc.constantFrom('json' as const, 'xml' as const), fc.constantFrom(...shapes), text, (format, shape, t) =>
        onlyCloudErrors(() => decodeResponse(format, t, shape)),
      ),
      { numRuns: 400 },
    );
  });

  test('parseErrorBody of any string never throws and returns strings', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary', maxLength: 300 }), fc.json(), xmlish()), (t) => {
        const { messages, fieldErrors } = parseErrorBody(t);
        expect(messages.every((m) => typeof m === 'string')).toBe(true);
        expect(Object.values(fieldErrors).every((list) => list.every((m) => typeof m === 'string'))).toBe(true);
      }),
      { numRuns: 400 },
    );
  });
});

/** Strings that look like the XML the API sends, broken in arbitrary ways. */
function xmlish(): fc.Arbitrary<string> {
  const tag = fc.constantFrom(
    'firewall_rules',
    'firewall_rule',
    'disk',
    'backup',
    'id',
    'errors',
    'error',
    'auto_scaling_configurations',
    'virtual_machine',
    'ip_addresses',
    'transactions',
    'transaction',
    '!DOCTYPE x',
    '?xml version="1.0"?',
    '![CDATA[',
  );
  const attr = fc.constantFrom('', ' type="array"', ' type="integer"', ' nil="true"', ' type="boolean"', ' type="datetime"', ' xmlns:x="y"');
  const piece = fc.oneof(
    fc.tuple(tag, attr).map(([t, a]) => `<${t}${a}>`),
    tag.map((t) => `</${t}>`),
    fc.string({ maxLength: 12 }),
    fc.constantFrom('&amp;', '&lt;', '&#0;', '&bogus;', '&#x110000;', ']]>'),
  );
  return fc.array(piece, { maxLength: 25 }).map((parts) => parts.join(''));
}
