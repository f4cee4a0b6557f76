import { request } from 'undici';
import { useHarness, useHarnessBehindFaults, type Harness } from '../helpers/app-harness';
import { forward, reply } from '../helpers/cloud-fault-server';
import { answerTo, CHANNEL, openForm, submit, type View } from '../helpers/drive';
import { buttonClick, input, type StateValue } from '../helpers/payloads';
import { approvalIdIn, clickOn, messageOf, recordsOf, updatedTo, type PostedRequest } from '../helpers/requests';
import { waitFor } from '../helpers/wait';
import { slackTime } from '../../src/slack/blocks/mrkdwn';

// Restore with eyes open (docs/product.md) over the real Bolt app and the
// sandbox's backups (packages/cloud-sandbox/README.md): 9 incremental of VS
// 42 (disk 101), 15 normal of disk 101, 12 marked for deletion, 13 not built,
// 11 normal of VS 46's disk 109. The backup is read before any form opens,
// and again at submission; a server's restore form picks among its usable
// backups, newest first.

/** A day after the sandbox's newest backup was taken, so ages read the same on every run. */
const NOW = Date.parse('2026-03-14T12:12:00Z');
/** When backup 9 and 15 were taken, as Slack's date token: each reader sees it in their own time zone. */
const TAKEN_9 = slackTime(Date.parse('2026-03-13T12:12:00Z'));
const TAKEN_15 = slackTime(Date.parse('2026-03-09T12:12:00Z'));

type Block = { type: string; block_id?: string; text?: { text: string }; label?: { text: string }; element?: Record<string, unknown> };
const blocksOf = (view: View) => view.blocks as unknown as Block[];
const sections = (view: View) =>
  blocksOf(view)
    .filter((b) => b.type === 'section')
    .map((b) => b.text!.text);
const picker = (view: View) =>
  blocksOf(view).find((b) => b.block_id === 'backup_id')?.element as
    { type: string; options: { value: string; text: { text: string } }[]; initial_option?: { value: string } } | undefined;
const cloudPaths = (h: Harness) => h.sandbox.requests.map((r) => `${r.method} ${r.path}`);
const requestRecords = async (h: Harness) => (await h.store.audit.latest(50)).filter((r) => r.action === 'backup_restore');

describe('restoring a backup, the cloud API in JSON', () => {
  const h = useHarness({ env: { VS_ADMINS: 'UADMIN', VS_OPERATORS: 'UOPER' }, now: () => NOW });

  test('/vs backup restore reads the backup first, and the form names the disk and server it overwrites and what is lost', async () => {
    const view = await openForm(h, 'backup restore 9', 'UADMIN');
    expect(cloudPaths(h)).toEqual(['GET /backups/9.json']);
    const [warning, facts] = sections(view);
    expect(warning).toBe(
      `:warning: *Restoring backup 9 overwrites disk 101 of VS 42:* everything written to disk 101 since ${TAKEN_9}, 24 hours ago, is lost. ` +
        'This cannot be undone.',
    );
    expect(facts).toMatch(/^Backup 9 · 5 GB · incremental\n/);
    expect((view as unknown as { title: { text: string } }).title.text).toBe('Restore backup 9');
  });

  test('where the cloud’s answer does not say which server, the form says so', async () => {
    const view = await openForm(h, 'backup restore 15', 'UADMIN');
    expect(sections(view)[0]).toContain("overwrites disk 101 (the cloud's answer does not say of which server):");
    expect(sections(view)[1]).toMatch(/^Backup 15 · 4\.8 GB · normal/);
  });

  test.each([
    ['999', 'Backup 999 was not found'],
    ['12', 'Backup 12 cannot be restored: it is marked for deletion. Nothing was sent.'],
    ['13', 'Backup 13 cannot be restored: it is not built yet. Nothing was sent.'],
  ])('/vs backup restore %s is refused before any form opens, and nobody is asked anything', async (id, said) => {
    const m = await answerTo(h, `backup restore ${id}`, { user: 'UADMIN' });
    expect(m.response_type).toBe('ephemeral');
    expect(m.text).toContain(said);
    expect(h.slack.callsTo('views.open')).toEqual([]);
    expect(cloudPaths(h)).toEqual([`GET /backups/${id}.json`]);
    expect((await requestRecords(h)).filter((r) => r.target === `backup:${id}`)).toEqual([]);
  });

  test('/vs restore <vs_id> opens the form with a picker of the server’s usable backups, newest first', async () => {
    const view = await openForm(h, 'restore 42', 'UADMIN');
    expect(cloudPaths(h)).toEqual(['GET /virtual_machines/42/backups.json']);
    expect((view as unknown as { title: { text: string } }).title.text).toBe('Restore · VS 42');
    const menu = picker(view)!;
    expect(menu.type).toBe('static_select');
    // 12 is marked for deletion: not offered.
    expect(menu.options.map((o) => [o.value, o.text.text])).toEqual([
      ['9', '#9 · taken 24 hours ago · 5 GB · incremental · disk 101'],
      ['15', '#15 · taken 5 days ago · 4.8 GB · normal · disk 101'],
    ]);
    expect(menu.initial_option).toBeUndefined();
    expect(sections(view).join('\n')).toContain('everything written to that disk since the backup was taken is lost');
  });

  test('picked, confirmed and with a reason, the restore is sent for the backup picked; the backup is read again first', async () => {
    const view = await openForm(h, 'restore 42', 'UADMIN');
    const picked = { backup_id: input.select('15'), confirm: input.text('15'), reason: input.text('corrupt rows since the 14:00 deploy') };
    const ack = await submit(h, 'backup_restore', 'UADMIN', view.private_metadata, picked);
    expect(ack.response_action).not.toBe('errors');
    // The backup read again and, side by side, the newest transaction id the change is then followed from.
    const paths = cloudPaths(h);
    expect(paths[0]).toBe('GET /virtual_machines/42/backups.json');
    expect(paths.slice(1, -1).sort()).toEqual(['GET /backups/15.json', 'GET /transactions.json']);
    expect(paths.at(-1)).toBe('POST /backups/15/restore.json');
    const [record] = await requestRecords(h);
    expect(record).toMatchObject({ target: 'backup:15', outcome: 'scheduled', params: { backup_id: 15, reason: 'corrupt rows since the 14:00 deploy' } });
  });

  test('the reason is required, and the id typed must be the backup picked', async () => {
    const view = await openForm(h, 'restore 42', 'UADMIN');
    const ack = await submit(h, 'backup_restore', 'UADMIN', view.private_metadata, { backup_id: input.select('9'), confirm: input.text('15') });
    expect(ack.response_action).toBe('errors');
    expect(Object.keys(ack.errors!).sort()).toEqual(['confirm', 'reason']);
    expect(h.sandbox.requests.filter((r) => r.method === 'POST')).toEqual([]);
  });

  test('a server with no usable backup is told so, and no form opens', async () => {
    expect((await answerTo(h, 'restore 43', { user: 'UADMIN' })).text).toContain('VS 43 has no backups, so there is nothing to restore.');
    expect((await answerTo(h, 'restore 47', { user: 'UADMIN' })).text).toContain('VS 47 has no backups');
    expect((await answerTo(h, 'restore 999', { user: 'UADMIN' })).text).toContain('VS 999 was not found');
    expect(h.slack.callsTo('views.open')).toEqual([]);
  });

  test('only admins may restore: an operator is refused before anything is read, and the refusal is recorded', async () => {
    const m = await answerTo(h, 'restore 42', { user: 'UOPER' });
    expect(m.text).toMatch(/admin/);
    expect(h.sandbox.requests).toEqual([]);
    expect((await requestRecords(h))[0]).toMatchObject({ outcome: 'refused', target: 'vs:42', userId: 'UOPER' });
  });

  test('the Restore button of a backup in /vs backups opens its server’s form with that backup picked', async () => {
    await h.interact(buttonClick({ user: 'UADMIN', channel: CHANNEL, actionId: 'backups_restore_15', value: '42:15', responseUrl: h.slack.responseUrl() }));
    const opened = await waitFor('the restore form', () => h.slack.callsTo('views.open')[0], { within: 5000 });
    expect(picker(opened.args.view as View)!.initial_option?.value).toBe('15');
    // The same button pressed by someone who may not restore is refused.
    const responseUrl = h.slack.responseUrl();
    await h.interact(buttonClick({ user: 'UOPER', channel: CHANNEL, actionId: 'backups_restore_15', value: '42:15', responseUrl }));
    const id = responseUrl.slice(responseUrl.lastIndexOf('/') + 1);
    const refused = await waitFor('the refusal', () => h.slack.responses.find((r) => r.id === id), { within: 5000 });
    expect(JSON.stringify(refused.body)).toMatch(/admin/);
    expect(h.slack.callsTo('views.open')).toHaveLength(1);
  });
});

describe('restoring a backup, the cloud API in XML', () => {
  const h = useHarness({ env: { VS_API_FORMAT: 'xml', VS_ADMINS: 'UADMIN' }, now: () => NOW });

  test('the backup is read in XML and the form says the same', async () => {
    const view = await openForm(h, 'backup restore 11', 'UADMIN');
    expect(cloudPaths(h)).toEqual(['GET /backups/11.xml']);
    expect(sections(view)[0]).toContain('overwrites disk 109');
    expect(sections(view)[1]).toMatch(/^Backup 11 · 70 GB · normal/);
    const picked = await openForm(h, 'restore 46', 'UADMIN');
    expect(picker(picked)!.options.map((o) => o.value)).toEqual(['11']);
  });
});

describe('restoring with a second person (VS_APPROVALS=backup_restore)', () => {
  const { h, fault } = useHarnessBehindFaults({ env: { VS_ADMINS: 'UADMIN,UADMIN2', VS_APPROVALS: 'backup_restore' }, now: () => NOW });

  /** Ada asks for `backupId`'s restore through its form; the request as the channel shows it. */
  async function ask(backupId: number, command = `backup restore ${backupId}`, picked: Record<string, StateValue> = {}): Promise<PostedRequest> {
    const before = new Set(h.slack.messagesIn(CHANNEL).map((m) => m.ts));
    const view = await openForm(h, command, 'UADMIN');
    const ack = await submit(h, 'backup_restore', 'UADMIN', view.private_metadata, {
      ...picked,
      confirm: input.text(String(backupId)),
      reason: input.text('rows lost in the deploy'),
    });
    expect(JSON.stringify(ack)).toContain('Sent for approval');
    const posted = () => h.slack.messagesIn(CHANNEL).find((m) => !before.has(m.ts) && approvalIdIn(m.blocks) !== undefined);
    const message = await waitFor('the approval request', posted);
    return { id: approvalIdIn(message.blocks)!, channel: CHANNEL, ts: message.ts };
  }

  test('the request and Slack’s confirmation on Approve name the disk and server, when the backup was taken and how long ago, size and type', async () => {
    const asked = await ask(9);
    const said = `Restoring backup 9 overwrites disk 101 of VS 42: everything written to disk 101 since ${TAKEN_9}, 24 hours ago, is lost (5 GB, incremental).`;
    const message = messageOf(h, asked);
    expect(JSON.stringify(message.blocks)).toContain(JSON.stringify(said).slice(1, -1));
    const approve = (message.blocks as { elements?: { action_id?: string; confirm?: { text: { text: string } } }[] }[])
      .flatMap((b) => b.elements ?? [])
      .find((e) => e.action_id === 'approval_approve')!;
    // Slack's confirmation cuts its text at 300 characters, where a date token cut in half would show as markup: the age says when.
    expect(approve.confirm!.text.text).toContain(
      'Restoring backup 9 overwrites disk 101 of VS 42: everything written to disk 101 since it was taken, 24 hours ago, is lost (5 GB, incremental).',
    );
    // Approved, it is sent; the message says so, and still says what it overwrote.
    await clickOn(h, 'UADMIN2', 'approval_approve', asked);
    const done = await updatedTo(h, asked, /Approved/);
    expect(JSON.stringify(done.blocks)).toContain(JSON.stringify(said).slice(1, -1));
    expect(fault.requests.filter((r) => r.method === 'POST').map((r) => r.url)).toEqual(['/backups/9/restore.json']);
  });

  test('picked from a server’s backups, a normal backup’s request says the cloud does not say which server', async () => {
    const asked = await ask(15, 'restore 42', { backup_id: input.select('15') });
    expect(JSON.stringify(messageOf(h, asked).blocks)).toContain(
      JSON.stringify(
        `Restoring backup 15 overwrites disk 101 (the cloud's answer does not say of which server): everything written to disk 101 since ${TAKEN_15}`,
      ).slice(1, -1),
    );
  });

  test('a backup that became unusable before it is approved is read again then, refused with why, recorded; nothing is sent', async () => {
    const asked = await ask(9);
    // Marked for deletion by its auto-backup policy meanwhile.
    fault.handle(async (req, res) => {
      if (req.method === 'GET' && req.url.startsWith('/backups/9.json')) {
        const upstream = await request(`${h.sandbox.url}${req.url}`, { headers: { authorization: req.headers.authorization ?? '' } });
        const { backup } = (await upstream.body.json()) as { backup: Record<string, unknown> };
        return reply(res, 200, JSON.stringify({ backup: { ...backup, marked_for_delete: true } }));
      }
      return forward(h.sandbox.url, req, res);
    });
    await clickOn(h, 'UADMIN2', 'approval_approve', asked);
    await updatedTo(h, asked, /but \*refused\*: Backup 9 cannot be restored: it is marked for deletion\. Nothing was sent\./);
    expect(fault.requests.filter((r) => r.method === 'POST')).toEqual([]);
    const records = await recordsOf(h, asked.id);
    expect(records.at(-1)).toMatchObject({ outcome: 'refused', detail: 'not sent: Backup 9 cannot be restored (marked for delete)' });
  });
});
