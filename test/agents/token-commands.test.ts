import { hashToken, TOKEN_PREFIX } from '../../src/agents/tokens';
import { useHarness } from '../helpers/app-harness';
import { answerTo, visibleText } from '../helpers/drive';

// `/vs agent token|tokens|revoke` (docs/product.md, Agents ask, people decide) through the real app: the token is
// shown once, ephemeral, to its maker; the store keeps only its hash; logs never hold it; an owner ends their own, an
// admin anyone's; a viewer may not make one. The store is kept between tests: each test has people of its own.

const ENV = { VS_ADMINS: 'UADMIN', VS_OPERATORS: 'UOPER,UOPER2,UOPER3,UOTHER', VS_VIEWERS: 'UVIEWER', VS_AGENT_TOKEN_MAX_HOURS: '24' };
const TOKEN = new RegExp(`${TOKEN_PREFIX}[A-Za-z0-9_-]{43}`);

describe('/vs agent token, tokens, revoke', () => {
  const h = useHarness({ env: ENV });

  test('an operator gets a token once, ephemeral; the store keeps its hash, never the token; logs never show it', async () => {
    const m = await answerTo(h, 'agent token laptop 4', { user: 'UOPER' });
    expect(m.response_type).toBe('ephemeral');
    const text = visibleText(m);
    const token = TOKEN.exec(text)?.[0];
    expect(token).toBeDefined();
    expect(text).toContain('`laptop`');
    expect(text).toContain('/vs agent revoke laptop');
    expect(text).toContain('The MCP endpoint is off here');

    const kept = await h.store.agentTokens.byHash(hashToken(token!));
    expect(kept).toMatchObject({ name: 'laptop', owner: 'UOPER', revokedAt: null });
    expect(JSON.stringify(kept)).not.toContain(token!);
    expect(h.logs.join('\n')).not.toContain(token!);
    expect(h.logs.join('\n')).toContain('agent token made');
    // Made on record: its name, owner and expiry, never the token.
    const [made] = await h.store.audit.latest(1);
    expect(made).toMatchObject({ action: 'agent_token', userId: 'UOPER', target: 'agent:laptop', outcome: 'done', params: { name: 'laptop', owner: 'UOPER' } });
    expect(JSON.stringify(await h.store.audit.latest(50))).not.toContain(token!);

    const list = visibleText(await answerTo(h, 'agent tokens', { user: 'UOPER' }));
    expect(list).toContain('`laptop`');
    expect(list).not.toContain(token!);
    expect(visibleText(await answerTo(h, 'agent tokens', { user: 'UOTHER' }))).toContain('You have no live agent tokens');
    await answerTo(h, 'agent revoke laptop', { user: 'UOPER' });
    expect((await h.store.audit.latest(1))[0]).toMatchObject({ action: 'agent_revoke', userId: 'UOPER', target: 'agent:laptop', outcome: 'done' });
  });

  test('the same live name twice makes nothing; 8 hours unless told; more than VS_AGENT_TOKEN_MAX_HOURS is refused', async () => {
    const first = visibleText(await answerTo(h, 'agent token ci', { user: 'UOPER2' }));
    expect(first).toMatch(TOKEN);
    const [live] = await h.store.agentTokens.live('UOPER2', Date.now());
    expect(live!.expiresAtMs - Date.parse(live!.createdAt)).toBe(8 * 3_600_000);

    const again = visibleText(await answerTo(h, 'agent token ci', { user: 'UOPER2' }));
    expect(again).toContain('already have a live token');
    expect(again).not.toMatch(TOKEN);

    const tooLong = visibleText(await answerTo(h, 'agent token other 25', { user: 'UOPER2' }));
    expect(tooLong).toContain('from 1 to 24');
    expect(tooLong).not.toMatch(TOKEN);
    expect(visibleText(await answerTo(h, 'agent token bad/name', { user: 'UOPER2' }))).toContain('is not an agent name');
    expect(visibleText(await answerTo(h, 'agent token x soon', { user: 'UOPER2' }))).toContain('is not a number of hours');
    expect(await h.store.agentTokens.live('UOPER2', Date.now())).toHaveLength(1);
  });

  test('a viewer may not make one', async () => {
    const text = visibleText(await answerTo(h, 'agent token laptop', { user: 'UVIEWER' }));
    expect(text).toContain('needs the operator or admin role');
    expect(text).not.toMatch(TOKEN);
    expect(await h.store.agentTokens.live('UVIEWER', Date.now())).toEqual([]);
  });

  test("an owner ends their own; another operator cannot end it; an admin ends anyone's", async () => {
    const token = TOKEN.exec(visibleText(await answerTo(h, 'agent token laptop', { user: 'UOPER3' })))![0];
    await answerTo(h, 'agent token desk', { user: 'UOPER3' });

    expect(visibleText(await answerTo(h, 'agent revoke laptop', { user: 'UOTHER' }))).toContain('You have no live agent token named `laptop`');
    expect((await h.store.agentTokens.byHash(hashToken(token)))!.revokedAt).toBeNull();

    expect(visibleText(await answerTo(h, 'agent revoke laptop', { user: 'UOPER3' }))).toContain('Ended: agent `laptop`');
    const ended = await h.store.agentTokens.byHash(hashToken(token));
    expect(ended).toMatchObject({ revokedBy: 'UOPER3' });
    expect(visibleText(await answerTo(h, 'agent revoke laptop', { user: 'UOPER3' }))).toContain('nothing was ended');

    expect(visibleText(await answerTo(h, 'agent revoke desk', { user: 'UADMIN' }))).toMatch(/Ended: agent `desk` of <@UOPER3>/);
    expect(await h.store.agentTokens.live('UOPER3', Date.now())).toEqual([]);
  });

  test('with VS_MCP off (outside local mode, unless set) there is no endpoint: POST /mcp is 404', async () => {
    const res = await fetch(h.eventsUrl.replace(/\/slack\/events$/, '/mcp'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(404);
  });
});
