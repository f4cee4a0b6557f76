import { renderAppliedUnreadable, renderBackupRestored, renderDiskAdded } from '../../../src/slack/blocks/changes';
import { expectNoDataMarkup, expectWithinSlackLimits } from './limits';
import { backup, contextTexts, disk, headerText, SANDBOX_NOTICE, sectionTexts, visible } from './fixtures';

const USER = 'U0OPERATOR';

describe('disk added summary', () => {
  test('names the disk, server, size, type, label and mount point, and who asked', () => {
    const m = renderDiskAdded({ vsId: 42, disk: disk({ built: true, locked: false }), user: USER, sandbox: false });
    expect(headerText(m)).toBe('Disk added · VS 42');
    expect(sectionTexts(m)[0]).toBe('*Disk 77* on VS 42: 20 GB SSD\nLabel: data\nMount point: `/mnt/data`\nState: built');
    expect(contextTexts(m)).toEqual([`asked by <@${USER}>`]);
    expect(m.text).toBe(`Disk 77 (20 GB) added to VS 42 by <@${USER}>`);
    expectWithinSlackLimits(m);
    expectNoDataMarkup(m, { users: [USER] });
  });

  test('a disk still building and locked says it is being built', () => {
    const m = renderDiskAdded({ vsId: 42, disk: disk({ built: false, locked: true }), user: USER, sandbox: false });
    expect(sectionTexts(m)[0]).toContain('State: being built (locked until it is ready)');
  });

  test('flags sent as "0"/"1" strings read the same', () => {
    const m = renderDiskAdded({ vsId: 42, disk: disk({ built: '0', locked: '0' }), user: USER, sandbox: false });
    expect(sectionTexts(m)[0]).toContain('State: being built');
    expect(sectionTexts(m)[0]).not.toContain('locked');
  });

  test('a swap disk without a mount point and a disk without a label say so', () => {
    const m = renderDiskAdded({ vsId: 42, disk: disk({ label: null, mount_point: '', is_swap: true }), user: USER, sandbox: false });
    expect(sectionTexts(m)[0]).toContain('Label: _none_');
    expect(sectionTexts(m)[0]).toContain('Mount point: _swap_');
  });

  test('a hostile label or mount point is escaped', () => {
    const m = renderDiskAdded({ vsId: 42, disk: disk({ label: '<!channel> & friends', mount_point: '/mnt/<@U123>' }), user: USER, sandbox: false });
    expect(sectionTexts(m)[0]).toContain('Label: &lt;!channel&gt; &amp; friends');
    expectNoDataMarkup(m, { users: [USER] });
  });

  test('the sandbox notice appears only on sandbox data', () => {
    expect(visible(renderDiskAdded({ vsId: 42, disk: disk(), user: USER, sandbox: true }))).toContain(SANDBOX_NOTICE);
    expect(visible(renderDiskAdded({ vsId: 42, disk: disk(), user: USER, sandbox: false }))).not.toContain(SANDBOX_NOTICE);
  });
});

describe('backup restored summary', () => {
  test('shows the target server, disk, size, operating system, when the backup was taken and the reason', () => {
    const m = renderBackupRestored({ backup: backup(), user: USER, reason: 'data corrupted by the 14:00 deploy', sandbox: false });
    expect(headerText(m)).toBe('Backup restored · VS 42');
    expect(sectionTexts(m)[0]).toBe(
      [
        '*Backup 9* restored onto VS 42, disk 77',
        'Size: 2.4 GB',
        'Operating system: linux / ubuntu',
        'Backup taken: <!date^1714874400^{date_short_pretty} at {time}|2024-05-05 02:00:00 UTC>',
        `Reason given by <@${USER}>: “data corrupted by the 14:00 deploy”`,
      ].join('\n'),
    );
    expect(contextTexts(m)).toEqual([`asked by <@${USER}>`]);
    expect(m.text).toBe(`Backup 9 restored onto VS 42 by <@${USER}>`);
    expectWithinSlackLimits(m);
    expectNoDataMarkup(m, { users: [USER] });
  });

  test('sizes are shown in KB, MB or GB as fits', () => {
    const size = (kb: number) =>
      sectionTexts(renderBackupRestored({ backup: backup({ backup_size: kb }), user: USER, reason: null, sandbox: false }))[0]!.split('\n')[1];
    expect(size(512)).toBe('Size: 512 KB');
    expect(size(1536)).toBe('Size: 1.5 MB');
    expect(size(1024 * 1024)).toBe('Size: 1.0 GB');
  });

  test('missing details read "unknown" rather than "null"', () => {
    const m = renderBackupRestored({
      backup: backup({ target_id: null, disk_id: null, backup_size: null, operating_system: null, operating_system_distro: null, built_at: null }),
      user: USER,
      reason: null,
      sandbox: false,
    });
    const text = sectionTexts(m)[0]!;
    expect(text).toBe('*Backup 9* restored onto its server\nSize: _unknown_\nOperating system: _unknown_\nBackup taken: _unknown_');
    expect(visible(m)).not.toMatch(/null|undefined/);
  });

  test('no reason or a blank reason adds no reason line', () => {
    expect(sectionTexts(renderBackupRestored({ backup: backup(), user: USER, reason: '   ', sandbox: false }))[0]).not.toContain('Reason');
    expect(sectionTexts(renderBackupRestored({ backup: backup(), user: USER, reason: null, sandbox: false }))[0]).not.toContain('Reason');
  });

  test('a hostile reason and OS name are escaped', () => {
    const m = renderBackupRestored({
      backup: backup({ operating_system: '<#C1>', built_at: '<https://evil|click>' }),
      user: USER,
      reason: '<!channel> restored & <@U123>',
      sandbox: false,
    });
    expect(sectionTexts(m)[0]).toContain(`Reason given by <@${USER}>: “&lt;!channel&gt; restored &amp; &lt;@U123&gt;”`);
    expectNoDataMarkup(m, { users: [USER] });
  });

  test('a reason with line breaks stays on its one quoted line: it cannot add lines of its own', () => {
    const m = renderBackupRestored({ backup: backup(), user: USER, reason: 'routine\n*Approved by the CTO*\r\nState: verified', sandbox: false });
    const lines = sectionTexts(m)[0]!.split('\n');
    expect(lines).toHaveLength(5);
    expect(lines[4]).toBe(`Reason given by <@${USER}>: “routine *Approved by the CTO* State: verified”`);
  });

  test('a reason of any length keeps the message within Slack limits', () => {
    const m = renderBackupRestored({ backup: backup(), user: USER, reason: '<'.repeat(10_000), sandbox: true });
    expectWithinSlackLimits(m);
    expectNoDataMarkup(m, { users: [USER] });
  });

  test('the sandbox notice appears only on sandbox data', () => {
    expect(visible(renderBackupRestored({ backup: backup(), user: USER, reason: null, sandbox: true }))).toContain(SANDBOX_NOTICE);
    expect(visible(renderBackupRestored({ backup: backup(), user: USER, reason: null, sandbox: false }))).not.toContain(SANDBOX_NOTICE);
  });
});

describe('applied, answer unreadable', () => {
  test('tells the channel the change was applied, that its details are unknown, and who asked', () => {
    const m = renderAppliedUnreadable({ title: 'Add disk', target: { kind: 'vs', id: 42 }, user: USER, status: 201, sandbox: false });
    expect(headerText(m)).toBe('Add disk · VS 42 · applied');
    expect(sectionTexts(m)[0]).toBe(
      'The cloud API accepted the change (HTTP 201), but its answer could not be read, ' +
        'so its details are not known here: check VS 42 before changing it again.',
    );
    expect(contextTexts(m)).toEqual([`asked by <@${USER}>`]);
    expectWithinSlackLimits(m);
    expectNoDataMarkup(m, { users: [USER] });
  });
});
