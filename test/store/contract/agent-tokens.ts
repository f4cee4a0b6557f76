import type { AgentToken } from '../../../src/store';
import { entry } from './entries';
import type { ContractStores } from './types';

// Agent tokens (docs/product.md, Agents ask, people decide): kept by hash, one live token per owner and name, listed
// while live, revoked by their owner or by anyone's name (admins); and the agent a record or a request came from.

const T = 1_000_000;
const token = (o: Partial<AgentToken> = {}): AgentToken => ({
  hash: 'a'.repeat(64),
  name: 'laptop',
  owner: 'UADA',
  createdAt: new Date(T).toISOString(),
  expiresAtMs: T + 3_600_000,
  revokedBy: null,
  revokedAt: null,
  ...o,
});

export function agentTokensContract({ one, instances }: ContractStores): void {
  it('keeps a token by its hash, and refuses a second live one of the same owner and name', async () => {
    const [a, b] = await instances(2);
    const made = await a!.agentTokens.create(token(), T);
    expect(made).toEqual({ created: true, token: token() });
    expect(await b!.agentTokens.byHash('a'.repeat(64))).toEqual(token());
    const again = await b!.agentTokens.create(token({ hash: 'b'.repeat(64) }), T + 1);
    expect(again).toEqual({ created: false, token: token() });
    expect(await a!.agentTokens.byHash('b'.repeat(64))).toBeNull();
    // Another person may use the same name; and once the first expired, its owner may too.
    expect((await a!.agentTokens.create(token({ hash: 'c'.repeat(64), owner: 'UBOB' }), T)).created).toBe(true);
    expect((await a!.agentTokens.create(token({ hash: 'd'.repeat(64) }), T + 3_600_000)).created).toBe(true);
  });

  it('lists live tokens, of one owner or of everyone, and revokes them by name', async () => {
    const store = await one();
    await store.agentTokens.create(token(), T);
    await store.agentTokens.create(token({ hash: 'b'.repeat(64), name: 'ci', expiresAtMs: T + 60_000 }), T);
    await store.agentTokens.create(token({ hash: 'c'.repeat(64), owner: 'UBOB' }), T);
    expect((await store.agentTokens.live('UADA', T)).map((t) => t.name)).toEqual(['ci', 'laptop']);
    expect((await store.agentTokens.live(null, T + 60_000)).map((t) => t.owner)).toEqual(['UADA', 'UBOB']);
    // Only the owner's own, unless anyone's is asked for.
    expect(await store.agentTokens.revoke('laptop', 'UCAROL', { by: 'UCAROL', at: new Date(T).toISOString(), nowMs: T })).toEqual([]);
    const revoked = await store.agentTokens.revoke('laptop', null, { by: 'UADMIN', at: new Date(T + 5).toISOString(), nowMs: T + 5 });
    expect(revoked.map((t) => [t.owner, t.revokedBy])).toEqual(
      expect.arrayContaining([
        ['UADA', 'UADMIN'],
        ['UBOB', 'UADMIN'],
      ]),
    );
    expect((await store.agentTokens.byHash('a'.repeat(64)))?.revokedAt).toBe(new Date(T + 5).toISOString());
    expect((await store.agentTokens.live(null, T + 5)).map((t) => t.name)).toEqual(['ci']);
  });

  it('keeps the agent a record came from', async () => {
    const store = await one();
    const record = await store.audit.record(entry({ agent: 'laptop', outcome: 'refused', apiStatus: null }));
    expect(record.agent).toBe('laptop');
    expect((await store.audit.latest(1))[0]?.agent).toBe('laptop');
  });
}
