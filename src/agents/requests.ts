import { randomUUID } from 'node:crypto';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { CHANGES, MAX_REASON_LENGTH, OUTCOMES, TARGET_KINDS, type AgentAskResult, type ChangeAction, type Changes, type Policy } from '../changes';
import type { FormLimits, FormValues } from '../changes/disk-form';
import type { NameIndex } from '../cloud/names';
import type { Logger } from '../log';
import type { AgentToken, Approval } from '../store';
import { toolCall, type CallRecord } from './call-record';
import { agentAskText, agentStatusText, CHANGE_UNKNOWN, serverName, unresolvedText } from './answers';

// The change tools (docs/product.md, Agents ask, people decide): one per `agent.tool` of the change table
// (src/changes/definitions.ts), its arguments the fields of the row's `stored` schema (what the form validates to) and a
// reason; rows that share a tool (the power actions) share those fields, and the form's choice picks the row. A tool
// never acts: the door checks what a form would check and stores a request that always waits for a person, posted in
// VS_AGENT_CHANNEL; the tool answers at once. change_status follows a request to its end; find_server reads the name
// index. A new row of the table is a new tool, with no code here.

export interface RequestToolDeps {
  changes: Pick<Changes, 'askForAgent' | 'agentStatus'>;
  policy: Pick<Policy, 'standing' | 'allows'>;
  names: Pick<NameIndex, 'resolve'>;
  /** Posts a stored request in its channel (the Slack side): whether it was posted, and its link. */
  post: (approval: Approval, ownerDecides: boolean) => Promise<{ posted: boolean; link: string | null }>;
  /** VS_AGENT_CHANNEL. */
  channelId: string;
  /** VS_AGENT_DENY_MEMORY_MIN, in ms. */
  denyMemoryMs: number;
  /** VS_APPROVALS: the actions whose requests a second person decides, never the owner. */
  secondPerson: readonly ChangeAction[];
  formLimits: FormLimits;
  logger: Logger;
}

/** A server, as the commands take it: its id, its label or hostname (or a unique prefix), or one of its addresses. */
export const serverArgument = z
  .union([z.number().int().positive(), z.string().trim().min(1).max(255)])
  .describe('the server: its id (42), its label or hostname (web-1), or one of its IP addresses');

/** A server argument resolved through the name index: its id, or why it names no one server. */
export async function resolveServer(names: Pick<NameIndex, 'resolve'>, server: number | string): Promise<{ id: number } | { problem: string }> {
  if (typeof server === 'number') return { id: server };
  const found = await names.resolve(server);
  return found.kind === 'one' ? { id: found.server.id } : { problem: unresolvedText(found) };
}

const text = (t: string) => ({ type: 'text' as const, text: t });
const failure = (t: string) => ({ isError: true, content: [text(t)] });

/** One tool: its name, the rows it asks for, its input fields. */
interface RequestTool {
  name: string;
  actions: ChangeAction[];
  /** The field that names the target: `server` for a server's change, the stored id field otherwise (`backup_id`). */
  targetField: string;
  shape: Record<string, z.ZodType>;
  destructive: boolean;
}

/** The tools the change table makes, one per `agent.tool`, in the table's order. */
export function requestTools(): RequestTool[] {
  const tools = new Map<string, RequestTool>();
  for (const action of Object.keys(CHANGES) as ChangeAction[]) {
    const change = CHANGES[action];
    const existing = tools.get(change.agent.tool);
    if (existing) {
      existing.actions.push(action);
      existing.destructive ||= change.agent.destructive;
      continue;
    }
    const stored = change.stored as unknown;
    if (!(stored instanceof z.ZodObject)) throw new Error(`the stored schema of ${action} is not an object: no agent tool can be made of it`);
    const targetField = change.targetKind === 'vs' ? 'server' : TARGET_KINDS[change.targetKind].field;
    const shape: Record<string, z.ZodType> = change.targetKind === 'vs' ? { server: serverArgument } : {};
    for (const [field, type] of Object.entries<z.ZodType>(stored.shape)) {
      if (field === 'reason') continue;
      // Fields the form may leave empty (a note, every address) or unticked are optional here too.
      const emptyOk = type.safeParse('').success || type.safeParse(false).success || type.safeParse(undefined).success;
      shape[field] = emptyOk && !(type instanceof z.ZodOptional) ? type.optional() : type;
    }
    shape.reason = z.string().trim().min(1).max(MAX_REASON_LENGTH).describe('why: shown to whoever decides and kept in the audit trail');
    tools.set(change.agent.tool, { name: change.agent.tool, actions: [action], targetField, shape, destructive: change.agent.destructive });
  }
  return [...tools.values()];
}

/** An argument as the form would have it: numbers as typed, text and ticks as they are. */
function formValues(args: Record<string, unknown>, skip: string): FormValues {
  const values: FormValues = {};
  for (const [field, value] of Object.entries(args)) {
    if (field === skip) continue;
    if (typeof value === 'number') values[field] = String(value);
    else if (typeof value === 'string' || typeof value === 'boolean') values[field] = value;
  }
  return values;
}

const TOOLS = requestTools();

/** What change_status answers as data: the SDK checks it on both sides (the server before sending, the client on receipt). */
const CHANGE_STATUS_OUTPUT = {
  change_id: z.string(),
  status: z
    .enum(OUTCOMES)
    .describe('the outcome, in the one vocabulary: requested, denied, withdrawn, expired, refused, scheduled, running, done, failed, cancelled, unknown'),
  action: z.string(),
  target: z.string(),
  agent: z.string().nullable(),
  requested_by: z.string().describe('the Slack user the agent acts for'),
  requested_at: z.string(),
  expires_at: z.string(),
  decided_by: z.string().nullable(),
  decided_at: z.string().nullable(),
  decision_reason: z.string().nullable(),
  detail: z.string().nullable(),
};

/** Registers the change tools, change_status and find_server for one agent. */
export function registerRequestTools(server: McpServer, agent: AgentToken, deps: RequestToolDeps, call: CallRecord = {}): void {
  const log = deps.logger.child({ component: 'mcp', agent: agent.name, owner: agent.owner });
  for (const tool of TOOLS) {
    const titles = tool.actions.map((a) => a.replace(/_/g, ' ')).join(', ');
    server.registerTool(
      tool.name,
      {
        description:
          `Asks a person in Slack for a change (${titles}); never acts itself. Answers at once with status "requested", ` +
          'change_id, message_link and expires_at; follow it with change_status. Refused (with why) when the person you act for may not ask for it, ' +
          'changes are frozen, the input is invalid, or the same request was denied recently.',
        inputSchema: tool.shape,
        annotations: { readOnlyHint: false, destructiveHint: tool.destructive, idempotentHint: false, openWorldHint: false },
      },
      toolCall(call, 'request', async (args: Record<string, unknown>) => {
        const raw = args[tool.targetField];
        const target = tool.targetField === 'server' ? await resolveServer(deps.names, raw as number | string) : { id: raw as number };
        if ('problem' in target) return failure(target.problem);
        const values = formValues(args, tool.targetField);
        // The row the arguments make (the power form's choice picks its change), else the first, whose form says what is wrong;
        // a tool of one row is that row (the door validates it: no need to here).
        const fits = (a: ChangeAction) =>
          CHANGES[a].validate(target.id, { ...values, ...CHANGES[a].agent.confirmations?.(target.id, args) }, deps.formLimits).ok;
        const action = (tool.actions.length === 1 ? undefined : tool.actions.find(fits)) ?? tool.actions[0]!;
        const filled = { ...values, ...CHANGES[action].agent.confirmations?.(target.id, args) };
        log.info('agent request', { tool: tool.name, action, target: target.id });
        const ctx = {
          owner: agent.owner,
          agent: agent.name,
          channelId: deps.channelId,
          submissionKey: `agent:${randomUUID()}`,
          denyMemoryMs: deps.denyMemoryMs,
        };
        const result = await deps.changes.askForAgent(ctx, action, target.id, filled);
        const ownerDecides = !deps.secondPerson.includes(action);
        const posted = result.outcome === 'requested' ? await deps.post(result.approval, ownerDecides) : { posted: false, link: null };
        const words = agentAskText(result, { owner: agent.owner, agent: agent.name, channelId: deps.channelId, ...posted, ownerDecides });
        const structured = answerOf(result, posted.link);
        return { ...(result.outcome === 'requested' ? {} : { isError: true }), content: [text(words)], structuredContent: structured };
      }),
    );
  }

  server.registerTool(
    'change_status',
    {
      description:
        'Where a change an agent asked for stands now, in one outcome: requested, denied, withdrawn, expired, refused, scheduled, ' +
        "running, done, failed, cancelled or unknown. Only the requests of the token's person's agents (admins: all).",
      inputSchema: { change_id: z.string().trim().min(1).max(100).describe('the change_id a request tool answered') },
      outputSchema: CHANGE_STATUS_OUTPUT,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    toolCall(call, 'read', async ({ change_id }) => {
      const { role } = await deps.policy.standing(agent.owner);
      const allows = deps.policy.allows(role);
      if (!allows.includes('read')) return failure(`${agent.owner}, whom this agent acts for, may not read changes (role: ${role}).`);
      const status = await deps.changes.agentStatus(change_id, agent.owner, allows.includes('audit_read'));
      if (!status.found) return failure(CHANGE_UNKNOWN);
      const { approval, outcome, record } = status;
      const structured = {
        change_id: approval.id,
        status: outcome,
        action: approval.action,
        target: approval.target,
        agent: approval.agent ?? null,
        requested_by: approval.requestedBy,
        requested_at: approval.requestedAt,
        expires_at: new Date(approval.expiresAtMs).toISOString(),
        decided_by: approval.decidedBy,
        decided_at: approval.decidedAt,
        decision_reason: approval.decisionReason,
        detail: record?.detail ?? null,
      };
      return { content: [text(agentStatusText(status))], structuredContent: structured };
    }),
  );

  server.registerTool(
    'find_server',
    {
      description: 'Finds servers by id, label or hostname (or a unique prefix of one), or IP address, as `/vs` commands take them.',
      inputSchema: { query: z.string().trim().min(1).max(255).describe('an id (42), a label or hostname (web-1), or an IP address') },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    toolCall(call, 'read', async ({ query }) => {
      const { role } = await deps.policy.standing(agent.owner);
      if (!deps.policy.allows(role).includes('read')) return failure(`${agent.owner}, whom this agent acts for, may not read servers (role: ${role}).`);
      log.info('agent read', { tool: 'find_server' });
      try {
        const found = await deps.names.resolve(query);
        const servers = found.kind === 'one' ? [found.server] : found.kind === 'several' ? found.servers : [];
        const listed = servers.map((s) => ({ id: s.id, label: s.label, hostname: s.hostname, addresses: [...s.addresses], name: serverName(s) }));
        const closest = found.kind === 'none' ? found.closest.map((s) => ({ id: s.id, label: s.label, name: serverName(s) })) : [];
        const words = found.kind === 'one' ? `Found ${serverName(found.server)}.` : unresolvedText(found);
        return { content: [text(words)], structuredContent: { match: found.kind, servers: listed, closest } };
      } catch (error) {
        call.outcome = 'failed';
        return failure(`The server list could not be read: ${error instanceof Error ? error.message : 'the cloud API did not answer'}`);
      }
    }),
  );
}

/** A request tool's structured answer. */
function answerOf(result: AgentAskResult, link: string | null): Record<string, unknown> {
  switch (result.outcome) {
    case 'requested':
      return {
        status: 'requested',
        change_id: result.approval.id,
        message_link: link,
        expires_at: new Date(result.approval.expiresAtMs).toISOString(),
        channel: result.approval.channelId,
      };
    case 'denied':
      return { status: 'refused', why: result.decision.denial?.code ?? 'denied' };
    case 'invalid':
      return { status: 'refused', why: 'invalid', field_errors: result.fieldErrors };
    case 'denied_before':
      return {
        status: 'refused',
        why: 'denied_before',
        change_id: result.approval.id,
        denied_by: result.approval.decidedBy,
        denied_at: result.approval.decidedAt,
        reason: result.approval.decisionReason,
      };
    case 'busy':
    case 'unfit':
      return { status: 'refused', why: result.outcome };
    case 'failed':
      return { status: 'refused', why: 'target_unreadable' };
    case 'duplicate':
      return { status: 'duplicate' };
  }
}
