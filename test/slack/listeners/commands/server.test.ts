import { useHarness, useHarnessBehindFaults, type Harness } from '../../../helpers/app-harness';
import { forward, reply } from '../../../helpers/cloud-fault-server';
import { answerTo, CHANNEL, STACK_TRACE, visibleText, type Message } from '../../../helpers/drive';
import { buttonClick } from '../../../helpers/payloads';
import { waitFor } from '../../../helpers/wait';

// `/vs server` (alias `/vs status`), `/vs disks` and `/vs backups` over the
// real Bolt app, on the sandbox's seeded servers (packages/cloud-sandbox/README.md):
// 42 on with backups of each kind, 43 off, 47 locked by a backup that never
// ends, 46 with a backup not built. In JSON behind a fault server (parts that
// fail, everything failing, fifty people asking at once) and in XML.

/** The sandbox's backups were taken in March 2026: the bot's clock is set a day after the newest, so ages read the same on every run. */
const NOW = Date.parse('2026-03-14T12:12:00Z');

const cloudPaths = (h: Harness) => h.sandbox.requests.map((r) => `${r.method} ${r.path}`).sort();
const sections = (m: Message) => (m.blocks as { type: string; text?: { text: string } }[]).filter((b) => b.type === 'section').map((b) => b.text!.text);
const buttonsOf = (m: Message) =>
  (m.blocks as { type: string; elements?: { action_id: string; value: string; text: { text: string } }[] }[])
    .filter((b) => b.type === 'actions')
    .flatMap((b) => b.elements ?? [])
    .map((e) => `${e.text.text}: ${e.value}`);

/** The card of the sandbox's VS 42, read in either format. */
function expectCardOf42(m: Message): void {
  const [identity, facts, disks, backups, transactions] = sections(m);
  expect(identity).toBe('*web-1* · `web-1.prod.example.com`\n:large_green_circle: *on* · :unlock: not locked');
  expect(facts).toContain('*Memory* 4 GB · *CPUs* 2 · *Disk* 22 GB');
  expect(facts).toContain('*Template* Ubuntu 22.04 x64 (linux, ubuntu) · *Hypervisor* 3');
  expect(facts).toContain('*IP addresses* `203.0.113.42`, `10.20.0.42`');
  expect(facts).toContain('*Autoscaling* on');
  expect(disks).toBe('*Disks*\n`#101` 20 GB SSD · web-1 root · primary · mounted at `/` · built\n`#102` 2 GB SSD · web-1 swap · swap · built');
  expect(backups).toMatch(/^\*Latest backups\*\n• <!date[^>]+> \(24 hours ago\) · 5 GB · incremental · disk 101 · :white_check_mark: usable\n/);
  expect(backups).toMatch(/marked for deletion$/);
  expect(transactions).toMatch(/^\*Latest transactions\*\n• <!date[^>]+> · rebooting the server · :white_circle: cancelled\n/);
}

describe('the server at a glance, the cloud API in JSON behind a fault server', () => {
  const { h, fault } = useHarnessBehindFaults({ env: { VS_OPERATORS: 'UOPER', VS_ADMINS: 'UADMIN', VS_API_TIMEOUT_MS: '800' }, now: () => NOW });

  test('/vs server 42 posts its card in the channel from four reads, one each', async () => {
    const m = await answerTo(h, 'server 42');
    expect(m.response_type).toBe('in_channel');
    expectCardOf42(m);
    expect(cloudPaths(h)).toEqual([
      'GET /virtual_machines/42.json',
      'GET /virtual_machines/42/backups.json',
      'GET /virtual_machines/42/disks.json',
      'GET /virtual_machines/42/transactions.json',
    ]);
  });

  test('/vs status is the same card', async () => {
    const m = await answerTo(h, 'status 43');
    expect(sections(m)[0]).toBe('*batch-worker-3* · `batch-worker-3.example.com`\n:red_circle: *off* · :unlock: not locked');
  });

  test('a locked server names what is running on it; a failed transaction stands out', async () => {
    expect(sections(await answerTo(h, 'server 47'))[0]).toContain(':lock: *locked*: taking an incremental backup is running');
    expect(sections(await answerTo(h, 'server 46'))[4]).toContain(':x: *failed*');
  });

  test('buttons: the other views for everyone, the change forms the reader’s role allows', async () => {
    const views = ['Firewall: firewall 42', 'Autoscaling: autoscaling 42', 'Backups: backups 42'];
    expect(buttonsOf(await answerTo(h, 'server 42', { user: 'UVIEWER' }))).toEqual(views);
    const operatorOn = [...views, 'Add disk: disk add 42', 'Take backup: backup take 42', 'Shut down server: shutdown 42', 'Reboot server: reboot 42'];
    expect(buttonsOf(await answerTo(h, 'server 42', { user: 'UOPER' }))).toEqual(operatorOn);
    // An admin may also force it off; a server that is off can only be started.
    expect(buttonsOf(await answerTo(h, 'server 42', { user: 'UADMIN' }))).toEqual([
      ...views,
      'Add disk: disk add 42',
      'Restore backup: restore 42',
      'Take backup: backup take 42',
      'Shut down server: shutdown 42',
      'Reboot server: reboot 42',
      'Stop server: stop 42',
    ]);
    expect(buttonsOf(await answerTo(h, 'server 43', { user: 'UADMIN' }))).toEqual([
      'Firewall: firewall 43',
      'Autoscaling: autoscaling 43',
      'Backups: backups 43',
      'Add disk: disk add 43',
      'Restore backup: restore 43',
      'Take backup: backup take 43',
      'Start server: start 43',
    ]);
  });

  test('a button of the card runs the command it names, checked as if typed: a viewer’s forged Add disk is refused', async () => {
    const click = async (user: string, actionId: string, value: string) => {
      const responseUrl = h.slack.responseUrl();
      const res = await h.interact(buttonClick({ user, channel: CHANNEL, actionId, value, responseUrl }));
      expect(res.status).toBe(200);
      const id = responseUrl.slice(responseUrl.lastIndexOf('/') + 1);
      return waitFor(`the answer to ${value}`, () => h.slack.responses.find((r) => r.id === id)?.body as Message | undefined, { within: 5000 });
    };
    const firewall = await click('UVIEWER', 'server_firewall', 'firewall 42');
    expect(firewall.response_type).toBe('in_channel');
    expect(firewall.text).toContain('Firewall rules of VS 42');
    const refused = await click('UVIEWER', 'server_disk_add', 'disk add 42');
    expect(refused.response_type).toBe('ephemeral');
    expect(refused.text).toMatch(/operator/);
    expect(h.slack.callsTo('views.open')).toEqual([]);
    await h.interact(buttonClick({ user: 'UOPER', channel: CHANNEL, actionId: 'server_disk_add', value: 'disk add 42', responseUrl: h.slack.responseUrl() }));
    const opened = await waitFor('the add-disk form', () => h.slack.callsTo('views.open')[0], { within: 5000 });
    expect((opened.args.view as { callback_id: string }).callback_id).toBe('disk_add');
    // Take backup: the disks read first, then its form.
    await h.interact(
      buttonClick({ user: 'UOPER', channel: CHANNEL, actionId: 'server_backup_take', value: 'backup take 42', responseUrl: h.slack.responseUrl() }),
    );
    const take = await waitFor('the take-a-backup form', () => h.slack.callsTo('views.open')[1], { within: 5000 });
    expect((take.args.view as { callback_id: string }).callback_id).toBe('backup_take');
  });

  test('an unknown server is "VS 999 was not found", only for the one who asked', async () => {
    const m = await answerTo(h, 'server 999');
    expect(m.response_type).toBe('ephemeral');
    expect(m.text).toContain('VS 999 was not found');
  });

  test('a read that fails leaves its part saying so, and the rest of the card is there', async () => {
    fault.handle((req, res) => (req.url.includes('/disks') ? reply(res, 500, '<html>boom</html>') : forward(h.sandbox.url, req, res)));
    const m = await answerTo(h, 'server 42');
    expect(m.response_type).toBe('in_channel');
    const text = sections(m);
    expect(text[0]).toContain('*web-1*');
    expect(text[2]).toBe(
      "*Disks*: :warning: could not be read: The cloud API failed (HTTP 500). Try again in a minute; if it persists, contact the cloud provider's support.",
    );
    expect(text[3]).toContain('*Latest backups*\n•');
    expect(visibleText(m)).not.toMatch(STACK_TRACE);
  });

  test('a server record that cannot be read still gets the card from the other parts', async () => {
    fault.handle((req, res) => (/\/virtual_machines\/42\.json/.test(req.url) ? reply(res, 503, 'maintenance') : forward(h.sandbox.url, req, res)));
    const m = await answerTo(h, 'server 42');
    expect(sections(m)[0]).toMatch(/^:warning: The server's record could not be read: The cloud API failed \(HTTP 503\)/);
    expect(sections(m)[1]).toContain('`#101`');
  });

  test('when nothing can be read, the answer is the error alone, for the one who asked', async () => {
    fault.handle((_req, res) => reply(res, 401, '{"errors":["Unauthorized"]}'));
    const m = await answerTo(h, 'server 42');
    expect(m.response_type).toBe('ephemeral');
    expect(m.text).toContain('The cloud API refused the request (credentials not accepted)');
  });

  describe('/vs backups of a server with more backups than a page', () => {
    // 25 backups of VS 42, one a day, in no particular order: backup 125 is the newest; every third one is marked for deletion.
    const DAY = 86_400_000;
    const many = Array.from({ length: 25 }, (_, i) => ({
      backup: { id: 101 + i, target_type: 'VirtualMachine', target_id: 42, disk_id: 101, backup_size: 5_242_880, backup_type: 'incremental' },
    }))
      .map(({ backup }, i) => ({ backup: { ...backup, built: true, marked_for_delete: i % 3 === 0, built_at: new Date(NOW - (25 - i) * DAY).toISOString() } }))
      .sort((a, b) => ((a.backup.id * 7) % 25) - ((b.backup.id * 7) % 25));
    const serveMany = () =>
      fault.handle((req, res) =>
        req.url.startsWith('/virtual_machines/42/backups.json') ? reply(res, 200, JSON.stringify(many)) : forward(h.sandbox.url, req, res),
      );
    const shownIds = (m: Message) => sections(m).map((t) => Number(/^\*Backup (\d+)\*/.exec(t)?.[1]));
    /** The buttons of a list, in order: each backup's Restore, then the pager's. */
    const elements = (m: Message) =>
      (m.blocks as { type: string; elements?: { action_id: string; value: string }[]; accessory?: { action_id: string; value: string } }[]).flatMap((b) => [
        ...(b.type === 'actions' ? b.elements! : []),
        ...(b.accessory ? [b.accessory] : []),
      ]);
    const backupsReads = () => fault.requests.filter((r) => r.url.startsWith('/virtual_machines/42/backups')).length;
    /** `user` clicks a button of the list; what they see where they clicked. */
    const click = async (user: string, actionId: string, value: string) => {
      const responseUrl = h.slack.responseUrl();
      expect((await h.interact(buttonClick({ user, channel: CHANNEL, actionId, value, responseUrl }))).status).toBe(200);
      const id = responseUrl.slice(responseUrl.lastIndexOf('/') + 1);
      return waitFor(`the answer to ${actionId}`, () => h.slack.responses.find((r) => r.id === id)?.body as Message | undefined, { within: 5000 });
    };

    test('ten a page, newest first, "page 1 of 3"; Next shows the clicker alone the next ten, read again', async () => {
      serveMany();
      const first = await answerTo(h, 'backups 42', { user: 'UADMIN' });
      expect(first.response_type).toBe('in_channel');
      expect(shownIds(first)).toEqual([125, 124, 123, 122, 121, 120, 119, 118, 117, 116]);
      expect(visibleText(first)).toContain('25 backups, 16 usable · page 1 of 3 · backups 1–10 of 25');
      expect(first.blocks!.length).toBeLessThanOrEqual(50);
      // An admin's page: a Restore button on each usable backup, then Next and Export CSV.
      expect(elements(first).map((e) => e.action_id)).toEqual([
        ...[124, 123, 121, 120, 118, 117].map((id) => `backups_restore_${id}`),
        'backups_page_next',
        'backups_export',
      ]);
      const next = elements(first).find((e) => e.action_id === 'backups_page_next')!;
      const second = await click('UADMIN', 'backups_page_next', next.value);
      // The channel's message stays as everyone reads it.
      expect(second).toMatchObject({ response_type: 'ephemeral', replace_original: false });
      expect(shownIds(second)).toEqual([115, 114, 113, 112, 111, 110, 109, 108, 107, 106]);
      expect(visibleText(second)).toContain('page 2 of 3 · backups 11–20 of 25');
      expect(elements(second).filter((e) => e.action_id.startsWith('backups_restore_'))).toHaveLength(7);
      // Never a stale page: the list is read again for the click.
      expect(backupsReads()).toBe(2);
    });

    test('a viewer pages back from the last page, with no Restore button: what the clicker may do, not who asked first', async () => {
      serveMany();
      const last = await click('UVIEWER', 'backups_page_next', '42:3');
      expect(shownIds(last)).toEqual([105, 104, 103, 102, 101]);
      expect(elements(last).map((e) => `${e.action_id} ${e.value}`)).toEqual(['backups_page_prev 42:2', 'backups_export 42']);
      const second = await click('UVIEWER', 'backups_page_prev', '42:2');
      expect(shownIds(second)[0]).toBe(115);
    });

    test('a page button not made by the list is out of date, and nothing is read', async () => {
      for (const value of ['42', '42:0', '{"vs":"42; DROP TABLE"}', '-1:2']) {
        const m = await click('UVIEWER', 'backups_page_next', value);
        expect(m.response_type).toBe('ephemeral');
        expect(m.text).toContain('That button is out of date; run `/vs backups &lt;vs_id&gt;` again.');
      }
      expect(fault.requests).toEqual([]);
    });

    test('a server gone since the list was shown is said so on the click', async () => {
      const m = await click('UVIEWER', 'backups_page_next', '999:2');
      expect(m.response_type).toBe('ephemeral');
      expect(m.text).toContain('VS 999 was not found');
    });
  });

  test('fifty people asking about one server at once cost one call per resource', async () => {
    h.sandbox.setDelay(300);
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => answerTo(h, 'server 45', { user: `U${String(i).padStart(8, '0')}` })));
    expect(answers.every((m) => m.response_type === 'in_channel')).toBe(true);
    expect(cloudPaths(h)).toEqual([
      'GET /virtual_machines/45.json',
      'GET /virtual_machines/45/backups.json',
      'GET /virtual_machines/45/disks.json',
      'GET /virtual_machines/45/transactions.json',
    ]);
  });
});

describe('/vs disks and /vs backups, the cloud API in JSON', () => {
  const h = useHarness({ env: { VS_ADMINS: 'UADMIN' }, now: () => NOW });

  test('/vs disks lists each disk and the total', async () => {
    const m = await answerTo(h, 'disks 46');
    expect(m.response_type).toBe('in_channel');
    expect(sections(m)).toEqual([
      '`#107` 40 GB SSD · db-primary root · primary · mounted at `/` · built\n' +
        '`#108` 4 GB SSD · db-primary swap · swap · built\n' +
        '`#109` 200 GB SSD · pgdata · mounted at `/var/lib/postgresql` · built',
    ]);
    expect(m.text).toBe('VS 46 has 3 disks (244 GB)');
    expect(cloudPaths(h)).toEqual(['GET /virtual_machines/46/disks.json']);
  });

  test('/vs backups lists them newest first, usable or why not; Restore buttons for admins only', async () => {
    const viewer = await answerTo(h, 'backups 46', { user: 'UVIEWER' });
    expect(sections(viewer).map((t) => t.replace(/<!date[^>]+>/, 'DATE'))).toEqual([
      '*Backup 13*\nDATE (12 minutes ago) · 0 kB · incremental · disk 107 · :no_entry: not usable: not built yet',
      '*Backup 11*\nDATE (23 hours ago) · 70 GB · normal · disk 109 · :white_check_mark: usable',
    ]);
    // A viewer may not restore: the one button is Export CSV.
    expect(buttonsOf(viewer)).toEqual(['Export CSV: 46']);
    const admin = await answerTo(h, 'backups 42', { user: 'UADMIN' });
    const restore = (admin.blocks as { accessory?: { action_id: string; value: string } }[]).flatMap((b) => (b.accessory ? [b.accessory] : []));
    expect(restore).toEqual([
      expect.objectContaining({ action_id: 'backups_restore_9', value: '42:9' }),
      expect.objectContaining({ action_id: 'backups_restore_15', value: '42:15' }),
    ]);
  });

  test('an unknown server, an id that is not one', async () => {
    expect((await answerTo(h, 'backups 999')).text).toContain('VS 999 was not found');
    const m = await answerTo(h, 'disks forty-two');
    expect(m.response_type).toBe('ephemeral');
    expect(m.text).toContain('No server is named forty-two');
    expect(h.sandbox.requests.filter((r) => r.path.includes('forty'))).toEqual([]);
  });
});

describe('the same reads with the cloud API in XML', () => {
  const h = useHarness({ env: { VS_API_FORMAT: 'xml', VS_OPERATORS: 'UOPER' }, now: () => NOW });

  test('/vs server reads the four parts in XML and says the same as in JSON', async () => {
    const m = await answerTo(h, 'server 42', { user: 'UOPER' });
    expectCardOf42(m);
    expect(cloudPaths(h)).toEqual([
      'GET /virtual_machines/42.xml',
      'GET /virtual_machines/42/backups.xml',
      'GET /virtual_machines/42/disks.xml',
      'GET /virtual_machines/42/transactions.xml',
    ]);
    expect(buttonsOf(m)).toEqual(expect.arrayContaining(['Add disk: disk add 42', 'Reboot server: reboot 42']));
  });

  test('/vs disks and /vs backups in XML', async () => {
    expect(sections(await answerTo(h, 'disks 43'))[0]).toBe(
      '`#103` 50 GB HDD · batch-worker-3 root · primary · mounted at `/` · built\n`#104` 4 GB HDD · batch-worker-3 swap · swap · built',
    );
    expect(sections(await answerTo(h, 'backups 48'))[0]).toMatch(
      /^\*Backup 14\*\n<!date[^>]+> \(\d+ days ago\) · 3 GB · normal · disk 96 · :white_check_mark: usable$/,
    );
  });
});
