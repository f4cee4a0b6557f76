import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { readYaml, type Yaml } from '@vs-chatops/slack-standin';
import { CHANGE_FORMS } from '../../src/slack/blocks/change-forms';
import { writeMetadata } from '../../src/slack/metadata';
import { SIGNING_SECRET, useHarness, type Harness } from '../helpers/app-harness';
import { goodDisk } from '../helpers/forms';
import {
  appHomeOpened,
  blockSuggestion,
  buttonClick,
  CHANNEL,
  FORM,
  formBody,
  globalShortcut,
  JSON_CONTENT_TYPE,
  linkShared,
  messageShortcut,
  newViewId,
  slashCommandFields,
  urlVerification,
  viewClosed,
  viewSubmission,
} from '../helpers/payloads';
import { postToSlackEndpoint, sign, type SlackHttpResponse } from '../helpers/signed-requests';

// Nothing Slack did not sign runs anything. Over the real bot (composed as in
// production, over HTTP), every shape Slack delivers is sent the way a
// stranger could send it: on its own and wrapped as Slack's SSL check
// (`ssl_check=1` beside its fields, or its JSON as a form's `payload`), with
// no signature, a signature of another secret or of another body, a stale or
// future timestamp, or the signature headers sent twice. For each: no listener
// ran (no cloud API call, no store write, no Web API call, no response_url
// post, no request logged) and the answer carries nothing (no challenge echoed,
// no form errors). Each shape is first sent signed, to show that it would act.
// The SSL-check wrappers are generated (fast-check), not listed.

const ADMIN = 'UADMIN';
const OPERATOR = 'UOPER';

const h = useHarness({ env: { VS_ADMINS: ADMIN, VS_OPERATORS: OPERATOR } });

/** The tables a listener writes (the audit trail, claims of submissions and deliveries, approvals, the outbox, the freeze). */
const WRITTEN_BY_LISTENERS = ['audit_records', 'submissions', 'approvals', 'audit_outbox', 'change_freeze'];

let db: Database.Database;
beforeAll(() => {
  db = new Database(h.dbPath, { readonly: true, fileMustExist: true });
});
afterAll(() => db.close());

/** What a delivery may leave behind, to compare before and after it. */
interface Traces {
  cloudCalls: number;
  webApiCalls: number;
  responsePosts: number;
  store: string;
  requestsLogged: number;
}

const REQUEST_KINDS = new Set(['command', 'action', 'shortcut', 'submission', 'event', 'step']);

function traces(): Traces {
  const store = JSON.stringify(WRITTEN_BY_LISTENERS.map((table) => db.prepare(`SELECT * FROM ${table} ORDER BY 1`).all()));
  const requestsLogged = h.logs.filter((line) => {
    const { msg, outcome } = JSON.parse(line) as { msg?: string; outcome?: string };
    return outcome !== undefined && REQUEST_KINDS.has(String(msg));
  }).length;
  return { cloudCalls: h.sandbox.requests.length, webApiCalls: h.slack.calls.length, responsePosts: h.slack.responses.length, store, requestsLogged };
}

type Effect = 'a cloud API call' | 'a Web API call' | 'a response_url post' | 'a store write' | 'a request logged' | 'an answer with a body';

/** What a delivery did, once the bot is done with everything handed to it. */
async function effectsOf(before: Traces, res: SlackHttpResponse): Promise<Effect[]> {
  await h.bot.slack.settled();
  const after = traces();
  const effects: Effect[] = [];
  if (after.cloudCalls !== before.cloudCalls) effects.push('a cloud API call');
  if (after.webApiCalls !== before.webApiCalls) effects.push('a Web API call');
  if (after.responsePosts !== before.responsePosts) effects.push('a response_url post');
  if (after.store !== before.store) effects.push('a store write');
  if (after.requestsLogged !== before.requestsLogged) effects.push('a request logged');
  if (res.body !== '') effects.push('an answer with a body');
  return effects;
}

// ---------------------------------------------------------------------------
// What Slack delivers

/** A delivery as Slack makes it: a form's fields, or a JSON body. */
type Delivery = { form: Record<string, string> } | { json: unknown };

interface Shape {
  name: string;
  build(h: Harness): Delivery;
  /** What it does when Slack signed it; none when no listener takes it (it is sent anyway: one may be added). */
  acts: Effect[];
}

const payload = (p: unknown): Delivery => ({ form: { payload: JSON.stringify(p) } });
const diskAdd = CHANGE_FORMS.disk_add.form;

/** The Events API events the app subscribes to, each as Slack would deliver it; the test fails for one it cannot build. */
const EVENT_SHAPES: Record<string, Omit<Shape, 'name'>> = {
  app_home_opened: { build: () => ({ json: appHomeOpened({ user: ADMIN }) }), acts: ['a Web API call', 'a request logged'] },
  link_shared: {
    build: (h) => ({ json: linkShared({ user: ADMIN, urls: [`${h.sandbox.url}/virtual_machines/42`] }) }),
    acts: ['a cloud API call', 'a Web API call', 'a store write', 'a request logged'],
  },
  function_executed: {
    build: (h) => ({ json: h.slack.functionExecuted('vs_firewall_summary', { vs_id: 42 }).envelope }),
    acts: ['a cloud API call', 'a Web API call', 'a request logged'],
  },
};

const subscribed = (() => {
  const manifest = readYaml(readFileSync(join(__dirname, '..', '..', 'manifest.yml'), 'utf8')) as { [key: string]: Yaml };
  const settings = manifest.settings as { event_subscriptions: { bot_events: string[] } };
  return settings.event_subscriptions.bot_events;
})();

const SHAPES: Shape[] = [
  {
    name: 'a slash command',
    build: (h) => ({ form: slashCommandFields({ text: 'firewall 42', user: ADMIN, responseUrl: h.slack.responseUrl() }) }),
    acts: ['a cloud API call', 'a response_url post', 'a request logged'],
  },
  {
    name: 'block_actions (a firewall page button)',
    build: (h) => payload(buttonClick({ user: ADMIN, channel: CHANNEL, actionId: 'firewall_page_next', value: '42:2', responseUrl: h.slack.responseUrl() })),
    acts: ['a cloud API call', 'a response_url post', 'a request logged'],
  },
  {
    name: 'view_submission (the add-disk form)',
    build: () =>
      payload(
        viewSubmission({
          callbackId: diskAdd.callbackId,
          viewId: newViewId(),
          user: OPERATOR,
          privateMetadata: writeMetadata({ channelId: CHANNEL, vsId: 42 }),
          fields: goodDisk,
        }),
      ),
    acts: ['a cloud API call', 'a store write', 'a request logged'],
  },
  { name: 'view_closed (the add-disk form)', build: () => payload(viewClosed({ user: OPERATOR, callbackId: diskAdd.callbackId })), acts: [] },
  {
    name: 'shortcut (add a disk)',
    build: () => payload(globalShortcut({ user: OPERATOR, callbackId: diskAdd.shortcut.callbackId })),
    acts: ['a Web API call', 'a request logged'],
  },
  {
    name: 'message_action (named as the add-disk shortcut)',
    build: (h) => payload(messageShortcut({ user: OPERATOR, callbackId: diskAdd.shortcut.callbackId, channel: CHANNEL, responseUrl: h.slack.responseUrl() })),
    acts: [],
  },
  { name: 'block_suggestion', build: () => payload(blockSuggestion({ user: ADMIN, actionId: 'disk_type', value: 'S' })), acts: [] },
  ...subscribed.map((event): Shape => {
    const shape = EVENT_SHAPES[event];
    if (!shape) throw new Error(`manifest.yml subscribes to ${event}: add how Slack delivers it to EVENT_SHAPES`);
    return { name: `event_callback (${event})`, ...shape };
  }),
  { name: 'url_verification', build: () => ({ json: urlVerification('forged-challenge') }), acts: ['an answer with a body'] },
];

// ---------------------------------------------------------------------------
// How a stranger sends it

/** A body and its content type. */
interface Sent {
  body: string;
  contentType: string;
}

const asSent = (d: Delivery): Sent =>
  'form' in d ? { body: formBody(d.form), contentType: FORM } : { body: JSON.stringify(d.json), contentType: JSON_CONTENT_TYPE };

/** The fields a delivery travels in when wrapped as an SSL check: its own, or its JSON as `payload` (Bolt's form parser reads it). */
const fieldsOf = (d: Delivery): Record<string, string> => ('form' in d ? d.form : { payload: JSON.stringify(d.json) });

/** How a stranger could dress a delivery up as Slack's SSL check. */
interface SslWrapper {
  flag: string;
  /** Where among the fields the flag goes. */
  at: number;
  noise: [string, string][];
  contentType: string;
  plusForSpaces: boolean;
}

const sslWrapper: fc.Arbitrary<SslWrapper> = fc.record({
  flag: fc.constantFrom('ssl_check=1', 'ssl_check=1&ssl_check=1', 'ssl_check=%31', 'ssl%5Fcheck=1', 'ssl_check=1&token=verification-token', 'ssl_check=1&'),
  at: fc.nat(),
  noise: fc.array(fc.tuple(fc.constantFrom('token', 'team_id', 'api_app_id', 'trigger_id', 'ssl_check'), fc.string({ maxLength: 6 })), { maxLength: 3 }),
  contentType: fc.constantFrom(FORM, FORM, `${FORM}; charset=utf-8`, 'Application/X-WWW-Form-Urlencoded'),
  plusForSpaces: fc.boolean(),
});

function wrap(d: Delivery, w: SslWrapper): Sent {
  const encode = (s: string) => (w.plusForSpaces ? encodeURIComponent(s).replace(/%20/g, '+') : encodeURIComponent(s));
  const parts = [...Object.entries(fieldsOf(d)), ...w.noise].map(([k, v]) => `${encode(k)}=${encode(v)}`);
  parts.splice(w.at % (parts.length + 1), 0, w.flag);
  return { body: parts.join('&'), contentType: w.contentType };
}

const HEX64 = '0123456789abcdef'.repeat(4);

/** The signature headers a stranger could send with a body they did not get from Slack. */
const FORGERIES = {
  'no signature at all': () => ({}),
  'signed with another secret': (body: string, now: number) => ({
    'x-slack-request-timestamp': String(now),
    'x-slack-signature': sign('not-the-secret', now, body),
  }),
  'a well-formed signature of nothing': (_body: string, now: number) => ({ 'x-slack-request-timestamp': String(now), 'x-slack-signature': `v0=${HEX64}` }),
  'the signature of another body': (body: string, now: number) => ({
    'x-slack-request-timestamp': String(now),
    'x-slack-signature': sign(SIGNING_SECRET, now, `${body}&`),
  }),
  'signed right, but 6 minutes ago': (body: string, now: number) => ({
    'x-slack-request-timestamp': String(now - 360),
    'x-slack-signature': sign(SIGNING_SECRET, now - 360, body),
  }),
  'signed right, but 6 minutes from now': (body: string, now: number) => ({
    'x-slack-request-timestamp': String(now + 360),
    'x-slack-signature': sign(SIGNING_SECRET, now + 360, body),
  }),
  'the signature header twice, one of them right': (body: string, now: number) => ({
    'x-slack-request-timestamp': String(now),
    'x-slack-signature': [`v0=${HEX64}`, sign(SIGNING_SECRET, now, body)],
  }),
  'the timestamp header twice': (body: string, now: number) => ({
    'x-slack-request-timestamp': [String(now), String(now)],
    'x-slack-signature': sign(SIGNING_SECRET, now, body),
  }),
  'a signature and no timestamp': (body: string, now: number) => ({ 'x-slack-signature': sign(SIGNING_SECRET, now, body) }),
} satisfies Record<string, (body: string, now: number) => Record<string, string | string[]>>;

type Forgery = keyof typeof FORGERIES;
const forgeryNames = Object.keys(FORGERIES) as Forgery[];

/** A forged delivery's answer comes at once (the guard, or an SSL check's 200): a few seconds without one is a failure. */
const WITHIN_MS = 2000;

function send(sent: Sent, forgery: Forgery): Promise<SlackHttpResponse> {
  const now = Math.floor(Date.now() / 1000);
  return postToSlackEndpoint(h.eventsUrl, SIGNING_SECRET, sent.body, sent.contentType, {
    unsigned: true,
    headers: FORGERIES[forgery](sent.body, now),
    within: WITHIN_MS,
  });
}

/** Sends it, and fails naming the case when anything happened. */
async function expectNothingFrom(sent: Sent, forgery: Forgery, what: string): Promise<void> {
  const before = traces();
  const res = await send(sent, forgery);
  const effects = await effectsOf(before, res);
  if (effects.length > 0)
    throw new Error(
      `${what}, ${forgery}: answered ${res.status}, and ${effects.join(', ')}\n  body sent: ${sent.body.slice(0, 300)}\n  answer: ${res.body.slice(0, 200)}`,
    );
}

// ---------------------------------------------------------------------------

test('every event the app subscribes to (manifest.yml) is among the shapes sent', () => {
  expect(subscribed.length).toBeGreaterThan(0);
  expect(SHAPES.map((s) => s.name)).toEqual(expect.arrayContaining(subscribed.map((e) => `event_callback (${e})`)));
});

describe.each(SHAPES)('$name', (shape) => {
  if (shape.acts.length > 0)
    test('signed by Slack, it acts (so that "nothing happened" below means something)', async () => {
      const before = traces();
      const sent = asSent(shape.build(h));
      const res = await postToSlackEndpoint(h.eventsUrl, SIGNING_SECRET, sent.body, sent.contentType, { within: 5000 });
      expect(res.status).toBe(200);
      expect(await effectsOf(before, res)).toEqual(expect.arrayContaining(shape.acts));
    });

  test('on its own, forged every way: nothing runs', async () => {
    for (const forgery of forgeryNames) await expectNothingFrom(asSent(shape.build(h)), forgery, 'on its own');
  });

  test('wrapped as an SSL check, forged every way: nothing runs', async () => {
    await fc.assert(
      fc.asyncProperty(sslWrapper, fc.constantFrom(...forgeryNames), async (wrapper, forgery) => {
        await expectNothingFrom(wrap(shape.build(h), wrapper), forgery, `wrapped as an SSL check (${JSON.stringify(wrapper)})`);
      }),
      {
        numRuns: 30,
        // Every forgery at least once, around the plainest wrapper: `ssl_check=1&` before the delivery's own fields.
        examples: forgeryNames.map((forgery): [SslWrapper, Forgery] => [
          { flag: 'ssl_check=1', at: 0, noise: [], contentType: FORM, plusForSpaces: true },
          forgery,
        ]),
        endOnFailure: true,
      },
    );
  });
});

describe('every request gets an answer, whatever its body', () => {
  test('an unsigned SSL check is answered 200 with nothing, whatever else it carries (`payload=null` too)', async () => {
    for (const body of [
      'ssl_check=1',
      'ssl_check=1&token=x',
      'ssl_check=1&payload=null',
      'payload=null&ssl_check=1',
      'ssl_check=1&payload=%7B',
      'ssl_check=1&payload=%5B%5D',
    ]) {
      const before = traces();
      const res = await postToSlackEndpoint(h.eventsUrl, SIGNING_SECRET, body, FORM, { unsigned: true, within: WITHIN_MS });
      expect([body, res.status, res.body]).toEqual([body, 200, '']);
      expect(await effectsOf(before, res)).toEqual([]);
    }
  });

  test('a signed body whose payload is not an object with a type is refused 400 at once, in any content type', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.jsonValue().filter((v) => typeof v !== 'object' || v === null || Array.isArray(v) || typeof (v as { type?: unknown }).type !== 'string'),
        fc.constantFrom('form payload', 'JSON body'),
        fc.constantFrom(JSON_CONTENT_TYPE, `${JSON_CONTENT_TYPE}; charset=utf-8`, 'text/plain', FORM),
        async (value, carrier, contentType) => {
          const json = JSON.stringify(value);
          const asForm = carrier === 'form payload';
          const body = asForm ? formBody({ payload: json }) : json;
          const before = traces();
          const res = await postToSlackEndpoint(h.eventsUrl, SIGNING_SECRET, body, asForm ? FORM : contentType, { within: WITHIN_MS });
          expect(res.status).toBe(400);
          expect(await effectsOf(before, res)).toEqual([]);
        },
      ),
      {
        numRuns: 40,
        examples: [
          [null, 'form payload', FORM],
          [null, 'JSON body', `${JSON_CONTENT_TYPE}; charset=utf-8`],
        ],
        endOnFailure: true,
      },
    );
  });
});
