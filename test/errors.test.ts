import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OutcomeNotRecordedError } from '../src/changes';
import { BudgetWaitTimeout } from '../src/cloud/budget';
import { CloudError } from '../src/cloud/errors';
import { XmlSyntaxError } from '../src/cloud/xml';
import { StoppedWhileStarting } from '../src/compose';
import { ConfigError } from '../src/errors';
import { CodedError } from '../src/errors';
import { MiddlewareMissingError } from '../src/slack/errors';
import { DirectUploadError } from '../src/slack/dm-upload';
import { ResponseUrlError, ResponseUrlNotSlackError } from '../src/slack/response-url';
import { StoreUnavailableError } from '../src/store';

// Every error the bot throws on purpose is a CodedError (src/errors.ts) with a code in one spelling: the part of the
// bot first, upper snake case. The type holds the spelling where a code is written; this holds every class to the base.

const SRC = join(__dirname, '..', 'src');
const SPELLING = /^(BOT|CONFIG|CLOUD|STORE|CHANGE|SLACK)(_[A-Z0-9]+)+$/;

test('no error class of src/ extends Error but the base, and the copy of a foreign error the cloud transport keeps', () => {
  const classes = readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .flatMap((file) => [...readFileSync(join(SRC, file), 'utf8').matchAll(/class (\w+) extends Error\b/g)].map((m) => `${file}: ${m[1]}`));
  expect(classes.sort()).toEqual(['cloud/transport.ts: LowLevelCause', 'errors.ts: CodedError']);
});

test.each([
  ['OutcomeNotRecordedError', new OutcomeNotRecordedError({ cause: new Error('down') }), 'CHANGE_OUTCOME_NOT_RECORDED'],
  ['MiddlewareMissingError', new MiddlewareMissingError('readRequest'), 'SLACK_MIDDLEWARE_MISSING'],
  ['ResponseUrlError', new ResponseUrlError(404), 'SLACK_RESPONSE_URL_REFUSED'],
  ['ResponseUrlNotSlackError', new ResponseUrlNotSlackError(), 'SLACK_RESPONSE_URL_NOT_SLACK'],
  ['StoreUnavailableError', new StoreUnavailableError('the database is down'), 'STORE_UNAVAILABLE'],
  ['ConfigError', new ConfigError(['VS_API_URL is required']), 'CONFIG_INVALID'],
  ['StoppedWhileStarting', new StoppedWhileStarting(), 'BOT_STOPPED_WHILE_STARTING'],
  ['CloudError', new CloudError('timeout', 'no answer'), 'CLOUD_TIMEOUT'],
  ['XmlSyntaxError', new XmlSyntaxError('no XML element found'), 'CLOUD_XML_SYNTAX'],
  ['BudgetWaitTimeout', new BudgetWaitTimeout('no connection came free'), 'CLOUD_BUDGET_WAIT_TIMEOUT'],
  ['DirectUploadError', new DirectUploadError('upload', 'upload_url_not_slack'), 'SLACK_UPLOAD_FAILED'],
])('%s is a CodedError, named after its class, with its code in the one spelling', (name, error, code) => {
  expect(error).toBeInstanceOf(CodedError);
  expect(error).toBeInstanceOf(Error);
  expect(error.name).toBe(name);
  expect(error.code).toBe(code);
  expect(error.code).toMatch(SPELLING);
});

test('every kind of CloudError has a code in the spelling (the Slack side words each kind)', () => {
  for (const kind of [
    'unauthorized',
    'forbidden',
    'not_found',
    'validation',
    'rate_limited',
    'server',
    'timeout',
    'network',
    'no_connection',
    'bad_response',
  ] as const)
    expect(new CloudError(kind, kind).code).toMatch(SPELLING);
});
