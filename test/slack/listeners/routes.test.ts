import { App, LogLevel, type Logger as BoltLogger, type Receiver } from '@slack/bolt';
import { createLogger } from '../../../src/log';
import type { ListenerContext } from '../../../src/slack/context';
import { servedWorkspaces } from '../../../src/slack/workspaces';
import { registerListeners } from '../../../src/slack/listeners';
import { ACTIONS } from '../../../src/slack/listeners/actions';
import { EVENTS } from '../../../src/slack/listeners/events';
import { FUNCTIONS } from '../../../src/slack/listeners/functions';
import { SHORTCUTS } from '../../../src/slack/listeners/shortcuts';
import { VIEWS } from '../../../src/slack/listeners/views';

// The listeners as Bolt runs them: a real App, fed deliveries by a receiver of
// the test's own (bolt-js tests routing the same way), with the listeners
// registered by registerListeners from the tables (`/vs` in Bolt's global
// middleware, one Bolt listener per other kind, matching the ids of its table,
// and one app.function per step). A delivery a row names is served by that
// row, and by no other; one that no row names runs no listener: it is neither
// acked nor logged. The rows here are refused by the policy (or
// fail on a context without a door), which is enough to see which row served
// them: the request's log line names it.

const lines: string[] = [];
const refusal = { allowed: false, action: 'read', role: 'viewer', needed: 'viewer', denial: { code: 'role' } };
const ctx = {
  config: { slack: { apiUrl: undefined } },
  logger: createLogger({ write: (line) => lines.push(line) }),
  now: () => 0,
  sandbox: false,
  limits: { reads: { perMinute: 10, take: () => Promise.resolve(0) }, changes: { perMinute: 10, take: () => Promise.resolve(0) } },
  policy: { can: () => Promise.resolve(refusal), workflowsMayRead: false },
  workspaces: servedWorkspaces({ teamId: 'T1', allowedTeams: [] }, { teamId: () => undefined, learn: () => Promise.resolve() }),
} as unknown as ListenerContext;

const silent: BoltLogger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  setLevel: () => undefined,
  getLevel: () => LogLevel.ERROR,
  setName: () => undefined,
};
const receiver: Receiver = { init: () => undefined, start: () => Promise.resolve(), stop: () => Promise.resolve() };
const newApp = () =>
  new App({
    receiver,
    logger: silent,
    authorize: () => Promise.resolve({ botToken: 'xoxb-routes-test', botId: 'B1', botUserId: 'UBOT' }),
    // A step refused completes with an error through the Web API: nowhere to go here, and no retries.
    clientOptions: { slackApiUrl: 'http://127.0.0.1:9/api/', retryConfig: { retries: 0 } },
  });
const app = newApp();
registerListeners(app, ctx);
beforeEach(() => void lines.splice(0));

/** One delivery as the receiver hands it to Bolt: how often it was acked, and the request log lines written for it. */
async function deliver(body: Record<string, unknown>) {
  const seen = { acked: 0 };
  await app.processEvent({ body, ack: () => Promise.resolve(void seen.acked++) });
  const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => 'outcome' in line);
  return { acked: seen.acked, logged };
}

const team = { id: 'T1' };
const user = { id: 'U1', team_id: 'T1' };
const action = (action_id: string) => ({ type: 'block_actions', team, user, actions: [{ type: 'button', action_id, block_id: 'b', value: '42:2' }] });
const shortcut = (callback_id: string, type = 'shortcut') => ({ type, team, user, callback_id, trigger_id: 't' });
const event = (type: string) => ({ type: 'event_callback', team_id: 'T1', event: { type, user: 'U1' } });
const view = (callback_id: string, type = 'view_submission') => ({ type, team, user, view: { callback_id, private_metadata: '', state: { values: {} } } });
const step = (callback_id: string) => ({
  type: 'event_callback',
  team_id: 'T1',
  event: {
    type: 'function_executed',
    function: { callback_id },
    inputs: { vs_id: 42 },
    function_execution_id: 'Fx1',
    workflow_execution_id: 'Wf1',
    bot_access_token: 'xwfp-routes-test',
  },
});
const command = (name: string, text: string) => ({ command: name, text, user_id: 'U1', team_id: 'T1', channel_id: 'C1' });

test.each([
  ['the /vs command', command('/vs', 'firewall 42'), { msg: 'command', subcommand: 'firewall' }],
  ['a paging button', action('firewall_page_next'), { msg: 'action', action_id: 'firewall_page_next' }],
  ["a change form's global shortcut", shortcut('disk_add_shortcut'), { msg: 'shortcut', shortcut: 'disk_add_shortcut' }],
  ['a link posted', event('link_shared'), { msg: 'event', event: 'link_shared' }],
  ["a change form's submission", view('disk_add'), { msg: 'submission', view: 'disk_add' }],
  ['a workflow step', step('vs_firewall_summary'), { msg: 'step', step: 'vs_firewall_summary', function_execution_id: 'Fx1' }],
])('%s is served by its row, once, acked by readRequest first', async (_name, body, logged) => {
  const served = await deliver(body);
  expect(served.logged).toEqual([expect.objectContaining(logged)]);
  // A submission is acked with its answer by its listener; an event by Bolt before any listener (the test's ack).
  expect(served.acked).toBe(1);
});

test.each([
  ['another slash command', command('/other', 'firewall 42')],
  ['a button no row names', action('nobody_knows_this_button')],
  ['a button of a legacy attachment', { ...action('firewall_page_next'), type: 'interactive_message', callback_id: 'x' }],
  ['a shortcut no row names', shortcut('some_other_shortcut')],
  ['a message shortcut named as a global one', shortcut('disk_add_shortcut', 'message_action')],
  ['an event no row names', event('reaction_added')],
  ["another app's workflow step", step('someone_elses_step')],
  ['a submission no row names', view('some_other_form')],
  ['a closed form', view('disk_add', 'view_closed')],
])('%s runs no listener: neither acked nor logged', async (_name, body) => {
  const { acked, logged } = await deliver(body);
  // Bolt acks an Events API delivery itself, whether a listener takes it or not.
  expect({ acked: (body as { type?: string }).type === 'event_callback' ? 0 : acked, logged }).toEqual({ acked: 0, logged: [] });
});

describe('no delivery matches two rows of a table (Bolt would run both)', () => {
  const ids = (rows: readonly { id: string | RegExp }[], examples: readonly string[]) =>
    examples.map((example) => rows.filter(({ id }) => (typeof id === 'string' ? id === example : id.test(example))).length);

  test.each([
    [
      'buttons',
      ACTIONS.map((row) => ({ id: row.actionId })),
      [
        ...ACTIONS.flatMap((row) => (typeof row.actionId === 'string' ? [row.actionId] : [])),
        ...['firewall', 'backups', 'audit'].flatMap((list) => [`${list}_page_prev`, `${list}_page_next`]),
        'backups_restore_9',
      ],
    ],
    ['shortcuts', SHORTCUTS.map((row) => ({ id: row.callbackId })), SHORTCUTS.map((row) => row.callbackId)],
    ['form submissions', VIEWS.map((row) => ({ id: row.callbackId })), VIEWS.map((row) => row.callbackId)],
    ['events', EVENTS.map((row) => ({ id: row.event })), EVENTS.map((row) => row.event)],
    ['workflow steps', FUNCTIONS.map((row) => ({ id: row.callbackId })), FUNCTIONS.map((row) => row.callbackId)],
  ])('%s', (_table, rows, examples) => {
    expect(ids(rows, examples)).toEqual(examples.map(() => 1));
  });
});

test("/vs is served before Bolt's listener phase: no listener's chain runs for it, while other deliveries reach the listeners", async () => {
  const probed = newApp();
  registerListeners(probed, ctx);
  const reached: string[] = [];
  // A listener registered after ours, of every kind a /vs command or a button could match.
  probed.command(/.*/, async ({ command }) => void reached.push(`command ${command.command}`));
  probed.action(/.*/, async ({ action }) => void reached.push(`action ${'action_id' in action ? action.action_id : ''}`));
  for (const body of [command('/vs', 'firewall 42'), command('/other', 'x'), action('firewall_page_next')])
    await probed.processEvent({ body, ack: () => Promise.resolve() });
  expect(reached).toEqual(['command /other', 'action firewall_page_next']);
});
