import { useHarness } from '../helpers/app-harness';
import { answerTo, CHANNEL, completionsOf, openForm, runStep, submit, visibleText, type View, postedIn } from '../helpers/drive';
import { globalShortcut, input, newTriggerId } from '../helpers/payloads';
import { approvalIdIn, clickOn, messageOf, recordsOf, shownRequest, updatedTo, type PostedRequest } from '../helpers/requests';
import { waitFor } from '../helpers/wait';

// The power actions over the real Bolt app (docs/product.md, Power actions):
// signed commands, submissions, a shortcut, a workflow step and approval clicks
// in; the sandbox's seeded servers on loopback as the cloud (VS 42 on, VS 43
// off, VS 47 locked by a backup that never ends: packages/cloud-sandbox/README.md).

const USERS = { admin: 'UADMIN', admin2: 'UADMIN2', operator: 'UOPER', operator2: 'UOPER2', viewer: 'UVIEWER' } as const;

const POWER_PATH = /^\/virtual_machines\/(\d+)\/(startup|shutdown|reboot|stop)\.json$/;

const h = useHarness({
  env: {
    VS_ADMINS: `${USERS.admin},${USERS.admin2}`,
    VS_OPERATORS: `${USERS.operator},${USERS.operator2}`,
    VS_VIEWERS: USERS.viewer,
    // A reboot waits for a second person; the other power actions do not.
    VS_APPROVALS: 'power_reboot',
  },
});

const powerPosts = () => h.sandbox.requests.filter((r) => r.method === 'POST' && POWER_PATH.test(r.path));
const serverReads = () => h.sandbox.requests.filter((r) => r.method === 'GET' && /^\/virtual_machines\/\d+\.json$/.test(r.path));
const optionsOf = (view: View) =>
  ((view.blocks.find((b) => b.block_id === 'power_action')?.element ?? {}) as { options?: { value: string }[] }).options?.map((o) => o.value);
const initialOf = (view: View) =>
  ((view.blocks.find((b) => b.block_id === 'power_action')?.element ?? {}) as { initial_option?: { value: string } }).initial_option?.value;

/** The power form filled in: the action, the server id typed again, a reason. */
const filled = (action: string, o: { confirm?: string; reason?: string } = {}) => ({
  power_action: input.select(action),
  confirm: input.text(o.confirm ?? '42'),
  reason: input.text(o.reason ?? 'unresponsive since the 14:00 deploy'),
});

describe('the power form', () => {
  test('opens once the server was read: its label and state, the actions its state and the role allow, the command’s chosen', async () => {
    const view = await openForm(h, 'shutdown 42', USERS.operator);
    expect(serverReads().map((r) => r.path)).toEqual(['/virtual_machines/42.json']);
    expect(view.callback_id).toBe('vs_power');
    expect(visibleText(view)).toContain('*VS 42* · web-1 · on');
    // On: nothing to start; an operator: no forced stop, no recovery image.
    expect(optionsOf(view)).toEqual(['shutdown', 'reboot']);
    expect(initialOf(view)).toBe('shutdown');
    expect(view.blocks.map((b) => b.block_id)).toEqual(expect.arrayContaining(['power_action', 'confirm', 'reason']));

    const admin = await openForm(h, 'stop 42', USERS.admin);
    expect(optionsOf(admin)).toEqual(['shutdown', 'reboot', 'reboot_recovery', 'stop']);
    expect(initialOf(admin)).toBe('stop');
  });

  test('an operator shuts a server down: the exact request is sent, the channel reads “scheduled”, the audit keeps the request', async () => {
    const view = await openForm(h, 'shutdown 42', USERS.operator);
    const ack = await submit(h, 'vs_power', USERS.operator, view.private_metadata, filled('shutdown'));
    expect(ack.response_action).toBe('update');
    expect(powerPosts().map((r) => [r.path, r.body])).toEqual([['/virtual_machines/42/shutdown.json', null]]);
    // For the whole channel (chat.postMessage), followed from there to its end (test/follow).
    const result = await postedIn(h, CHANNEL, 'Shut down server · web-1 (VS 42)');
    expect(visibleText(result.blocks)).toContain('*Shut down (graceful)* of VS 42');
    expect(visibleText(result.blocks)).toContain('*Scheduled*');
    expect(visibleText(result.blocks)).toContain('unresponsive since the 14:00 deploy');
    expect((await h.store.audit.latest(1))[0]).toMatchObject({
      userId: USERS.operator,
      channelId: CHANNEL,
      action: 'power_shutdown',
      target: 'vs:42',
      outcome: 'scheduled',
      apiStatus: 201,
      apiRequest: { method: 'POST', path: '/virtual_machines/42/shutdown.json', body: null },
      params: { power_action: 'shutdown', reason: 'unresponsive since the 14:00 deploy' },
    });
  });

  test('the reason is required and the server id must be typed again: inline on the fields, nothing sent', async () => {
    const view = await openForm(h, 'shutdown 42', USERS.operator);
    const ack = await submit(h, 'vs_power', USERS.operator, view.private_metadata, filled('shutdown', { confirm: '24', reason: '' }));
    expect(ack).toMatchObject({
      response_action: 'errors',
      errors: { confirm: 'Type the server id (42) to confirm', reason: 'Give the reason: it is kept in the audit trail' },
    });
    expect(powerPosts()).toEqual([]);
    expect((await h.store.audit.latest(1))[0]).toMatchObject({ action: 'power_shutdown', outcome: 'refused' });
  });

  test('no action chosen is an inline error on the choice', async () => {
    const view = await openForm(h, 'shutdown 42', USERS.operator);
    const ack = await submit(h, 'vs_power', USERS.operator, view.private_metadata, { ...filled('shutdown'), power_action: input.select(null) });
    expect(ack).toMatchObject({ response_action: 'errors', errors: { power_action: 'Choose what to do' } });
    expect(powerPosts()).toEqual([]);
  });
});

describe('refused before the form opens, with the reason, and nothing sent', () => {
  test.each([
    ['start 42', USERS.operator, 'VS 42 is on: there is nothing to start. Nothing was sent.'],
    ['shutdown 43', USERS.operator, 'VS 43 is off: there is nothing to shut down. Nothing was sent.'],
    ['reboot 43', USERS.operator, 'VS 43 is off: there is nothing to reboot. Nothing was sent.'],
    ['stop 43', USERS.admin, 'VS 43 is off: there is nothing to stop. Nothing was sent.'],
    ['reboot 47', USERS.operator, 'Busy: a transaction is running on VS 47: taking an incremental backup. Nothing was sent; try again when it has finished.'],
  ])('/vs %s by %s', async (command, user, said) => {
    const answer = await answerTo(h, command, { user });
    expect(answer.response_type).toBe('ephemeral');
    expect(visibleText(answer)).toContain(said);
    expect(h.slack.callsTo('views.open')).toEqual([]);
    expect(powerPosts()).toEqual([]);
  });

  test.each([
    ['start 42', USERS.viewer, 'Starting a server needs the operator role; you are a viewer.', 'power_start'],
    ['stop 42', USERS.operator, 'Forcing a server off needs the admin role; you are an operator.', 'power_stop'],
  ])('/vs %s by %s is denied by role, recorded, and the server is not even read', async (command, user, said, action) => {
    const answer = await answerTo(h, command, { user });
    expect(visibleText(answer)).toContain(said);
    expect(serverReads()).toEqual([]);
    expect((await h.store.audit.latest(1))[0]).toMatchObject({ userId: user, action, target: 'vs:42', outcome: 'refused' });
  });

  test('a server the cloud does not know is said so', async () => {
    const answer = await answerTo(h, 'start 999', { user: USERS.operator });
    expect(visibleText(answer)).toContain('VS 999 was not found');
    expect(powerPosts()).toEqual([]);
  });
});

describe('checked again when it is submitted', () => {
  test('an operator sending a reboot into the recovery image (not offered to them) is refused at submission, recorded, nothing sent', async () => {
    const view = await openForm(h, 'shutdown 42', USERS.operator);
    const ack = await submit(h, 'vs_power', USERS.operator, view.private_metadata, filled('reboot_recovery'));
    expect(visibleText(ack)).toContain('Rebooting a server needs the admin role; you are an operator.');
    expect(powerPosts()).toEqual([]);
    expect((await h.store.audit.latest(1))[0]).toMatchObject({ userId: USERS.operator, action: 'power_reboot', outcome: 'refused' });
  });

  test("the id typed to confirm is the form's server; a stop of a server that is off, asked from the shortcut, is refused with its state", async () => {
    const view = await openForm(h, 'stop 42', USERS.admin);
    const ack = await submit(h, 'vs_power', USERS.admin, view.private_metadata, filled('stop', { confirm: '43' }));
    // The form names VS 42 in its metadata: typed 43 is no confirmation of it.
    expect(ack).toMatchObject({ response_action: 'errors', errors: { confirm: 'Type the server id (42) to confirm' } });
    const shortcut = await openShortcutForm(USERS.admin);
    const refused = await submit(h, 'vs_power', USERS.admin, shortcut.private_metadata, {
      vs_id: input.text('43'),
      channel: input.channel(CHANNEL),
      ...filled('stop', { confirm: '43' }),
    });
    expect(visibleText(refused)).toContain('VS 43 is off: there is nothing to stop. Nothing was sent.');
    expect(powerPosts()).toEqual([]);
    expect((await h.store.audit.latest(1))[0]).toMatchObject({ action: 'power_stop', target: 'vs:43', outcome: 'refused' });
  });
});

/** Opens the power form from its global shortcut, as `user`. */
async function openShortcutForm(user: string): Promise<View> {
  const payload = { ...globalShortcut({ user, callbackId: 'power_shortcut' }), trigger_id: newTriggerId() };
  const res = await h.interact(payload);
  expect(res.status).toBe(200);
  const call = await waitFor('the power form from the shortcut', () => h.slack.callsTo('views.open').find((c) => c.args.trigger_id === payload.trigger_id));
  return call.args.view as View;
}

describe('the global shortcut power_shortcut', () => {
  test('asks for the server and the channel, reads the server when submitted, and sends', async () => {
    const view = await openShortcutForm(USERS.operator);
    expect(view.callback_id).toBe('vs_power');
    expect(view.blocks.map((b) => b.block_id)).toEqual(expect.arrayContaining(['vs_id', 'channel', 'power_action', 'confirm', 'reason']));
    expect(optionsOf(view)).toEqual(['startup', 'shutdown', 'reboot']);
    await submit(h, 'vs_power', USERS.operator, view.private_metadata, {
      vs_id: input.text('43'),
      channel: input.channel(CHANNEL),
      ...filled('startup', { confirm: '43' }),
    });
    expect(serverReads().map((r) => r.path)).toEqual(['/virtual_machines/43.json']);
    expect(powerPosts().map((r) => r.path)).toEqual(['/virtual_machines/43/startup.json']);
    expect((await h.store.audit.latest(1))[0]).toMatchObject({ action: 'power_start', target: 'vs:43', outcome: 'scheduled' });
  });

  test('a viewer is refused in a modal', async () => {
    const view = await openShortcutForm(USERS.viewer);
    expect(view.callback_id ?? '').toBe('');
    expect(visibleText(view)).toContain('needs the operator role; you are a viewer.');
  });
});

describe('a reboot, which VS_APPROVALS names, waits for a second person', () => {
  /** The approval request posted in the channel for VS 42's reboot. */
  async function asked(): Promise<PostedRequest> {
    return waitFor('the approval request of the reboot', () => {
      const m = h.slack.messagesIn(CHANNEL).find((message) => approvalIdIn(message.blocks) && visibleText(message.blocks).includes('VS 42'));
      return m && { id: approvalIdIn(m.blocks)!, channel: CHANNEL, ts: m.ts };
    });
  }

  test('the request shows the exact API request; a second operator approves; it is sent once; every step is on record', async () => {
    const view = await openForm(h, 'reboot 42', USERS.operator);
    await submit(h, 'vs_power', USERS.operator, view.private_metadata, filled('reboot'));
    const request = await asked();
    expect(shownRequest(messageOf(h, request))).toBe('POST /virtual_machines/42/reboot.json');
    expect(powerPosts()).toEqual([]);

    await clickOn(h, USERS.operator2, 'approval_approve', request);
    await updatedTo(h, request, /Approved/);
    expect(powerPosts().map((r) => r.path)).toEqual(['/virtual_machines/42/reboot.json']);
    // Read at submission, and again before the approved change was sent.
    expect(serverReads()).toHaveLength(3);
    expect((await recordsOf(h, request.id)).map((r) => [r.outcome, r.userId])).toEqual([
      ['requested', USERS.operator],
      // The approval is the change's record from then on: scheduled once the cloud accepted it.
      ['scheduled', USERS.operator2],
    ]);
  });

  test('into the recovery image: an operator may not approve it, an admin may', async () => {
    const view = await openForm(h, 'reboot 42', USERS.admin);
    expect(optionsOf(view)).toContain('reboot_recovery');
    await submit(h, 'vs_power', USERS.admin, view.private_metadata, filled('reboot_recovery'));
    const request = await asked();
    expect(shownRequest(messageOf(h, request))).toBe('POST /virtual_machines/42/reboot.json\n\n{"mode":"recovery"}');
    expect(await (await clickOn(h, USERS.operator, 'approval_approve', request)).told()).toContain('needs the admin role; you are an operator');
    expect(powerPosts()).toEqual([]);
    await clickOn(h, USERS.admin2, 'approval_approve', request);
    await updatedTo(h, request, /Approved/);
    expect(powerPosts().map((r) => [r.path, r.body])).toEqual([['/virtual_machines/42/reboot.json', { mode: 'recovery' }]]);
  });
});

describe('the workflow step vs_request_power', () => {
  test('only asks: posts the request with the exact API request and completes awaiting its requester; nothing is sent', async () => {
    const { execution } = await runStep(h, 'vs_request_power', { vs_id: 42, action: 'stop', channel: CHANNEL, reason: 'hung, per runbook 7' });
    const [completion] = completionsOf(h, execution.id);
    expect(completion).toMatchObject({
      method: 'functions.completeSuccess',
      args: { outputs: { request_id: expect.any(String), status: 'awaiting_requester' } },
    });
    const posted = h.slack.messagesIn(CHANNEL).find((m) => visibleText(m.blocks).includes('/virtual_machines/42/stop.json'));
    expect(posted).toBeDefined();
    expect(powerPosts()).toEqual([]);
    expect((await h.store.audit.latest(1))[0]).toMatchObject({ action: 'power_stop', outcome: 'requested', workflowExecutionId: expect.any(String) });
  });

  test('an action that is not one of its four is refused with the choices', async () => {
    const { execution } = await runStep(h, 'vs_request_power', { vs_id: 42, action: 'reboot_recovery', channel: CHANNEL, reason: 'x' });
    const [completion] = completionsOf(h, execution.id);
    expect(completion).toMatchObject({ method: 'functions.completeError' });
    expect(visibleText(completion)).toMatch(/startup.*shutdown.*reboot.*stop/);
    expect(powerPosts()).toEqual([]);
  });
});
