import { connect, type Socket } from 'node:net';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/log';
import { toBoltLogger } from '../../src/slack/bolt-logger';
import { createReceiver } from '../../src/slack/receiver';
import { BODY_LIMIT, UNVERIFIED_LIMITS } from '../../src/slack/request-guard';
import { SIGNING_SECRET, startHarness, type Harness } from '../helpers/app-harness';
import { answerTo } from '../helpers/drive';
import { slashCommandBody } from '../helpers/payloads';
import { postToSlackEndpoint, sign } from '../helpers/signed-requests';
import { waitFor } from '../helpers/wait';

const FORM = 'application/x-www-form-urlencoded';

// The receiver as composed for production: the request guard in front of Bolt,
// with its default limits, and Bolt's own signature check behind it.
// test/slack/request-guard.test.ts tests each check of the guard;
// test/security/unsigned-requests.test.ts sends every shape Slack delivers, forged.

test("Bolt's own signature check is on behind the guard", () => {
  const logger = createLogger({ write: () => undefined });
  const config = loadConfig({
    SLACK_BOT_TOKEN: 'xoxb-receiver-test-0123456789',
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    VS_API_URL: 'sandbox',
    VS_DB_PATH: ':memory:',
  });
  const receiver = createReceiver(config, { logger, boltLogger: toBoltLogger(logger), clientOptions: {}, routes: [], started: () => true });
  // Bolt keeps the option it was built with; nothing in src may set it (eslint.config.mjs).
  expect((receiver as unknown as { signatureVerification: unknown }).signatureVerification).toBe(true);
});

describe('the HTTP receiver: signed requests only', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  test('a command signed with another secret is refused, and one signed right is answered', async () => {
    const body = () => slashCommandBody({ text: 'firewall 42', responseUrl: h.slack.responseUrl() });
    const forged = await h.raw(body(), FORM, { signature: sign('not-the-secret', Math.floor(Date.now() / 1000), body()) });
    expect(forged.status).toBe(401);
    expect((await answerTo(h, 'firewall 42')).response_type).toBe('in_channel');
    expect(h.slack.responses).toHaveLength(1);
  });

  test('an unsigned SSL check is answered as one, and a command smuggled into it never runs', async () => {
    const smuggled = `ssl_check=1&${slashCommandBody({ text: 'firewall 43', responseUrl: h.slack.responseUrl() })}`;
    const before = h.slack.responses.length;
    const res = await h.raw(smuggled.slice(0, 1024), FORM, { unsigned: true });
    expect([res.status, res.body]).toEqual([200, '']);
    // A signed command sent after it is answered; the smuggled one, had it run, would have been answered first.
    expect((await answerTo(h, 'firewall 44')).response_type).toBe('in_channel');
    expect(h.slack.responses).toHaveLength(before + 1);
  });

  test('a signed POST to a path other than /slack/events → 404, and nothing runs', async () => {
    const body = slashCommandBody({ text: 'firewall 42', responseUrl: h.slack.responseUrl() });
    const before = h.slack.responses.length;
    for (const path of ['/other', '/slack/events/x', '/', '/healthz']) {
      const res = await postToSlackEndpoint(new URL(path, h.eventsUrl).toString(), SIGNING_SECRET, body, FORM);
      expect([path, res.status]).toEqual([path, 404]);
    }
    // The same body at the endpoint runs, and is the only one that did.
    expect((await h.raw(body, FORM)).status).toBe(200);
    await waitFor('the answer of the command sent to the endpoint', () => (h.slack.responses.length > before ? true : undefined));
    expect(h.slack.responses).toHaveLength(before + 1);
  });
});

describe('the HTTP receiver, under stalled bodies that look signed', () => {
  let h: Harness;
  const stalled: Socket[] = [];
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    for (const socket of stalled) socket.destroy();
    await h.close();
  });

  /**
   * A connection that looks signed, announces `length` bytes (1 MB by default), sends 64 KB of them (or all but one)
   * and stalls; from `from` (an address of loopback's 127.0.0.0/8: another client); resolves with the status it is
   * answered, if any.
   */
  function stall(from: string, length = BODY_LIMIT): Promise<number> {
    const url = new URL(h.eventsUrl);
    const socket = connect({ port: Number(url.port), host: url.hostname, localAddress: from });
    stalled.push(socket);
    socket.on('error', () => undefined);
    const head = [
      'POST /slack/events HTTP/1.1',
      'host: 127.0.0.1',
      'content-type: application/json',
      `content-length: ${length}`,
      `x-slack-request-timestamp: ${Math.floor(Date.now() / 1000)}`,
      `x-slack-signature: v0=${'ab'.repeat(32)}`,
    ];
    socket.write(head.join('\r\n') + '\r\n\r\n' + 'x'.repeat(Math.min(64 * 1024, length - 1)));
    return new Promise((resolve) => socket.once('data', (chunk: Buffer) => resolve(Number(chunk.toString('latin1').split(' ')[1]))));
  }

  test('past the places for large bodies a stalled one gets 503 at once, and signed commands are still answered', async () => {
    const answers: number[] = [];
    // One more than there are places, each from a client of its own: whichever reaches the guard last is refused, the others are read, and held.
    const all = Array.from({ length: UNVERIFIED_LIMITS.largeReads + 1 }, (_, i) => stall(`127.0.1.${i + 1}`).then((status) => void answers.push(status)));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.race(all), new Promise((resolve) => (timer = setTimeout(resolve, 4000)))]);
    clearTimeout(timer);
    expect(answers).toEqual([503]);
    const m = await answerTo(h, 'firewall 42');
    expect(m.response_type).toBe('in_channel');
    // The others are still being read: the deadline cuts them seconds later.
    expect(answers).toEqual([503]);
  });

  test('one client holding hundreds of slow connections gets 429 past its share, and Slack’s requests from elsewhere are answered', async () => {
    const answers: number[] = [];
    for (let i = 0; i < 300; i++) void stall('127.0.0.2', 1000).then((status) => void answers.push(status));
    // All but the client's share are refused at once, from their headers.
    await waitFor('the refusals of the slow client past its share', () => (answers.length >= 300 - UNVERIFIED_LIMITS.clientReads ? true : undefined), {
      within: 5000,
    });
    expect(answers).toEqual(Array<number>(300 - UNVERIFIED_LIMITS.clientReads).fill(429));
    const messages = await Promise.all(['firewall 42', 'firewall 43', 'server 44'].map((text) => answerTo(h, text)));
    expect(messages.map((m) => m.response_type)).toEqual(['in_channel', 'in_channel', 'in_channel']);
  });
});
