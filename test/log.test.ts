import { WebClient } from '@slack/web-api';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { toBoltLogger } from '../src/slack/bolt-logger';
import { createLogger, maskUrlPasswords, REDACTED } from '../src/log';

function capture(level: 'debug' | 'info' = 'debug', secrets: string[] = []) {
  const lines: string[] = [];
  const logger = createLogger({ level, secrets, write: (l) => lines.push(l), now: () => new Date('2026-01-01T00:00:00Z') });
  return { logger, lines, records: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('logger', () => {
  test("to stdout, a turn's lines are written together, and every line is written when the process exits at once", async () => {
    // Three lines, then process.exit in the same turn: nothing may be left pending.
    const script = [
      `const { createLogger } = require(${JSON.stringify(join(__dirname, '..', 'src', 'log.ts'))});`,
      'const logger = createLogger();',
      "for (const n of [1, 2, 3]) logger.info('line', { n });",
      'process.exit(0);',
    ].join('\n');
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '-e', script]);
    expect(
      stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { n: number }).n),
    ).toEqual([1, 2, 3]);
  });

  test('writes one JSON object per line with level, message, bindings and fields', () => {
    const { logger, records } = capture();
    logger.child({ user: 'U1' }).info('command', { outcome: 'ok', ms: 12 });
    expect(records()).toEqual([{ time: '2026-01-01T00:00:00.000Z', level: 'info', msg: 'command', user: 'U1', outcome: 'ok', ms: 12 }]);
  });

  test('drops lines below the level', () => {
    const { logger, lines } = capture('info');
    logger.debug('hidden');
    logger.warn('shown');
    expect(lines).toHaveLength(1);
  });

  test('masks known secret values anywhere, at debug level too', () => {
    const { logger, lines } = capture('debug', ['xoxb-secret-token', 'api-key-xyz']);
    logger.debug('calling with xoxb-secret-token', { nested: { header: 'Basic api-key-xyz' }, list: ['api-key-xyz'] });
    logger.error('failed', { error: new Error('bad key api-key-xyz') });
    const all = lines.join('\n');
    expect(all).not.toContain('xoxb-secret-token');
    expect(all).not.toContain('api-key-xyz');
    expect(all).toContain(REDACTED);
  });

  test("a URL's password never reaches a line: undici's error through the Web API client's own logging and ours", async () => {
    const { logger, lines } = capture('debug');
    // Nothing listens on port 9; undici refuses the URL before connecting anyway.
    const client = new WebClient('xoxb-1', {
      slackApiUrl: 'http://proxy-user:hunter2-secret@127.0.0.1:9/api/',
      retryConfig: { retries: 0 },
      logger: toBoltLogger(logger.child({ component: 'bolt' })),
    });
    const error = await client.auth.test().then(
      () => new Error('expected a failure'),
      (e: unknown) => e as Error,
    );
    expect(error.message).toContain('hunter2-secret');
    logger.error('the Slack call failed', { error });
    logger.warn(`copied into the message: ${error.message}`);
    const all = lines.join('\n');
    expect(all).toContain(`http://proxy-user:${REDACTED}@127.0.0.1:9/api/auth.test`);
    expect(all).not.toContain('hunter2');
  });

  test.each([
    ['postgres://bot:p%40ss@db:5432/vs', `postgres://bot:${REDACTED}@db:5432/vs`],
    ['at https://u:p@ss@host/x today', `at https://u:${REDACTED}@host/x today`],
    ['"url":"https://u:pw@h/a","next":"x@y"', `"url":"https://u:${REDACTED}@h/a","next":"x@y"`],
    ['https://host:8443/path@v1 and mail@example.com', 'https://host:8443/path@v1 and mail@example.com'],
  ])('maskUrlPasswords(%s)', (text, masked) => {
    expect(maskUrlPasswords(text)).toBe(masked);
  });

  test('masks fields whose names say they hold a secret', () => {
    const { logger, records } = capture();
    logger.info('req', { headers: { Authorization: 'Basic abc', 'x-ok': 'fine' }, apiKey: 'k', token: 't' });
    expect(records()[0]).toMatchObject({ headers: { Authorization: REDACTED, 'x-ok': 'fine' }, apiKey: REDACTED, token: REDACTED });
  });

  test('serialises errors with their code and cuts cycles', () => {
    const { logger, records } = capture();
    const err = Object.assign(new Error('boom'), { code: 'E_X' });
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    logger.error('x', { error: err, cyclic });
    const r = records()[0] as { error: { message: string; code: string }; cyclic: { self: unknown } };
    expect(r.error).toMatchObject({ message: 'boom', code: 'E_X' });
    expect(r.cyclic.self).toBe('[…]');
  });

  test.each([
    ['secret', ['secret', 'signingSecret', 'client_secret', 'SLACK_SIGNING_SECRET']],
    ['password', ['password', 'dbPassword', 'PASSWORD']],
    ['token', ['token', 'botToken', 'access_token', 'X-Slack-Token']],
    ['authorization', ['authorization', 'Authorization', 'proxy-authorization']],
    ['cookie', ['cookie', 'Set-Cookie', 'cookies']],
    ['api key', ['apiKey', 'api_key', 'x-api-key', 'API_KEY', 'cloudApiKey']],
  ])('masks every key of the %s kind, nested and in arrays too, at every level', (_kind, keys) => {
    for (const level of ['debug', 'info', 'warn', 'error'] as const) {
      const { logger, lines } = capture('debug');
      for (const key of keys) {
        const value = `v4lue-of-${key}`;
        logger[level]('x', { [key]: value, nested: { deeper: { [key]: value } }, list: [{ [key]: value }] });
        expect(lines.join('\n')).not.toContain(value);
        expect(lines.pop()!.split(REDACTED)).toHaveLength(4);
      }
    }
  });

  test('keys that merely resemble secret ones keep their values', () => {
    const { logger, records } = capture();
    logger.info('x', { user: 'U1', keyboard: 'k', channel: 'C1', outcome: 'ok' });
    expect(records()[0]).toMatchObject({ user: 'U1', keyboard: 'k', channel: 'C1', outcome: 'ok' });
  });

  test('masks secret values in error messages, stacks and causes', () => {
    const { logger, lines } = capture('debug', ['s3cr3t-api-key']);
    const cause = new Error('inner s3cr3t-api-key');
    const error = new Error('outer s3cr3t-api-key', { cause });
    error.stack = `Error: outer s3cr3t-api-key\n    at somewhere (s3cr3t-api-key.ts:1:1)`;
    logger.error('failed', { error });
    expect(lines.join('\n')).not.toContain('s3cr3t-api-key');
    expect(JSON.parse(lines[0]!)).toHaveProperty(['error', 'cause', 'message'], `inner ${REDACTED}`);
  });

  const responseUrl = 'https://hooks.slack.com/commands/T0001/123456/Abc9xYz';
  const metadata = JSON.stringify({ channelId: 'C1', vsId: 42, nonce: 'm3ta' });
  const body = { token: 'legacy', response_url: responseUrl, trigger_id: '1234.5678.trig9', view: { private_metadata: metadata, callback_id: 'disk_add' } };
  const capabilities = [responseUrl, 'Abc9xYz', '1234.5678.trig9', 'm3ta', 'T1CKET-value'];

  test('masks capabilities under their keys: response_url(s), trigger_id, private_metadata, in either spelling', () => {
    const { logger, lines } = capture();
    logger.info('x', { ...body, responseUrl, triggerId: '1234.5678.trig9', privateMetadata: metadata, response_urls: [{ response_url: responseUrl }] });
    const all = lines.join('\n');
    for (const c of capabilities) expect(all).not.toContain(c);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      response_url: REDACTED,
      trigger_id: REDACTED,
      view: { private_metadata: REDACTED, callback_id: 'disk_add' },
    });
  });

  test('masks capabilities inside text: a raw body in a message, JSON in JSON, a form body, a webhook URL, a Socket Mode ticket', () => {
    const { logger, lines } = capture('debug');
    logger.debug(JSON.stringify(body));
    logger.debug('http request body', { details: [JSON.stringify({ view: JSON.stringify(body.view), trigger_id: body.trigger_id })] });
    logger.debug(`form: command=%2Fvs&response_url=${encodeURIComponent(responseUrl)}&trigger_id=1234.5678.trig9&text=help`);
    logger.debug(`payload=${encodeURIComponent(JSON.stringify(body))}`);
    logger.warn('posting failed', { url: responseUrl, error: new Error(`POST ${responseUrl} failed`) });
    logger.debug('http request result: {"ok":true,"url":"wss://wss-primary.slack.com/link/?ticket=T1CKET-value&app_id=A1"}');
    const all = lines.join('\n');
    for (const c of capabilities) expect(all).not.toContain(c);
    expect(all).toContain('callback_id');
    expect(all).toContain('app_id=A1');
  });

  test("masks an upload URL of Slack's files host, under its key and in text, wherever it points", () => {
    const { logger, lines } = capture('debug');
    const upload = 'https://files.slack.com/upload/v1/CwABAAAAXgoAAZnoUpw';
    logger.debug(`http request result: ${JSON.stringify({ ok: true, upload_url: 'http://127.0.0.1:9/upload/v1/s3cret-key', file_id: 'F1' })}`);
    logger.warn('upload failed', { upload_url: upload, error: new Error(`POST ${upload} failed`) });
    const all = lines.join('\n');
    for (const c of ['s3cret-key', 'CwABAAAAXgoAAZnoUpw']) expect(all).not.toContain(c);
    expect(all).toContain('file_id');
  });

  test("Bolt's and the Web API client's debug lines go through the same masking", () => {
    const { logger, lines } = capture('debug', ['xoxb-bot-token-1']);
    const bolt = toBoltLogger(logger);
    bolt.debug(JSON.stringify(body));
    bolt.debug(`http request body: ${JSON.stringify({ trigger_id: body.trigger_id, view: JSON.stringify(body.view) })}`);
    bolt.debug('http request headers: {"Authorization":"Bearer xoxb-bot-token-1"}');
    bolt.error(new Error(`could not post to ${responseUrl}`));
    const all = lines.join('\n');
    for (const c of [...capabilities, 'xoxb-bot-token-1']) expect(all).not.toContain(c);
    expect(lines).toHaveLength(4);
  });
});
