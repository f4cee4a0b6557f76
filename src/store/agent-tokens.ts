// Agent tokens (docs/product.md, Agents ask, people decide): made in Slack by a person for an AI agent, which acts for
// them. Only the token's SHA-256 hash is kept, with its name, its owner and its expiry; a revoked one is kept too,
// marked, so that what an agent did can be told apart from what it may still do.

export interface AgentToken {
  /** Hex SHA-256 of the token (never the token). */
  hash: string;
  name: string;
  /** Who made it: the agent acts for them, with their role. */
  owner: string;
  /** ISO 8601. */
  createdAt: string;
  expiresAtMs: number;
  revokedBy: string | null;
  /** ISO 8601. */
  revokedAt: string | null;
}

export interface AgentTokens {
  /**
   * Keeps a new token, unless its owner has a live one (unrevoked, unexpired at `nowMs`) of the same name: then nothing
   * is written and that one is returned (`created: false`).
   */
  create(token: AgentToken, nowMs: number): Promise<{ created: boolean; token: AgentToken }>;
  /** The token of this hash, live or not; null when there is none. */
  byHash(hash: string): Promise<AgentToken | null>;
  /** The live tokens (unrevoked, unexpired at `nowMs`) of `owner`, or of everyone when `owner` is null, soonest expiry first. */
  live(owner: string | null, nowMs: number): Promise<AgentToken[]>;
  /**
   * Revokes the live tokens named `name` (of `owner` only, or of anyone when `owner` is null), by `by` at `at`; returns
   * those revoked (none: nothing was live by that name).
   */
  revoke(name: string, owner: string | null, revocation: { by: string; at: string; nowMs: number }): Promise<AgentToken[]>;
}
