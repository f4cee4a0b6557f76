import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { HTTPReceiver } from '@slack/bolt';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/log';
import { toBoltLogger } from '../../src/slack/bolt-logger';
import { createReceiver } from '../../src/slack/receiver';
import {
  BODY_LIMIT,
  guardRequests,
  readBody,
  refuseUnprocessable,
  signatureMatches,
  UNVERIFIED_LIMITS,
  unsignedHeadersReason,
  type UnverifiedLimits,
} from '../../src/slack/request-guard';
import { FORM, interactiveBody, JSON_CONTENT_TYPE } from '../helpers/payloads';
import { sign } from '../helpers/signed-requests';
import { awaitWithin, sleep, waitFor } from '../helpers/wait';

// The guard alone, in front of a stand-in for Bolt's listener that answers
// 200 "inner": what it refuses never reaches Bolt, so Bolt's own checks
// cannot hide a missing one. Requests go over raw sockets, so a test decides
// exactly which bytes are sent, and when.

const SECRET = 'guard-test-signing-secret';
/** The guard's clock: 2023-11-14T22:13:20.999Z (the fraction matters at the 5-minute boundary). */
const T = 1_700_000_000;
const NOW_MS = T * 1000 + 999;
const HEX64 = 'ab'.repeat(32);

// ---------------------------------------------------------------------------
// The checks as functions

describe('unsignedHeadersReason: the headers alone', () => {
  const signed = (timestamp: string | string[] | undefined, signature: string | undefined) => ({
    'x-slack-request-timestamp': timestamp,
    'x-slack-signature': signature,
  });
  const GOOD = `v0=${HEX64}`;

  test.each([
    ['exactly 300 s old', T - 300],
    ['exactly 300 s ahead', T + 300],
    ['now', T],
  ])('a timestamp %s is accepted', (_name, timestamp) => {
    expect(unsignedHeadersReason(signed(String(timestamp), GOOD), NOW_MS)).toBeNull();
  });

  test.each([
    ['301 s old', T - 301],
    ['301 s ahead', T + 301],
    ['of a 12-digit year far ahead', 999_999_999_999],
    ['of zero', 0],
  ])('a timestamp %s is refused', (_name, timestamp) => {
    expect(unsignedHeadersReason(signed(String(timestamp), GOOD), NOW_MS)).toBe('a timestamp more than 5 minutes from now');
  });

  test.each([
    ['missing', undefined],
    ['not a number', '123x'],
    ['with a sign', '-1700000000'],
    ['led by a letter', 'x1700000000'],
    ['empty', ''],
    ['of 13 digits', '1700000000000'],
    ['sent twice', [String(T), String(T)]],
  ])('a timestamp %s is no timestamp', (_name, timestamp) => {
    expect(unsignedHeadersReason(signed(timestamp, GOOD), NOW_MS)).toBe('no request timestamp');
  });

  test.each([
    ['missing', undefined],
    ['of 63 hex digits', `v0=${HEX64.slice(1)}`],
    ['of 65 hex digits', `v0=${HEX64}a`],
    ['in capitals', `v0=${HEX64.toUpperCase()}`],
    ['of another version', `v1=${HEX64}`],
    ['after other text', `xv0=${HEX64}`],
    ['followed by other text', `v0=${HEX64}x`],
  ])('a signature %s is no v0 signature', (_name, signature) => {
    expect(unsignedHeadersReason(signed(String(T), signature), NOW_MS)).toBe('no v0 signature');
  });
});

describe('signatureMatches', () => {
  const body = 'command=%2Fvs&text=help';
  const headers = (signature: string, timestamp = T) => ({ 'x-slack-request-timestamp': String(timestamp), 'x-slack-signature': signature });

  test('Slack’s signature of the timestamp and body matches', () => {
    expect(signatureMatches(headers(sign(SECRET, T, body)), Buffer.from(body), SECRET)).toBe(true);
  });

  test.each([
    ['another secret', () => signatureMatches(headers(sign('another-secret', T, body)), Buffer.from(body), SECRET)],
    ['another body', () => signatureMatches(headers(sign(SECRET, T, body)), Buffer.from(body + '&x=1'), SECRET)],
    ['another timestamp', () => signatureMatches(headers(sign(SECRET, T, body), T + 1), Buffer.from(body), SECRET)],
    ['a signature too short to compare', () => signatureMatches(headers('v0=abcd'), Buffer.from(body), SECRET)],
  ])('with %s it does not match (and never throws)', (_name, check) => {
    expect(check()).toBe(false);
  });
});

describe('readBody: signed bodies Slack never sends', () => {
  const form = interactiveBody;
  const user = { id: 'U1' };

  test.each([
    ['a slash command', 'command=%2Fvs&text=help', FORM],
    ['a block action with actions', form({ type: 'block_actions', user, actions: [] }), FORM],
    ['a view submission with a view', form({ type: 'view_submission', user, view: {} }), FORM],
    ['a view closed with a view', form({ type: 'view_closed', user, view: {} }), FORM],
    ['a shortcut (no view, no actions)', form({ type: 'shortcut', user }), FORM],
    ['a message action', form({ type: 'message_action', user }), FORM],
    ['a block suggestion', form({ type: 'block_suggestion', user }), FORM],
    ['an interactive payload of a type without a user', form({ type: 'workflow_step_edit' }), FORM],
    ['an event', JSON.stringify({ type: 'event_callback' }), JSON_CONTENT_TYPE],
    ['an event sent as another content type (Bolt reads it as JSON)', JSON.stringify({ type: 'event_callback' }), 'text/plain'],
  ])('%s may be one', (_name, raw, contentType) => {
    expect(readBody(raw, contentType)).toEqual({ kind: 'slack' });
  });

  const refused: [string, string, string | undefined, string][] = [
    ['an SSL check that says 0', 'ssl_check=0', FORM, 'a form body with neither a command nor a payload'],
    ['a form of other fields', 'hello=world', FORM, 'a form body with neither a command nor a payload'],
    ['a payload sent twice', 'payload=1&payload=2', FORM, 'a form body with neither a command nor a payload'],
    ['a payload that is not JSON', 'payload=%7Bnot', FORM, 'a payload that is not JSON'],
    ['a payload of null', 'payload=null', FORM, 'a payload that is not an object with a type'],
    ['a payload that is an array', form([{ type: 'shortcut' }]), FORM, 'a payload that is not an object with a type'],
    ['a payload without a type', form({ user }), FORM, 'a payload that is not an object with a type'],
    ['a payload whose type is a number', form({ type: 5, user }), FORM, 'a payload that is not an object with a type'],
    ...['view_submission', 'view_closed', 'block_actions', 'shortcut', 'message_action', 'block_suggestion'].map((type): [string, string, string, string] => [
      `a ${type} without a user`,
      form({ type, view: {}, actions: [] }),
      FORM,
      `a ${type} without a user`,
    ]),
    ['a user without an id', form({ type: 'shortcut', user: { name: 'someone' } }), FORM, 'a shortcut without a user'],
    ['a user whose id is a number', form({ type: 'shortcut', user: { id: 5 } }), FORM, 'a shortcut without a user'],
    ['a user that is a string', form({ type: 'shortcut', user: 'U1' }), FORM, 'a shortcut without a user'],
    ['a view submission without a view', form({ type: 'view_submission', user }), FORM, 'a view_submission without a view'],
    ['a view closed whose view is an array', form({ type: 'view_closed', user, view: [] }), FORM, 'a view_closed without a view'],
    ['a view submission whose view is null', form({ type: 'view_submission', user, view: null }), FORM, 'a view_submission without a view'],
    ['a block action without actions', form({ type: 'block_actions', user }), FORM, 'a block_actions without actions'],
    ['a block action whose actions are an object', form({ type: 'block_actions', user, actions: {} }), FORM, 'a block_actions without actions'],
    ['a JSON body that is an array', '[{"type":"event_callback"}]', JSON_CONTENT_TYPE, 'a JSON body that is not an object with a type'],
    ['a JSON body without a type', '{"event":{}}', JSON_CONTENT_TYPE, 'a JSON body that is not an object with a type'],
    ['a JSON body of null', 'null', JSON_CONTENT_TYPE, 'a JSON body that is not an object with a type'],
    ['a JSON body that does not parse', '{"type":', JSON_CONTENT_TYPE, 'a JSON body that does not parse'],
    // Bolt reads every body that is not exactly a form as JSON, and throws where nothing answers on a JSON null.
    ['a JSON null with a charset', 'null', `${JSON_CONTENT_TYPE}; charset=utf-8`, 'a JSON body that is not an object with a type'],
    ['a form with a charset (read as JSON)', 'command=%2Fvs&text=help', `${FORM}; charset=utf-8`, 'a JSON body that does not parse'],
    ['a body of another content type', '<xml/>', 'text/xml', 'a JSON body that does not parse'],
    ['a body with no content type', '{', undefined, 'a JSON body that does not parse'],
  ];
  test.each(refused)('%s is refused', (_name, raw, contentType, reason) => {
    expect(readBody(raw, contentType)).toEqual({ kind: 'malformed', reason });
  });
});

describe("readBody: what Bolt takes for Slack's SSL check, by its rule", () => {
  test.each([
    ['the SSL check', 'ssl_check=1&token=x', FORM],
    ['one with a payload beside it', 'ssl_check=1&payload=%7B%22type%22%3A%22shortcut%22%7D', FORM],
    ['one with a payload of null', 'ssl_check=1&payload=null', FORM],
    ['one after a command', 'command=%2Fvs&text=help&ssl_check=1', FORM],
    ['its flag percent-encoded', 'ssl%5Fcheck=%31', FORM],
  ])('%s is one', (_name, raw, contentType) => {
    expect(readBody(raw, contentType)).toEqual({ kind: 'ssl_check' });
  });

  test.each([
    ['a flag of 0', 'ssl_check=0', FORM],
    ['the flag twice (Bolt reads a list)', 'ssl_check=1&ssl_check=1', FORM],
    ['a form with a charset (Bolt reads it as JSON)', 'ssl_check=1', `${FORM}; charset=utf-8`],
    ['JSON', '{"ssl_check":"1"}', JSON_CONTENT_TYPE],
    ['a command', 'command=%2Fvs&text=help', FORM],
  ])('%s is not', (_name, raw, contentType) => {
    expect(readBody(raw, contentType).kind).not.toBe('ssl_check');
  });
});

// ---------------------------------------------------------------------------
// Raw HTTP: a request is its head and the bytes of its body, sent when the test says

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

interface RawConnection {
  socket: Socket;
  /** The connection's port on this side, once connected (a destroyed socket no longer says). */
  localPort?: number;
  /** The status line and headers, as soon as they arrive (and the body received with them). */
  answer: Promise<Answer>;
  /** Resolves when the connection is closed. */
  closed: Promise<void>;
}

/** A connection to the guard; `from` is the address it comes from (any of loopback's 127.0.0.0/8 on Linux: another client). */
function open(port: number, bytes?: string | Buffer, from?: string): RawConnection {
  const socket = connect({ port, host: '127.0.0.1', ...(from ? { localAddress: from } : {}) });
  socket.on('error', () => undefined);
  let received = '';
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  const answer = new Promise<Answer>((resolve, reject) => {
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return;
      const [statusLine = '', ...lines] = received.slice(0, end).split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: received.slice(end + 4) });
    });
    socket.on('close', () => reject(new Error(`the connection closed without an answer (received ${JSON.stringify(received)})`)));
  });
  answer.catch(() => undefined);
  if (bytes !== undefined) socket.write(bytes);
  const connection: RawConnection = { socket, answer, closed };
  socket.once('connect', () => (connection.localPort = socket.localPort));
  return connection;
}

/** The head of a request; `connection: close` so that an answered request ends its connection. */
function head(headers: Record<string, string | number | undefined>, method = 'POST', path = '/slack/events'): string {
  const lines = Object.entries({ host: '127.0.0.1', connection: 'close', ...headers })
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}: ${String(v)}\r\n`);
  return `${method} ${path} HTTP/1.1\r\n${lines.join('')}\r\n`;
}

/** Headers of a request signed at `timestamp` (the guard's clock by default). */
function signedHead(body: string, timestamp = T, extra: Record<string, string | number | undefined> = {}): string {
  return head({
    'content-type': FORM,
    'content-length': Buffer.byteLength(body),
    'x-slack-request-timestamp': timestamp,
    'x-slack-signature': sign(SECRET, timestamp, body),
    ...extra,
  });
}

/** Headers that look signed (a current timestamp, a well-formed signature) announcing `length` bytes. */
const lookingSigned = (length: number | undefined, extra: Record<string, string | number> = {}) =>
  head({ 'content-type': FORM, 'content-length': length, 'x-slack-request-timestamp': T, 'x-slack-signature': `v0=${HEX64}`, ...extra });

const command = (text = 'help') => `command=%2Fvs&text=${text}`;
/** A signed command of exactly `bytes` bytes. */
const commandOf = (bytes: number) => command('x'.repeat(bytes - command('').length));

/** Loopback answers come in milliseconds: a few seconds without one is a failure. */
const WAIT_MS = 3000;
const answerOf = (c: RawConnection, what = 'the answer') => awaitWithin(what, c.answer, WAIT_MS);
const closeOf = (c: RawConnection, what = 'the connection to close') => awaitWithin(what, c.closed, WAIT_MS);

interface Guarded {
  port: number;
  server: Server;
  /** Bodies the guard let through to the listener behind it (Bolt's, in production). */
  passed: string[];
  logs: string[];
  /** Resolves once the server has seen `count` requests in all (each already taken or refused by the guard). */
  requestsSeen(count: number): Promise<void>;
  /** The requests the server has seen, in order. */
  requests: IncomingMessage[];
  /** Resolves once the server's side of every connection it accepted so far is closed. */
  serverSocketsClosed(): Promise<void>;
  /** Resolves once the server's side of this connection is closed. */
  closedOnServer(c: RawConnection): Promise<void>;
  close(): Promise<void>;
}

const guardedServers: Guarded[] = [];
afterEach(async () => {
  await Promise.all(guardedServers.splice(0).map((g) => g.close()));
});

/** The guard in front of a listener that answers 200 "inner", on a real HTTPReceiver's server. */
async function startGuarded(
  options: {
    limits?: Partial<UnverifiedLimits>;
    now?: () => number;
    listener?: (req: IncomingMessage, res: ServerResponse) => void;
    trustedProxies?: readonly string[];
  } = {},
): Promise<Guarded> {
  const logs: string[] = [];
  const logger = createLogger({ level: 'debug', write: (line) => logs.push(line) });
  const receiver = new HTTPReceiver({ signingSecret: SECRET, logger: toBoltLogger(logger) });
  const passed: string[] = [];
  receiver.requestListener = (req: IncomingMessage, res: ServerResponse) => {
    if (options.listener) return options.listener(req, res);
    passed.push((req as IncomingMessage & { rawBody?: Buffer }).rawBody?.toString() ?? `${req.method ?? ''} without a body`);
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '5' }).end('inner');
  };
  guardRequests(receiver, {
    signingSecret: SECRET,
    logger,
    now: options.now ?? (() => NOW_MS),
    limits: options.limits,
    trustedProxies: options.trustedProxies,
  });
  const server = await receiver.start(0);
  const sockets: Socket[] = [];
  server.on('connection', (s: Socket) => sockets.push(s));
  let seen = 0;
  const waiting: { count: number; resolve: () => void }[] = [];
  const requests: IncomingMessage[] = [];
  server.on('request', (req: IncomingMessage) => {
    requests.push(req);
    seen += 1;
    for (const w of waiting.filter((w) => seen >= w.count)) w.resolve();
  });
  // The guard frees a read's place on the request's `close`, which the socket's close emits first.
  const afterClose = (s: Socket) =>
    new Promise<void>((resolve) => (s.destroyed ? resolve() : s.once('close', () => resolve()))).then(
      () => new Promise<void>((resolve) => setImmediate(resolve)),
    );
  const guarded: Guarded = {
    port: (server.address() as { port: number }).port,
    server,
    passed,
    logs,
    requests,
    requestsSeen: (count) =>
      awaitWithin(
        `${count} requests seen by the server`,
        new Promise<void>((resolve) => (seen >= count ? resolve() : waiting.push({ count, resolve }))),
        WAIT_MS,
      ),
    serverSocketsClosed: () =>
      awaitWithin(
        'the server to close its side',
        Promise.all(sockets.map(afterClose)).then(() => undefined),
        WAIT_MS,
      ),
    closedOnServer: (c) => {
      const serverSide = c.localPort === undefined ? undefined : sockets.find((s) => s.remotePort === c.localPort);
      if (!serverSide) throw new Error('no such connection on the server');
      return awaitWithin('the server to close its side of the connection', afterClose(serverSide), WAIT_MS);
    },
    async close() {
      server.closeAllConnections();
      await receiver.stop();
    },
  };
  guardedServers.push(guarded);
  return guarded;
}

const refusalCounts = (logs: string[]) =>
  logs.filter((l) => l.includes('refused requests not verified as coming from Slack')).map((l) => (JSON.parse(l) as { counts: Record<string, number> }).counts);

// ---------------------------------------------------------------------------
// The guard over HTTP

describe('the request guard, in front of the receiver', () => {
  test('a signed request reaches the listener behind it with its body already read', async () => {
    const g = await startGuarded();
    const body = command();
    const res = await answerOf(open(g.port, signedHead(body) + body));
    expect([res.status, res.body]).toEqual([200, 'inner']);
    expect(g.passed).toEqual([body]);
  });

  test('a request that is not a POST goes straight through (health, readiness, metrics)', async () => {
    const g = await startGuarded();
    const res = await answerOf(open(g.port, head({}, 'GET', '/healthz')));
    expect(res.status).toBe(200);
    expect(g.passed).toEqual(['GET without a body']);
  });

  test('the guard’s clock decides: signed exactly 300 s before it is accepted, 301 s before is refused', async () => {
    const g = await startGuarded();
    const body = command();
    const at300 = await answerOf(open(g.port, signedHead(body, T - 300) + body));
    const at301 = await answerOf(open(g.port, signedHead(body, T - 301) + body));
    expect([at300.status, at301.status]).toEqual([200, 401]);
    expect(g.passed).toEqual([body]);
  });

  describe('refused from the headers, before a byte of the body is read', () => {
    // Only the head is sent: an answer proves the body was not waited for.
    test.each([
      ['a non-numeric timestamp', 401, { 'x-slack-request-timestamp': '123x' }, 'no request timestamp'],
      ['a malformed signature, however large the body', 401, { 'x-slack-signature': 'v0=zz', 'content-length': 900 * 1024 }, 'no v0 signature'],
      ['a timestamp 301 s ahead', 401, { 'x-slack-request-timestamp': T + 301 }, 'a timestamp more than 5 minutes from now'],
      ['a body announced one byte over the limit', 413, { 'content-length': BODY_LIMIT + 1 }, 'a body larger than the limit'],
    ])('%s → %i', async (_name, status, headers, reason) => {
      const g = await startGuarded();
      const c = open(g.port, lookingSigned(100 * 1024, headers));
      const res = await answerOf(c);
      expect([res.status, res.headers.connection, res.headers['content-length']]).toEqual([status, 'close', '0']);
      await closeOf(c);
      expect(g.passed).toEqual([]);
      expect(refusalCounts(g.logs)).toEqual([{ [reason]: 1 }]);
    });

    test.each([
      ['an unsigned JSON body', { 'content-type': JSON_CONTENT_TYPE, 'content-length': 200 }],
      ['an unsigned form too large to be an SSL check', { 'content-type': FORM, 'content-length': 1025 }],
      ['an unsigned chunked form', { 'content-type': FORM, 'transfer-encoding': 'chunked' }],
    ])('%s → 401', async (_name, headers) => {
      const g = await startGuarded();
      const res = await answerOf(open(g.port, head(headers)));
      expect([res.status, res.headers.connection]).toEqual([401, 'close']);
      expect(g.passed).toEqual([]);
    });
  });

  describe('the body', () => {
    test('a body of exactly the limit is read and passed on', async () => {
      const g = await startGuarded();
      const body = commandOf(BODY_LIMIT);
      const res = await answerOf(open(g.port, signedHead(body) + body));
      expect(res.status).toBe(200);
      expect(g.passed.map((b) => b.length)).toEqual([BODY_LIMIT]);
    });

    test('a chunked body of exactly the limit is read; one byte more → 413', async () => {
      const g = await startGuarded();
      const chunked = (body: string) => {
        const chunks = [body.slice(0, 1000), body.slice(1000)].map((part) => `${part.length.toString(16)}\r\n${part}\r\n`).join('');
        return signedHead(body, T, { 'content-length': undefined, 'transfer-encoding': 'chunked' }) + chunks + '0\r\n\r\n';
      };
      const exact = await answerOf(open(g.port, chunked(commandOf(BODY_LIMIT))));
      const over = await answerOf(open(g.port, chunked(commandOf(BODY_LIMIT + 1))));
      expect([exact.status, over.status]).toEqual([200, 413]);
      expect(refusalCounts(g.logs)).toEqual([{ 'a body larger than the limit': 1 }]);
      expect(g.passed.map((b) => b.length)).toEqual([BODY_LIMIT]);
    });

    test('past the limit the guard stops listening to the body: what still arrives before the connection closes is not kept', async () => {
      const g = await startGuarded();
      const body = commandOf(BODY_LIMIT + 1);
      const c = open(g.port, signedHead(body, T, { 'content-length': undefined, 'transfer-encoding': 'chunked' }));
      c.socket.write(`${body.length.toString(16)}\r\n${body}`);
      expect((await answerOf(c)).status).toBe(413);
      expect(g.requests.map((req) => req.listenerCount('data'))).toEqual([0]);
    });

    test('a wrong signature is refused once the body is read → 401', async () => {
      const g = await startGuarded();
      const body = command();
      const res = await answerOf(open(g.port, lookingSigned(body.length) + body));
      expect(res.status).toBe(401);
      expect(g.passed).toEqual([]);
      expect(refusalCounts(g.logs)).toEqual([{ 'a signature that does not match': 1 }]);
    });

    test('the guard itself refuses an unsigned form that is not an SSL check → 401, and answers an SSL check 200 and empty, passing nothing on', async () => {
      const g = await startGuarded();
      const other = 'token=x&hello=world';
      const sslCheck = 'ssl_check=1&token=' + 'x'.repeat(1024 - 'ssl_check=1&token='.length);
      const smuggled = `ssl_check=1&${interactiveBody({ type: 'shortcut', user: { id: 'U1' }, callback_id: 'disk_add_shortcut' })}`;
      const refused = await answerOf(open(g.port, head({ 'content-type': FORM, 'content-length': other.length }) + other));
      const answered = await answerOf(open(g.port, head({ 'content-type': FORM, 'content-length': sslCheck.length }) + sslCheck));
      const unsignedSmuggled = await answerOf(open(g.port, head({ 'content-type': FORM, 'content-length': smuggled.length }) + smuggled));
      const signedSmuggled = await answerOf(open(g.port, signedHead(smuggled) + smuggled));
      expect([refused.status, refused.body]).toEqual([401, '']);
      for (const res of [answered, unsignedSmuggled, signedSmuggled]) expect([res.status, res.headers['content-length'], res.body]).toEqual([200, '0', '']);
      expect(refusalCounts(g.logs)).toEqual([{ 'no request timestamp': 1 }]);
      expect(g.passed).toEqual([]);
    });

    test('an unsigned form just too large to be an SSL check is refused from its headers, whatever it holds', async () => {
      const g = await startGuarded();
      const body = 'ssl_check=1&token=' + 'x'.repeat(1025 - 'ssl_check=1&token='.length);
      const res = await answerOf(open(g.port, head({ 'content-type': FORM, 'content-length': body.length }) + body));
      expect(res.status).toBe(401);
      expect(g.passed).toEqual([]);
    });

    test('a signed payload Slack never sends is refused → 400 and logged, never passed on', async () => {
      const g = await startGuarded();
      const body = interactiveBody({ type: 'block_actions', user: { id: 'U1' } });
      const res = await answerOf(open(g.port, signedHead(body) + body));
      expect(res.status).toBe(400);
      expect(g.passed).toEqual([]);
      expect(g.logs.map((l) => JSON.parse(l) as { msg: string; reason?: string; bytes?: number })).toContainEqual(
        expect.objectContaining({ msg: 'refused a malformed request to the Slack endpoint', reason: 'a block_actions without actions', bytes: body.length }),
      );
    });

    test('a client that goes away mid-body gets its connection closed, and its place is freed', async () => {
      const g = await startGuarded({ limits: { largeReads: 1 } });
      const gone = open(g.port, lookingSigned(BODY_LIMIT) + 'x'.repeat(10_000));
      await g.requestsSeen(1);
      gone.socket.destroy();
      await g.serverSocketsClosed();
      // Half-closed mid-body: the server closes its side too.
      const halfClosed = open(g.port, lookingSigned(BODY_LIMIT) + 'x'.repeat(10_000));
      await g.requestsSeen(2);
      halfClosed.socket.end();
      await closeOf(halfClosed);
      await g.serverSocketsClosed();
      const body = commandOf(100 * 1024);
      const res = await answerOf(open(g.port, signedHead(body) + body));
      expect(res.status).toBe(200);
      expect(g.passed.map((b) => b.length)).toEqual([body.length]);
    });
  });

  test('when the listener behind throws, the connection is closed rather than left waiting', async () => {
    const g = await startGuarded({
      listener: () => {
        throw new Error('the listener failed');
      },
    });
    const body = command();
    const c = open(g.port, signedHead(body) + body);
    await closeOf(c);
    await expect(c.answer).rejects.toThrow('closed without an answer');
  });

  describe('bodies read at once before their signature is checked', () => {
    const limits = { largeReads: 2, smallReads: 2 };

    test('past the cap of large ones → 503 with Retry-After before the body is read; a signed request is still answered', async () => {
      const g = await startGuarded({ limits });
      // Two connections that look signed, announce 1 MB, and stall.
      const stalled = [open(g.port, lookingSigned(BODY_LIMIT) + 'x'.repeat(10_000)), open(g.port, lookingSigned(BODY_LIMIT) + 'x'.repeat(10_000))];
      await g.requestsSeen(2);
      const third = open(g.port, lookingSigned(BODY_LIMIT));
      const refused = await answerOf(third);
      expect([refused.status, refused.headers['retry-after'], refused.headers.connection]).toEqual([503, '3', 'close']);
      await closeOf(third);
      const body = command();
      const signed = await answerOf(open(g.port, signedHead(body) + body));
      expect(signed.status).toBe(200);
      // A large signed one waits its turn too: 503, until a stalled one goes.
      const large = commandOf(100 * 1024);
      expect((await answerOf(open(g.port, signedHead(large) + large))).status).toBe(503);
      stalled[0]!.socket.destroy();
      await g.closedOnServer(stalled[0]!);
      expect((await answerOf(open(g.port, signedHead(large) + large))).status).toBe(200);
      expect(g.passed).toEqual([body, large]);
      expect(refusalCounts(g.logs)).toEqual([{ 'too many bodies read at once before their signature is checked': 1 }]);
    });

    test('small ones have a cap of their own: full of stalled small bodies, a small request → 503, a large one is still read', async () => {
      const g = await startGuarded({ limits });
      const small = UNVERIFIED_LIMITS.largeBodyBytes;
      open(g.port, lookingSigned(small) + 'x');
      open(g.port, lookingSigned(small) + 'x');
      await g.requestsSeen(2);
      // Exactly largeBodyBytes is small; one byte more is large.
      expect((await answerOf(open(g.port, lookingSigned(small)))).status).toBe(503);
      const large = commandOf(small + 1);
      expect((await answerOf(open(g.port, signedHead(large) + large))).status).toBe(200);
      expect(g.passed).toEqual([large]);
    });

    test('a chunked body, of unknown length, counts as large', async () => {
      const g = await startGuarded({ limits });
      const chunkedHead = lookingSigned(undefined, { 'transfer-encoding': 'chunked' });
      open(g.port, chunkedHead + 'a\r\n0123456789\r\n');
      open(g.port, chunkedHead + 'a\r\n0123456789\r\n');
      await g.requestsSeen(2);
      expect((await answerOf(open(g.port, lookingSigned(BODY_LIMIT)))).status).toBe(503);
      const body = command();
      expect((await answerOf(open(g.port, signedHead(body) + body))).status).toBe(200);
    });
  });

  describe('paths', () => {
    test.each([
      ['another path', '/other'],
      ['a path below the endpoint', '/slack/events/x'],
      ['the root', '/'],
      ['the endpoint spelt in capitals', '/SLACK/EVENTS'],
    ])('a signed POST to %s → 404 before its body is read, never passed on', async (_name, path) => {
      const g = await startGuarded();
      const body = command();
      const headers = { 'content-type': FORM, 'x-slack-request-timestamp': T, 'x-slack-signature': sign(SECRET, T, body) };
      // Only the head is sent: an answer proves the body was not waited for.
      const c = open(g.port, head({ ...headers, 'content-length': body.length }, 'POST', path));
      const res = await answerOf(c);
      expect([res.status, res.headers.connection, res.headers['content-length']]).toEqual([404, 'close', '0']);
      await closeOf(c);
      expect(g.passed).toEqual([]);
      expect(refusalCounts(g.logs)).toEqual([{ 'a POST to another path': 1 }]);
    });

    test('the endpoint with a query string, or spelt with dot segments, is the endpoint (as Bolt routes it)', async () => {
      const g = await startGuarded();
      const body = command();
      const signed = (path: string) =>
        head(
          { 'content-type': FORM, 'content-length': body.length, 'x-slack-request-timestamp': T, 'x-slack-signature': sign(SECRET, T, body) },
          'POST',
          path,
        ) + body;
      expect((await answerOf(open(g.port, signed('/slack/events?x=1')))).status).toBe(200);
      expect((await answerOf(open(g.port, signed('/slack/x/../events')))).status).toBe(200);
      expect(g.passed).toEqual([body, body]);
    });

    test('endpoints given to the guard are the ones it reads', async () => {
      const receiver = new HTTPReceiver({ signingSecret: SECRET, endpoints: ['/slack/events', '/mcp'] });
      receiver.requestListener = (_req, res) => void res.writeHead(200, { 'content-length': '0' }).end();
      guardRequests(receiver, {
        signingSecret: SECRET,
        logger: createLogger({ write: () => undefined }),
        now: () => NOW_MS,
        endpoints: ['/slack/events', '/mcp'],
      });
      const server = await receiver.start(0);
      try {
        const port = (server.address() as { port: number }).port;
        const body = command();
        const at = (path: string) =>
          head(
            { 'content-type': FORM, 'content-length': body.length, 'x-slack-request-timestamp': T, 'x-slack-signature': sign(SECRET, T, body) },
            'POST',
            path,
          ) + body;
        expect([(await answerOf(open(port, at('/mcp')))).status, (await answerOf(open(port, at('/other')))).status]).toEqual([200, 404]);
      } finally {
        server.closeAllConnections();
        await receiver.stop();
      }
    });
  });

  describe('one client', () => {
    /** A connection from `from` that looks signed, announces a small body, sends one byte of it and waits. */
    const slow = (g: Guarded, from: string, extra: Record<string, string> = {}) => open(g.port, lookingSigned(1000, extra) + 'x', from);

    test('past its share of bodies read at once → 429 with Retry-After before the body is read; other clients are still read', async () => {
      const g = await startGuarded({ limits: { clientReads: 3 } });
      for (let i = 0; i < 3; i++) slow(g, '127.0.0.2');
      await g.requestsSeen(3);
      const fourth = slow(g, '127.0.0.2');
      const refused = await answerOf(fourth);
      expect([refused.status, refused.headers['retry-after'], refused.headers.connection, refused.headers['content-length']]).toEqual([429, '3', 'close', '0']);
      await closeOf(fourth);
      // Another client, with requests of its own held, is read.
      slow(g, '127.0.0.3');
      const body = command();
      expect((await answerOf(open(g.port, signedHead(body) + body, '127.0.0.3'))).status).toBe(200);
      expect((await answerOf(open(g.port, signedHead(body) + body, '127.0.0.1'))).status).toBe(200);
      expect(g.passed).toEqual([body, body]);
      expect(refusalCounts(g.logs)).toEqual([{ 'too many bodies read at once for one client before their signature is checked': 1 }]);
    });

    test('a place given back (an answer, a cut, a client gone) is the client’s again', async () => {
      const g = await startGuarded({ limits: { clientReads: 2, bodyDeadlineMs: 300 } });
      const gone = slow(g, '127.0.0.2');
      const cut = slow(g, '127.0.0.2');
      await g.requestsSeen(2);
      gone.socket.destroy();
      expect((await answerOf(cut, 'the slow body to be cut')).status).toBe(408);
      await g.serverSocketsClosed();
      const body = command();
      const answers = await Promise.all(
        [open(g.port, signedHead(body) + body, '127.0.0.2'), open(g.port, signedHead(body) + body, '127.0.0.2')].map((c) => answerOf(c)),
      );
      expect(answers.map((a) => a.status)).toEqual([200, 200]);
      // Answered, their places are free again.
      expect((await answerOf(open(g.port, signedHead(body) + body, '127.0.0.2'))).status).toBe(200);
    });

    test('hundreds of slow connections from one client keep none of Slack’s requests out (the default limits)', async () => {
      const g = await startGuarded();
      const held = Array.from({ length: 300 }, () => slow(g, '127.0.0.2'));
      const answered: number[] = [];
      for (const c of held)
        c.answer.then(
          (a) => void answered.push(a.status),
          () => undefined,
        );
      await g.requestsSeen(300);
      // All but the client's share are refused at once, from their headers.
      await waitFor('the refusals of all but the client’s share', () => (answered.length >= 300 - UNVERIFIED_LIMITS.clientReads ? true : undefined), {
        within: WAIT_MS,
      });
      expect(answered).toEqual(Array<number>(300 - UNVERIFIED_LIMITS.clientReads).fill(429));
      const bodies = Array.from({ length: 20 }, (_, i) => command(`firewall ${i}`));
      const answers = await Promise.all(bodies.map((body) => answerOf(open(g.port, signedHead(body) + body, '127.0.0.1'))));
      expect(answers.map((a) => a.status)).toEqual(bodies.map(() => 200));
      for (const c of held) c.socket.destroy();
    });

    test('behind a trusted proxy each forwarded client has its own share; a client that writes the header itself is still itself', async () => {
      const g = await startGuarded({ limits: { clientReads: 2 }, trustedProxies: ['127.0.0.1'] });
      // From the proxy: two clients, each with its share.
      for (const client of ['203.0.113.7', '203.0.113.7', '203.0.113.8', '203.0.113.8']) slow(g, '127.0.0.1', { 'x-forwarded-for': client });
      await g.requestsSeen(4);
      // What a client wrote stays on the left: the proxy appended the address it saw.
      const third = slow(g, '127.0.0.1', { 'x-forwarded-for': '198.51.100.1, 203.0.113.7' });
      expect((await answerOf(third)).status).toBe(429);
      // Not from a proxy: the header is the client's own writing, and counts for nothing.
      slow(g, '127.0.0.2', { 'x-forwarded-for': '198.51.100.2' });
      slow(g, '127.0.0.2', { 'x-forwarded-for': '198.51.100.3' });
      await g.requestsSeen(7);
      expect((await answerOf(slow(g, '127.0.0.2', { 'x-forwarded-for': '198.51.100.4' }))).status).toBe(429);
      const body = command();
      expect((await answerOf(open(g.port, signedHead(body, T, { 'x-forwarded-for': '203.0.113.9' }) + body, '127.0.0.1'))).status).toBe(200);
    });
  });

  describe('time', () => {
    test('a body that stops arriving is cut at the deadline → 408, and its place is freed', async () => {
      const g = await startGuarded({ limits: { largeReads: 1, bodyDeadlineMs: 200 } });
      const stalled = open(g.port, lookingSigned(BODY_LIMIT) + 'x'.repeat(10_000));
      const res = await answerOf(stalled, 'the stalled body to be cut');
      // The guard's answer (Node's own 408 has no content-length).
      expect([res.status, res.headers['content-length'], res.headers.connection]).toEqual([408, '0', 'close']);
      await closeOf(stalled);
      await g.serverSocketsClosed();
      const large = commandOf(100 * 1024);
      expect((await answerOf(open(g.port, signedHead(large) + large))).status).toBe(200);
      expect(g.passed).toEqual([large]);
      expect(refusalCounts(g.logs)).toEqual([{ 'a body not received in full by the deadline': 1 }]);
    });

    test('a body trickling in, a byte at a time and never idle long, is cut at the deadline all the same → 408 from the guard', async () => {
      // The server's own cut (requestTimeout) is far off: the guard's deadline is what ends it.
      const g = await startGuarded({ limits: { bodyDeadlineMs: 300, requestTimeoutMs: 60_000 } });
      const c = open(g.port, lookingSigned(1000));
      const trickle = setInterval(() => c.socket.write('x'), 20);
      try {
        const res = await answerOf(c, 'the trickling body to be cut');
        expect([res.status, res.headers['content-length'], res.headers.connection]).toEqual([408, '0', 'close']);
        await closeOf(c);
      } finally {
        clearInterval(trickle);
      }
      expect(g.passed).toEqual([]);
      expect(refusalCounts(g.logs)).toEqual([{ 'a body not received in full by the deadline': 1 }]);
    });

    test('a body arriving in pieces before the deadline is read whole', async () => {
      const g = await startGuarded({ limits: { bodyDeadlineMs: 2000 } });
      const body = commandOf(500);
      const c = open(g.port, signedHead(body));
      for (let at = 0; at < body.length; at += 100) {
        c.socket.write(body.slice(at, at + 100));
        await sleep(20);
      }
      expect((await answerOf(c)).status).toBe(200);
      expect(g.passed).toEqual([body]);
    });

    test('slow headers, and a connection that sends nothing, are cut by the server → 408', async () => {
      const g = await startGuarded({ limits: { headersTimeoutMs: 200, requestTimeoutMs: 1000, timeoutCheckIntervalMs: 50 } });
      const slow = open(g.port, 'POST /slack/events HTTP/1.1\r\nhost: 127.0.0.1\r\n');
      const silent = open(g.port);
      expect((await answerOf(slow, 'slow headers to be cut')).status).toBe(408);
      expect((await answerOf(silent, 'a silent connection to be cut')).status).toBe(408);
      await Promise.all([closeOf(slow), closeOf(silent)]);
    });

    test('past the deadline the server cuts a request whose whole takes too long all the same → 408', async () => {
      const g = await startGuarded({ limits: { bodyDeadlineMs: 5000, headersTimeoutMs: 300, requestTimeoutMs: 600, timeoutCheckIntervalMs: 50 } });
      const c = open(g.port, lookingSigned(1000));
      const trickle = setInterval(() => c.socket.write('x'), 100);
      try {
        expect((await answerOf(c, 'the slow request to be cut')).status).toBe(408);
        await closeOf(c);
      } finally {
        clearInterval(trickle);
      }
      expect(g.passed).toEqual([]);
    });

    test('the server’s timeouts come with whatever server options the caller passes', async () => {
      const receiver = new HTTPReceiver({ signingSecret: SECRET });
      guardRequests(receiver, { signingSecret: SECRET, logger: createLogger({ write: () => undefined }), limits: { headersTimeoutMs: 1234 } });
      const server = await receiver.start(0, { requestTimeout: 4321 });
      try {
        expect([server.headersTimeout, server.requestTimeout]).toEqual([1234, 4321]);
      } finally {
        await receiver.stop();
      }
    });

    test('in production the receiver’s server cuts slow headers and slow requests within seconds, not minutes', async () => {
      const logger = createLogger({ write: () => undefined });
      const config = loadConfig({ SLACK_BOT_TOKEN: 'xoxb-guard-test-0123456789', SLACK_SIGNING_SECRET: SECRET, VS_API_URL: 'sandbox', VS_DB_PATH: ':memory:' });
      const receiver = createReceiver(config, { logger, boltLogger: toBoltLogger(logger), clientOptions: {}, routes: [], started: () => true }) as HTTPReceiver;
      const server = await receiver.start(0);
      try {
        expect([server.headersTimeout, server.requestTimeout]).toEqual([UNVERIFIED_LIMITS.headersTimeoutMs, UNVERIFIED_LIMITS.requestTimeoutMs]);
        expect(UNVERIFIED_LIMITS.requestTimeoutMs).toBeLessThanOrEqual(10_000);
      } finally {
        await receiver.stop();
      }
    });
  });

  test('refusals are logged at most once per 10 s, with the count of each reason since the last line', async () => {
    let now = NOW_MS;
    const g = await startGuarded({ now: () => now });
    const refuse = async () => expect((await answerOf(open(g.port, lookingSigned(10, { 'x-slack-signature': 'v0=zz' })))).status).toBe(401);
    await refuse();
    await refuse();
    now += 9_999;
    await refuse();
    now += 1;
    await refuse();
    expect(refusalCounts(g.logs)).toEqual([{ 'no v0 signature': 1 }, { 'no v0 signature': 3 }]);
  });
});

describe('refuseUnprocessable: what escapes Bolt', () => {
  async function serve(handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>): Promise<{ port: number; close: () => Promise<void> }> {
    const { createServer } = await import('node:http');
    const server = createServer((req, res) => void handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      port: (server.address() as { port: number }).port,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  }

  test.each([
    {
      name: 'before an answer: 400, logged as a refusal, handled',
      acked: false,
      status: 400,
      handled: true,
      level: 'warn',
      msg: 'refused a request Bolt could not process',
    },
    {
      name: 'after the ack: the answer is left alone, the error logged as an error, not handled',
      acked: true,
      status: 200,
      handled: false,
      level: 'error',
      msg: 'a request failed after it was acknowledged',
    },
  ])('$name', async ({ acked, status, handled, level, msg }) => {
    const logs: string[] = [];
    const logger = createLogger({ write: (l) => logs.push(l) });
    const error = new Error(acked ? 'late' : 'payload.user is undefined');
    let returned: boolean | undefined;
    const s = await serve(async (request, response) => {
      if (acked) response.writeHead(200);
      returned = await refuseUnprocessable(logger)({ error, logger: toBoltLogger(logger), request, response, storedResponse: undefined });
      if (acked) response.end('acked');
    });
    try {
      const res = await answerOf(open(s.port, head({}, 'POST')));
      expect(res.status).toBe(status);
      expect(returned).toBe(handled);
      expect(logs.join('\n')).toContain(error.message);
      expect(logs.map((l) => JSON.parse(l) as { level: string; msg: string })).toEqual([expect.objectContaining({ level, msg })]);
    } finally {
      await s.close();
    }
  });
});
