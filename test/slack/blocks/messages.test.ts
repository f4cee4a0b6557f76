import {
  renderAuditPost,
  renderAuditRecords,
  renderDenialSummary,
  renderDenied,
  renderError,
  renderHelp,
  renderUsage,
  renderWhoami,
} from '../../../src/slack/blocks/messages';
import { parseCommand, USAGE_LINES } from '../../../src/slack/listeners/commands';
import { brokenUnicode, expectNoDataMarkup, expectWithinSlackLimits } from './limits';
import { auditRecord, contextTexts, headerText, SANDBOX_NOTICE, sectionTexts, visible } from './fixtures';

/** What Slack shows for escaped mrkdwn. */
const shown = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/** Every command of the table in docs/product.md (The /vs command), as a user would type it. */
const PRODUCT_COMMANDS = [
  '/vs help',
  '/vs firewall <vs_id>',
  '/vs autoscaling <vs_id>',
  '/vs as',
  '/vs templates [text]',
  '/vs disk add <vs_id>',
  '/vs backup restore <backup_id>',
  '/vs whoami',
  '/vs audit [n]',
];

const usageFor = (text: string) => {
  const cmd = parseCommand(text);
  if (cmd.kind !== 'invalid') throw new Error(`expected "${text}" to be invalid, got ${cmd.kind}`);
  return renderUsage({ ...cmd, commands: USAGE_LINES });
};

describe('help', () => {
  test('lists every command of docs/product.md', () => {
    const m = renderHelp({ commands: USAGE_LINES, sandbox: false });
    for (const command of PRODUCT_COMMANDS) expect(shown(visible(m))).toContain(command);
    expectWithinSlackLimits(m);
  });

  test('shows the <vs_id> placeholders escaped, so Slack prints them instead of parsing a link', () => {
    const m = renderHelp({ commands: USAGE_LINES, sandbox: false });
    expect(visible(m)).toContain('`/vs firewall &lt;vs_id&gt;`');
    expectNoDataMarkup(m);
  });

  test('tells the user their role when it is known', () => {
    expect(contextTexts(renderHelp({ commands: USAGE_LINES, role: 'operator', sandbox: false }))).toContain(
      'Your role: *operator*. `/vs whoami` says what it allows.',
    );
    expect(contextTexts(renderHelp({ commands: USAGE_LINES, sandbox: false }))).toEqual([]);
  });

  test('carries the sandbox notice only on the sandbox', () => {
    expect(visible(renderHelp({ commands: USAGE_LINES, sandbox: true }))).toContain(SANDBOX_NOTICE);
    expect(renderHelp({ commands: USAGE_LINES, sandbox: true }).text).toMatch(/^\[sandbox data\]/);
    expect(visible(renderHelp({ commands: USAGE_LINES, sandbox: false }))).not.toContain(SANDBOX_NOTICE);
  });
});

describe('usage after a wrong command', () => {
  test('suggests the closest command: "did you mean /vs firewall 42"', () => {
    const m = usageFor('firewal 42');
    expect(sectionTexts(m)[0]).toBe('Unknown command `firewal`.\nDid you mean `/vs firewall 42`?');
    expect(m.text).toContain('Did you mean /vs firewall 42?');
    expectWithinSlackLimits(m);
  });

  test('without a close command it points to help', () => {
    const m = usageFor('deploy everything');
    expect(sectionTexts(m)[0]).toContain('See `/vs help`');
    expect(sectionTexts(m)[0]).not.toContain('Did you mean');
  });

  test('lists the commands in a context line, placeholders escaped', () => {
    const m = usageFor('nope');
    const commands = contextTexts(m)[0]!;
    for (const command of PRODUCT_COMMANDS.filter((c) => c !== '/vs as')) expect(shown(commands)).toContain(command);
    expectNoDataMarkup(m);
  });

  test('hostile input is echoed escaped and pings nobody', () => {
    for (const text of ['<!channel> 1', 'firewall <@U123>', 'firewal <!here>', 'audit <https://evil|click>', 'whoami &amp; <#C1>']) {
      const m = usageFor(text);
      expectNoDataMarkup(m);
      expectWithinSlackLimits(m);
    }
    expect(sectionTexts(usageFor('<!channel> 1'))[0]).toContain('`&lt;!channel&gt;`');
  });

  test('a suggestion that holds the usage form keeps its placeholder readable', () => {
    const m = usageFor('firewal abc');
    expect(shown(sectionTexts(m)[0]!)).toContain('Did you mean `/vs firewall <vs_id>`?');
    expectNoDataMarkup(m);
  });
});

describe('whoami', () => {
  const base = {
    userId: 'U0ALICE01',
    role: 'viewer' as const,
    allows: ['read' as const],
    mutationChannels: null,
    noChangeRolesConfigured: false,
    sandbox: false,
  };

  test('mentions the user and says their role and what it allows', () => {
    const m = renderWhoami(base);
    expect(sectionTexts(m)[0]).toBe('<@U0ALICE01>, your role is *viewer*.\nYou may: read firewall rules, autoscaling rules and the template catalogue.');
    expectNoDataMarkup(m, { users: ['U0ALICE01'] });
    expectWithinSlackLimits(m);
  });

  test('says nobody can change anything when no admin or operator is configured', () => {
    const m = renderWhoami({ ...base, noChangeRolesConfigured: true });
    expect(sectionTexts(m)[0]).toContain('nobody can change anything');
    expect(m.text).toContain('nobody can change anything');
  });

  test('a user with no role is told how to get one', () => {
    expect(sectionTexts(renderWhoami({ ...base, role: 'none', allows: [] }))[0]).toContain(
      'You may not use the read commands: ask an admin to add you to VS_VIEWERS.',
    );
  });

  test('names the channels changes are limited to', () => {
    const m = renderWhoami({ ...base, role: 'operator', mutationChannels: ['C0INCIDENT', 'C0OPS'] });
    expect(sectionTexts(m)[0]).toContain('Changes are allowed only in <#C0INCIDENT>, <#C0OPS>.');
    expectNoDataMarkup(m, { users: ['U0ALICE01'], channels: ['C0INCIDENT', 'C0OPS'] });
  });

  test('an empty channel list says changes are allowed nowhere', () => {
    expect(sectionTexts(renderWhoami({ ...base, mutationChannels: [] }))[0]).toContain('Changes are allowed in no channel');
  });

  test('hundreds of configured channels still fit', () => {
    const channels = Array.from({ length: 500 }, (_, i) => `C${String(i).padStart(9, '0')}`);
    const m = renderWhoami({ ...base, mutationChannels: channels });
    expect(sectionTexts(m)[0]).toContain('and 480 more');
    expectWithinSlackLimits(m);
  });

  test('an odd user id is shown as text, never as markup', () => {
    const m = renderWhoami({ ...base, userId: '<!channel>' });
    expectNoDataMarkup(m);
  });
});

describe('denied', () => {
  test.each([
    ['disk_add', 'operator', 'Adding a disk needs the operator role.'],
    ['backup_restore', 'admin', 'Restoring a backup needs the admin role.'],
    ['audit_read', 'admin', 'Reading the audit trail needs the admin role.'],
    ['read', 'viewer', 'Reading server details needs the viewer role.'],
  ] as const)('%s names the role it needs', (action, needed, sentence) => {
    const m = renderDenied({ action, role: 'none', needed, denial: null });
    expect(sectionTexts(m)[0]).toBe(`:no_entry: ${sentence}`);
    expect(m.text).toBe(sentence);
    expect(contextTexts(m)[0]).toContain('/vs whoami');
    expectWithinSlackLimits(m);
  });

  test('a channel refusal links the allowed channels and shows anything else escaped', () => {
    const m = renderDenied({
      action: 'disk_add',
      role: 'operator',
      needed: 'operator',
      denial: { code: 'channel', channelId: 'C0OTHER', allowedChannels: ['C0INCIDENT', '<!channel> & <@U1>'] },
    });
    expect(sectionTexts(m)[0]).toContain('<#C0INCIDENT>');
    expect(sectionTexts(m)[0]).toContain('&lt;!channel&gt; &amp; &lt;@U1&gt;');
    expectNoDataMarkup(m, { channels: ['C0INCIDENT'] });
  });
});

describe('errors', () => {
  test('an error quoting the cloud API is escaped and kept short', () => {
    const m = renderError(`The cloud API said: <!channel> ${'x'.repeat(10_000)}`);
    expect(sectionTexts(m)[0]).toMatch(/^:warning: The cloud API said: &lt;!channel&gt; x+…$/);
    expectNoDataMarkup(m);
    expectWithinSlackLimits(m);
  });
});

describe('audit trail', () => {
  test('lists the latest records: outcome, time, user, action, target, API status, duration and channel', () => {
    const m = renderAuditRecords({
      records: [auditRecord(), auditRecord({ id: 2, outcome: 'denied', apiStatus: null, detail: 'needs the operator role', userId: 'U0BOB0001' })],
    });
    expect(headerText(m)).toBe('Audit trail · latest 2');
    const [first, second] = sectionTexts(m)[0]!.split('\n');
    expect(first).toBe(':white_check_mark: `2024-05-06 14:03:12 UTC` <@U0ADMIN01> *disk_add* `vs:42` → succeeded · API 201 · 812 ms · <#C0INCIDENT>');
    expect(second).toBe(
      ':no_entry: `2024-05-06 14:03:12 UTC` <@U0BOB0001> *disk_add* `vs:42` → denied · 812 ms · ' + '<#C0INCIDENT> · needs the operator role',
    );
    expect(m.text).toBe('Latest 2 audit records');
    expectNoDataMarkup(m, { users: ['U0ADMIN01', 'U0BOB0001'], channels: ['C0INCIDENT'] });
  });

  test('an empty trail says nobody has attempted a change', () => {
    const m = renderAuditRecords({ records: [] });
    expect(sectionTexts(m)).toEqual(['No audit records yet: nobody has attempted a change.']);
    expectWithinSlackLimits(m);
  });

  test('the maximum of 50 records with long hostile details stays within limits and escaped', () => {
    const records = Array.from({ length: 50 }, (_, i) => auditRecord({ id: i, detail: `<!channel>\n${'&'.repeat(3000)}`, target: '<@U123>'.repeat(50) }));
    const m = renderAuditRecords({ records });
    expectWithinSlackLimits(m);
    expectNoDataMarkup(m, { users: ['U0ADMIN01'], channels: ['C0INCIDENT'] });
    // every record stays on its own line
    expect(sectionTexts(m).join('\n').split('\n')).toHaveLength(50);
  });

  test('a post to the audit channel shows the record and its parameters', () => {
    const m = renderAuditPost(auditRecord({ params: { disk_type: 'SSD', disk_size: 20, label: '<!channel> `x`' } }));
    expect(sectionTexts(m)[0]).toContain('*disk_add* `vs:42` → succeeded');
    expect(contextTexts(m)[0]).toBe(`params: \`{"disk_type":"SSD","disk_size":20,"label":"&lt;!channel&gt; 'x'"}\``);
    expect(m.text).toBe('disk_add vs:42 by U0ADMIN01: succeeded');
    expectNoDataMarkup(m, { users: ['U0ADMIN01'], channels: ['C0INCIDENT'] });
    expectWithinSlackLimits(m);
  });

  test('an emoji that falls on the parameter cut is dropped whole, never left as half a character', () => {
    // 2,990 invisible C1 controls collapse to one space after the cut at 3,001 characters, which lands inside the emoji.
    const m = renderAuditPost(auditRecord({ params: { label: `${'\u0085'.repeat(2990)}😀` } }));
    expect(brokenUnicode(m)).toEqual([]);
  });

  test('parameters that cannot be serialised do not break the post', () => {
    const params: Record<string, unknown> = { n: BigInt(1) };
    params.self = params;
    const m = renderAuditPost(auditRecord({ params }));
    expect(contextTexts(m)[0]).toContain('parameters could not be shown');
  });
});

describe('denial summary (audit channel)', () => {
  test("one user's denials in one post: the count, each action and target with how often, the user mentioned", () => {
    const records = [
      auditRecord({ outcome: 'denied', userId: 'U0MALLORY', target: 'vs:42', at: '2026-01-01T10:00:05.000Z' }),
      auditRecord({ outcome: 'denied', userId: 'U0MALLORY', target: 'vs:42', at: '2026-01-01T10:00:20.000Z' }),
      auditRecord({ outcome: 'denied', userId: 'U0MALLORY', action: 'backup_restore', target: 'backup:9', at: '2026-01-01T10:00:50.000Z' }),
    ];
    const m = renderDenialSummary('U0MALLORY', records);
    expect(sectionTexts(m)[0]).toContain('<@U0MALLORY> was denied *3 times*');
    expect(sectionTexts(m)[0]).toContain('`disk_add vs:42` ×2');
    expect(sectionTexts(m)[0]).toContain('`backup_restore backup:9`');
    expect(sectionTexts(m)[0]).toContain('`2026-01-01 10:00:05 UTC` to `2026-01-01 10:00:50 UTC`');
    expectNoDataMarkup(m, { users: ['U0MALLORY'] });
    expectWithinSlackLimits(m);
  });

  test('hundreds of distinct targets stay within Slack limits', () => {
    const records = Array.from({ length: 300 }, (_, i) => auditRecord({ outcome: 'denied', userId: 'U0MALLORY', target: `vs:${i + 1}` }));
    const m = renderDenialSummary('U0MALLORY', records);
    expect(sectionTexts(m)[0]).toContain('and 280 more');
    expectWithinSlackLimits(m);
  });
});
