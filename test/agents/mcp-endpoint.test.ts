import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { hashToken, TOKEN_PREFIX } from '../../src/agents/tokens';
import { useHarness, type Harness } from '../helpers/app-harness';
import { answerTo, visibleText } from '../helpers/drive';
import { freePort } from '../helpers/spawned-bot';

// The MCP endpoint (docs/product.md, Agents ask, people decide) through the real app, with the SDK's own client: no
// token, a wrong, revoked or expired one is 401 with WWW-Authenticate: Bearer; a foreign Origin is 403; the read tools
// are listed read-only and answer from the sandbox; the owner's role is asked at every call.

const ENV = {
  VS_ADMINS: 'UADMIN',
  VS_OPERATORS: 'UOPER,UOPER2,UOPER3',
  VS_VIEWERS: 'UVIEWER',
  VS_MCP: 'on',
  VS_MCP_ALLOWED_ORIGINS: 'https://agents.example.com',
  VS_AGENT_CHANNEL: 'CAGENTS',
};
const TOKEN = new RegExp(`${TOKEN_PREFIX}[A-Za-z0-9_-]{43}`);

const mcpUrl = (h: Harness) => new URL(h.eventsUrl.replace(/\/slack\/events$/, '/mcp'));

async function tokenFor(h: Harness, user: string, name: string): Promise<string> {
  const text = visibleText(await answerTo(h, `agent token ${name}`, { user }));
  expect(text).toContain('`POST /mcp`');
  return TOKEN.exec(text)![0];
}

async function connect(h: Harness, token: string): Promise<Client> {
  const client = new Client({ name: 'test-agent', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl(h), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

async function post(h: Harness, headers: Record<string, string>): Promise<Response> {
  return fetch(mcpUrl(h), {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(INITIALIZE),
  });
}

describe('the MCP endpoint', () => {
  const h = useHarness({ env: ENV });

  test('without a token, or with a wrong, revoked or expired one: 401 with WWW-Authenticate: Bearer', async () => {
    const none = await post(h, {});
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await none.text()).toContain('/vs agent token');

    expect((await post(h, { authorization: `Bearer ${TOKEN_PREFIX}${'x'.repeat(43)}` })).status).toBe(401);

    const revoked = await tokenFor(h, 'UOPER', 'gone');
    expect((await post(h, { authorization: `Bearer ${revoked}` })).status).toBe(200);
    await answerTo(h, 'agent revoke gone', { user: 'UOPER' });
    expect((await post(h, { authorization: `Bearer ${revoked}` })).status).toBe(401);

    const expired = `${TOKEN_PREFIX}${'e'.repeat(43)}`;
    const past = Date.now() - 3_600_000;
    await h.store.agentTokens.create(
      {
        hash: hashToken(expired),
        name: 'old',
        owner: 'UOPER',
        createdAt: new Date(past - 1000).toISOString(),
        expiresAtMs: past,
        revokedBy: null,
        revokedAt: null,
      },
      past - 1000,
    );
    expect((await post(h, { authorization: `Bearer ${expired}` })).status).toBe(401);
  });

  test('an Origin not in VS_MCP_ALLOWED_ORIGINS is 403, even with a live token; one in it passes', async () => {
    const token = await tokenFor(h, 'UOPER2', 'browser');
    expect((await post(h, { authorization: `Bearer ${token}`, origin: 'https://evil.example.com' })).status).toBe(403);
    expect((await post(h, { authorization: `Bearer ${token}`, origin: 'https://agents.example.com' })).status).toBe(200);
  });

  test('tools/list names the read tools, read-only, each taking a server by id or name; a read answers from the cloud; the token is never logged', async () => {
    const token = await tokenFor(h, 'UOPER3', 'laptop');
    const client = await connect(h, token);
    try {
      const { tools } = await client.listTools();
      const reads = tools.filter((t) => !t.name.startsWith('request_'));
      expect(reads.map((t) => t.name).sort()).toEqual([
        'audit_log',
        'autoscaling',
        'change_status',
        'find_server',
        'firewall_rules',
        'list_backups',
        'list_disks',
        'port_check',
        'server_status',
      ]);
      for (const tool of reads) {
        expect(tool.annotations).toMatchObject({ readOnlyHint: true });
        if (tool.name === 'audit_log' || tool.name === 'change_status' || tool.name === 'find_server') continue;
        if (tool.name === 'port_check') {
          expect(tool.inputSchema.required?.sort()).toEqual(['port', 'server']);
          continue;
        }
        // A server by id or by name, as the commands take it.
        expect(tool.inputSchema).toMatchObject({ type: 'object', required: ['server'] });
        expect(JSON.stringify(tool.inputSchema.properties?.server)).toMatch(/integer.*string|string.*integer/);
      }
      const disks = await client.callTool({ name: 'list_disks', arguments: { server: 42 } });
      expect(disks.isError).toBeFalsy();
      const listed = (disks.structuredContent as { list_disks: unknown[] }).list_disks;
      expect(Array.isArray(listed) && listed.length > 0).toBe(true);
      expect(h.logs.join('\n')).toContain('agent read');

      const port = await client.callTool({ name: 'port_check', arguments: { server: 42, port: 22, from: '198.51.100.9' } });
      expect(port.isError).toBeFalsy();
      const checked = (port.structuredContent as { port_check: { question: unknown; interfaces: { decisions: unknown[]; reaches_default: boolean }[] } })
        .port_check;
      expect(checked.question).toEqual({ port: 22, protocol: 'tcp', from: '198.51.100.9' });
      expect(checked.interfaces.length).toBeGreaterThan(0);
      expect(checked.interfaces.every((i) => i.decisions.length === 1 || i.reaches_default)).toBe(true);
      const notAnAddress = await client.callTool({ name: 'port_check', arguments: { server: 42, port: 22, from: 'example.com' } });
      expect(JSON.stringify(notAnAddress.content)).toContain('`from` is not an IP address');

      const bad = await client.callTool({ name: 'server_status', arguments: { server: 'forty-two' } });
      expect(bad.isError).toBe(true);
      expect(JSON.stringify(bad.content)).toContain('No server is named \\"forty-two\\"');
    } finally {
      await client.close();
    }
    expect(h.logs.join('\n')).not.toContain(token);
  });

  test("the owner's role is asked at every call: an owner who may no longer read gets an error, not the server", async () => {
    const token = `${TOKEN_PREFIX}${'s'.repeat(43)}`;
    const now = Date.now();
    await h.store.agentTokens.create(
      {
        hash: hashToken(token),
        name: 'stray',
        owner: 'USTRANGER',
        createdAt: new Date(now).toISOString(),
        expiresAtMs: now + 3_600_000,
        revokedBy: null,
        revokedAt: null,
      },
      now,
    );
    const client = await connect(h, token);
    try {
      const answer = await client.callTool({ name: 'server_status', arguments: { server: 42 } });
      expect(answer.isError).toBe(true);
      expect(JSON.stringify(answer.content)).toContain('may not read servers');
    } finally {
      await client.close();
    }
  });
});

describe('the MCP endpoint, audit_log', () => {
  const h = useHarness({ env: ENV });

  test("audit_log answers an admin's agent with the records the filter names, and refuses an operator's", async () => {
    await answerTo(h, 'freeze deploy in progress', { user: 'UADMIN' });
    await answerTo(h, 'unfreeze', { user: 'UADMIN' });
    const admin = await connect(h, await tokenFor(h, 'UADMIN', 'auditor'));
    try {
      const listed = await admin.callTool({ name: 'audit_log', arguments: { limit: 5, filter: { kind: 'person', userId: 'UADMIN' } } });
      expect(listed.isError).toBeFalsy();
      const records = (listed.structuredContent as { audit_log: { userId: string; action: string }[] }).audit_log;
      expect(records.length).toBeGreaterThanOrEqual(2);
      expect(records.every((r) => r.userId === 'UADMIN')).toBe(true);
      const none = await admin.callTool({ name: 'audit_log', arguments: { filter: { kind: 'vs', id: 999 } } });
      expect((none.structuredContent as { audit_log: unknown[] }).audit_log).toEqual([]);
    } finally {
      await admin.close();
    }
    const operator = await connect(h, await tokenFor(h, 'UOPER', 'nosy'));
    try {
      const refused = await operator.callTool({ name: 'audit_log', arguments: {} });
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.content)).toContain('may not read the audit trail');
    } finally {
      await operator.close();
    }
  });
});

describe('the MCP endpoint, calls a minute per token', () => {
  // The bot's clock stands still: every call falls in the same minute.
  const at = Date.now();
  const h = useHarness({ env: { ...ENV, VS_AGENT_CALLS_PER_MINUTE: '3' }, now: () => at });

  test('past VS_AGENT_CALLS_PER_MINUTE a token is refused 429 with Retry-After; another token is not', async () => {
    const token = await tokenFor(h, 'UOPER', 'busy');
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await post(h, { authorization: `Bearer ${token}` })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const refused = await post(h, { authorization: `Bearer ${token}` });
    expect(refused.headers.get('retry-after')).toBe('60');
    const other = await tokenFor(h, 'UOPER2', 'calm');
    expect((await post(h, { authorization: `Bearer ${other}` })).status).toBe(200);
  });
});

describe('the MCP endpoint on a port of its own (VS_MCP_PORT)', () => {
  let mcpPort = 0;
  const h = useHarness({
    startWith: async () => {
      mcpPort = await freePort();
      return { env: { ...ENV, VS_MCP_PORT: String(mcpPort) } };
    },
  });

  test('/mcp answers there, with the same checks, and no longer beside /slack/events', async () => {
    const own = new URL(`http://127.0.0.1:${mcpPort}/mcp`);
    const onPort = await fetch(mcpUrl(h), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(INITIALIZE) });
    expect(onPort.status).toBe(404);
    const none = await fetch(own, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(INITIALIZE),
    });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const token = await tokenFor(h, 'UOPER', 'socket');
    const client = new Client({ name: 'test-agent', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(own, { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['server_status', 'find_server', 'change_status']));
    } finally {
      await client.close();
    }
  });
});
