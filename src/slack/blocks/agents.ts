import type { AgentToken } from '../../store';
import { context, fallback, type Rendered, safe, section, slackTime, userMention } from './mrkdwn';

// Agents' tokens in Slack (docs/product.md, Agents ask, people decide): `/vs agent token`, `/vs agent tokens` and
// `/vs agent revoke`. The token itself appears in one message only, the ephemeral answer that made it.

const nameOf = (agent: Pick<AgentToken, 'name'>) => `\`${safe(agent.name, 40)}\``;

/** How an agent connects: the endpoint when it is on, or the setting that turns it on. */
function connectLine(mcp: boolean): string {
  return mcp
    ? "Connect your agent (Claude Code, Cursor…) to the MCP endpoint, `POST /mcp` on this bot's address (Streamable HTTP), with the header " +
        '`Authorization: Bearer <token>`.'
    : 'The MCP endpoint is off here: whoever runs the bot turns it on with `VS_MCP=on`.';
}

export function renderTokenMade(o: { token: string; agent: AgentToken; mcp: boolean; sandbox: boolean }): Rendered {
  return {
    text: fallback(`A token for agent ${o.agent.name}, until ${new Date(o.agent.expiresAtMs).toISOString()}`, o.sandbox),
    blocks: [
      section(`:key: *A token for agent ${nameOf(o.agent)}*, valid until ${slackTime(o.agent.expiresAtMs)}:\n\`${o.token}\``),
      context(
        'Shown this once, only to you: it is kept as a hash, so nobody can show it again. The agent acts for you, with your role. ' +
          `End it any time with \`/vs agent revoke ${safe(o.agent.name, 40)}\`.`,
      ),
      context(connectLine(o.mcp)),
    ],
  };
}

export function renderTokenExists(agent: AgentToken): Rendered {
  const text =
    `You already have a live token for agent ${nameOf(agent)}, valid until ${slackTime(agent.expiresAtMs)}. ` +
    `Nothing was made: end it first with \`/vs agent revoke ${safe(agent.name, 40)}\`, or pick another name.`;
  return { text: fallback(`You already have a live token for agent ${agent.name}`), blocks: [section(`:warning: ${text}`)] };
}

export const agentNameProblem = (typed: string): string =>
  `\`${safe(typed, 40)}\` is not an agent name: up to 32 letters, digits, \`.\`, \`_\` or \`-\`, a letter or digit first, ` +
  'e.g. `/vs agent token laptop 8`.';

export const agentHoursProblem = (typed: string, maxHours?: number): string =>
  `\`${safe(typed, 20)}\` is not a number of hours: a whole number from 1` +
  (maxHours === undefined ? '' : ` to ${maxHours} (VS_AGENT_TOKEN_MAX_HOURS)`) +
  ', e.g. `/vs agent token laptop 8`.';

export const AGENT_TOKEN_NEEDS_OPERATOR = 'Making a token for an agent needs the operator or admin role: the agent acts for you, with your role.';

export const AGENT_TOKENS_UNREACHABLE = 'Agent tokens could not be read or written: the store did not answer. Nothing was changed; try again in a moment.';

export function renderTokenList(tokens: readonly AgentToken[], sandbox: boolean): Rendered {
  if (tokens.length === 0) {
    return {
      text: fallback('You have no live agent tokens', sandbox),
      blocks: [section('You have no live agent tokens. Make one with `/vs agent token <name> [hours]`.')],
    };
  }
  const lines = tokens.map((t) => `• ${nameOf(t)}: made ${slackTime(t.createdAt)}, valid until ${slackTime(t.expiresAtMs)}`);
  return {
    text: fallback(`Your live agent tokens: ${tokens.map((t) => t.name).join(', ')}`, sandbox),
    blocks: [section(`*Your live agent tokens*\n${lines.join('\n')}`), context('End one with `/vs agent revoke <name>`.')],
  };
}

export function renderTokensRevoked(tokens: readonly AgentToken[], by: string): Rendered {
  const whose = tokens.map((t) => (t.owner === by ? nameOf(t) : `${nameOf(t)} of ${userMention(t.owner)}`));
  return {
    text: fallback(`Agent token ended: ${tokens.map((t) => t.name).join(', ')}`),
    blocks: [section(`:no_entry: Ended: agent ${whose.join(', ')}. Its calls are refused from now on.`)],
  };
}

export const noTokenToRevoke = (name: string, admin: boolean): string =>
  admin
    ? `No live agent token is named \`${safe(name, 40)}\`: nothing was ended. \`/vs agent tokens\` lists yours.`
    : `You have no live agent token named \`${safe(name, 40)}\`: nothing was ended. \`/vs agent tokens\` lists yours.`;
