import type { WebClient } from '@slack/web-api';
import { createChanges, createPolicy, type ChangeAction } from '../../../src/changes';
import { loadConfig } from '../../../src/config';
import { createLogger } from '../../../src/log';
import type { ListenerContext, RequestKind, SlackRequest } from '../../../src/slack/context';
import { checkNeeds, type NeedOf } from '../../../src/slack/middleware/needs';
import type { ResponsePayload } from '../../../src/slack/response-url';
import { createUserLimits } from '../../../src/slack/user-limits';
import { StoreUnavailableError, type Store } from '../../../src/store';
import { openSqliteStore } from '../../../src/store/sqlite';
import { CLOUD_ACCOUNT } from '../../helpers/door';

// The needs middleware on its own: the real policy, change door, limits and
// store (SQLite in memory), a fake clock, and Slack's edges (the response_url,
// views.open) as recorders. What a listener table row needs decides whether
// the listener runs (next), and what the person is told otherwise.

const ADMIN = 'UADMIN';
const OPERATOR = 'UOPER';
const VIEWER = 'UVIEW';
const STRANGER = 'USTRANGER';
const INCIDENT = 'CINCIDENT';
const ELSEWHERE = 'CELSEWHERE';

interface Setup {
  ctx: ListenerContext;
  store: Store;
  logs: Record<string, unknown>[];
  /** The clock of the limits, in ms. */
  clock: { t: number };
}

async function setup(env: Record<string, string> = {}): Promise<Setup> {
  const config = loadConfig({
    SLACK_BOT_TOKEN: 'xoxb-needs-test-token',
    SLACK_SIGNING_SECRET: 'needs-test-signing-secret',
    VS_API_URL: 'sandbox',
    VS_ADMINS: ADMIN,
    VS_OPERATORS: OPERATOR,
    VS_VIEWERS: VIEWER,
    VS_READS_PER_USER_PER_MINUTE: '2',
    VS_CHANGES_PER_USER_PER_MINUTE: '2',
    ...env,
  });
  const logs: Record<string, unknown>[] = [];
  const logger = createLogger({ level: 'debug', write: (line) => logs.push(JSON.parse(line) as Record<string, unknown>) });
  const clock = { t: 1_000_000 };
  const now = () => clock.t;
  const store = openSqliteStore(':memory:');
  stores.push(store);
  const policy = createPolicy(config.roles, { membersOf: () => Promise.resolve([]) }, { now });
  const unused = () => Promise.reject(new Error('the cloud API is not called to check needs'));
  const changes = createChanges({
    cloud: { format: 'json', send: unused, getServer: unused, listTransactions: unused, getBackup: unused },
    cloudAccount: CLOUD_ACCOUNT,
    store,
    policy,
    now,
    logger,
    lockTtlMs: config.ops.lockTtlMs,
  });
  const limits = createUserLimits({
    perMinute: { reads: config.readsPerUserPerMinute, changes: config.changesPerUserPerMinute },
    perHour: { workflow_requests: config.workflows.requestsPerHour, workflow_calls: config.workflows.callsPerHour },
    rates: store.rates,
    now,
    logger,
  });
  const ctx = { config, policy, changes, store, logger, sandbox: false, now, limits } as Partial<ListenerContext> as ListenerContext;
  await Promise.resolve();
  return { ctx, store, logs, clock };
}

const stores: Store[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

interface Sent {
  /** Whether the listener would run. */
  ran: boolean;
  req: SlackRequest;
  /** Posted to the response_url. */
  replies: ResponsePayload[];
  /** views.open calls. */
  modals: { trigger_id: string; view: { title: { text: string }; blocks: unknown[] } }[];
  /** A form's ack. */
  acks: unknown[];
  /** The errors a workflow step was ended with (functions.completeError). */
  stepErrors: string[];
}

interface Request {
  kind: RequestKind;
  user: string;
  channel?: string | null;
  /** Whether Slack gave a response_url (commands, buttons) and a trigger_id (commands, shortcuts). */
  respond?: boolean;
  trigger?: boolean;
  /** views.open answers not ok. */
  modalRefused?: boolean;
}

/** Runs the middleware once for `needOf`, as Bolt would after readRequest. */
async function send(ctx: ListenerContext, needOf: NeedOf, r: Request): Promise<Sent> {
  const replies: ResponsePayload[] = [];
  const modals: Sent['modals'] = [];
  const acks: unknown[] = [];
  const stepErrors: string[] = [];
  const client = {
    views: {
      open: (args: Sent['modals'][number]) => {
        if (r.modalRefused)
          return Promise.reject(Object.assign(new Error('An API error occurred: expired_trigger_id'), { data: { error: 'expired_trigger_id' } }));
        modals.push(args);
        return Promise.resolve({ ok: true });
      },
    },
  } as unknown as WebClient;
  const respond = r.respond ?? r.kind !== 'shortcut';
  const req: SlackRequest = {
    kind: r.kind,
    userId: r.user,
    channelId: r.channel === undefined ? (r.kind === 'command' || r.kind === 'action' ? INCIDENT : null) : r.channel,
    triggerId: (r.trigger ?? (r.kind === 'command' || r.kind === 'shortcut')) ? 'trigger.1' : undefined,
    responseUrl: respond ? 'https://hooks.slack.test/response' : undefined,
    respond: respond ? (payload) => Promise.resolve(void replies.push(payload)) : undefined,
    step:
      r.kind === 'step'
        ? {
            complete: () => Promise.resolve(true),
            fail: (error) => {
              stepErrors.push(error);
              return Promise.resolve(true);
            },
          }
        : undefined,
    client,
    log: ctx.logger,
    outcome: 'failed',
  };
  let ran = false;
  const middleware = checkNeeds(ctx, () => needOf);
  const args = {
    context: { isEnterpriseInstall: false, request: req },
    client,
    next: () => {
      ran = true;
      return Promise.resolve();
    },
    ...(r.kind === 'submission' ? { ack: (answer: unknown) => Promise.resolve(void acks.push(answer)) } : {}),
  };
  await middleware(args as unknown as Parameters<typeof middleware>[0]);
  return { ran, req, replies, modals, acks, stepErrors };
}

const opens = (action: ChangeAction = 'disk_add', target = 'vs:42'): NeedOf => ({ need: { opens: action }, target, title: 'Add disk' });
const submits = (action: ChangeAction = 'disk_add'): NeedOf => ({ need: { submits: action }, title: 'Add disk' });
const read: NeedOf = { need: 'read' };
const everyone: NeedOf = { need: 'everyone' };
/** The store's database gone: used once, then closed, every call fails (as when it is unreachable). */
async function down(store: Store): Promise<void> {
  await store.ping();
  await store.close();
}
const textOf = (sent: Sent) => JSON.stringify([sent.replies, sent.modals, sent.acks]);
const denials = async (store: Store) => (await store.audit.latest(100)).filter((r) => r.outcome === 'refused');

describe('what each need lets through', () => {
  test("a workflow step's read: while VS_VIEWERS limits reads it ends the step with the settings to change, and spends no one's reads", async () => {
    const limited = await setup();
    const refused = await send(limited.ctx, { need: 'workflow_read' }, { kind: 'step', user: '', respond: false });
    expect(refused).toMatchObject({ ran: false, req: { outcome: 'denied' }, replies: [] });
    expect(refused.stepErrors).toEqual([expect.stringContaining('VS_WORKFLOW_READS=everyone')]);
    const everyoneReads = await setup({ VS_WORKFLOW_READS: 'everyone' });
    for (let i = 0; i < 5; i++) expect((await send(everyoneReads.ctx, { need: 'workflow_read' }, { kind: 'step', user: '', respond: false })).ran).toBe(true);
  });

  test('everyone: help runs for anyone, and spends no read', async () => {
    const { ctx } = await setup();
    for (let i = 0; i < 5; i++) expect((await send(ctx, everyone, { kind: 'command', user: STRANGER })).ran).toBe(true);
    for (let i = 0; i < 2; i++) expect((await send(ctx, read, { kind: 'command', user: STRANGER })).req.outcome).toBe('denied');
    const third = await send(ctx, read, { kind: 'command', user: STRANGER });
    expect(third.req.outcome).toBe('limited');
  });

  test('a read: a viewer reads; someone without a role is told, only them, which role is needed, and nothing is recorded', async () => {
    const { ctx, store, logs } = await setup();
    const viewer = await send(ctx, read, { kind: 'command', user: VIEWER });
    expect(viewer.ran).toBe(true);
    expect(viewer.replies).toEqual([]);
    const stranger = await send(ctx, read, { kind: 'action', user: STRANGER });
    expect(stranger.ran).toBe(false);
    expect(stranger.req.outcome).toBe('denied');
    expect(stranger.replies).toHaveLength(1);
    expect(stranger.replies[0]).toMatchObject({ response_type: 'ephemeral' });
    expect(textOf(stranger)).toContain('needs the viewer role');
    expect(await denials(store)).toEqual([]);
    expect(logs).toContainEqual(expect.objectContaining({ msg: 'denied', action: 'read', role: 'none', needed: 'viewer' }));
  });

  test('opening a change form: an operator runs it; a viewer is refused, told, and the refusal recorded with its target', async () => {
    const { ctx, store } = await setup();
    expect((await send(ctx, opens(), { kind: 'command', user: OPERATOR })).ran).toBe(true);
    const viewer = await send(ctx, opens('disk_add', 'vs:77'), { kind: 'command', user: VIEWER });
    expect(viewer.ran).toBe(false);
    expect(viewer.req.outcome).toBe('denied');
    expect(viewer.replies[0]).toMatchObject({ response_type: 'ephemeral' });
    expect(textOf(viewer)).toContain('needs the operator role');
    expect(await denials(store)).toEqual([expect.objectContaining({ userId: VIEWER, channelId: INCIDENT, action: 'disk_add', target: 'vs:77' })]);
  });

  test('a change form without a target is recorded as about an unknown one', async () => {
    const { ctx, store } = await setup();
    await send(ctx, { need: { opens: 'backup_restore' } }, { kind: 'command', user: OPERATOR });
    expect(await denials(store)).toEqual([expect.objectContaining({ userId: OPERATOR, action: 'backup_restore', target: 'unknown' })]);
  });

  test('a submitted form goes on to the change door whoever sends it: the door checks it with the channel the form names', async () => {
    const { ctx, store } = await setup();
    const sent = await send(ctx, submits(), { kind: 'submission', user: VIEWER });
    expect(sent.ran).toBe(true);
    expect(sent.acks).toEqual([]);
    expect(await denials(store)).toEqual([]);
  });
});

describe('VS_MUTATION_CHANNELS', () => {
  test("an operator's global shortcut opens the form: the channel is chosen in it, and checked on submission", async () => {
    const { ctx, store } = await setup({ VS_MUTATION_CHANNELS: INCIDENT });
    const sent = await send(ctx, opens('disk_add', 'shortcut'), { kind: 'shortcut', user: OPERATOR });
    expect(sent.ran).toBe(true);
    expect(sent.modals).toEqual([]);
    expect(await denials(store)).toEqual([]);
  });

  test('the same operator typing the command outside those channels is refused, told where changes are allowed, and recorded', async () => {
    const { ctx, store } = await setup({ VS_MUTATION_CHANNELS: INCIDENT });
    expect((await send(ctx, opens(), { kind: 'command', user: OPERATOR, channel: INCIDENT })).ran).toBe(true);
    const elsewhere = await send(ctx, opens(), { kind: 'command', user: OPERATOR, channel: ELSEWHERE });
    expect(elsewhere.ran).toBe(false);
    expect(elsewhere.req.outcome).toBe('denied');
    expect(textOf(elsewhere)).toContain('Changes are only allowed in');
    expect(await denials(store)).toEqual([expect.objectContaining({ userId: OPERATOR, channelId: ELSEWHERE })]);
  });

  test("a viewer's global shortcut gets the refusal in a modal titled for the form, and the refusal is recorded", async () => {
    const { ctx, store } = await setup({ VS_MUTATION_CHANNELS: INCIDENT });
    const sent = await send(ctx, opens('disk_add', 'shortcut'), { kind: 'shortcut', user: VIEWER });
    expect(sent.ran).toBe(false);
    expect(sent.req.outcome).toBe('denied');
    expect(sent.replies).toEqual([]);
    expect(sent.modals).toEqual([expect.objectContaining({ trigger_id: 'trigger.1' })]);
    expect(sent.modals[0]!.view.title.text).toBe('Add disk');
    expect(textOf(sent)).toContain('needs the operator role');
    expect(await denials(store)).toEqual([expect.objectContaining({ userId: VIEWER, channelId: null, target: 'shortcut' })]);
  });
});

describe('a refusal that cannot be told or recorded', () => {
  test('Slack refusing the refusal modal counts as a failure', async () => {
    const { ctx } = await setup();
    const sent = await send(ctx, opens('disk_add', 'shortcut'), { kind: 'shortcut', user: VIEWER, modalRefused: true });
    expect(sent.ran).toBe(false);
    expect(sent.req.outcome).toBe('failed');
  });

  test('with neither a response_url nor a trigger_id the refusal is only logged; nothing throws', async () => {
    const { ctx, logs } = await setup();
    const sent = await send(ctx, read, { kind: 'action', user: STRANGER, respond: false, trigger: false });
    expect(sent.ran).toBe(false);
    expect(sent.req.outcome).toBe('denied');
    expect(textOf(sent)).toBe('[[],[],[]]');
    expect(logs).toContainEqual(expect.objectContaining({ msg: 'denied' }));
  });

  test('the store unreachable at authorization: a command is told that nothing can be changed now, no form, counted as a failure', async () => {
    const { ctx, store } = await setup();
    store.freeze.current = () => Promise.reject(new StoreUnavailableError('the database did not answer'));
    const sent = await send(ctx, opens(), { kind: 'command', user: OPERATOR });
    expect(sent.ran).toBe(false);
    expect(sent.req.outcome).toBe('failed');
    expect(textOf(sent)).toContain('Nothing can be changed right now, because it could not be recorded');
    expect(textOf(sent)).not.toContain('Something went wrong');
  });

  test('the store down at authorization: a command is answered that something went wrong, counted as a failure', async () => {
    const { ctx, store, logs } = await setup();
    await down(store);
    const sent = await send(ctx, opens(), { kind: 'command', user: VIEWER });
    expect(sent.ran).toBe(false);
    expect(sent.req.outcome).toBe('failed');
    expect(sent.replies).toHaveLength(1);
    expect(textOf(sent)).toContain('Something went wrong');
    expect(logs).toContainEqual(expect.objectContaining({ level: 'error', msg: 'could not check or record the change', error: expect.anything() as unknown }));
  });

  test('the store down at authorization: a shortcut gets a modal saying something went wrong (not a refusal by role), counted as a failure', async () => {
    const { ctx, store } = await setup();
    await down(store);
    const sent = await send(ctx, opens('disk_add', 'shortcut'), { kind: 'shortcut', user: VIEWER });
    expect(sent.ran).toBe(false);
    expect(sent.req.outcome).toBe('failed');
    expect(sent.modals).toHaveLength(1);
    expect(textOf(sent)).toContain('Something went wrong');
    expect(textOf(sent)).not.toContain('needs the operator role');
  });

  test('the store down at authorization with neither a response_url nor a trigger_id: only logged, no views.open without a trigger', async () => {
    const { ctx, store, logs } = await setup();
    await down(store);
    const sent = await send(ctx, opens(), { kind: 'action', user: OPERATOR, respond: false, trigger: false });
    expect(sent.ran).toBe(false);
    expect(sent.req.outcome).toBe('failed');
    expect(textOf(sent)).toBe('[[],[],[]]');
    expect(logs).toContainEqual(expect.objectContaining({ level: 'error', msg: 'could not check or record the change' }));
  });

  test('the store down: an operator opens no form (the freeze cannot be read, the change could not be recorded), and reads are not held up', async () => {
    const { ctx, store } = await setup();
    await down(store);
    const sent = await send(ctx, opens(), { kind: 'command', user: OPERATOR });
    expect(sent.ran).toBe(false);
    expect(sent.req.outcome).toBe('failed');
    expect(textOf(sent)).toContain('Something went wrong');
    expect((await send(ctx, read, { kind: 'command', user: VIEWER })).ran).toBe(true);
  });
});

describe('per-person limits', () => {
  test('past the read limit: told, only them, how many and when to try again; not asked of the policy', async () => {
    const { ctx, logs } = await setup();
    for (let i = 0; i < 2; i++) expect((await send(ctx, read, { kind: 'command', user: VIEWER })).ran).toBe(true);
    const limited = await send(ctx, read, { kind: 'command', user: VIEWER });
    expect(limited.ran).toBe(false);
    expect(limited.req.outcome).toBe('limited');
    expect(limited.replies).toHaveLength(1);
    expect(limited.replies[0]).toMatchObject({ response_type: 'ephemeral' });
    expect(textOf(limited)).toContain('You have asked for 2 reads in the last minute, the most allowed per person. Try again in 30 s.');
    expect(logs).toContainEqual(expect.objectContaining({ msg: 'limit reached', limit: 'reads', perMinute: 2, retryInSeconds: 30 }));
    // Someone else reads on.
    expect((await send(ctx, read, { kind: 'command', user: ADMIN })).ran).toBe(true);
  });

  test('a spent read limit does not stop opening a change form, nor a spent change limit a read', async () => {
    const { ctx } = await setup();
    for (let i = 0; i < 3; i++) await send(ctx, read, { kind: 'command', user: OPERATOR });
    expect((await send(ctx, opens(), { kind: 'command', user: OPERATOR })).ran).toBe(true);
    expect((await send(ctx, submits(), { kind: 'submission', user: OPERATOR })).ran).toBe(true);
    expect((await send(ctx, opens(), { kind: 'command', user: OPERATOR })).req.outcome).toBe('limited');
    const { ctx: fresh } = await setup();
    for (let i = 0; i < 3; i++) await send(fresh, opens(), { kind: 'command', user: OPERATOR });
    expect((await send(fresh, read, { kind: 'command', user: OPERATOR })).ran).toBe(true);
  });

  test('opening and submitting count together; past the limit a command is told in the channel, only them', async () => {
    const { ctx, logs } = await setup();
    expect((await send(ctx, opens(), { kind: 'command', user: OPERATOR })).ran).toBe(true);
    expect((await send(ctx, submits(), { kind: 'submission', user: OPERATOR })).ran).toBe(true);
    const limited = await send(ctx, opens(), { kind: 'command', user: OPERATOR });
    expect(limited.ran).toBe(false);
    expect(limited.req.outcome).toBe('limited');
    expect(limited.modals).toEqual([]);
    expect(limited.replies[0]).toMatchObject({ response_type: 'ephemeral' });
    expect(textOf(limited)).toContain('You have made 2 change attempts in the last minute');
    expect(textOf(limited)).toContain('nothing was changed or recorded. Try again in 30 s.');
    expect(logs).toContainEqual(expect.objectContaining({ msg: 'limit reached', limit: 'changes', perMinute: 2, retryInSeconds: 30 }));
  });

  test('past the change limit a shortcut is told in a modal titled for the form, and a form submitted is answered in place', async () => {
    const { ctx } = await setup();
    for (let i = 0; i < 2; i++) await send(ctx, opens(), { kind: 'command', user: OPERATOR });
    const shortcut = await send(ctx, opens('disk_add', 'shortcut'), { kind: 'shortcut', user: OPERATOR });
    expect(shortcut.ran).toBe(false);
    expect(shortcut.req.outcome).toBe('limited');
    expect(shortcut.modals).toHaveLength(1);
    expect(shortcut.modals[0]!.view.title.text).toBe('Add disk');
    expect(textOf(shortcut)).toContain('Try again in 30 s.');
    const form = await send(ctx, submits(), { kind: 'submission', user: OPERATOR });
    expect(form.ran).toBe(false);
    expect(form.req.outcome).toBe('limited');
    expect(form.modals).toEqual([]);
    expect(form.acks).toEqual([
      { response_action: 'update', view: expect.objectContaining({ type: 'modal', title: expect.objectContaining({ text: 'Add disk' }) }) },
    ]);
    expect(textOf(form)).toContain('nothing was changed or recorded. Try again in 30 s.');
  });

  test("a viewer's attempts past the change limit are not recorded: the audit channel hears of at most the limit a minute", async () => {
    const { ctx, store, clock } = await setup();
    for (let i = 0; i < 10; i++) await send(ctx, opens(), { kind: 'command', user: VIEWER });
    expect(await denials(store)).toHaveLength(2);
    // One more a minute / limit later.
    clock.t += 30_000;
    expect((await send(ctx, opens(), { kind: 'command', user: VIEWER })).req.outcome).toBe('denied');
    expect((await send(ctx, opens(), { kind: 'command', user: VIEWER })).req.outcome).toBe('limited');
    expect(await denials(store)).toHaveLength(3);
  });

  test('with neither a response_url nor a trigger_id, a limited read is only logged', async () => {
    const { ctx, logs } = await setup({ VS_READS_PER_USER_PER_MINUTE: '1' });
    await send(ctx, read, { kind: 'action', user: VIEWER, respond: false, trigger: false });
    const sent = await send(ctx, read, { kind: 'action', user: VIEWER, respond: false, trigger: false });
    expect(sent.req.outcome).toBe('limited');
    expect(textOf(sent)).toBe('[[],[],[]]');
    expect(logs).toContainEqual(expect.objectContaining({ msg: 'limit reached', limit: 'reads' }));
  });
});
