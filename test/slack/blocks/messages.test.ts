import type { KnownBlock } from '@slack/types';
import fc from 'fast-check';
import type { Backup, Disk } from '../../../src/cloud/schemas';
import { renderBackupRestored, renderDiskAdded } from '../../../src/slack/blocks/changes';
import { renderAuditPost, renderAuditRecords, renderDenied, renderError, renderHelp, renderUsage, renderWhoami } from '../../../src/slack/blocks/messages';
import { parseCommand } from '../../../src/slack/command';
import type { AuditRecord } from '../../../src/store/audit-store';
import { allTexts, expectSlackSafe, hostileText } from './slack-limits';

const visible = (blocks: KnownBlock[]) => allTexts(blocks).join('\n');

const disk: Disk = { id: 501, disk_size: 20, disk_type: 'SSD', label: 'data <disk> & more', mount_point: '/mnt/data', built: false, locked: true, is_swap: false };
const backup: Backup = { id: 9, target_id: 42, target_type: 'VirtualMachine', disk_id: 101, backup_size: 5_242_880, operating_system: 'Linux', operating_system_distro: 'ubuntu', built_at: '2026-09-12T02:00:00+00:00' };
const record: AuditRecord = {
  id: 7,
  at: '2026-11-23T10:00:00.000Z',
  userId: 'UOPER',
  channelId: 'CINCIDENT',
  action: 'disk_add',
  target: 'vs:42',
  params: { disk_type: 'SSD', disk_size: 20, label: '<!channel> `x`' },
  outcome: 'succeeded',
  apiStatus: 201,
  durationMs: 412,
  detail: null,
};

describe('renderDiskAdded', () => {
  test('names the disk, size, type, label, mount point, that it is being built, and who asked', () => {
    const m = renderDiskAdded({ vsId: 42, disk, user: 'UOPER', sandbox: false });
    const text = visible(m.blocks);
    expect(text).toContain('Disk 501');
    expect(text).toContain('VS 42');
    expect(text).toMatch(/20 GB SSD/);
    expect(text).toContain('data &lt;disk&gt; &amp; more');
    expect(text).toContain('`/mnt/data`');
    expect(text).toMatch(/being built \(locked/);
    expect(text).toContain('<@UOPER>');
    expectSlackSafe(m);
  });

  test('a built swap disk without a label says so', () => {
    const text = visible(renderDiskAdded({ vsId: 42, disk: { id: 2, disk_size: 4, is_swap: true, built: true, locked: false }, user: 'UOPER', sandbox: false }).blocks);
    expect(text).toMatch(/State: built/);
    expect(text).toMatch(/_swap_/);
    expect(text).toMatch(/Label: _none_/);
  });

  test('the sandbox notice appears only on the sandbox', () => {
    expect(visible(renderDiskAdded({ vsId: 42, disk, user: 'UOPER', sandbox: true }).blocks)).toMatch(/sandbox data/);
    expect(visible(renderDiskAdded({ vsId: 42, disk, user: 'UOPER', sandbox: false }).blocks)).not.toMatch(/sandbox/);
  });
});

describe('renderBackupRestored', () => {
  test('names target server, disk, size, operating system, built_at, who asked and why', () => {
    const m = renderBackupRestored({ backup, user: 'UADMIN', reason: 'corrupt <table> & more', sandbox: false });
    const text = visible(m.blocks);
    expect(text).toContain('VS 42');
    expect(text).toContain('disk 101');
    expect(text).toMatch(/5\.0 GB/);
    expect(text).toContain('Linux / ubuntu');
    expect(text).toContain('2026-09-12T02:00:00+00:00');
    expect(text).toContain('<@UADMIN>');
    expect(text).toContain('Reason: corrupt &lt;table&gt; &amp; more');
    expectSlackSafe(m);
  });

  test('no reason, no reason line; unknown fields say unknown', () => {
    const text = visible(renderBackupRestored({ backup: { id: 3 }, user: 'UADMIN', reason: null, sandbox: true }).blocks);
    expect(text).not.toMatch(/Reason/);
    expect(text).toMatch(/unknown/);
    expect(text).toMatch(/sandbox data/);
  });
});

describe('help, usage, errors, denials', () => {
  test('help lists every command of PRODUCT.md', () => {
    const text = visible(renderHelp({ sandbox: false }).blocks);
    for (const command of ['/vs firewall <vs_id>', '/vs autoscaling <vs_id>', '/vs as', '/vs templates [text]', '/vs disk add <vs_id>', '/vs backup restore <backup_id>', '/vs whoami', '/vs audit [n]', '/vs help']) {
      expect(text).toContain(command.replace('<', '&lt;').replace('>', '&gt;'));
    }
    expectSlackSafe(renderHelp({ sandbox: false }));
    expect(visible(renderHelp({ sandbox: true }).blocks)).toMatch(/sandbox data/);
    expect(visible(renderHelp({ role: 'operator', sandbox: false }).blocks)).toMatch(/Your role: \*operator\*/);
  });

  test('usage shows the message and "did you mean"', () => {
    const m = renderUsage({ message: 'Unknown command `firewal`.', suggestion: '/vs firewall 42' });
    expect(visible(m.blocks)).toContain('Did you mean `/vs firewall 42`?');
    expect(m.text).toContain('/vs firewall 42');
  });

  test('usage of hostile input pings nobody', () => {
    const c = parseCommand('<!channel> <@U1> <https://evil|x>');
    if (c.kind !== 'invalid') throw new Error('expected invalid');
    const m = renderUsage(c);
    expect(visible(m.blocks) + m.text).not.toMatch(/<!|<@|<#|<http/);
    expectSlackSafe(m);
  });

  test('an error is a single section, escaped, keeping our channel links', () => {
    const m = renderError('VS 42 was not found: <!here> & <#CINCIDENT>');
    expect(m.blocks).toHaveLength(1);
    expect(m.blocks[0]!.type).toBe('section');
    expect(visible(m.blocks)).toContain('VS 42 was not found: &lt;!here&gt; &amp; <#CINCIDENT>');
  });

  test('a denial names the role needed', () => {
    const text = visible(renderDenied({ action: 'backup_restore', needed: 'admin', reason: null }).blocks);
    expect(text).toMatch(/Restoring a backup needs the admin role/);
    expect(visible(renderDenied({ action: 'disk_add', needed: 'operator', reason: 'Changes are only allowed in <#CINCIDENT>; this is not one of them.' }).blocks)).toContain('<#CINCIDENT>');
  });
});

describe('renderWhoami', () => {
  test('with no admin or operator configured it says plainly that nobody can change anything', () => {
    const m = renderWhoami({ userId: 'UANY', role: 'viewer', allows: ['read firewall rules'], mutationChannels: null, noChangeRolesConfigured: true, sandbox: false });
    const text = visible(m.blocks);
    expect(text).toContain('<@UANY>, your role is *viewer*');
    expect(text).toMatch(/nobody can change anything/);
    expect(m.text).toMatch(/nobody/);
  });

  test('an operator limited to channels sees them as links', () => {
    const text = visible(renderWhoami({ userId: 'UOPER', role: 'operator', allows: ['add a disk to a server (only in <#CINC>)'], mutationChannels: ['CINC', 'not-an-id<!here>'], noChangeRolesConfigured: false, sandbox: true }).blocks);
    expect(text).toContain('add a disk to a server (only in <#CINC>)');
    expect(text).toContain('Changes are allowed only in <#CINC>');
    expect(text).not.toContain('<!here>');
    expect(text).not.toMatch(/nobody/);
    expect(text).toMatch(/sandbox data/);
  });

  test('no role: says how to get one', () => {
    expect(visible(renderWhoami({ userId: 'UX', role: 'none', allows: [], mutationChannels: null, noChangeRolesConfigured: false, sandbox: false }).blocks)).toMatch(/your role is \*none\*[\s\S]*VS_VIEWERS/);
  });
});

describe('audit', () => {
  test('records: one line each, newest as given, with outcome, API status and duration', () => {
    const m = renderAuditRecords({ records: [record, { ...record, id: 6, outcome: 'denied', apiStatus: null, detail: 'needs <admin>' }] });
    const text = visible(m.blocks);
    expect(text).toMatch(/latest 2/);
    expect(text).toMatch(/<@UOPER> \*disk_add\* `vs:42` → succeeded · API 201 · 412 ms · <#CINCIDENT>/);
    expect(text).toContain('needs &lt;admin&gt;');
    expectSlackSafe(m);
  });

  test('no records says so', () => {
    expect(visible(renderAuditRecords({ records: [] }).blocks)).toMatch(/No audit records yet/);
  });

  test('the audit-channel post has who, what, target, outcome, status, duration and compact escaped params', () => {
    const m = renderAuditPost(record);
    const text = visible(m.blocks);
    expect(text).toContain('<@UOPER>');
    expect(text).toContain('disk_add');
    expect(text).toContain('vs:42');
    expect(text).toContain('API 201');
    expect(text).toContain('412 ms');
    expect(text).toContain('"disk_size":20');
    expect(text).toContain('&lt;!channel&gt;');
    expectSlackSafe(m);
  });
});

describe('for any data', () => {
  const anyRecord = fc.record({
    id: fc.nat(),
    at: hostileText,
    userId: fc.oneof(fc.constantFrom('UOPER', 'W123'), hostileText),
    channelId: fc.option(fc.oneof(fc.constant('CINC'), hostileText), { nil: null }),
    action: fc.constantFrom<AuditRecord['action']>('disk_add', 'backup_restore'),
    target: hostileText,
    params: fc.dictionary(hostileText, fc.oneof(hostileText, fc.integer(), fc.boolean()), { maxKeys: 5 }),
    outcome: fc.constantFrom<AuditRecord['outcome']>('denied', 'invalid', 'failed', 'succeeded'),
    apiStatus: fc.option(fc.integer({ min: 100, max: 599 }), { nil: null }),
    durationMs: fc.double({ min: 0, max: 1e7, noNaN: true }),
    detail: fc.option(hostileText, { nil: null }),
  });

  test('audit records and posts keep Slack limits and let no markup through', () => {
    fc.assert(
      fc.property(fc.array(anyRecord, { maxLength: 50 }), (records) => {
        expectSlackSafe(renderAuditRecords({ records }));
        for (const r of records.slice(0, 3)) expectSlackSafe(renderAuditPost(r));
      }),
      { numRuns: 40 },
    );
  });

  test('results of changes keep Slack limits and let no markup through', () => {
    fc.assert(
      fc.property(hostileText, hostileText, hostileText, hostileText, fc.option(hostileText, { nil: null }), fc.boolean(), fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), (label, mount, os, user, reason, sandbox, id) => {
        expectSlackSafe(renderDiskAdded({ vsId: id, disk: { ...disk, id, label, mount_point: mount, disk_type: os, disk_size: id }, user, sandbox }));
        expectSlackSafe(renderBackupRestored({ backup: { ...backup, id, operating_system: os, operating_system_distro: label, built_at: mount, target_type: label }, user, reason, sandbox }));
      }),
      { numRuns: 100 },
    );
  });

  test('errors, denials, usage and whoami keep Slack limits and let no markup through', () => {
    fc.assert(
      fc.property(hostileText, fc.array(hostileText, { maxLength: 5 }), fc.option(fc.array(hostileText, { maxLength: 30 }), { nil: null }), fc.boolean(), (text, allows, channels, flag) => {
        expectSlackSafe(renderError(text));
        expectSlackSafe(renderDenied({ action: 'disk_add', needed: 'operator', reason: flag ? text : null }));
        const c = parseCommand(text);
        if (c.kind === 'invalid') expectSlackSafe(renderUsage(c));
        expectSlackSafe(renderUsage({ message: text, suggestion: flag ? text : undefined }));
        expectSlackSafe(renderWhoami({ userId: text, role: 'viewer', allows, mutationChannels: channels, noChangeRolesConfigured: flag, sandbox: flag }));
      }),
      { numRuns: 150 },
    );
  });
});
