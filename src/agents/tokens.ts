import { createHash, randomBytes } from 'node:crypto';
import type { AgentToken, AgentTokens } from '../store';

// Agent tokens (docs/product.md, Agents ask, people decide): a person makes one in Slack for an agent, which then acts
// for them. The token is shown once, to its owner, and never kept: the store holds its SHA-256 hash (a token is 256
// random bits, so a plain hash is enough: nothing to guess, nothing to salt), its name, owner and expiry. Nothing here
// logs, records or returns a token except `make`, to the one answer that shows it.

/** What a token starts with: a reader (or a secret scanner) can tell it is one of ours. */
export const TOKEN_PREFIX = 'vsa_';
/** An agent's name: what the audit and the requests show ("agent laptop for @Ada"). */
export const AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$/;
export const DEFAULT_TOKEN_HOURS = 8;

export const hashToken = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

export type MadeToken =
  | { outcome: 'made'; token: string; agent: AgentToken }
  /** A live token of the same name is theirs already: revoke it first (nothing was made). */
  | { outcome: 'exists'; agent: AgentToken }
  | { outcome: 'invalid'; problem: 'name' | 'hours'; maxHours: number };

export type RevokedTokens = { outcome: 'revoked'; tokens: AgentToken[] } | { outcome: 'none' };

export interface AgentTokenKeeper {
  /** A new token named `name` for `owner`, valid `hours` (default 8, at most VS_AGENT_TOKEN_MAX_HOURS). */
  make(owner: string, name: string, hours?: number): Promise<MadeToken>;
  /** The owner's live tokens. */
  of(owner: string): Promise<AgentToken[]>;
  /** Ends the live tokens named `name`: the person's own, or anyone's when `anyone` (an admin). */
  revoke(name: string, by: string, anyone: boolean): Promise<RevokedTokens>;
  /** The live token a bearer holds, or null (unknown, expired or revoked). */
  authenticate(bearer: string): Promise<AgentToken | null>;
}

export function createAgentTokens(deps: { store: AgentTokens; now: () => number; maxHours: number }): AgentTokenKeeper {
  const { store, now, maxHours } = deps;
  return {
    async make(owner, name, hours = Math.min(DEFAULT_TOKEN_HOURS, maxHours)) {
      if (!AGENT_NAME.test(name)) return { outcome: 'invalid', problem: 'name', maxHours };
      if (!Number.isSafeInteger(hours) || hours < 1 || hours > maxHours) return { outcome: 'invalid', problem: 'hours', maxHours };
      const token = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
      const nowMs = now();
      const agent: AgentToken = {
        hash: hashToken(token),
        name,
        owner,
        createdAt: new Date(nowMs).toISOString(),
        expiresAtMs: nowMs + hours * 3_600_000,
        revokedBy: null,
        revokedAt: null,
      };
      const created = await store.create(agent, nowMs);
      return created.created ? { outcome: 'made', token, agent: created.token } : { outcome: 'exists', agent: created.token };
    },
    of: (owner) => store.live(owner, now()),
    async revoke(name, by, anyone) {
      const nowMs = now();
      const tokens = await store.revoke(name, anyone ? null : by, { by, at: new Date(nowMs).toISOString(), nowMs });
      return tokens.length > 0 ? { outcome: 'revoked', tokens } : { outcome: 'none' };
    },
    async authenticate(bearer) {
      if (!bearer.startsWith(TOKEN_PREFIX) || bearer.length > 200) return null;
      const found = await store.byHash(hashToken(bearer));
      if (!found || found.revokedAt !== null || found.expiresAtMs <= now()) return null;
      return found;
    },
  };
}
