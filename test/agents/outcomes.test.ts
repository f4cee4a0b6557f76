import { startHarness, type Harness } from '../helpers/app-harness';
import { CHANNEL } from '../helpers/drive';
import { answerToClick, clickOn, recordsOf, updatedTo } from '../helpers/requests';
import { agentToken, callTool, connectAgent, mcpUrl, postedRequest } from '../helpers/agents';

// Agents ask, people decide (docs/product.md): how an agent's request ends without a decision, and the calls a
// minute of a token, with the SDK's own client over HTTP against the real app. A request withdrawn by the one it was
// asked for, or left until VS_APPROVAL_TTL_MIN passes (the expiry sweep runs), is reported by change_status in the
// outcome vocabulary, and nothing reaches the cloud; a call past VS_AGENT_CALLS_PER_MINUTE is refused, saying why,
// before anything is asked.

const CALLS_PER_MINUTE = 6;
const ENV = {
  VS_ADMINS: 'UADMIN',
  VS_OPERATORS: 'UOPER,UOPER2',
  VS_MCP: 'on',
  VS_AGENT_CHANNEL: CHANNEL,
  VS_APPROVAL_TTL_MIN: '30',
  VS_SWEEP_INTERVAL_MS: '100',
  VS_AGENT_CALLS_PER_MINUTE: String(CALLS_PER_MINUTE),
};
/** The bot's clock: the real one plus what the tests add (the sweeps run on real timers, on this clock). */
let skew = 0;

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ env: ENV, now: () => Date.now() + skew });
});
afterAll(async () => {
  await h?.close();
});

const tokenFor = (user: string, name: string) => agentToken(h, user, name);

const connect = (token: string) => connectAgent(mcpUrl(h), token);

const call = callTool;

const posted = (id: string) => postedRequest(h, id);

const cloudPosts = () => h.sandbox.requests.filter((r) => r.method !== 'GET');

describe('an agent request that ends without a decision', () => {
  test('withdrawn by the person the agent acts for: change_status says withdrawn, by whom; nothing reaches the cloud', async () => {
    const client = await connect(await tokenFor('UOPER', 'withdrawer'));
    try {
      await client.listTools(); // the SDK checks change_status's answers against its output schema from here on
      const asked = await call(client, 'request_power', { server: 'web-1', power_action: 'reboot', reason: 'it hangs' });
      expect(asked.data).toMatchObject({ status: 'requested' });
      const id = String(asked.data.change_id);
      const p = await posted(id);

      // Only the one it was asked for may withdraw it (here, the agent's owner); anyone else is told so.
      expect(await answerToClick(h, 'UOPER2', 'approval_withdraw', p)).toMatch(/Only <@UOPER>/);
      await clickOn(h, 'UOPER', 'approval_withdraw', p);
      await updatedTo(h, p, /[Ww]ithdrawn/);

      const status = await call(client, 'change_status', { change_id: id });
      expect(status.isError).toBeFalsy();
      expect(status.data).toMatchObject({ change_id: id, status: 'withdrawn', decided_by: 'UOPER', agent: 'withdrawer', requested_by: 'UOPER' });
      expect(status.said).toContain(`${id}: withdrawn`);
      // The refused click is recorded as the clicker's; the request ends withdrawn.
      expect((await recordsOf(h, id)).map((r) => [r.outcome, r.decidedBy ?? r.userId])).toEqual([
        ['requested', 'UOPER'],
        ['refused', 'UOPER2'],
        ['withdrawn', 'UOPER'],
      ]);
      // An approval afterwards decides nothing.
      expect(await answerToClick(h, 'UADMIN', 'approval_approve', p)).toMatch(/withdrawn/i);
      expect(cloudPosts()).toEqual([]);
    } finally {
      await client.close();
    }
  });

  test('left past VS_APPROVAL_TTL_MIN: change_status says expired, the sweep records it, a late approval does nothing', async () => {
    const client = await connect(await tokenFor('UOPER', 'forgotten'));
    try {
      await client.listTools();
      const asked = await call(client, 'request_power', { server: 'web-1', power_action: 'reboot', reason: 'slow answers' });
      const id = String(asked.data.change_id);
      const p = await posted(id);
      expect(Date.parse(String(asked.data.expires_at)) - (Date.now() + skew)).toBeLessThanOrEqual(30 * 60_000);

      skew += 31 * 60_000;
      // Expired at once, swept or not: no click can decide it any more.
      expect((await call(client, 'change_status', { change_id: id })).data.status).toBe('expired');
      await updatedTo(h, p, /Expired\*: nobody decided/);
      const status = await call(client, 'change_status', { change_id: id });
      expect(status.data).toMatchObject({ change_id: id, status: 'expired', decided_by: null });
      expect(status.said).toContain(`${id}: expired`);
      expect((await recordsOf(h, id)).map((r) => r.outcome)).toEqual(['requested', 'expired']);
      expect(await answerToClick(h, 'UOPER', 'approval_approve', p)).toMatch(/expired/);
      expect(cloudPosts()).toEqual([]);
    } finally {
      await client.close();
    }
  });
});

describe('VS_AGENT_CALLS_PER_MINUTE', () => {
  test('the call past the limit, a request, is refused saying why; nothing is asked or posted; the next minute it is asked', async () => {
    skew += 60_000; // a minute of its own
    const token = await tokenFor('UOPER2', 'eager');
    const client = await connect(token); // 2 calls
    try {
      for (let i = 0; i < CALLS_PER_MINUTE - 2; i++) expect((await call(client, 'server_status', { server: 'web-1' })).isError).toBeFalsy();
      const messages = h.slack.messagesIn(CHANNEL).length;
      const approvals = (await h.store.approvals.open(Date.now() + skew)).length;

      const over = client.callTool({ name: 'request_power', arguments: { server: 'web-1', power_action: 'reboot', reason: 'again' } });
      await expect(over).rejects.toMatchObject({
        code: 429,
        message: expect.stringContaining(`its ${CALLS_PER_MINUTE} calls of this minute (VS_AGENT_CALLS_PER_MINUTE); nothing was asked or changed`),
      });
      expect(h.slack.messagesIn(CHANNEL).length).toBe(messages);
      expect((await h.store.approvals.open(Date.now() + skew)).length).toBe(approvals);
      expect(cloudPosts()).toEqual([]);
      expect(JSON.stringify(h.logs)).not.toContain(token);

      skew += 60_000;
      const asked = await call(client, 'request_power', { server: 'web-1', power_action: 'reboot', reason: 'again' });
      expect(asked.data).toMatchObject({ status: 'requested' });
    } finally {
      await client.close();
    }
  });
});
