import fc from 'fast-check';
import { renderUsage } from '../../../../src/slack/blocks/messages';
import { formatIp, parseIp, unmapIpv4 } from '../../../../src/firewall/address';
import { AUDIT_DEFAULT_LIMIT, AUDIT_MAX_LIMIT, parseCommand, type Command } from '../../../../src/slack/listeners/commands';
import { editDistance, findRow, freeText, parseId, tokenize, unknownCommand } from '../../../../src/slack/listeners/commands/grammar';
import { subcommand } from '../../../../src/slack/listeners/commands/subcommand';
import { brokenUnicode, dataMarkup } from '../../blocks/limits';

const invalid = (text: string): Extract<Command, { kind: 'invalid' }> => {
  const cmd = parseCommand(text);
  if (cmd.kind !== 'invalid') throw new Error(`expected "${text}" to be refused, got ${JSON.stringify(cmd)}`);
  return cmd;
};

describe('the /vs grammar of docs/product.md', () => {
  test.each<[string, Command]>([
    ['', { kind: 'help' }],
    ['   ', { kind: 'help' }],
    ['help', { kind: 'help' }],
    ['firewall 42', { kind: 'firewall', vsId: 42 }],
    ['autoscaling 42', { kind: 'autoscaling', vsId: 42 }],
    ['as 42', { kind: 'autoscaling', vsId: 42 }],
    ['templates', { kind: 'templates', filter: '' }],
    ['templates ubuntu', { kind: 'templates', filter: 'ubuntu' }],
    ['templates Windows 2012', { kind: 'templates', filter: 'Windows 2012' }],
    ['disk add 42', { kind: 'disk_add', vsId: 42 }],
    ['backup restore 9', { kind: 'backup_restore', backupId: 9 }],
    ['whoami', { kind: 'whoami' }],
    ['audit', { kind: 'audit', limit: AUDIT_DEFAULT_LIMIT }],
    ['audit 20', { kind: 'audit', limit: 20 }],
  ])('"/vs %s" parses', (text, expected) => {
    expect(parseCommand(text)).toEqual(expected);
  });

  test.each<[string, Command]>([
    ['FIREWALL 42', { kind: 'firewall', vsId: 42 }],
    ['FireWall 42', { kind: 'firewall', vsId: 42 }],
    ['AS 7', { kind: 'autoscaling', vsId: 7 }],
    ['Disk ADD 3', { kind: 'disk_add', vsId: 3 }],
    ['Backup Restore 9', { kind: 'backup_restore', backupId: 9 }],
    ['WhoAmI', { kind: 'whoami' }],
    ['HELP', { kind: 'help' }],
    ['Audit 5', { kind: 'audit', limit: 5 }],
  ])('commands ignore case: "/vs %s"', (text, expected) => {
    expect(parseCommand(text)).toEqual(expected);
  });

  test.each<[string, Command]>(
    [
      ['  firewall   42  ', { kind: 'firewall', vsId: 42 }],
      ['\tdisk \n add\t\t3 ', { kind: 'disk_add', vsId: 3 }],
      ['firewall\u00a042', { kind: 'firewall', vsId: 42 }],
      ['templates   ubuntu    14.04  ', { kind: 'templates', filter: 'ubuntu 14.04' }],
      ['backup  restore  9', { kind: 'backup_restore', backupId: 9 }],
    ].map(([text, expected]) => [JSON.stringify(text), expected] as [string, Command]),
  )('extra whitespace is ignored: %s', (shownText, expected) => {
    const text = JSON.parse(shownText) as string;
    expect(parseCommand(text)).toEqual(expected);
  });

  test('the template filter keeps its case (the catalogue search decides about case)', () => {
    expect(parseCommand('TEMPLATES Ubuntu')).toEqual({ kind: 'templates', filter: 'Ubuntu' });
  });

  test('a template filter over 100 characters is refused with the bare command suggested', () => {
    const cmd = invalid(`templates ${'x'.repeat(101)}`);
    expect(cmd.message).toContain('too long');
    expect(cmd.suggestion).toBe('/vs templates');
    expect(parseCommand(`templates ${'x'.repeat(100)}`)).toEqual({ kind: 'templates', filter: 'x'.repeat(100) });
  });
});

describe('audit count', () => {
  test(`defaults to ${AUDIT_DEFAULT_LIMIT}`, () => {
    expect(parseCommand('audit')).toEqual({ kind: 'audit', limit: 10 });
  });

  test(`accepts 1 to ${AUDIT_MAX_LIMIT}`, () => {
    expect(parseCommand('audit 1')).toEqual({ kind: 'audit', limit: 1 });
    expect(parseCommand(`audit ${AUDIT_MAX_LIMIT}`)).toEqual({ kind: 'audit', limit: AUDIT_MAX_LIMIT });
  });

  test.each([String(AUDIT_MAX_LIMIT + 1), '500', '1000', '99999999999999999999999'])(`caps %p at ${AUDIT_MAX_LIMIT} instead of refusing it`, (n) => {
    expect(parseCommand(`audit ${n}`)).toEqual({ kind: 'audit', limit: AUDIT_MAX_LIMIT });
  });

  test.each(['0', '-1', 'ten', '2.5', '1e1', '#5'])('refuses %p and says what is allowed', (n) => {
    const cmd = invalid(`audit ${n}`);
    expect(cmd.message).toContain(`from 1 to ${AUDIT_MAX_LIMIT}`);
    expect(cmd.suggestion).toBe('/vs audit');
  });

  test('refuses a second number, suggesting the first', () => {
    expect(invalid('audit 5 6').suggestion).toBe('/vs audit 5');
  });
});

describe('audit filter: /vs audit [n] [vs <id>|backup <id>|@person|failed|denied|refused|breakglass]', () => {
  test.each<[string, Command]>([
    ['audit vs 42', { kind: 'audit', limit: 10, filter: { kind: 'vs', id: 42 } }],
    ['audit 20 vs #42', { kind: 'audit', limit: 20, filter: { kind: 'vs', id: 42 } }],
    ['audit backup 9 30', { kind: 'audit', limit: 30, filter: { kind: 'backup', id: 9 } }],
    ['AUDIT 5 FAILED', { kind: 'audit', limit: 5, filter: { kind: 'outcome', outcome: 'failed' } }],
    ['audit denied', { kind: 'audit', limit: 10, filter: { kind: 'outcome', outcome: 'denied' } }],
    ['audit refused 20', { kind: 'audit', limit: 20, filter: { kind: 'outcome', outcome: 'refused' } }],
    ['audit done', { kind: 'audit', limit: 10, filter: { kind: 'outcome', outcome: 'done' } }],
    ['audit running', { kind: 'audit', limit: 10, filter: { kind: 'outcome', outcome: 'running' } }],
    ['audit breakglass 5', { kind: 'audit', limit: 5, filter: { kind: 'breakglass' } }],
    ['audit 500 <@U0BOB>', { kind: 'audit', limit: 50, filter: { kind: 'person', userId: 'U0BOB' } }],
    ['audit <@U0BOB|bob smith> 3', { kind: 'audit', limit: 3, filter: { kind: 'person', userId: 'U0BOB' } }],
    ['audit W0ENTERPRISE1', { kind: 'audit', limit: 10, filter: { kind: 'person', userId: 'W0ENTERPRISE1' } }],
  ])('"/vs %s" parses', (text, expected) => {
    expect(parseCommand(text)).toEqual(expected);
  });

  test('a filter needs its id, and says so with an example', () => {
    const cmd = invalid('audit vs');
    expect(cmd.message).toBe('`vs` needs the server id after it, e.g. `/vs audit vs 42`.');
    expect(cmd.usage).toBe('/vs audit [n] [vs <id>|backup <id>|@person|failed|denied|refused|breakglass]');
    expect(invalid('audit backup nine').message).toBe('`backup` needs the backup id after it; `nine` is not one, e.g. `/vs audit backup 9`.');
  });

  test('@name as typed (no mention Slack made) is refused with how to name the person', () => {
    expect(invalid('audit @bob').message).toContain('type @ and pick the person from the list');
  });

  test('one filter only, suggesting the first', () => {
    const cmd = invalid('audit vs 42 failed');
    expect(cmd.message).toContain('takes one filter; unexpected `failed`');
    expect(cmd.suggestion).toBe('/vs audit vs 42');
  });

  test('a misspelt audit keeps the filter in its suggestion', () => {
    expect(invalid('audti 20 vs 42').suggestion).toBe('/vs audit 20 vs 42');
    expect(invalid('audti denied').suggestion).toBe('/vs audit denied');
  });
});

describe('ids', () => {
  test.each(['0', '-1', '1e3', '0x10', '+5', '4.2', '99999999999999999', '9007199254740992', '٤٢', '４２', '42abc', '4_2', '0000'])(
    '"/vs firewall %s" is refused as not a positive integer, with no command run',
    (id) => {
      const cmd = invalid(`firewall ${id}`);
      expect(cmd.message).toContain('is not a valid server id: ids are positive integers');
    },
  );

  test.each([
    ['firewall', 'server id'],
    ['as', 'server id'],
    ['autoscaling', 'server id'],
    ['disk add', 'server id'],
    ['backup restore', 'backup id'],
  ])('"/vs %s" with no id says it needs a %s and shows an example', (command, what) => {
    const cmd = invalid(command);
    expect(cmd.message).toContain(`needs a ${what}`);
    expect(cmd.message).toMatch(/e\.g\. `\/vs [a-z ]+ (42|9)`/);
  });

  test('a backup id is checked the same way', () => {
    expect(invalid('backup restore -9').message).toContain('is not a valid backup id');
    expect(invalid('backup restore 9.0').message).toContain('is not a valid backup id');
  });

  test('one id too many is refused, suggesting the command with the first id', () => {
    const cmd = invalid('autoscaling 42 43');
    expect(cmd.message).toContain('takes exactly one server id');
    expect(cmd.suggestion).toBe('/vs autoscaling 42');
  });

  test.each([
    ['firewall #42', { kind: 'firewall', vsId: 42 }],
    ['as #7', { kind: 'autoscaling', vsId: 7 }],
    ['disk add #3', { kind: 'disk_add', vsId: 3 }],
    ['backup restore #9', { kind: 'backup_restore', backupId: 9 }],
  ])('a leading # is accepted wherever an id is taken: "/vs %s"', (text, expected) => {
    expect(parseCommand(text)).toEqual(expected);
  });

  test.each(['##42', '#', '#-1', '#0', '4#2', '# 42'])('"/vs firewall %s" is refused: one # and then a positive integer', (id) => {
    expect(parseCommand(`firewall ${id}`).kind).toBe('invalid');
  });

  test('leading zeros and the largest safe integer are read as the number they spell', () => {
    expect(parseCommand('firewall 007')).toEqual({ kind: 'firewall', vsId: 7 });
    expect(parseCommand('firewall 9007199254740991')).toEqual({ kind: 'firewall', vsId: 9007199254740991 });
  });

  test('parseId takes what modal inputs hand over', () => {
    expect(parseId(' 42 ')).toBe(42);
    expect(parseId(42)).toBe(42);
    expect(parseId('')).toBeNull();
    expect(parseId('   ')).toBeNull();
    expect(parseId(undefined)).toBeNull();
    expect(parseId(null)).toBeNull();
    expect(parseId(true)).toBeNull();
    expect(parseId(0)).toBeNull();
    expect(parseId(-3)).toBeNull();
    expect(parseId(4.2)).toBeNull();
    expect(parseId(Number.NaN)).toBeNull();
    expect(parseId(Number.POSITIVE_INFINITY)).toBeNull();
    expect(parseId(2 ** 53)).toBeNull();
  });
});

describe('the port question: /vs firewall <vs_id> <port>[/tcp|/udp] [from <ip>]', () => {
  const question = (text: string) => {
    const cmd = parseCommand(text);
    if (cmd.kind !== 'firewall' || !cmd.question)
      throw new Error(`expected a port question from "${text}", got ${JSON.stringify(cmd, (_, v: unknown) => (typeof v === 'bigint' ? String(v) : v))}`);
    return { vsId: cmd.vsId, port: cmd.question.port, protocol: cmd.question.protocol, source: cmd.question.source && formatIp(cmd.question.source) };
  };

  test.each([
    ['firewall 42 443', { vsId: 42, port: 443, protocol: 'tcp', source: null }],
    ['firewall 42 53/udp', { vsId: 42, port: 53, protocol: 'udp', source: null }],
    ['firewall 42 53/UDP', { vsId: 42, port: 53, protocol: 'udp', source: null }],
    ['firewall 42 22/tcp', { vsId: 42, port: 22, protocol: 'tcp', source: null }],
    ['firewall 42 8443 from 198.51.100.9', { vsId: 42, port: 8443, protocol: 'tcp', source: '198.51.100.9' }],
    ['FIREWALL #42 8443 FROM 198.51.100.9', { vsId: 42, port: 8443, protocol: 'tcp', source: '198.51.100.9' }],
    ['firewall 77 1026 from 2001:DB8:77:0::1', { vsId: 77, port: 1026, protocol: 'tcp', source: '2001:db8:77::1' }],
    // An IPv4-mapped IPv6 address arrives as IPv4: IPv4 rules decide it.
    ['firewall 42 65535/udp from ::ffff:192.0.2.1', { vsId: 42, port: 65535, protocol: 'udp', source: '192.0.2.1' }],
    ['firewall 42 443 from ::ffff:0:c000:201', { vsId: 42, port: 443, protocol: 'tcp', source: '::ffff:0:c000:201' }],
    ['firewall 42 1', { vsId: 42, port: 1, protocol: 'tcp', source: null }],
    ['firewall 42 43', { vsId: 42, port: 43, protocol: 'tcp', source: null }],
  ])('"/vs %s" asks the question', (text, expected) => {
    expect(question(text)).toEqual(expected);
  });

  test.each([
    ['firewall 42 99999', '`99999` is not a port: ports are whole numbers from 1 to 65535'],
    ['firewall 42 0', '`0` is not a port'],
    ['firewall 42 80-90', '`80-90` is not a port'],
    ['firewall 42 https', '`https` is not a port'],
    ['firewall 42 443/icmp', '`icmp` is not a protocol the question takes: write /tcp or /udp'],
    ['firewall 42 443/', 'is not a protocol the question takes'],
    ['firewall 42 443 from 300.1.1.1', '`300.1.1.1` is not an IP address: `from` takes one IPv4 or IPv6 address'],
    ['firewall 42 443 from 10.0.0.0/8', '`from` takes one address, not a block or a range'],
    ['firewall 42 443 from fe80::1%eth0', '`fe80::1%eth0` is not an IP address'],
    ['firewall 42 443 from', '`from` needs one IPv4 or IPv6 address'],
    ['firewall 42 443 to 10.0.0.1', 'Unexpected `to 10.0.0.1` after the port'],
    ['firewall 42 443 from 10.0.0.1 10.0.0.2', 'The question takes one source address'],
  ])('"/vs %s" is refused, naming the accepted forms', (text, said) => {
    const cmd = invalid(text);
    expect(cmd.message).toContain(said);
    expect(cmd.message).toContain('`/vs firewall <vs_id> <port>[/tcp|/udp] [from <ip>]`');
    expect(cmd.message).toContain('`/vs firewall 42 443`');
    expect(cmd.suggestion).toBeUndefined();
  });

  test('a mistyped command keeps a valid question in its suggestion', () => {
    expect(invalid('firewal 42 53/udp from 10.0.0.1').suggestion).toBe('/vs firewall 42 53/udp from 10.0.0.1');
    expect(invalid('firewal 42 99999').suggestion).toBe('/vs firewall 42');
  });

  test('every port from 1 to 65535, with or without a protocol, round-trips', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 65535 }),
        fc.constantFrom('', '/tcp', '/udp', '/TCP'),
        fc.option(fc.oneof(fc.ipV4(), fc.ipV6()), { nil: null }),
        (port, suffix, source) => {
          const q = question(`firewall 42 ${port}${suffix}${source ? ` from ${source}` : ''}`);
          expect(q).toEqual({
            vsId: 42,
            port,
            protocol: suffix.toLowerCase() === '/udp' ? 'udp' : 'tcp',
            source: source && formatIp(unmapIpv4(parseIp(source)!)),
          });
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('did you mean', () => {
  test.each([
    ['firewal 42', '/vs firewall 42'],
    ['firewll 42', '/vs firewall 42'],
    ['fierwall 42', '/vs firewall 42'],
    ['fw 42', '/vs firewall 42'],
    ['disk ad 3', '/vs disk add 3'],
    ['add disk 3', '/vs disk add 3'],
    ['restor 42', '/vs restore 42'],
    ['backup restor 9', '/vs backup restore 9'],
    ['autoscale 42', '/vs autoscaling 42'],
    ['autoscalling 42', '/vs autoscaling 42'],
    ['template ubuntu', '/vs templates ubuntu'],
    ['audti 5', '/vs audit 5'],
    ['who', '/vs whoami'],
    ['hlep', '/vs help'],
    ['firewal abc', '/vs firewall <vs_id>'],
    ['strat 42', '/vs start 42'],
    ['shutdwon 42', '/vs shutdown 42'],
    ['restart 42', '/vs reboot 42'],
    ['kill 42', '/vs stop 42'],
  ])('"/vs %s" suggests "%s"', (text, suggestion) => {
    const cmd = invalid(text);
    expect(cmd.suggestion).toBe(suggestion);
    expect(cmd.message).toMatch(/^Unknown command `/);
  });

  test('a read is never answered with a change (docs/product.md, The `/vs` command): the server card is not a start', () => {
    expect(parseCommand('status 42')).toEqual({ kind: 'server', vsId: 42 });
    expect(parseCommand('server 42')).toEqual({ kind: 'server', vsId: 42 });
    for (const text of ['stats 42', 'state 42', 'stat 42', 'statu 42', 'srever 42']) expect(invalid(text).suggestion).toBe('/vs server 42');
  });

  test.each([
    ['backup 42', '/vs backups 42'],
    ['bakups 42', '/vs backups 42'],
    ['backup', '/vs backups <vs_id>'],
    ['disk 42', '/vs disks 42'],
    ['disk', '/vs disks <vs_id>'],
    ['dsks 42', '/vs disks 42'],
  ])('"/vs %s", typed for a read, is answered with the read %s, never with a change', (text, suggestion) => {
    expect(invalid(text).suggestion).toBe(suggestion);
  });

  test('/vs restore takes a server, /vs backup restore a backup', () => {
    expect(parseCommand('restore 42')).toEqual({ kind: 'restore', vsId: 42 });
    expect(parseCommand('backup restore 9')).toEqual({ kind: 'backup_restore', backupId: 9 });
  });

  test('a change is still suggested where only a change fits what was typed', () => {
    expect(invalid('disk ad 42').suggestion).toBe('/vs disk add 42');
    expect(invalid('backup restor 9').suggestion).toBe('/vs backup restore 9');
  });

  test('only the unknown words are echoed', () => {
    expect(invalid('disk ad 3').message).toBe('Unknown command `disk ad`.');
    expect(invalid('restor 9').message).toBe('Unknown command `restor`.');
  });

  test('nothing close enough: no suggestion, a pointer to help', () => {
    const cmd = invalid('deploy prod');
    expect(cmd.suggestion).toBeUndefined();
    expect(cmd.message).toBe('Unknown command `deploy`. See `/vs help` for what `/vs` can do.');
  });

  test('arguments to a command that takes none are refused with the bare command suggested', () => {
    expect(invalid('whoami please')).toMatchObject({ suggestion: '/vs whoami' });
    expect(invalid('help me')).toMatchObject({ suggestion: '/vs help' });
  });

  test('edit distance counts insertions, deletions, substitutions and adjacent swaps', () => {
    expect(editDistance('', '')).toBe(0);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('firewall', 'firewall')).toBe(0);
    expect(editDistance('firewal', 'firewall')).toBe(1);
    expect(editDistance('fierwall', 'firewall')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('ab', 'ba')).toBe(1);
  });
});

describe('a required free text (the grammar of `/vs freeze <reason>`, whose row comes with approvals)', () => {
  const freeze = subcommand({
    kind: 'freeze',
    words: ['freeze'],
    nicknames: ['frozen'],
    argument: freeText({ what: 'reason', max: 200, required: true }, (reason) => ({ reason })),
    usage: '/vs freeze <reason>',
    example: '/vs freeze deploy in progress',
    help: ['`/vs freeze <reason>`: refuse every change until `/vs unfreeze`'],
    needs: 'everyone',
    run: () => Promise.resolve('succeeded'),
  });
  const read = (text: string) => {
    const tokens = tokenize(text);
    const found = findRow([freeze], tokens);
    return found ? found.row.read(found.args, found.quoted) : unknownCommand([freeze], tokens);
  };

  test('reads the rest of the line as the reason, spacing normalised, case kept', () => {
    expect(read('FREEZE  Deploy in   progress')).toMatchObject({ ok: true, value: { command: { kind: 'freeze', reason: 'Deploy in progress' } } });
  });

  test('refuses a freeze without a reason, showing how to give one', () => {
    expect(read('freeze')).toEqual({ ok: false, message: '`/vs freeze` needs a reason: `/vs freeze <reason>`, e.g. `/vs freeze deploy in progress`.' });
  });

  test('refuses a reason over its length, suggesting the bare command', () => {
    const tooLong = read(`freeze ${'x'.repeat(201)}`);
    expect(tooLong).toMatchObject({ ok: false, suggestion: '/vs freeze' });
    expect(tooLong.ok ? '' : tooLong.message).toContain('The reason is too long (at most 200 characters)');
    expect(read(`freeze ${'x'.repeat(200)}`)).toMatchObject({ ok: true });
  });

  test('a misspelt freeze suggests the command with its reason, or its usage when there is none', () => {
    expect(read('freez deploy')).toEqual({ ok: false, message: 'Unknown command `freez`.', suggestion: '/vs freeze deploy', usage: '/vs freeze <reason>' });
    expect(read('frozen')).toEqual({ ok: false, message: 'Unknown command `frozen`.', suggestion: '/vs freeze <reason>', usage: '/vs freeze <reason>' });
  });
});

describe('properties', () => {
  /** Any text, up to 100 KB, with control characters, odd whitespace and Slack markup in it. */
  const anyText = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 300 }),
    fc
      .array(
        fc.constantFrom(
          'firewall',
          'disk',
          'add',
          'backup',
          'restore',
          'as',
          '42',
          '0',
          '-1',
          '\u0000',
          '\u001b[31m',
          '\r\n',
          '\u2028',
          '\u00a0',
          '\u200b',
          '`',
          '<!channel>',
          '<@U1>',
          '&lt;',
          '😀',
          '٤٢',
        ),
        { maxLength: 30 },
      )
      .map((a) => a.join(' ')),
    fc
      .tuple(fc.string({ unit: 'binary', minLength: 1, maxLength: 8 }), fc.integer({ min: 1, max: 100_000 }))
      .map(([unit, n]) => unit.repeat(Math.ceil(n / unit.length)).slice(0, 100_000)),
    fc
      .tuple(fc.constantFrom('firewall ', 'templates ', 'firewal ', 'disk ad ', ''), fc.integer({ min: 1, max: 100_000 }))
      .map(([head, n]) => head + 'x'.repeat(n)),
    // invisible format characters (dropped from echoes) before an emoji, around the echo's pre-cut
    fc
      .tuple(fc.constantFrom('', 'firewall ', 'audit '), fc.constantFrom('\u200b', '\u200e', '\ufeff'), fc.integer({ min: 150, max: 170 }))
      .map(([head, cf, n]) => `${head}${cf.repeat(n)}😀😀`),
  );

  test('never throws, and always answers a command or a message for the user', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const cmd = parseCommand(text);
        if (cmd.kind === 'invalid') expect(cmd.message.length).toBeGreaterThan(0);
      }),
      { numRuns: 300 },
    );
  });

  test('every positive safe integer id round-trips through every id command', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER })),
        fc.constantFrom('firewall', 'as', 'autoscaling', 'disk add', 'backup restore'),
        (id, command) => {
          const cmd = parseCommand(`${command} ${id}`);
          expect('vsId' in cmd ? cmd.vsId : 'backupId' in cmd ? cmd.backupId : null).toBe(id);
          expect(parseId(String(id))).toBe(id);
          expect(parseId(id)).toBe(id);
        },
      ),
      { numRuns: 300 },
    );
  });

  test('any token that is not plain ASCII digits is refused as an id', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }).filter((s) => !/^\s*#?[0-9]+\s*$/.test(s)),
        (token) => {
          expect(parseId(token)).toBeNull();
        },
      ),
      { numRuns: 300 },
    );
  });

  test('any message echo stays short, one line, and reaches Slack escaped and well-formed', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const cmd = parseCommand(text);
        if (cmd.kind !== 'invalid') return;
        expect(cmd.message.length).toBeLessThanOrEqual(300);
        expect(cmd.message).not.toMatch(/[\n\r\u2028\u2029]/);
        expect((cmd.suggestion ?? '').length).toBeLessThanOrEqual(160);
        const rendered = renderUsage(cmd);
        expect(dataMarkup(rendered)).toEqual([]);
        expect(brokenUnicode(rendered)).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  test('an echo cut inside an emoji after invisible characters never leaves half of it', () => {
    // 159 zero-width spaces are dropped after the pre-cut at 160, which lands inside the emoji.
    for (const text of [`${'\u200b'.repeat(159)}😀`, `firewall ${'\u200b'.repeat(159)}😀`]) {
      const rendered = renderUsage(invalid(text));
      expect(brokenUnicode(rendered)).toEqual([]);
    }
  });

  test('100 KB of input parses to an answer without throwing (its speed is measured by the benchmark, not here)', () => {
    for (const text of ['firewal ' + '9'.repeat(100_000), 'x'.repeat(100_000), `${'a '.repeat(50_000)}`, `templates ${'<'.repeat(100_000)}`]) {
      expect(parseCommand(text)).toEqual(expect.any(Object));
    }
  });
});
