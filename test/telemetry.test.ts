import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { API_KEY, BOT_TOKEN, SIGNING_SECRET } from './helpers/app-harness';
import { goodDisk } from './helpers/drive';
import { JSON_CONTENT_TYPE, newTriggerId, newViewId, viewSubmission } from './helpers/payloads';
import { postToSlackEndpoint } from './helpers/signed-requests';
import { appManifest } from '../src/local-mode';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './helpers/otlp-receiver';
import { useProcessHarness } from './helpers/process-harness';
import type { SpawnedBot } from './helpers/spawned-bot';
import { useStarted } from './helpers/use-started';
import { waitFor } from './helpers/wait';

// Traces (docs/production.md, Traces), from outside: the real bot as operators run it (src/main.ts, a process of its
// own), signed commands in, its spans out to an OTLP/HTTP receiver on loopback (protobuf, the default), read back
// as a collector would. With OTEL_EXPORTER_OTLP_ENDPOINT unset, a module witness preloaded into the process says
// which modules of @opentelemetry it loaded, and who asked.

// The sandbox's transactions short, so that a followed change ends within a test.
const world = useProcessHarness({ transactionMs: { pending: 200, running: 400 } });
/**
 * Roles by user group: the policy asks Slack's Web API (usergroups.users.list) who is in it, inside the request. With
 * VS_VIEWERS set, workflow steps read only with VS_WORKFLOW_READS=everyone.
 */
const ROLES = { VS_VIEWERS: 'S0ONCALL', VS_ADMINS: 'S0ONCALL', VS_OPERATORS: 'UOPER', VS_WORKFLOW_READS: 'everyone' };
/** The stand-in's member of S0ONCALL. */
const ONCALL = 'U0ONCALL';
const WITNESS = join(__dirname, 'helpers', 'module-witness.js');

/** The spans of the last trace whose root is named `root`, once it and `children` spans below it have arrived. */
async function traceIn(otlp: OtlpReceiver, root: string, children: number, output: () => string): Promise<{ root: ReceivedSpan; spans: ReceivedSpan[] }> {
  return waitFor(
    `the trace of "${root}" with ${children} spans below it`,
    () => {
      const all = otlp.spans();
      const found = all.filter((s) => s.name === root && s.parentSpanId === '').at(-1);
      const spans = found ? all.filter((s) => s.traceId === found.traceId) : [];
      return found && spans.length > children ? { root: found, spans } : undefined;
    },
    {
      within: 8000,
      detail: () =>
        `spans so far: ${otlp
          .spans()
          .map((s) => s.name)
          .join(', ')}\nbot output:\n${output()}`,
    },
  );
}

interface Witnessed {
  requests: { request: string; from: string | null }[];
  cached: string[];
}

describe('with OTEL_EXPORTER_OTLP_ENDPOINT unset', () => {
  test('no module of ours loads OpenTelemetry: the one @opentelemetry module in the process is the API that prom-client asks for', async () => {
    const witness = join(world.dir, 'witness-unset.json');
    const bot = await world.spawn({ VS_TEST_MODULE_WITNESS: witness }, { db: 'unset', nodeArgs: ['--require', WITNESS] });
    expect(await world.answerTo(bot, 'firewall 42')).toMatchObject({ response_type: 'in_channel' });
    expect((await bot.kill('SIGTERM')).code).toBe(0);

    const { requests, cached } = JSON.parse(readFileSync(witness, 'utf8')) as Witnessed;
    // The witness sees what is loaded: prom-client's default metrics require the API (a no-op until an SDK registers).
    const fromPromClient = (r: Witnessed['requests'][number]) => r.request === '@opentelemetry/api' && r.from?.includes('/node_modules/prom-client/');
    expect(requests.filter(fromPromClient)).not.toEqual([]);
    expect(requests.filter((r) => !fromPromClient(r))).toEqual([]);
    expect(cached.filter((file) => !file.includes('/node_modules/@opentelemetry/api/'))).toEqual([]);
  });
});

describe('with OTEL_EXPORTER_OTLP_ENDPOINT set', () => {
  const otlp = useStarted('the OTLP receiver', startOtlpReceiver, (receiver) => receiver.close());
  let bot: SpawnedBot;
  beforeAll(async () => {
    // Batches sent every 50 ms rather than 5 s: the test reads them as they come.
    // The stand-in checks a step's completion against the app's manifest.
    world.slack.setManifest(appManifest());
    // Followed changes polled every second (the shortest VS_FOLLOW_INTERVAL_S).
    bot = await world.spawn({ ...ROLES, OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_BSP_SCHEDULE_DELAY: '50', VS_FOLLOW_INTERVAL_S: '1' }, { db: 'traced' });
  });

  /** The spans of the trace whose root is named `root`, once it and `children` children of it have arrived. */
  async function traceOf(root: string, children: number): Promise<{ root: ReceivedSpan; spans: ReceivedSpan[] }> {
    return waitFor(
      `the trace of "${root}" with ${children} children`,
      () => {
        const all = otlp.spans();
        const found = all.find((s) => s.name === root && s.parentSpanId === '');
        const spans = found ? all.filter((s) => s.traceId === found.traceId) : [];
        return found && spans.length > children ? { root: found, spans } : undefined;
      },
      {
        within: 8000,
        detail: () =>
          `spans so far: ${otlp
            .spans()
            .map((s) => s.name)
            .join(', ')}\nbot output:\n${bot.output()}`,
      },
    );
  }

  test('a command that reads the cloud is one trace: the request its root; the Web API call, the cloud call, the response_url post its children', async () => {
    expect(await world.answerTo(bot, 'firewall 42', { user: ONCALL })).toMatchObject({ response_type: 'in_channel' });
    const { root, spans } = await traceOf('command firewall', 3);

    expect(root).toMatchObject({
      kind: 2, // server
      statusCode: 0,
      attributes: {
        'vs.request.kind': 'command',
        'vs.subcommand': 'firewall',
        'slack.user_id': ONCALL,
        'slack.channel_id': 'CINCIDENT',
        'vs.outcome': 'succeeded',
      },
      resource: { 'service.name': 'vs-chatops' },
    });
    const children = spans.filter((s) => s !== root);
    expect(children.every((s) => s.parentSpanId === root.spanId && s.kind === 3)).toBe(true); // client spans of the root
    expect(children.map((s) => s.name).sort()).toEqual(['GET', 'slack response_url', 'slack usergroups.users.list']);
    const byName = (name: string) => children.find((s) => s.name === name)!;
    expect(byName('GET').attributes).toMatchObject({
      'url.path': '/virtual_machines/42/firewall_rules.json',
      'server.port': Number(new URL(world.sandbox.url).port),
      'http.response.status_code': 200,
    });
    expect(byName('slack usergroups.users.list').attributes).toMatchObject({ 'slack.method': 'usergroups.users.list', 'http.response.status_code': 200 });
    // A response_url is a capability: its host stays, its path does not.
    expect(byName('slack response_url').attributes).toMatchObject({
      'url.full': `${new URL(world.slack.apiUrl).origin}/[REDACTED]`,
      'url.path': '/[REDACTED]',
    });
  });

  test('a change is recorded in the store inside its request: the store transaction is a child span of the command', async () => {
    expect(await world.answerTo(bot, 'freeze maintenance window', { user: ONCALL })).toMatchObject({ response_type: 'in_channel' });
    const { root, spans } = await traceOf('command freeze', 1);

    expect(root.attributes).toMatchObject({ 'vs.subcommand': 'freeze', 'vs.outcome': 'succeeded' });
    expect(spans).toContainEqual(
      expect.objectContaining({
        name: 'store freeze.start',
        parentSpanId: root.spanId,
        kind: 1,
        attributes: { 'db.system.name': 'sqlite', 'db.operation.name': 'freeze.start' },
      }),
    );
    await world.answerTo(bot, 'unfreeze', { user: ONCALL });
  });

  test("each request's log line carries the trace_id and span_id of its root span", async () => {
    await world.answerTo(bot, 'autoscaling 42', { user: ONCALL });
    const { root } = await traceOf('command autoscaling', 1);
    const line = await waitFor('the log line of /vs autoscaling', () =>
      bot
        .output()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l.msg === 'command' && l.subcommand === 'autoscaling'),
    );
    expect(line).toMatchObject({ trace_id: root.traceId, span_id: root.spanId, outcome: 'succeeded' });
  });

  test("a workflow step is a trace of its own: the cloud read and the step's completion are its children, its token in none", async () => {
    const { envelope, execution } = world.slack.functionExecuted('vs_firewall_summary', { vs_id: 42 });
    expect((await postToSlackEndpoint(bot.eventsUrl, SIGNING_SECRET, JSON.stringify(envelope), JSON_CONTENT_TYPE)).status).toBe(200);
    expect(await world.slack.waitForExecution(execution.id)).toMatchObject({ state: 'completed' });
    const { root, spans } = await traceOf('step vs_firewall_summary', 2);

    expect(root.attributes).toMatchObject({
      'vs.request.kind': 'step',
      'vs.step': 'vs_firewall_summary',
      'vs.function_execution_id': execution.id,
      'vs.workflow_execution_id': execution.workflowExecutionId,
      'vs.outcome': 'succeeded',
    });
    const below = spans.filter((s) => s !== root);
    expect(below.every((s) => s.parentSpanId === root.spanId)).toBe(true);
    expect(below.map((s) => s.name).sort()).toEqual(['GET', 'slack functions.completeSuccess']);
    expect(otlp.everything()).not.toContain(execution.token);
  });

  test("a change asked in a form, then followed: the submission's trace holds its store calls and cloud call; each poll is a trace of its own", async () => {
    const triggerId = newTriggerId();
    expect((await bot.command('disk add 42', { responseUrl: world.slack.responseUrl(), user: 'UOPER', triggerId })).status).toBe(200);
    const opened = await waitFor('the add-disk form', () => world.slack.callsTo('views.open').find((c) => c.args.trigger_id === triggerId));
    const metadata = (opened.args.view as { private_metadata: string }).private_metadata;
    const submitted = await bot.interact(
      viewSubmission({ callbackId: 'disk_add', viewId: newViewId(), user: 'UOPER', privateMetadata: metadata, fields: goodDisk }),
    );
    expect(submitted.status).toBe(200);

    const submission = await traceOf('submission disk_add', 3);
    expect(submission.root.attributes).toMatchObject({ 'vs.view': 'disk_add', 'slack.user_id': 'UOPER', 'vs.outcome': 'succeeded' });
    const below = submission.spans.filter((s) => s !== submission.root);
    expect(below.map((s) => s.name)).toEqual(expect.arrayContaining(['store audit.beginChange', 'POST', 'slack chat.postMessage']));
    expect(below.find((s) => s.name === 'POST')!.attributes).toMatchObject({ 'url.path': '/virtual_machines/42/disks.json', 'http.response.status_code': 201 });

    // The follower's round polls it a second later, and until it ends: each poll the root of a trace of its own.
    const poll = await traceOf('follow poll', 2);
    expect(poll.root).toMatchObject({ kind: 1, attributes: { 'vs.action': 'disk_add', 'vs.target': 'vs:42' } }); // internal: the bot's own work
    expect(poll.root.traceId).not.toBe(submission.root.traceId);
    const polled = poll.spans.filter((s) => s !== poll.root);
    expect(polled.map((s) => s.name)).toEqual(expect.arrayContaining(['GET', expect.stringMatching(/^store follows\./)]));
    expect(polled.find((s) => s.name === 'GET')!.attributes['url.path']).toMatch(/^\/virtual_machines\/42\/transactions\.json/);
  });

  test('nothing secret leaves in a span: no signing secret, token, API key, response_url, reason text or request body', async () => {
    const reason = 'the-reason-nobody-may-read-in-a-trace';
    const responseUrl = world.slack.responseUrl('capability-in-a-response-url');
    expect((await bot.command(`freeze ${reason}`, { responseUrl, user: ONCALL })).status).toBe(200);
    await traceOf('command freeze', 1);
    await waitFor('the freeze answered', () => world.slack.responses.find((r) => r.id === 'capability-in-a-response-url'));
    await world.answerTo(bot, 'unfreeze', { user: ONCALL });
    await traceOf('command unfreeze', 1);

    const sent = otlp.everything();
    expect(sent).toContain('command freeze'); // what is read is what was sent
    const credentials = Buffer.from(`${world.sandbox.accountId}:${API_KEY}`).toString('base64');
    const secrets = [SIGNING_SECRET, BOT_TOKEN, API_KEY, credentials, responseUrl, new URL(responseUrl).pathname, 'capability-in-a-response-url', reason];
    // The reason of the earlier freeze, and a slash command's form body (its fields as Slack sends them), nor a
    // form's values (the disk added earlier: its mount point).
    const body = ['maintenance', 'response_url=', 'trigger_id', 'text=', 'token=', 'command=%2Fvs', '/mnt/data'];
    expect([...secrets, ...body].filter((text) => sent.includes(text))).toEqual([]);
    // Nor a person's address. (The export is binary: its random ids may spell a short "9@n.ua", which no address is.)
    expect(sent.match(/(?<![\w.+-])[\w.+-]{2,}@[\w-]{2,}\.[a-z]{2,}(?![\w-])/gi)).toBeNull();
  });
});

describe('with OTEL_EXPORTER_OTLP_PROTOCOL=http/json', () => {
  const otlp = useStarted('the OTLP receiver', startOtlpReceiver, (receiver) => receiver.close());

  test('spans leave as OTLP/JSON, with OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES on their resource', async () => {
    const bot = await world.spawn(
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: `${otlp.url}/`,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'vs-chatops-eu',
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=staging,service.name=overridden',
        OTEL_BSP_SCHEDULE_DELAY: '50',
      },
      { db: 'json' },
    );
    await world.answerTo(bot, 'templates');
    const { root } = await traceIn(otlp, 'command templates', 1, () => bot.output());
    expect(root.resource).toMatchObject({ 'service.name': 'vs-chatops-eu', 'deployment.environment.name': 'staging' });
    expect(otlp.exports.map((e) => [e.path, e.headers['content-type']])).toContainEqual(['/v1/traces', 'application/json']);
  });
});

describe('with a receiver that cannot be reached', () => {
  test('the bot serves on and says so in its log, once, without the headers it would have sent', async () => {
    const credential = 'otlp-receiver-credential-0123456789';
    const bot = await world.spawn(
      {
        // A port nothing listens on (the first of the range, never given out as a free one).
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1',
        OTEL_EXPORTER_OTLP_HEADERS: `authorization=Bearer%20${credential}`,
        OTEL_BSP_SCHEDULE_DELAY: '50',
        // Retries end with the export's deadline: the failure is told within half a second.
        OTEL_EXPORTER_OTLP_TIMEOUT: '500',
      },
      { db: 'unreachable' },
    );
    expect(await world.answerTo(bot, 'firewall 42')).toMatchObject({ response_type: 'in_channel' });
    await world.answerTo(bot, 'autoscaling 42');
    const problem = 'traces: the OpenTelemetry SDK reports a problem (spans may be lost)';
    const logged = await waitFor(
      'the problem logged',
      () =>
        bot
          .output()
          .split('\n')
          .find((line) => line.includes(problem)),
      {
        within: 8000,
        detail: () => bot.output(),
      },
    );
    expect(JSON.parse(logged)).toMatchObject({ level: 'warn', component: 'traces', problem: 'connect ECONNREFUSED 127.0.0.1:1', code: 'ECONNREFUSED' });
    // Every batch fails alike: told once a minute at most.
    await world.answerTo(bot, 'templates');
    expect(bot.output().split(problem).length - 1).toBe(1);
    expect(bot.output()).not.toContain(credential);
  });
});
