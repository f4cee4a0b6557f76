import fc from 'fast-check';
import { Server, Transaction } from '../../../src/cloud/schemas';
import { renderServerGlance, type ServerGlanceView } from '../../../src/slack/blocks/server-glance';
import { backup as fixtureBackup, buttons, disk, headerText, SANDBOX_NOTICE, sectionTexts, visible } from './fixtures';
import { blockViolations, brokenUnicode, dataMarkup, describeProblems, hostileString, INJECTIONS } from './limits';

// The server at a glance (docs/product.md, Server at a glance): data in,
// blocks out, without Slack or the cloud.

const NOW = Date.parse('2024-05-06T09:00:00Z');

const server = (raw: Record<string, unknown> = {}) =>
  Server.parse({
    id: 42,
    label: 'web-1.prod',
    hostname: 'web-1.prod.example.com',
    booted: true,
    locked: false,
    memory: 4096,
    cpus: 2,
    total_disk_size: 22,
    template_label: 'Ubuntu 22.04 x64',
    operating_system: 'linux',
    operating_system_distro: 'ubuntu',
    hypervisor_id: 3,
    enable_autoscale: true,
    ip_addresses: [{ ip_address: { address: '203.0.113.42' } }, { ip_address: { address: '10.20.0.42' } }],
    ...raw,
  });

const transaction = (raw: Record<string, unknown>) =>
  Transaction.parse({ action: 'take_backup', status: 'complete', created_at: '2024-05-05T02:00:00Z', ...raw });

/** The renderer's own date tokens taken out: any other `<` came from the data. */
const withoutDates = (card: { text: string; blocks: unknown }) =>
  JSON.parse(JSON.stringify(card).replace(/<!date\^\d+\^[^<>|]+\|[^<>|]+ UTC>/g, 'DATE')) as typeof card;

function view(o: Partial<ServerGlanceView> = {}): ServerGlanceView {
  return {
    vsId: 42,
    server: { value: server() },
    power: 'on',
    disks: {
      value: [
        disk({ id: 101, disk_size: 20, primary: true, mount_point: '/', built: true, locked: false }),
        disk({ id: 102, disk_size: 2, is_swap: true, mount_point: '', built: true, locked: false }),
      ],
    },
    backups: { value: [fixtureBackup({ id: 9, disk_id: 101, backup_type: 'incremental' })] },
    transactions: { value: [transaction({ id: 1 })] },
    changes: [],
    now: NOW,
    sandbox: false,
    ...o,
  };
}

describe('the server at a glance', () => {
  test('names the server, its host, power and lock, its size, template, hypervisor, addresses and autoscaling', () => {
    const card = renderServerGlance(view());
    expect(headerText(card)).toBe('VS 42');
    const [identity, facts] = sectionTexts(card);
    expect(identity).toBe('*web-1.prod* · `web-1.prod.example.com`\n:large_green_circle: *on* · :unlock: not locked');
    expect(facts).toBe(
      '*Memory* 4 GB · *CPUs* 2 · *Disk* 22 GB\n*Template* Ubuntu 22.04 x64 (linux, ubuntu) · *Hypervisor* 3\n' +
        '*IP addresses* `203.0.113.42`, `10.20.0.42`\n*Autoscaling* on',
    );
    expect(card.text).toBe('VS 42 (web-1.prod): on');
  });

  test.each([
    ['off', ':red_circle: *off*'],
    ['suspended', ':large_orange_circle: *suspended by the provider*'],
    ['recovery', ':large_yellow_circle: *on, in the recovery image*'],
  ] as const)('a server %s says so', (power, words) => {
    expect(sectionTexts(renderServerGlance(view({ power })))[0]).toContain(words);
  });

  test('a locked server names the transaction that holds it, in words', () => {
    const card = renderServerGlance(
      view({
        server: { value: server({ locked: true }) },
        transactions: { value: [transaction({ id: 7, action: 'take_incremental_backup', status: 'running' }), transaction({ id: 6 })] },
      }),
    );
    expect(sectionTexts(card)[0]).toContain(':lock: *locked*: taking an incremental backup is running');
    expect(card.text).toBe('VS 42 (web-1.prod): on, locked');
  });

  test('of several transactions holding it, the one running is named, else the oldest pending (the next to run)', () => {
    const locked = (transactions: ReturnType<typeof transaction>[]) =>
      sectionTexts(renderServerGlance(view({ server: { value: server({ locked: true }) }, transactions: { value: transactions } })))[0];
    const format = transaction({ id: 9, action: 'format_disk', status: 'pending' });
    expect(locked([format, transaction({ id: 8, action: 'build_disk', status: 'running' })])).toContain('locked*: building a disk is running');
    expect(locked([format, transaction({ id: 8, action: 'build_disk', status: 'pending' })])).toContain('locked*: building a disk is pending');
  });

  test('a locked server whose transactions could not be read is still said to be locked', () => {
    const card = renderServerGlance(view({ server: { value: server({ locked: true }) }, transactions: { unread: 'The cloud API failed (HTTP 500).' } }));
    expect(sectionTexts(card)[0]).toContain(':lock: *locked* by a running transaction');
  });

  test('disks: primary first, each with size, type, primary or swap, mount point, built and locked', () => {
    const card = renderServerGlance(
      view({
        disks: {
          value: [
            disk({ id: 103, built: false, locked: true, mount_point: '' }),
            disk({ id: 101, primary: true, mount_point: '/', built: true, locked: false }),
          ],
        },
      }),
    );
    expect(sectionTexts(card)[2]).toBe(
      '*Disks*\n`#101` 20 GB SSD · data · primary · mounted at `/` · built\n`#103` 20 GB SSD · data · :construction: not built · :lock: locked',
    );
  });

  test('the five newest backups, each when, how long ago, size, type, disk, usable or why not', () => {
    const backup = (raw: Record<string, unknown>) => fixtureBackup({ backup_type: 'incremental', ...raw });
    const backups = [
      backup({ id: 1, built_at: '2024-05-01T02:00:00Z' }),
      backup({ id: 2, built_at: '2024-05-05T02:00:00Z', marked_for_delete: true }),
      backup({ id: 3, built_at: '2024-05-02T02:00:00Z' }),
      backup({ id: 4, built_at: '2024-05-03T02:00:00Z', backup_type: 'normal', target_type: 'Disk', target_id: 101, disk_id: null }),
      backup({ id: 5, built: false, built_at: null, created_at: '2024-05-06T08:30:00Z' }),
      backup({ id: 6, built_at: '2024-04-01T02:00:00Z' }),
    ];
    const text = sectionTexts(renderServerGlance(view({ backups: { value: backups } })))[3]!;
    const lines = text.split('\n');
    expect(lines[0]).toBe('*Latest backups*');
    expect(lines[1]).toBe('_the newest 5 of 6_');
    expect(lines.slice(2)).toEqual([
      expect.stringMatching(/^• <!date\^1714984200\^.*> \(30 minutes ago\) · 2\.4 GB · incremental · disk 77 · :no_entry: not usable: not built yet$/),
      expect.stringMatching(/\(31 hours ago\) · 2\.4 GB · incremental · disk 77 · :no_entry: not usable: marked for deletion$/),
      expect.stringMatching(/\(3 days ago\) · 2\.4 GB · normal · disk 101 · :white_check_mark: usable$/),
      expect.stringMatching(/\(4 days ago\) .* usable$/),
      expect.stringMatching(/\(5 days ago\) .* usable$/),
    ]);
  });

  test('the latest transactions in words, a failed one standing out', () => {
    const transactions = [transaction({ id: 3, action: 'resize_disk', status: 'failed' }), transaction({ id: 2, action: 'build_disk' })];
    const text = sectionTexts(renderServerGlance(view({ transactions: { value: transactions } })))[4]!;
    expect(text).toMatch(
      /^\*Latest transactions\*\n• <!date[^>]+> · resizing a disk · :x: \*failed\*\n• <!date[^>]+> · building a disk · :white_check_mark: complete$/,
    );
  });

  test('a part that could not be read says so, and the rest is shown', () => {
    const card = renderServerGlance(view({ disks: { unread: 'The cloud API did not answer within 3 s.' } }));
    expect(sectionTexts(card)[2]).toBe('*Disks*: :warning: could not be read: The cloud API did not answer within 3 s.');
    expect(sectionTexts(card)[3]).toContain('*Latest backups*');
    const noRecord = renderServerGlance(view({ server: { unread: 'The cloud API failed (HTTP 502).' }, power: null }));
    expect(headerText(noRecord)).toBe('VS 42');
    expect(sectionTexts(noRecord)[0]).toBe(":warning: The server's record could not be read: The cloud API failed (HTTP 502).");
    expect(noRecord.text).toBe('VS 42: its record could not be read');
  });

  test('buttons to the other views, then the change forms it is given, each the command it runs', () => {
    const card = renderServerGlance(view({ changes: [{ actionId: 'server_disk_add', text: 'Add disk', line: 'disk add 42' }] }));
    expect(buttons(card)).toEqual([
      { text: 'Firewall', value: 'firewall 42', actionId: 'server_firewall' },
      { text: 'Autoscaling', value: 'autoscaling 42', actionId: 'server_autoscaling' },
      { text: 'Backups', value: 'backups 42', actionId: 'server_backups' },
      { text: 'Add disk', value: 'disk add 42', actionId: 'server_disk_add' },
    ]);
  });

  test('says so on sandbox data', () => {
    expect(visible(renderServerGlance(view({ sandbox: true })))).toContain(SANDBOX_NOTICE);
  });

  test('whatever the cloud sends, the card stays within Slack’s limits, with no markup from the data', () => {
    const text = fc.oneof(fc.constantFrom(...INJECTIONS), hostileString(300));
    fc.assert(
      fc.property(text, text, text, fc.array(text, { maxLength: 12 }), (label, hostname, action, addresses) => {
        const many = Array.from({ length: 40 }, (_, i) => disk({ id: i + 1, label, mount_point: hostname }));
        const card = renderServerGlance(
          view({
            server: { value: server({ label, hostname, template_label: label, ip_addresses: addresses.map((address) => ({ address })) }) },
            disks: { value: many },
            transactions: { value: [transaction({ id: 1, action, status: 'failed' })] },
            backups: { value: Array.from({ length: 9 }, (_, i) => fixtureBackup({ id: i + 1, backup_type: label, note: label })) },
          }),
        );
        const found = [...blockViolations(card.blocks), ...dataMarkup(withoutDates(card)), ...brokenUnicode(card)];
        if (found.length > 0) throw new Error(describeProblems(found));
      }),
      { numRuns: 40 },
    );
  });
});
