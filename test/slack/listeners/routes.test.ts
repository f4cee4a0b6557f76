import type { AnyMiddlewareArgs, App, Middleware } from '@slack/bolt';
import { createLogger } from '../../../src/log';
import type { ListenerContext } from '../../../src/slack/context';
import { registerListeners } from '../../../src/slack/listeners';
import { FUNCTIONS } from '../../../src/slack/listeners/functions';

// One Bolt middleware routes every delivery to the row of its kind's table
// (src/slack/listeners/index.ts). A delivery a row names is served by that
// row, and by nothing else: it is not passed on. One that no row names is
// passed on to Bolt untouched, as when no listener matched it. The rows here
// are refused by the policy (or fail on a context without a door), which is
// enough to see which row served them: the request's log line names it.

const lines: string[] = [];
const refusal = { allowed: false, action: 'read', role: 'viewer', needed: 'viewer', denial: { code: 'role' } };
const ctx = {
  logger: createLogger({ write: (line) => lines.push(line) }),
  now: () => 0,
  sandbox: false,
  limits: { reads: { perMinute: 10, take: () => Promise.resolve(0) }, changes: { perMinute: 10, take: () => Promise.resolve(0) } },
  policy: { can: () => Promise.resolve(refusal) },
} as unknown as ListenerContext;

let route: Middleware<AnyMiddlewareArgs>;
/** The app.function listeners registered, by callback id: their options and middleware. */
const functions = new Map<string, { options: unknown; chain: Middleware<AnyMiddlewareArgs>[] }>();
beforeAll(() => {
  const app = {
    use: (middleware: Middleware<AnyMiddlewareArgs>) => void (route = middleware),
    function: (callbackId: string, options: unknown, ...chain: Middleware<AnyMiddlewareArgs>[]) => void functions.set(callbackId, { options, chain }),
  } as unknown as App;
  registerListeners(app, ctx);
});
beforeEach(() => void lines.splice(0));

/** One delivery as Bolt's global middleware gets it: how often it was passed on and acked, and the request's log line. */
async function deliver(args: Record<string, unknown>) {
  const seen = { passedOn: 0, acked: 0 };
  await route({
    context: { isEnterpriseInstall: false },
    next: () => Promise.resolve(void seen.passedOn++),
    ack: () => Promise.resolve(void seen.acked++),
    ...args,
  } as never);
  const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>).find((line) => 'outcome' in line);
  return { ...seen, logged };
}

const user = { id: 'U1' };
const action = (action_id: string) => ({ body: { type: 'block_actions', user, actions: [{ action_id }] }, action: { action_id } });
const shortcut = (callback_id: string) => ({ body: { type: 'shortcut', user, callback_id }, shortcut: { callback_id } });
const event = (type: string) => ({ body: { type: 'event_callback', event: { type, user: 'U1' } }, event: { type, user: 'U1' } });
const view = (callback_id: string) => ({ body: { type: 'view_submission', user, view: { callback_id } }, view: { callback_id } });
const step = (callback_id: string) => {
  const executed = { type: 'function_executed', function: { callback_id }, inputs: {}, function_execution_id: 'Fx1', workflow_execution_id: 'Wf1' };
  const enders = { complete: () => Promise.resolve(), fail: () => Promise.resolve() };
  return { body: { type: 'event_callback', event: executed }, event: executed, ...enders };
};
const command = (name: string, text: string) => ({ body: { command: name, text, user_id: 'U1' }, command: { command: name, text, user_id: 'U1' } });

test.each([
  ['the /vs command', command('/vs', 'firewall 42'), { msg: 'command', subcommand: 'firewall' }],
  ['a paging button', action('firewall_page_next'), { msg: 'action', action_id: 'firewall_page_next' }],
  ["a change form's global shortcut", shortcut('disk_add_shortcut'), { msg: 'shortcut', shortcut: 'disk_add_shortcut' }],
  ['a link posted', event('link_shared'), { msg: 'event', event: 'link_shared' }],
  ["a change form's submission", view('disk_add'), { msg: 'submission', view: 'disk_add' }],
])('%s is served by its row, and not passed on', async (_name, args, logged) => {
  const served = await deliver(args);
  expect(served.passedOn).toBe(0);
  expect(served.logged).toMatchObject(logged);
});

test.each([
  ['another slash command', command('/other', 'firewall 42')],
  ['a button no row names', action('nobody_knows_this_button')],
  ['a button of a message of another kind', { ...action('firewall_page_next'), body: { type: 'interactive_message', user } }],
  ['a shortcut no row names', shortcut('some_other_shortcut')],
  ['an event no row names', event('reaction_added')],
  ['a workflow step (for its app.function listener)', step('vs_firewall_summary')],
  ["another app's workflow step", step('someone_elses_step')],
  ['a submission no row names', view('some_other_form')],
  ['a closed form', { ...view('disk_add'), body: { type: 'view_closed', user, view: { callback_id: 'disk_add' } } }],
])('%s is passed on untouched: neither acked nor logged', async (_name, args) => {
  expect(await deliver(args)).toEqual({ passedOn: 1, acked: 0, logged: undefined });
});

test('each workflow step has its own app.function listener, acked by readRequest (not by Bolt), which serves it', async () => {
  expect([...functions.keys()]).toEqual(FUNCTIONS.map((row) => row.callbackId));
  for (const { options } of functions.values()) expect(options).toEqual({ autoAcknowledge: false });
  const { chain } = functions.get('vs_firewall_summary')!;
  const seen = { acked: 0 };
  const args = { context: { isEnterpriseInstall: false }, ack: () => Promise.resolve(void seen.acked++), ...step('vs_firewall_summary') };
  const run = (at: number): Promise<void> => chain[at]?.({ ...args, next: () => run(at + 1) } as never) ?? Promise.resolve();
  await run(0);
  expect(seen.acked).toBe(1);
  const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>).find((line) => 'outcome' in line);
  expect(logged).toMatchObject({ msg: 'step', step: 'vs_firewall_summary', function_execution_id: 'Fx1' });
});
