import type { Selectable } from 'kysely';
import type { AgentToken, AgentTokens } from '../agent-tokens';
import type { AgentTokensTable } from '../schema';
import { isoTime, wholeMs, type SliceDeps } from './rows';

function toToken(row: Selectable<AgentTokensTable>): AgentToken {
  return {
    hash: row.hash,
    name: row.name,
    owner: row.owner,
    createdAt: row.created_at,
    expiresAtMs: Number(row.expires_at_ms),
    revokedBy: row.revoked_by,
    revokedAt: row.revoked_at,
  };
}

export function kyselyAgentTokens({ db }: SliceDeps): AgentTokens {
  return {
    create: (token, nowMs) =>
      db.transaction().execute(async (trx) => {
        const same = await trx
          .selectFrom('agent_tokens')
          .selectAll()
          .where('owner', '=', token.owner)
          .where('name', '=', token.name)
          .where('revoked_at', 'is', null)
          .where('expires_at_ms', '>', wholeMs(nowMs))
          .executeTakeFirst();
        if (same) return { created: false, token: toToken(same) };
        const row = await trx
          .insertInto('agent_tokens')
          .values({
            hash: token.hash,
            name: token.name,
            owner: token.owner,
            created_at: isoTime(token.createdAt, 'createdAt'),
            expires_at_ms: wholeMs(token.expiresAtMs),
            revoked_by: null,
            revoked_at: null,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        return { created: true, token: toToken(row) };
      }),

    byHash: async (hash) => {
      const row = await db.selectFrom('agent_tokens').selectAll().where('hash', '=', hash).executeTakeFirst();
      return row ? toToken(row) : null;
    },

    live: async (owner, nowMs) => {
      let query = db.selectFrom('agent_tokens').selectAll().where('revoked_at', 'is', null).where('expires_at_ms', '>', wholeMs(nowMs));
      if (owner !== null) query = query.where('owner', '=', owner);
      return (await query.orderBy('expires_at_ms').limit(200).execute()).map(toToken);
    },

    revoke: async (name, owner, { by, at, nowMs }) => {
      let query = db
        .updateTable('agent_tokens')
        .set({ revoked_by: by, revoked_at: isoTime(at, 'at') })
        .where('name', '=', name)
        .where('revoked_at', 'is', null)
        .where('expires_at_ms', '>', wholeMs(nowMs));
      if (owner !== null) query = query.where('owner', '=', owner);
      return (await query.returningAll().execute()).map(toToken);
    },
  };
}
