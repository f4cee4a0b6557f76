import type { AppFunction } from '../src/functions';
import { signedWith, useStandInWithBot } from './with-bot';

// Workflow steps as the stand-in runs them, Slack's way: a step run with
// inputs that fit its declared parameters reaches the app as a signed
// function_executed (JSON, event_callback) carrying a bot token issued for
// that execution alone; functions.completeSuccess is checked against the
// declared outputs, and once a step has completed its token is revoked and
// it cannot complete again. Inputs that do not fit are never sent.

const TOKEN = 'xoxb-functions-test';

const CHECK: AppFunction = {
  title: 'Check',
  description: 'A step with one of each kind of input',
  input_parameters: {
    properties: {
      vs_id: { type: 'integer', title: 'Server id' },
      protocol: { type: 'string', title: 'Protocol', enum: ['tcp', 'udp'] },
      channel: { type: 'slack#/types/channel_id', title: 'Channel' },
      note: { type: 'string', title: 'Note' },
    },
    required: ['vs_id', 'channel'],
  },
  output_parameters: {
    properties: { summary: { type: 'string', title: 'Summary' }, count: { type: 'integer', title: 'Count' } },
    required: ['summary', 'count'],
  },
};

let now = 1_700_000_000_000;
const slack = useStandInWithBot({ botToken: TOKEN, signingSecret: 'shh', now: () => now });
beforeAll(() => slack.standIn.setManifest({ slashCommands: [], shortcuts: [], functions: { check: CHECK } }));

type FunctionExecuted = {
  type: string;
  event_id: string;
  event: {
    type: string;
    function: { callback_id: string; title: string; input_parameters: { name: string; type: string; is_required: boolean }[] };
    inputs: Record<string, unknown>;
    function_execution_id: string;
    workflow_execution_id: string;
    bot_access_token: string;
  };
};

const api = async (method: string, args: Record<string, unknown>, token: string) =>
  (await slack.api<{ ok: boolean; error?: string; response_metadata?: { messages: string[] } }>(method, args, token)).body;

/** Runs `check` as Vera, with inputs typed as on the page; the function_executed the app slack.received. */
async function run(entered: Record<string, unknown>) {
  const ran = await slack.standIn.runStep('U0VIEWER', 'check', entered);
  if (!('execution' in ran)) throw new Error(`not run: ${JSON.stringify(ran)}`);
  const event = JSON.parse(slack.received.at(-1)!.body) as FunctionExecuted;
  return { ...ran, event, token: event.event.bot_access_token };
}

test('a run reaches the app as a signed function_executed: the step as declared, the inputs typed, its ids and its own token', async () => {
  const { execution, ack, event } = await run({ vs_id: ' 42 ', protocol: 'udp', channel: 'C0INCIDENT', note: '' });
  expect(ack.status).toBe(200);
  expect(slack.received[0]!.headers['content-type']).toBe('application/json');
  expect(signedWith(slack.received[0]!, 'shh')).toBe(true);
  expect(event).toMatchObject({
    type: 'event_callback',
    event: {
      type: 'function_executed',
      function: { callback_id: 'check', title: 'Check' },
      // Numbers for integer parameters; an empty field is left out.
      inputs: { vs_id: 42, protocol: 'udp', channel: 'C0INCIDENT' },
      function_execution_id: execution.id,
      workflow_execution_id: execution.workflowExecutionId,
    },
  });
  expect(event.event.inputs).not.toHaveProperty('note');
  expect(event.event.function.input_parameters).toContainEqual({ type: 'integer', name: 'vs_id', title: 'Server id', description: '', is_required: true });
  expect(event.event.bot_access_token).toMatch(/^xwfp-/);
  expect(execution).toMatchObject({ state: 'running', user: 'U0VIEWER' });
  expect(execution).not.toHaveProperty('token');
});

test('inputs that do not fit the declared parameters are shown by field, and nothing is sent', async () => {
  expect(await slack.standIn.runStep('U0VIEWER', 'check', { vs_id: '4.2', protocol: 'icmp', channel: 'general' })).toEqual({
    problems: { vs_id: 'Enter a whole number.', protocol: 'Choose one of tcp, udp.', channel: 'Choose a channel.' },
  });
  expect(await slack.standIn.runStep('U0VIEWER', 'check', {})).toEqual({
    problems: { vs_id: 'Please complete this required field.', channel: 'Please complete this required field.' },
  });
  expect(await slack.standIn.runStep('U0VIEWER', 'nope', {})).toEqual({ error: 'unknown_function' });
  expect(slack.received).toEqual([]);
});

test('functions.completeSuccess: outputs checked against the declared ones, then the step is completed once and its token revoked', async () => {
  const { execution, token } = await run({ vs_id: '42', channel: 'C0INCIDENT' });
  const id = execution.id;
  expect(await api('functions.completeSuccess', { function_execution_id: id, outputs: { summary: 'ok' } }, token)).toMatchObject({
    ok: false,
    error: 'parameter_validation_failed',
    response_metadata: { messages: ['[ERROR] missing required field: count [json-pointer:/count]'] },
  });
  expect(await api('functions.completeSuccess', { function_execution_id: id, outputs: { summary: 'ok', count: 'three', extra: 1 } }, token)).toMatchObject({
    ok: false,
    error: 'parameter_validation_failed',
    response_metadata: {
      messages: ['[ERROR] count must be of type integer [json-pointer:/count]', '[ERROR] extra is not a parameter of this function [json-pointer:/extra]'],
    },
  });
  expect(await api('functions.completeSuccess', { function_execution_id: id, outputs: { summary: 'ok', count: 3 } }, token)).toEqual({ ok: true });
  expect(await slack.standIn.waitForExecution(id)).toMatchObject({ state: 'completed', outputs: { summary: 'ok', count: 3 } });
  // Completed: its token no longer works, and the bot's own token cannot complete it again.
  expect(await api('chat.postMessage', { channel: 'C0INCIDENT', text: 'late' }, token)).toMatchObject({ ok: false, error: 'token_revoked' });
  expect(await api('functions.completeError', { function_execution_id: id, error: 'late' }, TOKEN)).toMatchObject({
    ok: false,
    error: 'execution_not_in_running_state',
  });
});

test('functions.completeError ends the step with its error; an error must be given, and an execution must exist', async () => {
  const { execution, token } = await run({ vs_id: '42', channel: 'C0INCIDENT' });
  expect(await api('functions.completeError', { function_execution_id: execution.id, error: ' ' }, token)).toMatchObject({
    ok: false,
    error: 'invalid_arguments',
  });
  expect(await api('functions.completeError', { function_execution_id: execution.id, error: 'VS 42 was not found' }, token)).toEqual({ ok: true });
  expect(await slack.standIn.waitForExecution(execution.id)).toMatchObject({ state: 'failed', error: 'VS 42 was not found' });
  expect(await api('functions.completeSuccess', { function_execution_id: 'Fx0NEVER', outputs: {} }, TOKEN)).toMatchObject({
    ok: false,
    error: 'function_execution_not_found',
  });
  expect(await api('functions.completeSuccess', { outputs: {} }, TOKEN)).toMatchObject({ ok: false, error: 'invalid_arguments' });
});

test("an execution's token expires after 15 minutes, completed or not", async () => {
  const { execution, token } = await run({ vs_id: '42', channel: 'C0INCIDENT' });
  now += 15 * 60_000 + 1;
  expect(await api('functions.completeSuccess', { function_execution_id: execution.id, outputs: { summary: 'ok', count: 1 } }, token)).toMatchObject({
    ok: false,
    error: 'token_expired',
  });
  expect(slack.standIn.state.executions.get(execution.id)?.state).toBe('running');
});

test('another delivery of one execution carries the same ids and token under a new event id', async () => {
  const { execution, event } = await run({ vs_id: '42', channel: 'C0INCIDENT' });
  const again = slack.standIn.functionExecuted('check', {}, { functionExecutionId: execution.id });
  const repeated = again.envelope as unknown as FunctionExecuted;
  expect(repeated.event_id).not.toBe(event.event_id);
  expect(repeated.event).toMatchObject({
    function_execution_id: execution.id,
    workflow_execution_id: execution.workflowExecutionId,
    bot_access_token: event.event.bot_access_token,
    inputs: event.event.inputs,
  });
});
