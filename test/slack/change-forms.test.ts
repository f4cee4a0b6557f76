import { openSqliteStore } from '../../src/store/sqlite';
import { useHarness, useHarnessBehindFaults, type Harness } from '../helpers/app-harness';
import { reply } from '../helpers/cloud-fault-server';
import { answerTo, CHANNEL, goodDisk as drivenDisk, openForm, postedIn, submit, type View } from '../helpers/drive';
import { globalShortcut, input, JSON_CONTENT_TYPE, type StateValue } from '../helpers/payloads';

const ROLES = { VS_ADMINS: 'UADMIN', VS_OPERATORS: 'UOPER,SONCALL', VS_VIEWERS: 'UVIEWER,UOPER2' };

// The add-disk form a user fills in, with a label that must come back escaped.
const goodDisk: Record<string, StateValue> = { ...drivenDisk, label: input.text('data <disk> & more') };

const diskPosts = (h: Harness) => h.sandbox.requests.filter((r) => r.method === 'POST' && r.path.includes('/disks'));
const restorePosts = (h: Harness) => h.sandbox.requests.filter((r) => r.method === 'POST' && r.path.includes('/restore'));
const settle = () => new Promise((r) => setTimeout(r, 150));

describe('changes from Slack', () => {
  const h = useHarness({
    env: { ...ROLES, VS_AUDIT_CHANNEL: 'CAUDIT' },
    beforeEach: (h) => {
      h.slack.setGroup('SONCALL', ['UGROUPIE']);
    },
  });

  test('forms stop what cannot work, on the field, saying why: a disk over VS_MAX_DISK_GB, fstab without mount point, restore without reason', async () => {
    const disk = await openForm(h, 'disk add 42', 'UOPER');
    const big = await submit(h, 'disk_add', 'UOPER', disk.private_metadata, { ...goodDisk, disk_size: input.number('65536') });
    expect(big).toEqual({ response_action: 'errors', errors: { disk_size: 'At most 2048 GB: the largest disk this bot adds (VS_MAX_DISK_GB)' } });
    const unmounted = await submit(h, 'disk_add', 'UOPER', disk.private_metadata, { ...goodDisk, mount_point: input.text(null) });
    expect(unmounted).toEqual({
      response_action: 'errors',
      errors: { mount_point: 'Give a mount point, e.g. /mnt/data: the disk is added to the Linux fstab' },
    });
    const restore = await openForm(h, 'backup restore 9', 'UADMIN');
    const unexplained = await submit(h, 'backup_restore', 'UADMIN', restore.private_metadata, { confirm: input.text('9'), reason: input.text('  ') });
    expect(unexplained).toEqual({ response_action: 'errors', errors: { reason: expect.stringMatching(/^Say why the disk is restored/) } });
    expect([...diskPosts(h), ...restorePosts(h)]).toEqual([]);
    expect((await h.store.audit.latest(3)).map((r) => r.outcome)).toEqual(['refused', 'refused', 'refused']);
  });

  test('a viewer asking to add a disk is denied with the role needed, audited, and nothing opens or is called', async () => {
    const res = await h.command('disk add 42', { user: 'UVIEWER', channel: CHANNEL });
    expect(res.status).toBe(200);
    const [post] = await h.slack.waitForResponses(1);
    const body = post!.body as { response_type: string; text: string };
    expect(body.response_type).toBe('ephemeral');
    expect(JSON.stringify(body)).toMatch(/operator/);
    await settle();
    expect(h.slack.callsTo('views.open')).toHaveLength(0);
    expect(h.sandbox.requests).toHaveLength(0);
    expect((await h.store.audit.latest(1))[0]).toMatchObject({ userId: 'UVIEWER', action: 'disk_add', target: 'vs:42', outcome: 'refused' });
  });

  test('an operator adds a disk: the API receives the body of docs/cloud-api.md and the channel gets the new disk', async () => {
    const view = await openForm(h, 'disk add 42', 'UOPER');
    expect(view.callback_id).toBe('disk_add');
    const actionIds = view.blocks.map((b) => b.element?.action_id).filter(Boolean);
    for (const id of Object.keys(goodDisk)) expect(actionIds).toContain(id);

    const ack = await submit(h, 'disk_add', 'UOPER', view.private_metadata, goodDisk);
    expect(ack.response_action).not.toBe('errors');
    const [post] = diskPosts(h);
    expect(post!.path).toBe('/virtual_machines/42/disks.json');
    expect(post!.body).toEqual({
      disk: {
        disk_type: 'SSD',
        disk_size: '20',
        label: 'data <disk> & more',
        mount_point: '/mnt/data',
        file_system: 'ext4',
        primary: '0',
        is_swap: 'false',
        hot_attach: '1',
        add_to_linux_fstab: 'true',
        add_to_freebsd_fstab: 'false',
        require_format_disk: '1',
      },
    });
    // For the whole channel (chat.postMessage), followed from there to its end (test/follow).
    const result = await postedIn(h, CHANNEL, 'Add disk · web-1 (VS 42)');
    const text = JSON.stringify(result);
    expect(text).toContain('Scheduled');
    expect(text).toMatch(/20 ?GB/);
    expect(text).toMatch(/SSD/);
    expect(text).toContain('data &lt;disk&gt; &amp; more');
    const record = (await h.store.audit.latest(1))[0]!;
    expect(record).toMatchObject({ userId: 'UOPER', channelId: CHANNEL, action: 'disk_add', target: 'vs:42', outcome: 'scheduled', apiStatus: 201 });
    expect(record.params).toMatchObject({ disk_type: 'SSD', disk_size: 20 });
    // …and the audit channel hears of it.
    await postedIn(h, 'CAUDIT', 'Add disk · web-1 (VS 42) by <@UOPER>: scheduled');
  });

  test('invalid input comes back inline on the fields and calls nothing', async () => {
    const view = await openForm(h, 'disk add 42', 'UOPER');
    const ack = await submit(h, 'disk_add', 'UOPER', view.private_metadata, {
      ...goodDisk,
      disk_size: input.number('0'),
      require_format_disk: input.check(false),
      mount_point: input.text('/' + 'x'.repeat(300)),
    });
    expect(ack.response_action).toBe('errors');
    expect(Object.keys(ack.errors!).sort()).toEqual(['disk_size', 'file_system', 'mount_point']);
    expect(diskPosts(h)).toHaveLength(0);
    expect((await h.store.audit.latest(1))[0]).toMatchObject({ outcome: 'refused', action: 'disk_add' });
  });

  test('the same submission delivered twice creates one disk', async () => {
    const view = await openForm(h, 'disk add 44', 'UOPER');
    const fields = { ...goodDisk, label: input.text('twice') };
    await Promise.all([
      submit(h, 'disk_add', 'UOPER', view.private_metadata, fields, 'VSAME'),
      submit(h, 'disk_add', 'UOPER', view.private_metadata, fields, 'VSAME'),
    ]);
    await settle();
    expect(diskPosts(h)).toHaveLength(1);
    await submit(h, 'disk_add', 'UOPER', view.private_metadata, fields, 'VSAME');
    await settle();
    expect(diskPosts(h)).toHaveLength(1);
  });

  test('a forged submission by a viewer is denied at submission and calls nothing', async () => {
    const view = await openForm(h, 'disk add 42', 'UOPER');
    const ack = await submit(h, 'disk_add', 'UVIEWER', view.private_metadata, goodDisk);
    expect(JSON.stringify(ack)).toMatch(/operator/);
    await settle();
    expect(diskPosts(h)).toHaveLength(0);
    expect((await h.store.audit.latest(1))[0]).toMatchObject({ userId: 'UVIEWER', outcome: 'refused' });
  });

  test('an admin restores a backup after typing its id again; the reason is audited', async () => {
    const view = await openForm(h, 'backup restore 9', 'UADMIN');
    expect(view.callback_id).toBe('backup_restore');
    expect(JSON.stringify(view)).toMatch(/overwrit/i);
    const ack = await submit(h, 'backup_restore', 'UADMIN', view.private_metadata, {
      confirm: input.text('9'),
      reason: input.text('corrupt table after deploy'),
    });
    expect(ack.response_action).not.toBe('errors');
    expect(restorePosts(h).map((r) => r.path)).toEqual(['/backups/9/restore.json']);
    const result = await postedIn(h, CHANNEL, 'Restore backup · Backup 9');
    // Scheduled: what was asked, never words that read as done.
    expect(JSON.stringify(result)).toMatch(/Restore of backup 9\* onto VS 42/);
    expect(JSON.stringify(result)).not.toMatch(/restored onto/);
    expect((await h.store.audit.latest(1))[0]).toMatchObject({
      action: 'backup_restore',
      target: 'backup:9',
      outcome: 'scheduled',
      params: { reason: 'corrupt table after deploy' },
    });
  });

  test('a restore whose confirmation does not match is an inline error and calls nothing', async () => {
    const view = await openForm(h, 'backup restore 9', 'UADMIN');
    const ack = await submit(h, 'backup_restore', 'UADMIN', view.private_metadata, { confirm: input.text('10'), reason: input.text('corrupt') });
    expect(ack.response_action).toBe('errors');
    expect(Object.keys(ack.errors!)).toEqual(['confirm']);
    expect(restorePosts(h)).toHaveLength(0);
  });

  test('an operator cannot restore, neither by command nor by a forged submission', async () => {
    await h.command('backup restore 9', { user: 'UOPER', channel: CHANNEL });
    const [post] = await h.slack.waitForResponses(1);
    expect(JSON.stringify(post!.body)).toMatch(/admin/);
    const ack = await submit(h, 'backup_restore', 'UOPER', JSON.stringify({ channelId: CHANNEL, backupId: 9 }), {
      confirm: input.text('9'),
      reason: input.text('corrupt'),
    });
    expect(JSON.stringify(ack)).toMatch(/admin/);
    await settle();
    expect(restorePosts(h)).toHaveLength(0);
  });

  test('membership of a user group listed in VS_OPERATORS grants the operator role', async () => {
    const view = await openForm(h, 'disk add 42', 'UGROUPIE');
    expect(view.callback_id).toBe('disk_add');
    // Someone outside the group gets no such role.
    await h.command('disk add 42', { user: 'UOUTSIDER', channel: CHANNEL });
    const [denied] = await h.slack.waitForResponses(1);
    expect(JSON.stringify(denied!.body)).toMatch(/operator/);
    expect(h.slack.callsTo('views.open')).toHaveLength(1);
  });

  test('a restore of a backup that cannot be used is refused with why, before and at submission; the API is never asked', async () => {
    const refused = await answerTo(h, 'backup restore 12', { user: 'UADMIN' });
    expect(refused.text).toContain('Backup 12 cannot be restored: it is marked for deletion.');
    expect(h.slack.callsTo('views.open')).toEqual([]);
    // A form opened before it was marked is read again when submitted.
    const metadata = JSON.stringify({ channelId: CHANNEL, backupId: 12 });
    const ack = await submit(h, 'backup_restore', 'UADMIN', metadata, { confirm: input.text('12'), reason: input.text('corrupt data') });
    expect(JSON.stringify(ack)).toContain('Backup 12 cannot be restored: it is marked for deletion.');
    expect((await h.store.audit.latest(1))[0]).toMatchObject({ outcome: 'refused', detail: 'not sent: Backup 12 cannot be restored (marked for delete)' });
    expect(h.sandbox.requests.filter((r) => r.method === 'POST')).toEqual([]);
  });

  test('/vs audit shows the latest records to admins only', async () => {
    await h.command('audit 5', { user: 'UADMIN', channel: CHANNEL });
    const [shown] = await h.slack.waitForResponses(1);
    expect((shown!.body as { response_type: string }).response_type).toBe('ephemeral');
    const latest = (await h.store.audit.latest(1))[0]!;
    expect(JSON.stringify(shown!.body)).toContain(`"value":"${latest.id}"`);
    await h.command('audit', { user: 'UOPER', channel: CHANNEL });
    const [, denied] = await h.slack.waitForResponses(2);
    expect(JSON.stringify(denied!.body)).toMatch(/admin/);
  });

  test('the global shortcut opens the form with server and channel inputs, and the result reaches that channel', async () => {
    const res = await h.interact(globalShortcut({ user: 'UOPER', callbackId: 'disk_add_shortcut' }));
    expect(res.status).toBe(200);
    const [open] = await h.slack.waitForCalls('views.open', 1);
    const view = open!.args.view as View;
    const ids = view.blocks.map((b) => b.element?.action_id);
    expect(ids).toContain('vs_id');
    expect(ids).toContain('channel');
    const ack = await submit(h, 'disk_add', 'UOPER', view.private_metadata, { ...goodDisk, vs_id: input.text('46'), channel: input.channel('CSHORT') });
    expect(ack.response_action).not.toBe('errors');
    expect(diskPosts(h).map((r) => r.path)).toEqual(['/virtual_machines/46/disks.json']);
    const posts = await h.slack.waitForCalls('chat.postMessage', 2);
    expect(posts.map((p) => p.args.channel)).toContain('CSHORT');
  });

  test('a change sent to the cloud API whose outcome cannot be recorded is told as such, not as a crash', async () => {
    const view = await openForm(h, 'disk add 42', 'UOPER');
    const complete = h.store.audit.complete.bind(h.store.audit);
    h.store.audit.complete = () => Promise.reject(new Error('disk I/O error'));
    try {
      const ack = await submit(h, 'disk_add', 'UOPER', view.private_metadata, goodDisk);
      expect(diskPosts(h)).toHaveLength(1);
      expect(ack.response_action).toBe('update');
      const said = JSON.stringify(ack.view);
      expect(said).toContain(
        ':question: *Unknown*: the change was sent to the cloud API, but its outcome could not be recorded, so it may or may not have been applied.',
      );
      expect(said).toContain('Check web-1 (VS 42)');
      expect(said).not.toContain('Something went wrong');
      expect(h.logs.some((l) => l.includes('"code":"CHANGE_OUTCOME_NOT_RECORDED"'))).toBe(true);
      expect((await h.store.audit.latest(1))[0]).toMatchObject({ action: 'disk_add', outcome: 'started' });
    } finally {
      h.store.audit.complete = complete;
    }
  });

  test('audit records survive reopening the store', async () => {
    const view = await openForm(h, 'disk add 42', 'UOPER');
    await submit(h, 'disk_add', 'UOPER', view.private_metadata, goodDisk);
    const reopened = openSqliteStore(h.dbPath);
    try {
      expect((await reopened.audit.latest(1))[0]).toMatchObject({ action: 'disk_add', outcome: 'scheduled', userId: 'UOPER' });
    } finally {
      await reopened.close();
    }
  });
});

describe('channel restriction and a 422 from the API', () => {
  let answer = { errors: { disk_size: ['exceeds the free space of the data store'], base: ['quota reached for this account'] } } as unknown;
  const { h, fault } = useHarnessBehindFaults({
    env: { VS_OPERATORS: 'UOPER', VS_MUTATION_CHANNELS: CHANNEL },
    beforeEach: () => fault.handle((_req, res) => reply(res, 422, JSON.stringify(answer), { 'content-type': JSON_CONTENT_TYPE })),
  });

  test('changes outside VS_MUTATION_CHANNELS are denied', async () => {
    await h.command('disk add 42', { user: 'UOPER', channel: 'COTHER' });
    const [post] = await h.slack.waitForResponses(1);
    expect(JSON.stringify(post!.body)).toContain(CHANNEL);
    expect((await h.store.audit.latest(1))[0]).toMatchObject({ outcome: 'refused', channelId: 'COTHER' });
  });

  test('a 422 keeps the modal open with the API messages on the matching field and the rest on the form', async () => {
    answer = { errors: { disk_size: ['exceeds the free space of the data store'], base: ['quota reached for this account'] } };
    const view = await openForm(h, 'disk add 42', 'UOPER');
    const ack = await submit(h, 'disk_add', 'UOPER', view.private_metadata, goodDisk);
    expect(ack.response_action).toBe('errors');
    expect(ack.errors!.disk_size).toMatch(/free space/);
    expect(Object.values(ack.errors!).join(' ')).toMatch(/quota reached/);
    expect((await h.store.audit.latest(1))[0]).toMatchObject({ outcome: 'failed', apiStatus: 422 });
  });

  test.each([
    ['a 422 message naming another field (label) lands on that field, not on the size', { errors: { label: ['has already been taken'] } }],
    ['the bare field hash of older OnApp versions (no errors wrapper) lands on the field it names', { label: ['has already been taken'] }],
  ])('%s', async (_name, refusal) => {
    answer = refusal;
    const view = await openForm(h, 'disk add 42', 'UOPER');
    const ack = await submit(h, 'disk_add', 'UOPER', view.private_metadata, goodDisk);
    expect(ack.response_action).toBe('errors');
    expect(ack.errors).toEqual({ label: 'has already been taken' });
  });

  test('a 422 message that names no field is said about the whole form, not put on the size field', async () => {
    answer = { errors: { base: ['quota reached for this account'] } };
    const view = await openForm(h, 'disk add 42', 'UOPER');
    const ack = await submit(h, 'disk_add', 'UOPER', view.private_metadata, goodDisk);
    expect(ack.response_action).toBe('errors');
    expect(ack.errors!.disk_size).toBeUndefined();
    expect(Object.values(ack.errors!)).toEqual(['The cloud API refused the request: quota reached for this account']);
    // The form stays open with what the user typed: an errors answer changes nothing else in the view.
    expect(ack.view).toBeUndefined();
  });
});

describe('VS_MAX_DISK_GB set lower', () => {
  const h = useHarness({ env: { ...ROLES, VS_MAX_DISK_GB: '100' } });

  test('caps the add-disk form there: 101 GB is refused on its field naming the setting, 100 GB is added', async () => {
    const view = await openForm(h, 'disk add 42', 'UOPER');
    const over = await submit(h, 'disk_add', 'UOPER', view.private_metadata, { ...goodDisk, disk_size: input.number('101') });
    expect(over).toEqual({ response_action: 'errors', errors: { disk_size: 'At most 100 GB: the largest disk this bot adds (VS_MAX_DISK_GB)' } });
    expect(diskPosts(h)).toEqual([]);
    const at = await submit(h, 'disk_add', 'UOPER', view.private_metadata, { ...goodDisk, disk_size: input.number('100') });
    expect(at.response_action).not.toBe('errors');
    expect(diskPosts(h).map((p) => (p.body as { disk: { disk_size: string } }).disk.disk_size)).toEqual(['100']);
  });
});
