// Properties over every rendered message: whatever the API or a user sends,
// the message is one Slack accepts (limits) and data never becomes markup.

import fc from 'fast-check';
import { CHANGES } from '../../../src/changes';
import { AutoscalingSlot, Backup, Disk, FirewallRule } from '../../../src/cloud/schemas';
import { followedMessage } from '../../../src/slack/follow-messages';
import { FOLLOW_STATUSES, type FollowSubject } from '../../../src/store';
import { renderAutoscaling } from '../../../src/slack/blocks/autoscaling';
import { DISKS_SHOWN, renderDisks } from '../../../src/slack/blocks/disks';
import { FIREWALL_PAGE_SIZE, renderFirewallRules } from '../../../src/slack/blocks/firewall';
import { parsePageButtonValue } from '../../../src/slack/blocks/pages';
import { renderAuditList, renderAuditPost } from '../../../src/slack/blocks/audit';
import { renderUsage } from '../../../src/slack/blocks/messages';
import type { Rendered } from '../../../src/slack/blocks/mrkdwn';
import { renderTemplates } from '../../../src/slack/blocks/templates';
import { parseCommand } from '../../../src/slack/listeners/commands';
import type { AuditRecord } from '../../../src/store';
import { brokenUnicode, dataMarkup, describeProblems, hostileString, INJECTIONS, messageViolations, slackChannelId, slackUserId } from './limits';

const FETCHED_AT = new Date('2024-05-06T14:03:12Z');

/** Limits, markup and Unicode, reported together so a counterexample says everything that is wrong. */
function problems(m: Rendered, allowed: { users?: string[]; channels?: string[] } = {}): string[] {
  return [
    ...messageViolations(m),
    ...dataMarkup(m, allowed).map((s) => `data markup: ${s}`),
    ...brokenUnicode(m).map((t) => `broken Unicode in ${JSON.stringify(t.slice(0, 60))}`),
  ];
}

function expectClean(m: Rendered, allowed: { users?: string[]; channels?: string[] } = {}): void {
  const found = problems(m, allowed);
  if (found.length) throw new Error(describeProblems(found));
}

/** Any point a followed change can be at: any status, any step the cloud names, any transactions. */
const followedState = fc.record({
  status: fc.constantFrom(...FOLLOW_STATUSES),
  step: fc.option(fc.oneof(fc.constantFrom('build_disk', 'restore_backup'), hostileString(100)), { nil: null }),
  transactionIds: fc.array(fc.nat(), { maxLength: 5 }),
});

/** A followed change's message as it stands; the renderer's own markup (the people, Slack's date token, the panel's link) taken out. */
function followed(
  action: 'disk_add' | 'backup_restore',
  target: string,
  subject: FollowSubject,
  user: string,
  state: { status: (typeof FOLLOW_STATUSES)[number]; step: string | null; transactionIds: number[] },
  sandbox: boolean,
): Rendered {
  const parts = { panelUrl: 'https://panel.example.com', config: { follow: { intervalMs: 5000, maxMs: 3_600_000 } }, sandbox: () => sandbox };
  const m = followedMessage(
    { action, target, subject, requestedBy: user, approvedBy: null, finalState: null, acceptedAtMs: 0, endedAtMs: null, ...state },
    parts,
  )!;
  expect(messageViolations(m)).toEqual([]);
  const own = (text: string) => text.replace(/<!date\^[^>]+>/g, '').replace(/<https:\/\/panel\.example\.com[^>]*>/g, '');
  return { text: own(m.text), blocks: JSON.parse(own(JSON.stringify(m.blocks))) as Rendered['blocks'] };
}

const optionalHostile = (max = 5000) => fc.option(hostileString(max), { nil: null, freq: 4 });
const anyInt = fc.oneof(fc.integer({ min: 0, max: 100_000 }), fc.maxSafeInteger(), fc.integer({ min: -1000, max: 0 }));

/** A rule as the API might send it: hostile strings in every text field. */
const ruleTemplate = fc
  .record({
    network_interface_id: fc.oneof(fc.integer({ min: 1, max: 5 }), anyInt),
    position: anyInt,
    address: optionalHostile(),
    port: optionalHostile(),
    protocol: hostileString(200),
    command: fc.oneof(fc.constantFrom('ACCEPT', 'DROP', 'accept'), hostileString(200)),
    description: optionalHostile(),
    enabled: fc.option(fc.boolean(), { nil: undefined }),
    enable_logging: fc.option(fc.boolean(), { nil: undefined }),
  })
  .map((raw) => FirewallRule.parse({ id: 1, ...raw }));

/**
 * Up to 10,000 rules, built cheaply: a few hostile templates repeated with
 * fresh ids and spread positions and interfaces.
 */
const ruleList = fc
  .tuple(
    fc.oneof(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 10_000 })),
    fc.array(ruleTemplate, { minLength: 1, maxLength: 4 }),
  )
  .map(([size, templates]) =>
    Array.from({ length: size }, (_, i): FirewallRule => {
      const t = templates[i % templates.length]!;
      return { ...t, id: i + 1, position: (t.position + i * 7) % 1000, network_interface_id: t.network_interface_id + (i % 3) };
    }),
  );

describe('every rendered message keeps Slack limits and escapes data', () => {
  test('firewall rules: any list of 0..10,000 hostile rules, any page', () => {
    fc.assert(
      fc.property(ruleList, fc.oneof(fc.integer({ min: -3, max: 600 }), fc.constant(Number.NaN)), fc.boolean(), (rules, page, sandbox) => {
        const m = renderFirewallRules({ vsId: 42, rules, page, fetchedAt: FETCHED_AT, sandbox });
        expectClean(m);
        // only one page of rules is shown, and every button leads to a real page
        const lines = (m.blocks as { type: string; text?: { text: string } }[])
          .filter((b) => b.type === 'section')
          .flatMap((b) => b.text!.text.split('\n').filter((l) => l.startsWith('`#')));
        expect(lines.length).toBeLessThanOrEqual(FIREWALL_PAGE_SIZE);
        const pages = Math.max(1, Math.ceil(rules.length / FIREWALL_PAGE_SIZE));
        for (const block of m.blocks) {
          if (block.type !== 'actions') continue;
          for (const e of block.elements) {
            // Export CSV names the server; Prev and Next the server and a page.
            if ((e as { action_id: string }).action_id === 'firewall_export') {
              expect((e as { value: string }).value).toBe('42');
              continue;
            }
            const target = parsePageButtonValue((e as { value: string }).value);
            expect(target?.vsId).toBe(42);
            expect(target!.page).toBeGreaterThanOrEqual(1);
            expect(target!.page).toBeLessThanOrEqual(pages);
          }
        }
      }),
      { numRuns: 60 },
    );
  });

  test('autoscaling: any mix of slots, placeholders and odd numbers', () => {
    const rawSlot = fc.record({
      id: fc.option(anyInt, { nil: null }),
      resource: fc.constantFrom('memory', 'cpu', 'disk'),
      scale_type: fc.constantFrom('up', 'down'),
      limit_trigger: fc.option(anyInt, { nil: null }),
      for_minutes: fc.option(anyInt, { nil: null }),
      adjust_units: fc.option(anyInt, { nil: null }),
      up_to: fc.option(anyInt, { nil: null }),
      above: fc.option(anyInt, { nil: undefined }),
      add_units: fc.option(anyInt, { nil: undefined }),
    });
    fc.assert(
      fc.property(fc.array(rawSlot, { maxLength: 12 }), fc.maxSafeInteger(), fc.boolean(), (raws, vsId, sandbox) => {
        const slots = raws.map((r) => AutoscalingSlot.parse({ virtual_machine_id: 42, ...r }));
        const m = renderAutoscaling({ vsId: Math.max(1, vsId), slots, sandbox });
        expectClean(m);
        expect(m.text).not.toMatch(/null|undefined|NaN/);
      }),
      { numRuns: 200 },
    );
  });

  test('templates: any catalogue and any filter', () => {
    const row = fc.record({
      label: hostileString(),
      minMemoryMb: anyInt,
      minDiskGb: anyInt,
      virtualization: fc.array(hostileString(50), { maxLength: 4 }),
      license: optionalHostile(),
    });
    fc.assert(
      fc.property(fc.array(row, { maxLength: 120 }), hostileString(), fc.boolean(), (templates, filter, sandbox) => {
        expectClean(renderTemplates({ templates, filter, sandbox }));
      }),
      { numRuns: 60 },
    );
  });

  test('disk added: any disk the API returns', () => {
    const rawDisk = fc.record({
      id: anyInt,
      disk_size: anyInt,
      disk_type: optionalHostile(),
      label: optionalHostile(),
      mount_point: optionalHostile(),
      is_swap: fc.option(fc.boolean(), { nil: null }),
      built: fc.option(fc.constantFrom(true, false, '1', '0', 1, 0), { nil: null }),
      locked: fc.option(fc.constantFrom(true, false, '1', '0'), { nil: null }),
    });
    fc.assert(
      fc.property(rawDisk, slackUserId, fc.maxSafeInteger(), fc.boolean(), followedState, (raw, user, vsId, sandbox, state) => {
        const subject = CHANGES.disk_add.follow.subject(Math.max(1, vsId), { disk_type: 'SSD', disk_size: 20 }, Disk.parse(raw));
        expectClean(followed('disk_add', `vs:${Math.max(1, vsId)}`, subject, user, state, sandbox), { users: [user] });
      }),
      { numRuns: 150 },
    );
  });

  test('disks: any list of 0..3,000 hostile disks, the first of them shown and the rest counted', () => {
    const diskTemplate = fc
      .record({
        disk_size: anyInt,
        disk_type: optionalHostile(),
        label: optionalHostile(),
        mount_point: optionalHostile(),
        primary: fc.option(fc.boolean(), { nil: null }),
        is_swap: fc.option(fc.boolean(), { nil: null }),
        built: fc.option(fc.boolean(), { nil: null }),
        locked: fc.option(fc.boolean(), { nil: null }),
      })
      .map((raw) => Disk.parse({ id: 1, ...raw }));
    const diskList = fc
      .tuple(
        fc.oneof(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 90, max: 110 }), fc.integer({ min: 0, max: 3000 })),
        fc.array(diskTemplate, { minLength: 1, maxLength: 3 }),
      )
      .map(([size, templates]) => Array.from({ length: size }, (_, i) => ({ ...templates[i % templates.length]!, id: i + 1 })));
    fc.assert(
      fc.property(diskList, fc.boolean(), fc.constantFrom(undefined, 'https://panel.example.com'), (disks, sandbox, panelUrl) => {
        const m = renderDisks({ vsId: 42, disks, now: FETCHED_AT.getTime(), sandbox, panelUrl });
        // The panel's link is the renderer's own markup.
        expectClean({ text: m.text, blocks: JSON.parse(JSON.stringify(m.blocks).replace(/<https:\/\/panel\.example\.com[^>]*>/g, '')) as Rendered['blocks'] });
        const lines = m.blocks.flatMap((b) => (b.type === 'section' && b.text ? b.text.text.split('\n').filter((l) => /^`#\d+`/.test(l)) : []));
        expect(lines.length).toBe(Math.min(disks.length, DISKS_SHOWN));
        if (disks.length > DISKS_SHOWN) expect(JSON.stringify(m.blocks)).toContain(`${(disks.length - DISKS_SHOWN).toLocaleString('en')} more disk`);
      }),
      { numRuns: 60 },
    );
  });

  test('backup restored: any backup and any reason', () => {
    const rawBackup = fc.record({
      id: anyInt,
      target_id: fc.option(anyInt, { nil: null }),
      disk_id: fc.option(anyInt, { nil: null }),
      backup_size: fc.option(anyInt, { nil: null }),
      operating_system: optionalHostile(),
      operating_system_distro: optionalHostile(),
      built_at: optionalHostile(),
    });
    fc.assert(
      fc.property(rawBackup, slackUserId, optionalHostile(), fc.boolean(), followedState, (raw, user, reason, sandbox, state) => {
        const subject = CHANGES.backup_restore.follow.subject(9, { backup_id: 9, ...(reason === null ? {} : { reason }) }, Backup.parse(raw));
        expectClean(followed('backup_restore', 'backup:9', subject, user, state, sandbox), { users: [user] });
      }),
      { numRuns: 150 },
    );
  });

  // The acting user and channel come from Slack and the time from our clock; everything else in a record may be odd.
  const auditRecord = fc.record({
    id: fc.nat(),
    at: fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
    userId: slackUserId,
    channelId: fc.option(slackChannelId, { nil: null }),
    action: fc.oneof(fc.constantFrom('disk_add', 'backup_restore'), hostileString(100)) as fc.Arbitrary<AuditRecord['action']>,
    target: hostileString(),
    params: fc.dictionary(hostileString(40), fc.oneof(hostileString(500), fc.integer(), fc.boolean(), fc.constant(null)), { maxKeys: 6 }),
    outcome: fc.oneof(fc.constantFrom('denied', 'invalid', 'failed', 'succeeded'), hostileString(50)) as fc.Arbitrary<AuditRecord['outcome']>,
    apiStatus: fc.option(fc.integer({ min: 100, max: 599 }), { nil: null }),
    durationMs: fc.oneof(fc.nat(), fc.double({ min: 0, max: 1e7, noNaN: true })),
    detail: optionalHostile(),
  });
  const idsOf = (records: AuditRecord[]) => ({ users: records.map((r) => r.userId), channels: records.flatMap((r) => (r.channelId ? [r.channelId] : [])) });

  test('audit list: up to 60 records with hostile content', () => {
    fc.assert(
      fc.property(fc.array(auditRecord, { maxLength: 60 }), (records) => {
        for (const page of [1, 3, 6])
          expectClean(renderAuditList({ records, limit: 60, filter: undefined, page, anchorId: 1, sandbox: false }), idsOf(records));
      }),
      { numRuns: 60 },
    );
  });

  test('audit post: any one record', () => {
    fc.assert(
      fc.property(auditRecord, (record) => {
        expectClean(renderAuditPost(record), idsOf([record]));
      }),
      { numRuns: 200 },
    );
  });

  test('usage: whatever was typed after /vs', () => {
    const typed = fc.oneof(
      hostileString(),
      fc
        .tuple(fc.constantFrom('firewal', 'firewall', 'as', 'disk ad', 'restore', 'audit', 'whoami', 'templates', 'backup restore', 'help'), hostileString(200))
        .map(([w, rest]) => `${w} ${rest}`),
      fc.array(fc.constantFrom(...INJECTIONS, 'firewall', '42', ' ', '\t'), { maxLength: 20 }).map((parts) => parts.join(' ')),
    );
    fc.assert(
      fc.property(typed, (text) => {
        const cmd = parseCommand(text);
        if (cmd.kind !== 'invalid') return;
        expectClean(renderUsage(cmd));
      }),
      { numRuns: 400 },
    );
  });
});
