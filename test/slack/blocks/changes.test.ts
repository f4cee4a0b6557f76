import { CHANGES } from '../../../src/changes';
import type { FollowedChange, FollowStatus } from '../../../src/store';
import { renderAppliedUnreadable } from '../../../src/slack/blocks/changes';
import { followedMessage } from '../../../src/slack/follow-messages';
import { renderFollowEnded } from '../../../src/slack/blocks/followed';
import { DISK_ADDED_WORDS } from '../../../src/slack/blocks/changes';
import type { Rendered } from '../../../src/slack/blocks/mrkdwn';
import { dataMarkup, expectNoDataMarkup, expectWithinSlackLimits } from './limits';
import { backup, blocksOf, contextTexts, disk, headerText, SANDBOX_NOTICE, sectionTexts, visible } from './fixtures';

// A change the cloud accepted, as its message shows it while it is followed (docs/product.md, Following a change to
// its end): what was asked, from the facts the change's row kept of the cloud's answer; where it stands; who asked.

const USER = 'U0OPERATOR';
const ADMIN = 'U0ADMIN';
const PANEL = 'https://panel.example.com';
const ACCEPTED_MS = Date.parse('2024-05-06T14:03:12Z');
const parts = { panelUrl: PANEL, config: { follow: { intervalMs: 5000, maxMs: 60 * 60_000 } }, sandbox: () => false };

/** A followed disk add or restore as the door hands it over, built from a disk or backup the API returned. */
function addedDisk(raw: Record<string, unknown> = {}, o: Partial<FollowedChange> = {}) {
  const subject = CHANGES.disk_add.follow.subject(42, { disk_type: 'SSD', disk_size: 20 }, disk(raw));
  return view('disk_add', 'vs:42', subject, o);
}
function restored(raw: Record<string, unknown> = {}, reason?: string, o: Partial<FollowedChange> = {}) {
  const subject = CHANGES.backup_restore.follow.subject(9, { backup_id: 9, ...(reason === undefined ? {} : { reason }) }, backup(raw));
  return view('backup_restore', 'backup:9', subject, o);
}
function view(action: FollowedChange['action'], target: string, subject: FollowedChange['subject'], o: Partial<FollowedChange>) {
  return {
    action,
    target,
    subject,
    requestedBy: USER,
    approvedBy: null,
    status: 'scheduled' as FollowStatus,
    step: null,
    transactionIds: [],
    finalState: null,
    acceptedAtMs: ACCEPTED_MS,
    endedAtMs: null,
    ...o,
  };
}
const render = (v: ReturnType<typeof view>, followed = true): Rendered => followedMessage(v, parts, followed)!;
const statusLine = (m: Rendered) => sectionTexts(m)[1]!;
/** Markup that did not come from the renderer: the people's mentions, Slack's date token and the panel's link are its own. */
const foreignMarkup = (m: Rendered, users: string[]) =>
  dataMarkup({ text: m.text, blocks: blocksOf(m) }, { users }).filter((found) => !found.includes('<!date^') && !found.includes(`<${PANEL}`));

describe('a disk added, followed', () => {
  test('names the disk, server, size, type, label and mount point; says scheduled, never done; who asked and since when', () => {
    const m = render(addedDisk());
    expect(headerText(m)).toBe('Add disk · VS 42');
    expect(sectionTexts(m)[0]).toBe('*Disk 77* on VS 42: 20 GB SSD\nLabel: data\nMount point: `/mnt/data`');
    expect(statusLine(m)).toBe(':clock4: *Scheduled*: the cloud accepted the change and has not started it yet; this message follows it to its end.');
    expect(contextTexts(m)[0]).toMatch(new RegExp(`^asked by <@${USER}> · accepted <!date\\^1715004192\\^`));
    expect(m.text).toBe('Add disk · VS 42: Scheduled: the cloud accepted the change and has not started it yet; this message follows it to its end.');
    expect(visible(m)).not.toMatch(/\bdone\b/i);
    expectWithinSlackLimits(m);
    expect(foreignMarkup(m, [USER])).toEqual([]);
  });

  test('without a follower it promises no updates', () => {
    expect(statusLine(render(addedDisk(), false))).toBe(':clock4: *Scheduled*: the cloud accepted the change and has not started it yet.');
  });

  test('a swap disk without a mount point and a disk without a label say so; a hostile label or mount point is escaped', () => {
    expect(sectionTexts(render(addedDisk({ label: null, mount_point: '', is_swap: true })))[0]).toBe(
      '*Disk 77* on VS 42: 20 GB SSD\nLabel: _none_\nMount point: _swap_',
    );
    const hostile = render(addedDisk({ label: '<!channel> & friends', mount_point: '/mnt/<@U123>' }));
    expect(sectionTexts(hostile)[0]).toContain('Label: &lt;!channel&gt; &amp; friends');
    expect(foreignMarkup(hostile, [USER])).toEqual([]);
  });

  test('running says the step in words, with its sign (not scheduled’s); done says what the disk shows as read again; the transactions are named', () => {
    const running = render(addedDisk({}, { status: 'running', step: 'build_disk', transactionIds: [5012] }));
    expect(statusLine(running)).toBe(':arrows_counterclockwise: *Running* · building disk 77…');
    expect(contextTexts(running)[0]).toMatch(/ · transaction 5012$/);
    const pending = render(addedDisk({}, { status: 'pending', step: 'format_disk', transactionIds: [5012, 5013] }));
    expect(statusLine(pending)).toBe(':clock4: *Scheduled* · formatting disk 77 is waiting to start.');
    expect(contextTexts(pending)[0]).toMatch(/ · transactions 5012, 5013$/);
    const done = render(addedDisk({}, { status: 'complete', step: 'build_disk', transactionIds: [5012], finalState: { built: true, locked: false } }));
    expect(statusLine(done)).toBe(':white_check_mark: *Done* · disk 77 is built and unlocked.');
    expect(DISK_ADDED_WORDS.done({ diskId: 77, vsId: 42 }, { missing: true })).toBe('disk 77 is no longer listed on VS 42');
  });

  test("failed in the cloud says why (the step in words), what now (the server read again) and what was left, and links the server's transactions", () => {
    const state = { serverBooted: true, serverRecovery: false, serverLocked: false, built: false, locked: false };
    const failed = render(addedDisk({}, { status: 'failed', step: 'build_disk', transactionIds: [5012], finalState: state }));
    expect(statusLine(failed)).toBe(
      ':x: *Failed* in the cloud: building disk 77 failed. VS 42 is on and unlocked. ' +
        'Disk 77 (20 GB) exists but is not built: remove it in the control panel. ' +
        `Its transactions in the control panel say why: <${PANEL}/virtual_machines/42/transactions|transactions of VS 42>.`,
    );
    expect(failed.text).toBe(
      'Add disk · VS 42: Failed in the cloud: building disk 77 failed. VS 42 is on and unlocked. ' +
        'Disk 77 (20 GB) exists but is not built: remove it in the control panel.',
    );
    expect(visible(failed)).not.toContain(':white_check_mark:');
    // What the final read could not tell, it says so; a disk that went away left nothing.
    expect(statusLine(render(addedDisk({}, { status: 'failed', step: 'build_disk', finalState: {} })))).toContain(
      'VS 42 could not be read again: check it in the control panel. Disk 77 (20 GB) may have been left on VS 42: check its disks (`/vs disks 42`).',
    );
    const gone = render(addedDisk({}, { status: 'failed', step: 'build_disk', finalState: { serverBooted: false, serverLocked: true, missing: true } }));
    expect(statusLine(gone)).toContain('VS 42 is off and still locked by a transaction. Nothing was left: disk 77 (20 GB) is no longer listed on VS 42.');
    const odd = render(addedDisk({}, { status: 'cancelled', step: 'resize_<!here>', transactionIds: [5012], finalState: state }));
    expect(statusLine(odd)).toMatch(/^:black_square_for_stop: \*Cancelled\* in the cloud: `resize_&lt;!here&gt;` was cancelled\. VS 42 is on and unlocked\. /);
    expect(foreignMarkup(odd, [USER])).toEqual([]);
  });

  test('past the limit: unknown, no longer followed, the server as read then, and where to look', () => {
    const m = render(addedDisk({}, { status: 'unknown', step: 'build_disk', transactionIds: [5012], finalState: { serverBooted: true, serverLocked: true } }));
    expect(statusLine(m)).toBe(
      ':question: *Unknown*: still running after 60 minutes, no longer followed. VS 42 is on and still locked by a transaction. ' +
        'Disk 77 (20 GB) may have been left on VS 42: check its disks (`/vs disks 42`). ' +
        `Its transactions in the control panel say why: <${PANEL}/virtual_machines/42/transactions|transactions of VS 42>.`,
    );
  });

  test('the sandbox notice appears only on sandbox data', () => {
    expect(visible(followedMessage(addedDisk(), { ...parts, sandbox: () => true })!)).toContain(SANDBOX_NOTICE);
    expect(visible(render(addedDisk()))).not.toContain(SANDBOX_NOTICE);
  });
});

describe('a backup restored, followed', () => {
  test('shows the target server, disk, size, operating system, when the backup was taken and the reason; approved by whom', () => {
    const m = render(restored({}, 'data corrupted by the 14:00 deploy', { approvedBy: ADMIN }));
    expect(headerText(m)).toBe('Restore backup · Backup 9');
    expect(sectionTexts(m)[0]).toBe(
      [
        '*Restore of backup 9* onto VS 42, disk 77',
        'Size: 2.4 GB',
        'Operating system: linux / ubuntu',
        'Backup taken: <!date^1714874400^{date_short_pretty} at {time}|2024-05-05 02:00:00 UTC>',
        // What it overwrites and loses, as its form and approval request said it, counted to when it was accepted.
        'Restoring backup 9 overwrites disk 77 of VS 42: everything written to disk 77 since ' +
          '<!date^1714874400^{date_short_pretty} at {time}|2024-05-05 02:00:00 UTC>, 36 hours ago, is lost (2.4 GB, type unknown).',
        `Reason given by <@${USER}>: “data corrupted by the 14:00 deploy”`,
      ].join('\n'),
    );
    expect(contextTexts(m)[0]).toMatch(new RegExp(`^asked by <@${USER}> · approved by <@${ADMIN}> · accepted`));
    expectWithinSlackLimits(m);
    expect(foreignMarkup(m, [USER, ADMIN])).toEqual([]);
  });

  test('sizes are shown in kB, MB or GB as fits, the type in what it loses; missing details read "unknown"; a blank reason adds no line', () => {
    const size = (kb: number) => sectionTexts(render(restored({ backup_size: kb })))[0]!.split('\n')[1];
    expect(size(512)).toBe('Size: 512 kB');
    expect(size(1536)).toBe('Size: 1.5 MB');
    expect(size(1024 * 1024)).toBe('Size: 1 GB');
    expect(sectionTexts(render(restored({ backup_type: 'incremental' })))[0]!.split('\n')[4]).toMatch(/ is lost \(2\.4 GB, incremental\)\.$/);
    const bare = render(
      restored({ target_id: null, disk_id: null, backup_size: null, operating_system: null, operating_system_distro: null, built_at: null }, '  '),
    );
    expect(sectionTexts(bare)[0]).toBe(
      '*Restore of backup 9* onto its server\nSize: _unknown_\nOperating system: _unknown_\nBackup taken: _unknown_\n' +
        "Restoring backup 9 overwrites its disk (the cloud's answer does not say of which server): everything written to its disk since the " +
        'backup was taken (the cloud does not say when) is lost (size unknown, type unknown).',
    );
    expect(visible(bare)).not.toMatch(/null|undefined/);
  });

  test('a hostile reason stays on its one quoted line, escaped; a message of any reason keeps within Slack limits', () => {
    const m = render(restored({ operating_system: '<#C1>' }, '<!channel> restored & <@U123>\n*Approved by the CTO*'));
    expect(
      sectionTexts(m)[0]!
        .split('\n')
        .find((line) => line.startsWith('Reason given by')),
    ).toBe(`Reason given by <@${USER}>: “&lt;!channel&gt; restored &amp; &lt;@U123&gt; *Approved by the CTO*”`);
    expect(foreignMarkup(m, [USER])).toEqual([]);
    expectWithinSlackLimits(render(restored({}, '<'.repeat(10_000))));
  });

  test('done: the backup restored onto its disk, the disk unlocked; the failed step in words and the server page', () => {
    expect(
      statusLine(
        render(restored({}, undefined, { status: 'complete', step: 'restore_incremental_backup', finalState: { backupLocked: false, diskLocked: false } })),
      ),
    ).toBe(':white_check_mark: *Done* · backup 9 is restored onto disk 77, and the disk is unlocked.');
    expect(
      statusLine(
        render(restored({}, undefined, { status: 'failed', step: 'restore_incremental_backup', finalState: { serverBooted: true, serverLocked: false } })),
      ),
    ).toBe(
      ':x: *Failed* in the cloud: restoring backup 9 failed. VS 42 is on and unlocked. Disk 77 of VS 42 may be partly overwritten: check it before ' +
        'using it; backup 9 itself is unchanged. ' +
        `Its transactions in the control panel say why: <${PANEL}/virtual_machines/42/transactions|transactions of VS 42>.`,
    );
    // A disk's backup: the answer does not say which server, so the panel itself.
    const onDisk = restored({ target_type: 'Disk', target_id: 77 }, undefined, { status: 'failed', step: 'restore_backup' });
    expect(statusLine(render(onDisk))).toContain(`<${PANEL}|the control panel>`);
  });
});

describe('the reply in its thread when it ends', () => {
  test('mentions who asked and who approved, once each, with the outcome', () => {
    const r = { title: 'Add disk', targetTitle: 'VS 42', words: DISK_ADDED_WORDS, panelUrl: PANEL, maxMinutes: 60, followed: true, sandbox: false };
    const done = renderFollowEnded(addedDisk({}, { status: 'complete', approvedBy: ADMIN, finalState: { built: true, locked: false } }), r);
    expect(sectionTexts(done)).toEqual([`<@${USER}> <@${ADMIN}> :white_check_mark: Add disk · VS 42: *Done* · disk 77 is built and unlocked.`]);
    const own = renderFollowEnded(addedDisk({}, { status: 'failed', step: 'build_disk', approvedBy: null }), r);
    expect(sectionTexts(own)[0]).toMatch(new RegExp(`^<@${USER}> :x: Add disk · VS 42: \\*Failed\\* in the cloud: building disk 77 failed\\.`));
    expectNoDataMarkup({ text: own.text, blocks: [] });
  });
});

describe('applied, answer unreadable', () => {
  test('tells the channel its outcome is unknown (never ✅): the change was accepted, its details are not known, and who asked', () => {
    const m = renderAppliedUnreadable({ title: 'Add disk', target: { kind: 'vs', id: 42 }, user: USER, status: 201, sandbox: false });
    expect(headerText(m)).toBe('Add disk · VS 42');
    expect(sectionTexts(m)[0]).toBe(
      ':question: *Unknown*: The cloud API accepted the change (HTTP 201), but its answer could not be read, ' +
        'so its details are not known here: check VS 42 before changing it again.',
    );
    expect(contextTexts(m)).toEqual([`asked by <@${USER}>`]);
    expectWithinSlackLimits(m);
    expectNoDataMarkup(m, { users: [USER] });
  });
});
