import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { hashToken, TOKEN_PREFIX } from '../../src/agents/tokens';
import { startHarness, type Harness } from '../helpers/app-harness';
import { answerTo, CHANNEL, visibleText } from '../helpers/drive';
import { answerToClick, clickOn, deny, recordsOf, shownRequest } from '../helpers/requests';
import { waitFor } from '../helpers/wait';
import { agentToken, callTool, connectAgent, mcpUrl, postedRequest } from '../helpers/agents';

// Agents ask, people decide (docs/product.md): the change tools over MCP with the SDK's own client, against the real
// app. A tool never acts: its request is posted in VS_AGENT_CHANNEL, decided by signed Slack clicks, and followed by
// change_status to its end; the owner may approve their agent's request unless VS_APPROVALS lists the action; an
// identical request denied recently is refused with that denial; the freeze and the owner's role apply.

const ENV = {
  VS_ADMINS: 'UADMIN,UADMIN2',
  VS_OPERATORS: 'UOPER,UOPER2',
  VS_VIEWERS: 'UVIEWER',
  VS_APPROVALS: 'backup_restore',
  VS_MCP: 'on',
  VS_AGENT_CHANNEL: CHANNEL,
  VS_FOLLOW_INTERVAL_S: '5',
};
const T0 = Date.parse('2026-03-14T09:00:00Z');
const clocks = { bot: T0, cloud: T0 };

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ env: ENV, now: () => clocks.bot, sandboxNow: () => clocks.cloud });
});
afterAll(async () => {
  await h?.close();
});

const tokenFor = (user: string, name: string) => agentToken(h, user, name);

const connect = (token: string) => connectAgent(mcpUrl(h), token);

const call = callTool;

const posted = (id: string) => postedRequest(h, id);

async function followToEnd(client: Client, id: string): Promise<string> {
  let status = '';
  for (let i = 0; i < 6; i++) {
    status = String((await call(client, 'change_status', { change_id: id })).data.status);
    if (status === 'done' || status === 'failed') break;
    clocks.bot += 5000;
    clocks.cloud += 5000;
    await h.bot.follower.round();
  }
  return status;
}

describe('agent change tools', () => {
  test('tools/list: one request tool per agent tool of the change table, with its fields, a reason, and destructive where it overwrites or cuts', async () => {
    const client = await connect(await tokenFor('UOPER', 'lister'));
    try {
      const { tools } = await client.listTools();
      const requests = tools.filter((t) => t.name.startsWith('request_'));
      expect(requests.map((t) => t.name).sort()).toEqual([
        'request_backup_restore',
        'request_backup_take',
        'request_disk_add',
        'request_firewall_add',
        'request_firewall_remove',
        'request_power',
      ]);
      const byName = new Map(requests.map((t) => [t.name, t]));
      for (const tool of requests) {
        expect(tool.inputSchema.required).toContain('reason');
        expect(tool.annotations).toMatchObject({ readOnlyHint: false });
      }
      const destructive = requests.filter((t) => t.annotations?.destructiveHint === true).map((t) => t.name);
      expect(destructive.sort()).toEqual(['request_backup_restore', 'request_firewall_add', 'request_firewall_remove', 'request_power']);
      expect(byName.get('request_power')!.inputSchema.required?.sort()).toEqual(['power_action', 'reason', 'server']);
      expect(JSON.stringify(byName.get('request_power')!.inputSchema.properties?.power_action)).toContain('reboot_recovery');
      expect(byName.get('request_backup_restore')!.inputSchema.required?.sort()).toEqual(['backup_id', 'reason']);
      expect(byName.get('request_disk_add')!.inputSchema.required?.sort()).toEqual(['disk_size', 'disk_type', 'reason', 'server']);
      expect(byName.get('request_backup_take')!.inputSchema.required?.sort()).toEqual(['disk_id', 'reason', 'server']);
    } finally {
      await client.close();
    }
  });

  test("a request waits for a person: posted as the agent's, approved by its owner with a signed click, followed to done", async () => {
    const token = await tokenFor('UOPER', 'laptop');
    const client = await connect(token);
    try {
      const disks = (await call(client, 'list_disks', { server: 'web-1' })).data.list_disks as { id: number; built?: boolean }[];
      const disk = disks.find((d) => d.built === true)!;
      const asked = await call(client, 'request_backup_take', { server: 'web-1', disk_id: disk.id, reason: 'before the upgrade' });
      expect(asked.isError).toBeFalsy();
      expect(asked.data).toMatchObject({ status: 'requested', change_id: expect.any(String), expires_at: expect.any(String) });
      expect(String(asked.data.message_link)).toMatch(/^https?:\/\//);
      const id = String(asked.data.change_id);
      // Nothing was sent: the request waits.
      expect(h.sandbox.requests.filter((r) => r.method === 'POST')).toEqual([]);
      expect((await call(client, 'change_status', { change_id: id })).data.status).toBe('requested');

      const p = await posted(id);
      const message = h.slack.messagesIn(CHANNEL).find((m) => m.ts === p.ts)!;
      expect(visibleText(message.blocks)).toContain('agent `laptop` for <@UOPER>');
      expect(visibleText(message.blocks)).toContain('<@UOPER> (who may withdraw it) or another');
      expect(shownRequest(message)).toContain(`POST /virtual_machines/42/disks/${disk.id}/backups`);

      // The owner may approve their agent's request (backup_take is not in VS_APPROVALS).
      await clickOn(h, 'UOPER', 'approval_approve', p);
      await waitFor('the backup asked for', () => h.sandbox.requests.find((r) => r.method === 'POST' && r.path.includes('/backups')));
      expect(await followToEnd(client, id)).toBe('done');

      const records = await recordsOf(h, id);
      expect(records.map((r) => r.outcome)).toEqual(['requested', 'done']);
      expect(records.every((r) => r.agent === 'laptop' && r.requestedBy === 'UOPER')).toBe(true);
      // `/vs audit` names the agent and whom it acts for.
      expect(visibleText(await answerTo(h, 'audit vs 42', { user: 'UADMIN' }))).toContain('agent `laptop` for <@UOPER>');
      // The token is nowhere but in the one answer that showed it.
      const everywhere = JSON.stringify([h.logs, await h.store.audit.latest(100), h.slack.messagesIn(CHANNEL)]);
      expect(everywhere).not.toContain(token);
    } finally {
      await client.close();
    }
  });

  test('a restore is in VS_APPROVALS: its owner may not approve it, a second person does', async () => {
    const client = await connect(await tokenFor('UADMIN', 'fixer'));
    try {
      const backups = (await call(client, 'list_backups', { server: 42 })).data.list_backups as { id: number; built?: boolean; locked?: boolean }[];
      const backup = backups.find((b) => b.built === true && b.locked !== true)!;
      const asked = await call(client, 'request_backup_restore', { backup_id: backup.id, reason: 'the data is corrupt' });
      expect(asked.data).toMatchObject({ status: 'requested' });
      const id = String(asked.data.change_id);
      const p = await posted(id);
      expect(visibleText(h.slack.messagesIn(CHANNEL).find((m) => m.ts === p.ts)!.blocks)).toContain('needs a second person');

      const own = await answerToClick(h, 'UADMIN', 'approval_approve', p);
      expect(own).toMatch(/second person|your own|asked for it/i);
      expect((await call(client, 'change_status', { change_id: id })).data.status).toBe('requested');

      await clickOn(h, 'UADMIN2', 'approval_approve', p);
      await waitFor('the restore sent', () => h.sandbox.requests.find((r) => r.method === 'POST' && r.path.includes('/restore')));
      const status = await call(client, 'change_status', { change_id: id });
      expect(['scheduled', 'running', 'done']).toContain(status.data.status);
      expect(status.data.decided_by).toBe('UADMIN2');
    } finally {
      await client.close();
    }
  });

  test("a denied request asked again is refused with the denial's reason and who denied it; another reason is a new request", async () => {
    const client = await connect(await tokenFor('UOPER2', 'retrier'));
    try {
      const args = { server: 'edge-lb-1', power_action: 'reboot', reason: 'it is slow' };
      const first = await call(client, 'request_power', args);
      expect(first.said).toContain('Requested');
      const id = String(first.data.change_id);
      await deny(h, 'UOPER', await posted(id), 'not during the sale');
      expect((await call(client, 'change_status', { change_id: id })).data).toMatchObject({ status: 'denied', decision_reason: 'not during the sale' });

      const open = (await h.store.approvals.open(clocks.bot)).length;
      const again = await call(client, 'request_power', args);
      expect(again.isError).toBe(true);
      expect(again.data).toMatchObject({ status: 'refused', why: 'denied_before', change_id: id, denied_by: 'UOPER', reason: 'not during the sale' });
      expect(again.said).toContain('not during the sale');
      // Nobody is asked again.
      expect((await h.store.approvals.open(clocks.bot)).length).toBe(open);

      const other = await call(client, 'request_power', { ...args, reason: 'it stopped answering' });
      expect(other.data.status).toBe('requested');
    } finally {
      await client.close();
    }
  });

  test("the freeze refuses a request; a viewer's agent cannot request; nobody is asked", async () => {
    const client = await connect(await tokenFor('UOPER', 'frozen'));
    const open = (await h.store.approvals.open(clocks.bot)).length;
    try {
      await answerTo(h, 'freeze deploy in progress', { user: 'UADMIN' });
      const frozen = await call(client, 'request_power', { server: 42, power_action: 'reboot', reason: 'stuck' });
      expect(frozen.isError).toBe(true);
      expect(frozen.data).toMatchObject({ status: 'refused', why: 'frozen' });
      expect(frozen.said).toMatch(/frozen/i);
      await answerTo(h, 'unfreeze', { user: 'UADMIN' });
    } finally {
      await client.close();
    }
    // Viewers make no tokens in Slack; one made for a viewer (or an operator since demoted) asks as a viewer.
    const token = `${TOKEN_PREFIX}${'v'.repeat(43)}`;
    await h.store.agentTokens.create(
      {
        hash: hashToken(token),
        name: 'peek',
        owner: 'UVIEWER',
        createdAt: new Date(clocks.bot).toISOString(),
        expiresAtMs: clocks.bot + 3_600_000,
        revokedBy: null,
        revokedAt: null,
      },
      clocks.bot,
    );
    const viewer = await connect(token);
    try {
      const refused = await call(viewer, 'request_backup_take', { server: 42, disk_id: 1, reason: 'just in case' });
      expect(refused.isError).toBe(true);
      expect(refused.data).toMatchObject({ status: 'refused', why: 'role' });
      const [record] = await h.store.audit.latest(1);
      expect(record).toMatchObject({ outcome: 'refused', agent: 'peek', userId: 'UVIEWER' });
    } finally {
      await viewer.close();
    }
    expect((await h.store.approvals.open(clocks.bot)).length).toBe(open);
  });
});
