import { AGENT_NAME } from '../../../agents/tokens';
import { atLeast } from '../../../changes';
import { isStoreUnavailable } from '../../../store';
import {
  AGENT_TOKEN_NEEDS_OPERATOR,
  AGENT_TOKENS_UNREACHABLE,
  agentHoursProblem,
  agentNameProblem,
  noTokenToRevoke,
  renderTokenExists,
  renderTokenList,
  renderTokenMade,
  renderTokensRevoked,
} from '../../blocks/agents';
import type { Quoted } from '../../blocks/grammar';
import { markSandbox } from '../../blocks/mrkdwn';
import type { ListenerContext, Outcome, SlackRequest } from '../../context';
import { replyEphemeral, replyError } from '../../reply';
import type { Grammar } from './grammar';

// `/vs agent token <name> [hours]`, `/vs agent tokens`, `/vs agent revoke <name>` (docs/product.md, Agents ask, people
// decide). Every answer is ephemeral: the token is shown once, to the person who made it, and nowhere else.

const HOURS = /^[0-9]{1,5}$/;

/** An agent's name, then (when `hours`) an optional whole number of hours; the keeper checks the bounds. */
function agentArguments<A extends object>(hours: boolean, build: (name: string, hours?: number) => A): Grammar<A> {
  const fits = (args: readonly string[]) =>
    args.length >= 1 && AGENT_NAME.test(args[0] ?? '') && (args.length === 1 || (hours && args.length === 2 && HOURS.test(args[1] ?? '')));
  return {
    read(args, q: Quoted) {
      const [name, h, ...rest] = args;
      if (name === undefined) return { ok: false, message: `\`${q.bare}\` needs the agent's name, e.g. \`${q.example}\`.` };
      if (!AGENT_NAME.test(name)) return { ok: false, message: agentNameProblem(name) };
      if (h === undefined) return { ok: true, value: build(name) };
      if (!hours || rest.length > 0)
        return { ok: false, message: `\`${q.bare}\` takes ${hours ? 'a name and a number of hours' : 'one name'}, e.g. \`${q.example}\`.` };
      if (!HOURS.test(h)) return { ok: false, message: agentHoursProblem(h) };
      return { ok: true, value: build(name, Number(h)) };
    },
    fits,
    suggest: (args, q) => (fits(args) ? `${q.bare} ${args.join(' ')}` : q.usage),
  };
}

export const agentTokenArguments = agentArguments(true, (name, hours) => (hours === undefined ? { name } : { name, hours }));
export const agentRevokeArguments = agentArguments(false, (name) => ({ name }));

export async function agentTokenCommand(ctx: ListenerContext, req: SlackRequest, args: { name: string; hours?: number }): Promise<Outcome> {
  return guarded(req, async () => {
    const { role } = await ctx.policy.standing(req.userId);
    if (!atLeast(role, 'operator')) {
      await replyError(req, AGENT_TOKEN_NEEDS_OPERATOR);
      return 'denied';
    }
    const made = await ctx.agentTokens.make(req.userId, args.name, args.hours);
    switch (made.outcome) {
      case 'invalid':
        await replyError(req, made.problem === 'name' ? agentNameProblem(args.name) : agentHoursProblem(String(args.hours), made.maxHours));
        return 'invalid';
      case 'exists':
        await replyEphemeral(req, renderTokenExists(made.agent));
        return 'duplicate';
      case 'made':
        req.log.info('agent token made', { agent: made.agent.name, expires_at: new Date(made.agent.expiresAtMs).toISOString() });
        await ctx.changes.recordAgentToken({ userId: req.userId, channelId: req.channelId }, 'agent_token', [made.agent]);
        await replyEphemeral(
          req,
          markSandbox(renderTokenMade({ token: made.token, agent: made.agent, mcp: ctx.config.agents.mcp, sandbox: ctx.sandbox }), ctx.sandbox),
        );
        return 'succeeded';
    }
  });
}

export async function agentTokensCommand(ctx: ListenerContext, req: SlackRequest): Promise<Outcome> {
  return guarded(req, async () => {
    await replyEphemeral(req, renderTokenList(await ctx.agentTokens.of(req.userId), ctx.sandbox));
    return 'succeeded';
  });
}

export async function agentRevokeCommand(ctx: ListenerContext, req: SlackRequest, { name }: { name: string }): Promise<Outcome> {
  return guarded(req, async () => {
    const admin = atLeast((await ctx.policy.standing(req.userId)).role, 'admin');
    const revoked = await ctx.agentTokens.revoke(name, req.userId, admin);
    if (revoked.outcome === 'none') {
      await replyError(req, noTokenToRevoke(name, admin));
      return 'not_found';
    }
    req.log.info('agent token revoked', { agent: name, owners: revoked.tokens.map((t) => t.owner) });
    await ctx.changes.recordAgentToken({ userId: req.userId, channelId: req.channelId }, 'agent_revoke', revoked.tokens);
    await replyEphemeral(req, renderTokensRevoked(revoked.tokens, req.userId));
    return 'succeeded';
  });
}

/** Runs `run`; a store that does not answer is told (nothing changed). */
async function guarded(req: SlackRequest, run: () => Promise<Outcome>): Promise<Outcome> {
  try {
    return await run();
  } catch (error) {
    if (!isStoreUnavailable(error)) throw error;
    req.log.warn('agent tokens: the store is unreachable', { error });
    await replyError(req, AGENT_TOKENS_UNREACHABLE);
    return 'failed';
  }
}
