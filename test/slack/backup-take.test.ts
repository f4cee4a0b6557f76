import type { ChannelMessage } from '@vs-chatops/slack-standin';
import { startHarness, useHarness, useHarnessBehindFaults, type Harness } from '../helpers/app-harness';
import { forward, reply } from '../helpers/cloud-fault-server';
import { answerTo, CHANNEL, openForm, postedIn, submit, visibleText, type View } from '../helpers/drive';
import { input } from '../helpers/payloads';
import { approvalIdIn } from '../helpers/requests';
import { waitFor } from '../helpers/wait';

// Taking a backup (docs/product.md, More of the control panel), over the real app: signed commands and submissions in,
// the sandbox on loopback as the cloud (VS 42: disk 101, its root, and 102, its swap, both built).

const USERS = { admin: 'UADMIN', operator: 'UOPER', viewer: 'UVIEWER' } as const;
const ROLES = { VS_ADMINS: USERS.admin, VS_OPERATORS: USERS.operator, VS_VIEWERS: USERS.viewer };
const TAKE_PATH = /^\/(virtual_machines\/\d+\/disks|settings\/disks)\/\d+\/backups\.json$/;

const takes = (h: Harness) => h.sandbox.requests.filter((r) => r.method === 'POST' && TAKE_PATH.test(r.path)).map((r) => [r.path, r.body]);
const diskOptions = (view: View) =>
  ((view.blocks.find((b) => b.block_id === 'disk_id')?.element ?? {}) as { options?: { value: string; text: { text: string } }[] }).options?.map((o) => [
    o.value,
    o.text.text,
  ]);
const filled = (o: { disk?: string; note?: string; reason?: string } = {}) => ({
  disk_id: input.select(o.disk ?? '101'),
  note: input.text(o.note ?? 'before the 14:00 deploy'),
  reason: input.text(o.reason ?? 'schema migration at 14:00'),
});

describe('/vs backup take', () => {
  const h = useHarness({ env: ROLES });

  test('opens the form once the server’s disks were read: a picker of its built disks', async () => {
    const view = await openForm(h, 'backup take 42', USERS.operator);
    expect(view.callback_id).toBe('backup_take');
    expect(h.sandbox.requests.map((r) => `${r.method} ${r.path}`).sort()).toEqual(['GET /virtual_machines/42.json', 'GET /virtual_machines/42/disks.json']);
    expect(diskOptions(view)).toEqual([
      ['101', '#101 · 20 GB · web-1 root · primary'],
      ['102', '#102 · 2 GB · web-1 swap · swap'],
    ]);
    expect(visibleText(view)).toContain('*VS 42*');
  });

  test('an operator takes one: the exact request is sent, the channel reads “scheduled”, the audit keeps the disk and the note', async () => {
    const view = await openForm(h, 'backup take 42', USERS.operator);
    const ack = await submit(h, 'backup_take', USERS.operator, view.private_metadata, filled());
    expect(ack.response_action).toBe('update');
    expect(takes(h)).toEqual([['/virtual_machines/42/disks/101/backups.json', { backup: { note: 'before the 14:00 deploy' } }]]);
    const result = await postedIn(h, CHANNEL, 'Take backup · web-1 (VS 42)');
    expect(visibleText(result.blocks)).toMatch(/\*Backup \d+\* of disk 101 on VS 42/);
    expect(visibleText(result.blocks)).toContain('*Scheduled*');
    expect((await h.store.audit.latest(1))[0]).toMatchObject({
      userId: USERS.operator,
      action: 'backup_take',
      target: 'vs:42',
      outcome: 'scheduled',
      apiStatus: 201,
      params: { disk_id: 101, note: 'before the 14:00 deploy', reason: 'schema migration at 14:00' },
    });
    expect((await h.store.audit.latest(1))[0]!.detail).toMatch(/^backup \d+ of disk 101 on VS 42$/);
  });

  test('the reason is required: inline on the field, nothing sent', async () => {
    const view = await openForm(h, 'backup take 42', USERS.operator);
    const ack = await submit(h, 'backup_take', USERS.operator, view.private_metadata, filled({ reason: '' }));
    expect(ack).toMatchObject({ response_action: 'errors', errors: { reason: expect.stringContaining('Say why') } });
    expect(takes(h)).toEqual([]);
  });

  test('a disk gone since the form opened: the 404 names the disk, not the server, on both paths; recorded failed', async () => {
    const view = await openForm(h, 'backup take 42', USERS.operator);
    const ack = await submit(h, 'backup_take', USERS.operator, view.private_metadata, filled({ disk: '999' }));
    expect(takes(h).map(([path]) => path)).toEqual(['/virtual_machines/42/disks/999/backups.json', '/settings/disks/999/backups.json']);
    expect(visibleText(ack)).toContain('*Failed*: Disk 999 was not found');
    expect(visibleText(ack)).not.toContain('VS 42 was not found');
    expect((await h.store.audit.latest(1))[0]).toMatchObject({ action: 'backup_take', target: 'vs:42', outcome: 'failed', apiStatus: 404 });
  });

  test('a viewer is denied by role, recorded, and the disks are not even read', async () => {
    const answer = await answerTo(h, 'backup take 42', { user: USERS.viewer });
    expect(visibleText(answer)).toContain('Taking a backup needs the operator role; you are a viewer.');
    expect(h.sandbox.requests).toEqual([]);
    expect((await h.store.audit.latest(1))[0]).toMatchObject({ userId: USERS.viewer, action: 'backup_take', target: 'vs:42', outcome: 'refused' });
  });

  test('a server the cloud does not know is said so, and no form opens', async () => {
    const answer = await answerTo(h, 'backup take 999', { user: USERS.operator });
    expect(visibleText(answer)).toContain('VS 999 was not found');
    expect(h.slack.callsTo('views.open')).toEqual([]);
  });
});

describe('/vs backup take, when VS_APPROVALS names it', () => {
  const h = useHarness({ env: { ...ROLES, VS_APPROVALS: 'backup_take' } });

  test('is asked for in the channel, and nothing is sent until someone approves', async () => {
    const view = await openForm(h, 'backup take 42', USERS.operator);
    await submit(h, 'backup_take', USERS.operator, view.private_metadata, filled());
    const request = await waitFor('the approval request', () =>
      h.slack.messagesIn(CHANNEL).find((m) => approvalIdIn(m.blocks) && visibleText(m.blocks).includes('VS 42')),
    );
    expect(visibleText(request.blocks)).toContain('Take backup');
    expect(takes(h)).toEqual([]);
  });
});

describe('/vs backup take on an older cloud', () => {
  const { h, fault } = useHarnessBehindFaults({ env: ROLES });

  test('a 404 under the server is asked again under /settings, once', async () => {
    fault.handle(async (req, res) => {
      if (req.method === 'POST' && /^\/virtual_machines\/\d+\/disks\/\d+\/backups\.json/.test(req.url)) {
        return reply(res, 404, JSON.stringify({ errors: ['No route matches'] }));
      }
      return forward(h.sandbox.url, req, res);
    });
    const view = await openForm(h, 'backup take 42', USERS.operator);
    const ack = await submit(h, 'backup_take', USERS.operator, view.private_metadata, filled());
    expect(ack.response_action).toBe('update');
    expect(fault.requests.filter((r) => r.method === 'POST').map((r) => r.url)).toEqual([
      '/virtual_machines/42/disks/101/backups.json',
      '/settings/disks/101/backups.json',
    ]);
    expect((await h.store.audit.latest(1))[0]).toMatchObject({ action: 'backup_take', outcome: 'scheduled', apiStatus: 201 });
  });
});

describe('a backup taken, followed to its end', () => {
  const T0 = Date.parse('2026-03-14T09:00:00Z');
  const clocks = { bot: T0, cloud: T0 };
  let h: Harness;
  afterEach(async () => {
    await h?.close();
  });

  test('done once the new backup is built: the result says its size', async () => {
    h = await startHarness({ env: { ...ROLES, VS_FOLLOW_INTERVAL_S: '5' }, now: () => clocks.bot, sandboxNow: () => clocks.cloud });
    const view = await openForm(h, 'backup take 42', USERS.operator);
    await submit(h, 'backup_take', USERS.operator, view.private_metadata, filled());
    const message = await postedIn(h, CHANNEL, 'Take backup · web-1 (VS 42)');
    const [record] = await h.store.audit.latest(1);
    await waitFor('the message remembered', async () => (await h.store.follows.get(record!.id))?.messageTs === message.ts, { within: 5000 });
    const current = (): ChannelMessage => h.slack.messagesIn(CHANNEL).find((m) => m.ts === message.ts)!;
    for (let i = 0; i < 4 && !/\*Done\*/.test(visibleText(current().blocks)); i++) {
      clocks.bot += 5000;
      clocks.cloud += 5000;
      await h.bot.follower.round();
    }
    // 20 GB disk, a quarter of it used (the sandbox's rule): 5 GB.
    expect(visibleText(current().blocks)).toMatch(/:white_check_mark: \*Done\* · backup \d+ is built: 5(\.0)? GB/);
    expect((await h.store.audit.latest(1))[0]).toMatchObject({ action: 'backup_take', outcome: 'done' });
  });
});
