import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TOKEN_PREFIX } from '../../src/agents/tokens';
import { CHANNEL, visibleText } from '../helpers/drive';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver';
import { useProcessHarness } from '../helpers/process-harness';
import type { SpawnedBot } from '../helpers/spawned-bot';
import { waitFor } from '../helpers/wait';

// Traces (docs/production.md): each MCP call is the root span of a trace of its own, named after its method and
// tool (`mcp tools/call server_status`), carrying the tool, the outcome, the agent's name and whom it acts for;
// the cloud call it makes is a child. Never the token, a reason or any argument's text. The bot runs as operators
// run it (src/main.ts, a process of its own: the SDK's exporter loads modules a test's VM does not), its spans sent to
// an OTLP/HTTP receiver on loopback.

const world = useProcessHarness();

const TOKEN = new RegExp(`${TOKEN_PREFIX}[A-Za-z0-9_-]{43}`);

let otlp: OtlpReceiver;
let bot: SpawnedBot;
beforeAll(async () => {
  otlp = await startOtlpReceiver();
  bot = await world.spawn(
    { VS_OPERATORS: 'UOPER', VS_MCP: 'on', VS_AGENT_CHANNEL: CHANNEL, OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_BSP_SCHEDULE_DELAY: '50' },
    { db: 'traced-mcp' },
  );
});
afterAll(async () => {
  await otlp?.close();
});

const mcpUrl = () => new URL(bot.eventsUrl.replace(/\/slack\/events$/, '/mcp'));

/** The root span named `name` (the newest), once it and `children` spans below it have arrived. */
async function rootSpan(name: string, children = 0): Promise<{ root: ReceivedSpan; below: ReceivedSpan[] }> {
  return waitFor(
    `the trace of "${name}"`,
    () => {
      const all = otlp.spans();
      const root = all.filter((s) => s.name === name && s.parentSpanId === '').at(-1);
      const below = root ? all.filter((s) => s.traceId === root.traceId && s !== root) : [];
      return root && below.length >= children ? { root, below } : undefined;
    },
    {
      within: 8000,
      detail: () =>
        bot.output() +
        '\n' +
        otlp
          .spans()
          .map((s) => s.name)
          .join(', '),
    },
  );
}

test('an MCP call is a trace named after its tool, with the outcome and no token; a request tool is one too, without its reason', async () => {
  const token = TOKEN.exec(visibleText(await world.answerTo(bot, 'agent token tracer', { user: 'UOPER' })))![0];
  const client = new Client({ name: 'test-agent', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl(), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  const reason = 'a-reason-no-trace-may-hold';
  try {
    const status = (await client.callTool({ name: 'server_status', arguments: { server: 'web-1' } })) as CallToolResult;
    expect(status.isError).toBeFalsy();
    const asked = (await client.callTool({ name: 'request_power', arguments: { server: 'web-1', power_action: 'reboot', reason } })) as CallToolResult;
    expect(asked.structuredContent).toMatchObject({ status: 'requested' });
  } finally {
    await client.close();
  }

  const read = await rootSpan('mcp tools/call server_status', 1);
  expect(read.root).toMatchObject({
    kind: 2, // server
    attributes: {
      'vs.request.kind': 'mcp',
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'server_status',
      'vs.tool': 'server_status',
      'vs.outcome': 'done',
      'vs.agent': 'tracer',
      'slack.user_id': 'UOPER',
      'http.response.status_code': 200,
    },
  });
  // The cloud read is a child of the call.
  expect(
    read.below.some((s) => s.name === 'GET' && s.parentSpanId === read.root.spanId && /^\/virtual_machines\/42/.test(String(s.attributes['url.path']))),
  ).toBe(true);
  const request = await rootSpan('mcp tools/call request_power');
  expect(request.root.attributes).toMatchObject({ 'vs.tool': 'request_power', 'vs.outcome': 'requested' });
  expect(request.root.traceId).not.toBe(read.root.traceId);
  // Connecting is calls too, each a trace of its own.
  await rootSpan('mcp initialize');

  // A call without a valid token is traced as refused, and its would-be token is not kept either.
  const forged = `${TOKEN_PREFIX}${'f'.repeat(43)}`;
  const refused = await fetch(mcpUrl(), {
    method: 'POST',
    headers: { authorization: `Bearer ${forged}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  expect(refused.status).toBe(401);
  const unnamed = await waitFor('the refused call traced', () =>
    otlp.spans().find((s) => s.name === 'mcp' && s.parentSpanId === '' && s.attributes['http.response.status_code'] === 401),
  );
  expect(unnamed.attributes).toMatchObject({ 'vs.outcome': 'refused' });

  const sent = otlp.everything();
  expect(sent).toContain('mcp tools/call server_status');
  expect([token, forged, token.slice(TOKEN_PREFIX.length), reason].filter((text) => sent.includes(text))).toEqual([]);
});
