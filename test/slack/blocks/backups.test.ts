import fc from 'fast-check';
import { newestFirst, restoreTargetOf, usabilityOf, usableBackups } from '../../../src/changes/backups';
import { BACKUPS_PAGE_SIZE, backupOptionText, backupTypeText, parseRestoreButtonValue, renderBackups } from '../../../src/slack/blocks/backups';
import { renderDisks } from '../../../src/slack/blocks/disks';
import { ago, sizeFromKb, sizeFromMb } from '../../../src/slack/blocks/measures';
import { parsePageButtonValue } from '../../../src/slack/blocks/pages';
import { describeFirewall } from '../../../src/slack/blocks/summaries';
import { backup as fixtureBackup, buttons, contextTexts, disk, headerText, rule, sectionTexts, visible } from './fixtures';
import { blockViolations, brokenUnicode, dataMarkup, describeProblems, hostileString, INJECTIONS } from './limits';

// A server's backups and disks, what a restore knows of a backup, sizes and
// ages in words, and the firewall said briefly: data in, words out.

const NOW = Date.parse('2024-11-27T09:00:00Z');
const HOUR = 3_600_000;
const backup = (raw: Record<string, unknown> = {}) => fixtureBackup({ backup_type: 'incremental', ...raw });
const withoutDates = (m: { text: string; blocks: unknown }) => JSON.parse(JSON.stringify(m).replace(/<!date\^\d+\^[^<>|]+\|[^<>|]+ UTC>/g, 'DATE')) as typeof m;

describe('sizes and ages', () => {
  test.each([
    [0, '0 kB'],
    [512, '512 kB'],
    [3_145_728, '3 GB'],
    [1_887_437, '1.8 GB'],
    [73_400_320, '70 GB'],
    [2048, '2 MB'],
  ])('%i kB is %s', (kb, words) => expect(sizeFromKb(kb)).toBe(words));

  test('memory in MB', () => {
    expect(sizeFromMb(4096)).toBe('4 GB');
    expect(sizeFromMb(512)).toBe('512 MB');
  });

  test.each([
    [0, 'just now'],
    [-5 * 60_000, 'just now'],
    [60_000, '1 minute ago'],
    [59 * 60_000, '59 minutes ago'],
    [HOUR, '1 hour ago'],
    [31 * HOUR, '31 hours ago'],
    [48 * HOUR, '2 days ago'],
    [400 * 24 * HOUR, '400 days ago'],
  ])('%i ms before now is "%s"', (before, words) => expect(ago(NOW - before, NOW)).toBe(words));
});

describe('what a restore knows of a backup', () => {
  test('usable when built, not locked and not marked for deletion; otherwise the lasting reason first', () => {
    expect(usabilityOf(backup())).toEqual({ usable: true });
    expect(usabilityOf(backup({ locked: true }))).toEqual({ usable: false, why: 'locked' });
    expect(usabilityOf(backup({ built: false }))).toEqual({ usable: false, why: 'not_built' });
    expect(usabilityOf(backup({ built: false, locked: true, marked_for_delete: true }))).toEqual({ usable: false, why: 'marked_for_delete' });
    expect(usabilityOf(backup({ built: null }))).toEqual({ usable: false, why: 'not_built' });
  });

  test('an incremental backup names its server and disk; a normal one only its disk', () => {
    expect(restoreTargetOf(backup({ target_type: 'VirtualMachine', target_id: 42, disk_id: 101 }))).toEqual({ vsId: 42, diskId: 101 });
    expect(restoreTargetOf(backup({ target_type: 'Disk', target_id: 101, disk_id: null }))).toEqual({ vsId: null, diskId: 101 });
    expect(restoreTargetOf(backup({ target_type: null, target_id: null, disk_id: null }))).toEqual({ vsId: null, diskId: null });
  });

  test('newest first by when it was taken (built_at, else created_at), a backup with no time last', () => {
    const list = [
      backup({ id: 1, built_at: '2024-11-20T00:00:00Z' }),
      backup({ id: 2, built_at: null, created_at: null }),
      backup({ id: 3, built_at: null, created_at: '2024-11-25T00:00:00Z' }),
      backup({ id: 4, built_at: '2024-11-22T00:00:00Z' }),
    ];
    expect(newestFirst(list).map((b) => b.id)).toEqual([3, 4, 1, 2]);
    expect(usableBackups([...list, backup({ id: 5, built_at: '2024-11-26T00:00:00Z', marked_for_delete: true })]).map((b) => b.id)).toEqual([3, 4, 1, 2]);
  });
});

describe('a backup in the restore form’s menu', () => {
  test('its number (to type it again), then taken <how long ago> · <size> · <type> · disk <id>: no clock written out', () => {
    const b = backup({ id: 9, built_at: '2024-11-26T02:00:00Z', backup_size: 5_242_880, disk_id: 101 });
    expect(backupOptionText(b, NOW)).toBe('#9 · taken 31 hours ago · 5 GB · incremental · disk 101');
    expect(backupOptionText(backup({ id: 9, built_at: null, created_at: null, backup_size: 5_242_880, disk_id: 101 }), NOW)).toBe(
      '#9 · taken at an unknown time · 5 GB · incremental · disk 101',
    );
  });

  test('too long for an option, the age is shortened, then the type goes: the disk is kept', () => {
    const b = (id: number, type: string, diskId: number) =>
      backup({ id, built_at: '2023-11-26T02:00:00Z', backup_size: 1_887_437, disk_id: diskId, backup_type: type });
    expect(backupOptionText(b(10, 'incremental', 105), NOW)).toBe('#10 · taken 367 days ago · 1.8 GB · incremental · disk 105');
    expect(backupOptionText(b(123456, 'weekly-offsite-encrypt', 1234567), NOW)).toBe(
      '#123456 · taken 367 d ago · 1.8 GB · weekly-offsite-encrypt · disk 1234567',
    );
    expect(backupOptionText(b(123456, 'weekly-offsite-encrypted-twice', 1234567), NOW)).toBe('#123456 · taken 367 d ago · 1.8 GB · disk 1234567');
  });

  test('older clouds’ schedule types in words, any other type as the cloud writes it', () => {
    expect(backupTypeText('days-autobackup')).toBe('daily auto-backup');
    expect(backupTypeText('weeks-autobackup')).toBe('weekly auto-backup');
    expect(backupTypeText('normal')).toBe('normal');
    expect(backupTypeText(null)).toBe('type unknown');
  });

  test('always at most 75 characters (Slack’s limit for an option), whole characters', () => {
    fc.assert(
      fc.property(hostileString(200), fc.integer({ min: 0, max: 2 ** 40 }), fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), (type, size, diskId) => {
        const text = backupOptionText(backup({ backup_type: type, backup_size: size, disk_id: diskId, built_at: '1999-01-01T00:00:00Z' }), NOW);
        expect(text.length).toBeLessThanOrEqual(75);
        expect(brokenUnicode({ blocks: [], text })).toEqual([]);
      }),
      { numRuns: 100 },
    );
  });
});

describe('/vs backups', () => {
  const list = [
    backup({ id: 9, built_at: '2024-11-26T02:00:00Z', note: 'nightly' }),
    backup({ id: 12, built_at: '2024-11-25T02:00:00Z', marked_for_delete: true }),
    backup({ id: 13, built: false, built_at: null, created_at: '2024-11-27T08:00:00Z' }),
    backup({ id: 15, built_at: '2024-11-20T02:00:00Z', backup_type: 'normal', target_type: 'Disk', target_id: 101, disk_id: null }),
  ];

  test('newest first, each with when, how long ago, size, type, disk, and usable or why not', () => {
    const m = renderBackups({ vsId: 42, backups: list, page: 1, mayRestore: false, now: NOW, sandbox: false });
    expect(headerText(m)).toBe('Backups · VS 42');
    const texts = sectionTexts(m);
    expect(texts.map((t) => t.split('\n')[0])).toEqual(['*Backup 13*', '*Backup 9* — nightly', '*Backup 12*', '*Backup 15*']);
    expect(texts[0]).toMatch(/\(1 hour ago\) · 2\.4 GB · incremental · disk 77 · :no_entry: not usable: not built yet$/);
    expect(texts[1]).toMatch(/\(31 hours ago\) · 2\.4 GB · incremental · disk 77 · :white_check_mark: usable$/);
    expect(texts[2]).toMatch(/:no_entry: not usable: marked for deletion$/);
    expect(texts[3]).toMatch(/\(7 days ago\) · 2\.4 GB · normal · disk 101 · :white_check_mark: usable$/);
    expect(m.text).toBe('VS 42 has 4 backups, 2 usable');
    // One page: no Prev, no Next, no "page 1 of 1"; no Restore for a reader who may not restore; Export CSV of them all.
    expect(JSON.stringify(m.blocks)).not.toContain('Restore');
    expect(buttons(m)).toEqual([{ text: 'Export CSV', value: '42', actionId: 'backups_export' }]);
    expect(contextTexts(m)[0]).not.toContain('page');
  });

  test('for someone who may restore, a Restore button on each usable backup, naming the server and the backup', () => {
    const m = renderBackups({ vsId: 42, backups: list, page: 1, mayRestore: true, now: NOW, sandbox: false });
    const accessories = (m.blocks as { accessory?: { action_id: string; value: string } }[]).flatMap((b) => (b.accessory ? [b.accessory] : []));
    expect(accessories.map((a) => [a.action_id, a.value])).toEqual([
      ['backups_restore_9', '42:9'],
      ['backups_restore_15', '42:15'],
    ]);
    expect(parseRestoreButtonValue('42:15')).toEqual({ vsId: 42, backupId: 15 });
    expect(parseRestoreButtonValue('42:0')).toBeNull();
    expect(parseRestoreButtonValue('42:15:1')).toBeNull();
    expect(visible(m)).toContain('`/vs restore 42` picks one to restore');
  });

  test('a server without backups says so, with nothing to page or export', () => {
    const m = renderBackups({ vsId: 43, backups: [], page: 1, mayRestore: true, now: NOW, sandbox: false });
    expect(sectionTexts(m)).toEqual(['VS 43 has no backups.']);
    expect(buttons(m)).toEqual([]);
  });

  describe(`${BACKUPS_PAGE_SIZE} a page, newest first`, () => {
    // 25 backups, one an hour: backup 25 is the newest; every third one is marked for deletion.
    const many = Array.from({ length: 25 }, (_, i) =>
      backup({ id: i + 1, built_at: new Date(NOW - (25 - i) * HOUR).toISOString(), marked_for_delete: i % 3 === 0 }),
    );
    const page = (n: number, mayRestore = true) => renderBackups({ vsId: 42, backups: many, page: n, mayRestore, now: NOW, sandbox: false });
    const shownIds = (m: ReturnType<typeof page>) => sectionTexts(m).map((t) => Number(/^\*Backup (\d+)\*/.exec(t)![1]));

    test('the first page: the newest ten, "page 1 of 3", Next and Export CSV', () => {
      const m = page(1);
      expect(shownIds(m)).toEqual([25, 24, 23, 22, 21, 20, 19, 18, 17, 16]);
      expect(contextTexts(m)[0]).toMatch(/^25 backups, 16 usable · page 1 of 3 · backups 1–10 of 25 · newest first · fetched /);
      expect(m.text).toBe('VS 42 has 25 backups, 16 usable: page 1 of 3, backups 1–10 of 25');
      expect(buttons(m)).toEqual([
        { text: 'Next →', value: '42:2', actionId: 'backups_page_next' },
        { text: 'Export CSV', value: '42', actionId: 'backups_export' },
      ]);
    });

    test('a middle page has Prev and Next; the last one the oldest, and Prev only', () => {
      const middle = page(2);
      expect(shownIds(middle)).toEqual([15, 14, 13, 12, 11, 10, 9, 8, 7, 6]);
      expect(buttons(middle).map((b) => `${b.actionId} ${b.value}`)).toEqual(['backups_page_prev 42:1', 'backups_page_next 42:3', 'backups_export 42']);
      const last = page(3);
      expect(shownIds(last)).toEqual([5, 4, 3, 2, 1]);
      expect(contextTexts(last)[0]).toContain('page 3 of 3 · backups 21–25 of 25');
      expect(buttons(last).map((b) => b.actionId)).toEqual(['backups_page_prev', 'backups_export']);
    });

    test('each usable backup of the page keeps its Restore button', () => {
      const restores = (m: ReturnType<typeof page>) =>
        (m.blocks as { accessory?: { action_id: string } }[]).flatMap((b) => (b.accessory ? [b.accessory.action_id] : []));
      expect(restores(page(2))).toEqual([
        'backups_restore_15',
        'backups_restore_14',
        'backups_restore_12',
        'backups_restore_11',
        'backups_restore_9',
        'backups_restore_8',
        'backups_restore_6',
      ]);
      expect(restores(page(2, false))).toEqual([]);
    });

    test('a page past the end shows the last; one before the first, or not a number, the first', () => {
      expect(shownIds(page(9))).toEqual(shownIds(page(3)));
      expect(shownIds(page(0))).toEqual(shownIds(page(1)));
      expect(shownIds(page(Number.NaN))).toEqual(shownIds(page(1)));
    });
  });

  test('many hostile backups, any page: within Slack’s limits, no markup from the data, every page button to a real page', () => {
    const text = fc.oneof(fc.constantFrom(...INJECTIONS), hostileString(300));
    fc.assert(
      fc.property(fc.array(fc.record({ note: text, backup_type: text }), { maxLength: 60 }), fc.integer({ min: -2, max: 9 }), (raws, n) => {
        const m = renderBackups({ vsId: 42, backups: raws.map((raw, i) => backup({ ...raw, id: i + 1 })), page: n, mayRestore: true, now: NOW, sandbox: true });
        const found = [...blockViolations(m.blocks), ...dataMarkup(withoutDates(m)), ...brokenUnicode(m)];
        if (found.length > 0) throw new Error(describeProblems(found));
        expect(sectionTexts(m).filter((t) => t.startsWith('*Backup ')).length).toBeLessThanOrEqual(BACKUPS_PAGE_SIZE);
        const pages = Math.max(1, Math.ceil(raws.length / BACKUPS_PAGE_SIZE));
        for (const b of buttons(m).filter((b) => b.actionId !== 'backups_export')) {
          const target = parsePageButtonValue(b.value!);
          expect(target?.vsId).toBe(42);
          expect(target!.page).toBeGreaterThanOrEqual(1);
          expect(target!.page).toBeLessThanOrEqual(pages);
        }
      }),
      { numRuns: 30 },
    );
  });
});

describe('/vs disks', () => {
  test('each disk with id, size, type, primary or swap, mount point, built and locked; the total', () => {
    const m = renderDisks({
      vsId: 46,
      disks: [
        disk({ id: 109, disk_size: 200, label: 'pgdata', mount_point: '/var/lib/postgresql', built: true, locked: false, disk_vm_number: 3 }),
        disk({ id: 108, disk_size: 4, label: 'swap', is_swap: true, mount_point: '', built: true, locked: false, disk_vm_number: 2 }),
        disk({ id: 107, disk_size: 40, label: 'root', primary: true, mount_point: '/', built: true, locked: false, disk_vm_number: 1 }),
        disk({ id: 110, disk_size: 10, label: 'new', disk_type: 'HDD', mount_point: '', built: false, locked: true }),
      ],
      now: NOW,
      sandbox: false,
    });
    expect(sectionTexts(m)).toEqual([
      [
        '`#107` 40 GB SSD · root · primary · mounted at `/` · built',
        '`#108` 4 GB SSD · swap · swap · built',
        '`#109` 200 GB SSD · pgdata · mounted at `/var/lib/postgresql` · built',
        '`#110` 10 GB HDD · new · :construction: not built · :lock: locked',
      ].join('\n'),
    ]);
    expect(m.text).toBe('VS 46 has 4 disks (254 GB)');
  });
});

describe('the firewall, briefly (vs_firewall_summary)', () => {
  test('what it accepts and drops, in position order, sources shared by consecutive rules said once', () => {
    const rules = [
      rule({ id: 1, position: 1, port: '443', address: null }),
      rule({ id: 2, position: 2, port: '22', address: '10.0.0.0/8' }),
      rule({ id: 3, position: 3, port: '8000:8100', address: '10.0.0.0/8' }),
      rule({ id: 4, position: 4, port: '23', command: 'DROP' }),
      rule({ id: 5, position: 5, port: '25', command: 'ACCEPT', enabled: false }),
      rule({ id: 6, position: 6, port: '53', protocol: 'UDP', address: '10.0.0.2/32' }),
      rule({ id: 7, position: 7, command: 'DROP' }),
    ];
    expect(describeFirewall(rules)).toBe(
      'accepts 443/tcp from anywhere, 22/tcp, 8000-8100/tcp from 10.0.0.0/8; drops 23/tcp from anywhere; accepts 53/udp from 10.0.0.2/32; drops all other tcp',
    );
  });

  test('each network interface named when there are several; long lists counted', () => {
    const many = Array.from({ length: 20 }, (_, i) => rule({ id: 100 + i, position: i + 1, network_interface_id: 2, port: String(1000 + i) }));
    const text = describeFirewall([rule({ id: 1, network_interface_id: 1, command: 'DROP' }), ...many]);
    expect(text).toMatch(/^interface 1: drops all tcp · interface 2: accepts 1000\/tcp, .*1011\/tcp from anywhere; and 8 more rules$/);
  });

  test('API text is escaped', () => {
    expect(describeFirewall([rule({ id: 1, port: '<!here>', address: '<@U1>' })])).toBe('accepts &lt;!here&gt;/tcp from &lt;@U1&gt;');
  });

  test('no rule that applies', () => {
    expect(describeFirewall([rule({ id: 1, enabled: false })])).toBe("no rule applies: each network interface's default does (the API does not show it)");
  });
});
