import { renderDenied, renderError, renderHelp, renderUsage, renderWhoami } from '../../../src/slack/blocks/messages';
import { HELP, parseCommand, READ_COMMANDS } from '../../../src/slack/listeners/commands';
import { expectNoDataMarkup, expectWithinSlackLimits } from './limits';
import { contextTexts, SANDBOX_NOTICE, sectionTexts, visible } from './fixtures';

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
  return renderUsage(cmd);
};

describe('help', () => {
  test('lists every command of docs/product.md', () => {
    const m = renderHelp({ groups: HELP, sandbox: false });
    for (const command of PRODUCT_COMMANDS) expect(shown(visible(m))).toContain(command);
    expectWithinSlackLimits(m);
  });

  test('groups the commands as reads, changes and admin, each command in its group', () => {
    const [, reads, changes, admin] = sectionTexts(renderHelp({ groups: HELP, sandbox: false })).map(shown);
    expect(reads).toMatch(/^\*Reads\*/);
    expect(reads).toContain('/vs firewall <vs_id>');
    expect(reads).toContain('/vs whoami');
    expect(changes).toMatch(/^\*Changes\*/);
    expect(changes).toContain('/vs disk add <vs_id>');
    expect(changes).toContain('/vs backup restore <backup_id>');
    // The read `/vs firewall <vs_id>` is not a change; adding and removing a rule are.
    expect(changes).not.toContain('`/vs firewall <vs_id>`');
    expect(changes).toContain('/vs firewall block <vs_id> <address>');
    expect(admin).toMatch(/^\*Admin\*/);
    for (const command of ['/vs audit [n]', '/vs freeze <reason>', '/vs unfreeze']) expect(admin).toContain(command);
    expect(admin).not.toContain('/vs disk add');
  });

  test('shows the <vs_id> placeholders escaped, so Slack prints them instead of parsing a link', () => {
    const m = renderHelp({ groups: HELP, sandbox: false });
    expect(visible(m)).toContain('`/vs firewall &lt;vs_id&gt;`');
    expectNoDataMarkup(m);
  });

  test('tells the user their role when it is known', () => {
    expect(contextTexts(renderHelp({ groups: HELP, role: 'operator', sandbox: false }))).toContain('Your role: *operator*. `/vs whoami` says what it allows.');
    expect(contextTexts(renderHelp({ groups: HELP, sandbox: false }))).toEqual([]);
  });

  test('carries the sandbox notice only on the sandbox', () => {
    expect(visible(renderHelp({ groups: HELP, sandbox: true }))).toContain(SANDBOX_NOTICE);
    expect(renderHelp({ groups: HELP, sandbox: true }).text).toMatch(/^\[sandbox data\]/);
    expect(visible(renderHelp({ groups: HELP, sandbox: false }))).not.toContain(SANDBOX_NOTICE);
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

  test('gives the one usage line that applies and points to help, not the whole list of commands', () => {
    const m = usageFor('firewal 42');
    expect(shown(contextTexts(m)[0]!)).toBe('Usage: `/vs firewall <vs_id> [<port>[/tcp|/udp] [from <ip>]]` · `/vs help` lists every command.');
    expect(shown(visible(m))).not.toContain('/vs templates');
    expect(shown(visible(m))).not.toContain('/vs disk add');
    expectNoDataMarkup(m);
  });

  test('a command typed wrong is answered with its own usage, said once', () => {
    const m = usageFor('audit 5 vs nope');
    expect(shown(visible(m))).toContain('/vs audit [n] [vs <id>|backup <id>|@person|failed|denied|refused|breakglass]');
    expect(shown(visible(m))).not.toContain('/vs firewall');
    expect(shown(visible(m)).split('/vs audit [n] [vs').length).toBe(2);
  });

  test('with no close command, only help is pointed to', () => {
    expect(contextTexts(usageFor('nope'))).toEqual(['`/vs help` lists every command.']);
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
    reads: READ_COMMANDS,
    mutationChannels: null,
    noChangeRolesConfigured: false,
    sandbox: false,
  };

  test('mentions the user and says their role and every read command it allows, by name', () => {
    const m = renderWhoami(base);
    expect(sectionTexts(m)[0]).toBe(
      '<@U0ALICE01>, your role is *viewer*.\n' +
        'You may read: `/vs server`, `/vs firewall`, `/vs autoscaling`, `/vs disks`, `/vs backups`, `/vs templates`, `/vs oncall`, `/vs watches` ' +
        '(`/vs help` says what each shows).',
    );
    expectNoDataMarkup(m, { users: ['U0ALICE01'] });
    expectWithinSlackLimits(m);
  });

  test('an admin reads the audit trail too, and may change: the changes and the freeze after the reads', () => {
    const text = sectionTexts(renderWhoami({ ...base, role: 'admin', allows: ['read', 'disk_add', 'backup_restore', 'audit_read', 'freeze'] }))[0]!;
    expect(text).toContain(
      '`/vs templates`, `/vs oncall`, `/vs audit`, `/vs watches` (`/vs help` says what each shows).\n' +
        'You may also: add a disk to a server; restore a disk from a backup; ',
    );
    expect(text).toMatch(/freeze and unfreeze every change/);
  });

  test('says nobody can change anything when no admin or operator is configured', () => {
    const m = renderWhoami({ ...base, noChangeRolesConfigured: true });
    expect(sectionTexts(m)[0]).toContain('nobody can change anything');
    expect(m.text).toContain('nobody can change anything');
  });

  test('a user with no role is told how to get one, in words, not a setting', () => {
    const text = sectionTexts(renderWhoami({ ...base, role: 'none', allows: [] }))[0]!;
    expect(text).toContain('You may not use the read commands; ask whoever runs the bot for a role.');
    expect(text).not.toMatch(/VS_[A-Z]/);
  });

  test('names the channels changes are limited to', () => {
    const m = renderWhoami({ ...base, role: 'operator', mutationChannels: ['C0INCIDENT', 'C0OPS'] });
    expect(sectionTexts(m)[0]).toContain('Changes are allowed only in <#C0INCIDENT>, <#C0OPS>.');
    expectNoDataMarkup(m, { users: ['U0ALICE01'], channels: ['C0INCIDENT', 'C0OPS'] });
  });

  test('an empty channel list says changes are allowed nowhere', () => {
    expect(sectionTexts(renderWhoami({ ...base, mutationChannels: [] }))[0]).toContain('Changes are allowed in no channel.');
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
