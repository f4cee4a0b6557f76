import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TOKEN_PREFIX } from '../../src/agents/tokens';
import type { Harness } from './app-harness';
import { answerTo, CHANNEL, visibleText } from './drive';
import { approvalIdIn, type PostedRequest } from './requests';
import { waitFor } from './wait';

// An agent over MCP, as the tests drive one: a token made in Slack, the SDK's own client connected with it over
// Streamable HTTP, a tool called, the request it posted found in the channel.

/** A token as `/vs agent token` shows it, once, to its owner. */
export const AGENT_TOKEN = new RegExp(`${TOKEN_PREFIX}[A-Za-z0-9_-]{43}`);

/** The bot's MCP endpoint: `/mcp` beside `/slack/events`. */
export const mcpUrl = (h: Harness): URL => new URL(h.eventsUrl.replace(/\/slack\/events$/, '/mcp'));

/** `/vs agent token <name>` typed by `user`: the token its answer holds. */
export async function agentToken(h: Harness, user: string, name: string): Promise<string> {
  return AGENT_TOKEN.exec(visibleText(await answerTo(h, `agent token ${name}`, { user })))![0];
}

/** The SDK's client connected with `token` (its initialize and initialized notification: two calls of the minute). */
export async function connectAgent(url: URL, token: string): Promise<Client> {
  const client = new Client({ name: 'test-agent', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

/** A tool called: its answer, its text as one string (`said`) and its structured content (`data`). */
export async function callTool(client: Client, name: string, args: Record<string, unknown>) {
  const answer = (await client.callTool({ name, arguments: args })) as CallToolResult;
  return { ...answer, said: answer.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n'), data: answer.structuredContent ?? {} };
}

/** The request `id`'s message in `channel` (the agents' channel). */
export async function postedRequest(h: Harness, id: string, channel = CHANNEL): Promise<PostedRequest> {
  const message = await waitFor(`the request ${id} posted`, () => h.slack.messagesIn(channel).find((m) => approvalIdIn(m.blocks) === id));
  return { id, channel, ts: message.ts };
}
