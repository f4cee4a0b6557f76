import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import type { Policy } from '../changes';
import type { CloudClient } from '../cloud/client.types';
import type { Logger } from '../log';
import { parseIp } from '../firewall/address';
import { answerPortQuestion, type PortAnswer } from '../firewall/port-question';
import { PORT_MAX } from '../firewall/ports';
import { AuditFilter, auditQuery } from '../changes/audit-filter';
import type { AgentToken, Store } from '../store';
import type { AgentTokenKeeper } from './tokens';
import { registerRequestTools, requestTools, resolveServer, serverArgument, type RequestToolDeps } from './requests';
import type { NameIndex } from '../cloud/names';
import { NO_SPAN, type TraceSpan, type Tracing } from '../tracing';
import { toolCall, type CallRecord } from './call-record';

// The MCP endpoint (docs/product.md, Agents ask, people decide): `POST /mcp`, stateless (a new server and transport
// per request, so any instance answers any call). A call needs a live agent token as a bearer; its owner's role is
// checked at every call; each token has VS_AGENT_CALLS_PER_MINUTE calls a minute, requests included. The reads are
// here; the change tools, change_status and find_server in requests.ts.

export const MCP_PATH = '/mcp';
/** The largest body read: that of the Slack endpoint (src/slack/request-guard.ts). */
export const MCP_BODY_LIMIT = 1024 * 1024;
const BODY_DEADLINE_MS = 3_000;
/** As `/vs audit`: 10 records unless asked, at most 50. */
const AUDIT_LOG_DEFAULT = 10;
const AUDIT_LOG_MAX = 50;

export interface McpDeps {
  tokens: AgentTokenKeeper;
  policy: Pick<Policy, 'standing' | 'allows'>;
  cloud: Pick<CloudClient, 'getServerStatus' | 'listDisks' | 'listBackups' | 'listFirewallRules' | 'listAutoscaling'>;
  audit: Pick<Store['audit'], 'latest'>;
  allowedOrigins: readonly string[];
  callsPerMinute: number;
  now: () => number;
  logger: Logger;
  /** Whether start-up is done; until then a call is answered 503. */
  started: () => boolean;
  /** The name index: every `server` argument takes a name, as the commands do. */
  names: Pick<NameIndex, 'resolve'>;
  /** The change tools' parts (requests.ts). */
  requests: Omit<RequestToolDeps, 'policy' | 'names' | 'logger'>;
  /** Each call the root span of a trace of its own (docs/production.md, Traces); unset: none. */
  tracing?: Tracing;
}

/** The read tools: one per read the `/vs` commands offer about a server, each the cloud read of the same name. */
const READ_TOOLS = [
  { name: 'server_status', read: 'getServerStatus', description: 'A server at a glance: power, lock, state (as `/vs server`).' },
  { name: 'list_disks', read: 'listDisks', description: "A server's disks: size, type, primary or swap, mount point, built, locked (as `/vs disks`)." },
  { name: 'list_backups', read: 'listBackups', description: "A server's backups: when, size, type, disk, usable (as `/vs backups`)." },
  { name: 'firewall_rules', read: 'listFirewallRules', description: "A server's firewall rules (as `/vs firewall`)." },
  { name: 'autoscaling', read: 'listAutoscaling', description: "A server's autoscaling rules (as `/vs autoscaling`)." },
] as const;

/** Every tool's name: a span names a call's tool only when it is one of them. */
const TOOL_NAMES: ReadonlySet<string> = new Set([
  ...READ_TOOLS.map((t) => t.name),
  'port_check',
  'audit_log',
  'change_status',
  'find_server',
  ...requestTools().map((t) => t.name),
]);

type Json = { status: number; body: Record<string, unknown>; headers?: Record<string, string> };

/** The methods a span names as they are; any other is `other` (a span carries no text a client made up). */
const METHODS = new Set([
  'initialize',
  'ping',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'prompts/list',
  'logging/setLevel',
  'completion/complete',
  'notifications/initialized',
  'notifications/cancelled',
]);

/** The JSON-RPC method of a body, and for tools/call the tool, when it is one of ours (the span's name). */
function methodOf(body: unknown, tools: ReadonlySet<string>): { method: string; tool: string | undefined } {
  if (Array.isArray(body)) return { method: 'batch', tool: undefined };
  const { method, params } = (typeof body === 'object' && body !== null ? body : {}) as { method?: unknown; params?: { name?: unknown } };
  const known = typeof method === 'string' && METHODS.has(method) ? method : 'other';
  const name = known === 'tools/call' ? params?.name : undefined;
  return { method: known, tool: typeof name === 'string' ? (tools.has(name) ? name : 'unknown') : undefined };
}

function refuse(res: ServerResponse, r: Json, span: TraceSpan = NO_SPAN): void {
  span.set({ 'vs.outcome': r.status >= 500 ? 'failed' : 'refused', 'http.response.status_code': r.status });
  if (r.status >= 500) span.failed();
  res.writeHead(r.status, { 'content-type': 'application/json', ...r.headers }).end(JSON.stringify(r.body));
}

const rpcError = (message: string) => ({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });

/** The endpoint's handler: every refusal before a tool runs is an HTTP status with a JSON-RPC error saying why. */
export function mcpHandler(deps: McpDeps): (req: IncomingMessage, res: ServerResponse) => void {
  const calls = new Map<string, { minute: number; count: number }>();
  const log = deps.logger.child({ component: 'mcp' });
  const allowed = new Set(deps.allowedOrigins);
  const tracing = deps.tracing;

  const serve = async (req: IncomingMessage, res: ServerResponse, span: TraceSpan): Promise<void> => {
    if (!deps.started())
      return refuse(res, { status: 503, body: rpcError('vs-chatops is starting; try again in a moment'), headers: { 'retry-after': '5' } }, span);
    if (req.method !== 'POST') return refuse(res, { status: 405, body: rpcError('POST only: this endpoint is stateless'), headers: { allow: 'POST' } }, span);
    const origin = req.headers.origin;
    if (origin !== undefined && !allowed.has(origin.replace(/\/+$/, ''))) {
      log.info('refused an MCP call from an origin not in VS_MCP_ALLOWED_ORIGINS');
      return refuse(res, { status: 403, body: rpcError('this origin may not call the endpoint (VS_MCP_ALLOWED_ORIGINS)') }, span);
    }
    const auth = req.headers.authorization;
    const bearer = typeof auth === 'string' && /^Bearer [^\s]+$/.test(auth) ? auth.slice(7) : null;
    const agent = bearer === null ? null : await deps.tokens.authenticate(bearer);
    if (agent === null) {
      return refuse(
        res,
        {
          status: 401,
          body: rpcError('a live agent token is needed: make one in Slack with /vs agent token <name>'),
          headers: { 'www-authenticate': 'Bearer realm="vs-chatops"' },
        },
        span,
      );
    }
    // Whom it acts for, by id, and the agent's name (never its token).
    span.set({ 'vs.agent': agent.name, 'slack.user_id': agent.owner });
    const minute = Math.floor(deps.now() / 60_000);
    const used = calls.get(agent.hash);
    const count = used?.minute === minute ? used.count + 1 : 1;
    calls.set(agent.hash, { minute, count });
    if (count > deps.callsPerMinute) {
      return refuse(
        res,
        {
          status: 429,
          body: rpcError(
            `refused: this token has made its ${deps.callsPerMinute} calls of this minute (VS_AGENT_CALLS_PER_MINUTE); ` +
              'nothing was asked or changed; try again in a minute',
          ),
          headers: { 'retry-after': '60' },
        },
        span,
      );
    }
    const body = await readBody(req);
    if (body === TOO_LARGE) return refuse(res, { status: 413, body: rpcError('the body is larger than the limit') }, span);
    if (body === UNREADABLE) return refuse(res, { status: 400, body: rpcError('the body is not JSON, or came too slowly') }, span);
    const { method, tool } = methodOf(body, TOOL_NAMES);
    span.rename(tool === undefined ? `mcp ${method}` : `mcp ${method} ${tool}`);
    span.set({ 'mcp.method.name': method, 'gen_ai.tool.name': tool, 'vs.tool': tool });
    const call: CallRecord = {};
    const server = serverFor(agent, deps, log, call);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
    // A tool's own outcome; else the SDK answered without running one (an unknown tool, arguments its schema refuses).
    span.set({ 'vs.outcome': call.outcome ?? (method === 'tools/call' ? 'refused' : 'done'), 'http.response.status_code': res.statusCode });
    if (call.outcome === 'failed') span.failed();
  };

  return (req, res) => {
    const handling = (span: TraceSpan) =>
      serve(req, res, span).catch((error: unknown) => {
        log.error('an MCP call failed', { error });
        if (!res.headersSent) refuse(res, { status: 500, body: rpcError('something went wrong; nothing was changed') }, span);
        else res.end();
      });
    // Each call the root of a trace of its own, named once its body says what it is.
    void (tracing?.on ? tracing.root('mcp', { kind: 'server', attributes: { 'vs.request.kind': 'mcp' } }, handling) : handling(NO_SPAN));
  };
}

/**
 * One JSON Schema validator for every call's server: unshared, each server builds an Ajv instance of its own (about a
 * millisecond of every call; the server uses it only for what it asks of a client, which it never does).
 */
const VALIDATOR = new AjvJsonSchemaValidator();

function serverFor(agent: AgentToken, deps: McpDeps, log: Logger, call: CallRecord): McpServer {
  const server = new McpServer({ name: 'vs-chatops', version: '1' }, { jsonSchemaValidator: VALIDATOR });
  for (const tool of READ_TOOLS) {
    server.registerTool(
      tool.name,
      { description: tool.description, inputSchema: { server: serverArgument }, annotations: { readOnlyHint: true, openWorldHint: false } },
      toolCall(call, 'read', async ({ server: named }) => {
        const { role } = await deps.policy.standing(agent.owner);
        if (!deps.policy.allows(role).includes('read')) {
          return {
            isError: true,
            content: [{ type: 'text' as const, text: `${agent.owner}, whom this agent acts for, may not read servers (role: ${role}).` }],
          };
        }
        try {
          const resolved = await resolveServer(deps.names, named);
          if ('problem' in resolved) return { isError: true, content: [{ type: 'text' as const, text: resolved.problem }] };
          log.info('agent read', { agent: agent.name, owner: agent.owner, tool: tool.name, vs_id: resolved.id });
          const answer: unknown = await (deps.cloud[tool.read] as (vsId: number) => Promise<unknown>)(resolved.id);
          const structured = { [tool.name]: answer };
          return { content: [{ type: 'text' as const, text: JSON.stringify(answer) }], structuredContent: structured };
        } catch (error) {
          const message = error instanceof Error ? error.message : 'the cloud API did not answer';
          call.outcome = 'failed';
          return { isError: true, content: [{ type: 'text' as const, text: `The read failed: ${message}` }] };
        }
      }),
    );
  }
  server.registerTool(
    'port_check',
    {
      description:
        'Does this traffic reach the server? Its firewall rules walked per network interface, as `/vs firewall <server> <port>[/udp] [from <ip>]` does.',
      inputSchema: {
        server: serverArgument,
        port: z.number().int().min(1).max(PORT_MAX).describe('the destination port'),
        protocol: z.enum(['tcp', 'udp']).optional().describe('tcp unless said'),
        from: z.string().max(64).optional().describe('one source address (IPv4 or IPv6); unset: every source'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    toolCall(call, 'read', async ({ server: named, port, protocol, from }) => {
      const { role } = await deps.policy.standing(agent.owner);
      if (!deps.policy.allows(role).includes('read')) {
        return { isError: true, content: [{ type: 'text' as const, text: `${agent.owner}, whom this agent acts for, may not read servers (role: ${role}).` }] };
      }
      const source = from === undefined ? null : parseIp(from);
      if (from !== undefined && source === null) {
        return { isError: true, content: [{ type: 'text' as const, text: '`from` is not an IP address: one IPv4 or IPv6 address, e.g. 198.51.100.9.' }] };
      }
      try {
        const resolved = await resolveServer(deps.names, named);
        if ('problem' in resolved) return { isError: true, content: [{ type: 'text' as const, text: resolved.problem }] };
        log.info('agent read', { agent: agent.name, owner: agent.owner, tool: 'port_check', vs_id: resolved.id });
        const rules = await deps.cloud.listFirewallRules(resolved.id);
        const answer = portAnswer(answerPortQuestion(rules, { port, protocol: protocol ?? 'tcp', source }), from ?? null);
        return { content: [{ type: 'text' as const, text: JSON.stringify(answer) }], structuredContent: { port_check: answer } };
      } catch (error) {
        const message = error instanceof Error ? error.message : 'the cloud API did not answer';
        call.outcome = 'failed';
        return { isError: true, content: [{ type: 'text' as const, text: `The read failed: ${message}` }] };
      }
    }),
  );
  server.registerTool(
    'audit_log',
    {
      description: 'The latest audit records, newest first, filtered as `/vs audit` filters them (admins only).',
      inputSchema: {
        filter: AuditFilter.optional().describe('one filter: a server, a backup, a person, an outcome, or break glass'),
        limit: z.number().int().min(1).max(AUDIT_LOG_MAX).optional().describe(`how many records (default ${AUDIT_LOG_DEFAULT}, at most ${AUDIT_LOG_MAX})`),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    toolCall(call, 'read', async ({ filter, limit }) => {
      const { role } = await deps.policy.standing(agent.owner);
      if (!deps.policy.allows(role).includes('audit_read')) {
        return {
          isError: true,
          content: [{ type: 'text' as const, text: `${agent.owner}, whom this agent acts for, may not read the audit trail (admins only).` }],
        };
      }
      log.info('agent read', { agent: agent.name, owner: agent.owner, tool: 'audit_log' });
      const records = await deps.audit.latest(limit ?? AUDIT_LOG_DEFAULT, auditQuery(filter));
      return { content: [{ type: 'text' as const, text: JSON.stringify(records) }], structuredContent: { audit_log: records } };
    }),
  );
  registerRequestTools(server, agent, { ...deps.requests, policy: deps.policy, names: deps.names, logger: deps.logger }, call);
  return server;
}

const TOO_LARGE = Symbol('too large');
const UNREADABLE = Symbol('unreadable');

/** The body as JSON, bounded in size and time. */
function readBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve) => {
    if (Number(req.headers['content-length']) > MCP_BODY_LIMIT) return resolve(TOO_LARGE);
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (v: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(v);
    };
    const timer = setTimeout(() => settle(UNREADABLE), BODY_DEADLINE_MS);
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MCP_BODY_LIMIT) {
        settle(TOO_LARGE);
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => {
      try {
        settle(JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown);
      } catch {
        settle(UNREADABLE);
      }
    });
    req.on('error', () => settle(UNREADABLE));
  });
}

/** A port answer as plain JSON (addresses are bigints inside): per interface, the rules that decide, by id and position. */
function portAnswer(answer: PortAnswer, from: string | null) {
  return {
    question: { port: answer.question.port, protocol: answer.question.protocol, from },
    interfaces: answer.interfaces.map((i) => ({
      network_interface_id: i.networkInterfaceId,
      decisions: i.decisions.map((d) => ({
        rule_id: d.rule.id,
        position: d.rule.position,
        verdict: d.verdict,
        everyone_else: d.everyoneElse,
        partly: d.partly,
        uncertain: d.uncertain,
      })),
      reaches_default: i.reachesDefault,
      default_uncertain: i.defaultUncertain,
      cannot_tell: i.cannotTell.map((c) => ({ rule_id: c.rule.id, fields: c.fields })),
      disabled_rule_ids: i.disabled.map((r) => r.id),
      shadowed_rule_ids: i.shadowed.map((r) => r.id),
    })),
  };
}
