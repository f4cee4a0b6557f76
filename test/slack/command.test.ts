import fc from 'fast-check';
import { AUDIT_DEFAULT_LIMIT, editDistance, parseCommand, parseId, type Command } from '../../src/slack/command';

const invalid = (c: Command) => {
  expect(c.kind).toBe('invalid');
  return c as Extract<Command, { kind: 'invalid' }>;
};

describe('parseCommand', () => {
  test.each<[string, Command]>([
    ['', { kind: 'help' }],
    ['   ', { kind: 'help' }],
    ['help', { kind: 'help' }],
    ['HELP', { kind: 'help' }],
    ['firewall 42', { kind: 'firewall', vsId: 42 }],
    ['  Firewall \t 42  ', { kind: 'firewall', vsId: 42 }],
    ['autoscaling 7', { kind: 'autoscaling', vsId: 7 }],
    ['as 7', { kind: 'autoscaling', vsId: 7 }],
    ['AS 7', { kind: 'autoscaling', vsId: 7 }],
    ['templates', { kind: 'templates', filter: '' }],
    ['templates windows 2012', { kind: 'templates', filter: 'windows 2012' }],
    ['disk add 3', { kind: 'disk_add', vsId: 3 }],
    ['DISK   Add 3', { kind: 'disk_add', vsId: 3 }],
    ['backup restore 9', { kind: 'backup_restore', backupId: 9 }],
    ['whoami', { kind: 'whoami' }],
    ['audit', { kind: 'audit', limit: AUDIT_DEFAULT_LIMIT }],
    ['audit 1', { kind: 'audit', limit: 1 }],
    ['audit 50', { kind: 'audit', limit: 50 }],
    ['firewall 9007199254740991', { kind: 'firewall', vsId: Number.MAX_SAFE_INTEGER }],
  ])('%p parses', (text, expected) => {
    expect(parseCommand(text)).toEqual(expected);
  });

  test.each([
    ['firewal 42', '/vs firewall 42'],
    ['disk ad 3', '/vs disk add 3'],
    ['restore 9', '/vs backup restore 9'],
    ['disk 3', '/vs disk add 3'],
    ['backup 9', '/vs backup restore 9'],
    ['autoscale 5', '/vs autoscaling 5'],
    ['temlates', '/vs templates'],
    ['hepl', '/vs help'],
    ['whoam', '/vs whoami'],
    ['audti 5', '/vs audit 5'],
    ['firewal abc', '/vs firewall <vs_id>'],
  ])('%p suggests %p', (text, suggestion) => {
    expect(invalid(parseCommand(text)).suggestion).toBe(suggestion);
  });

  test('nothing close: no suggestion, a pointer to help', () => {
    const c = invalid(parseCommand('deploy prod'));
    expect(c.suggestion).toBeUndefined();
    expect(c.message).toContain('/vs help');
  });

  test.each([
    ['firewall abc', /`abc` is not a valid server id: ids are positive integers, e.g. `\/vs firewall 42`/],
    ['firewall', /needs a server id.*`\/vs firewall <vs_id>`/],
    ['autoscaling', /needs a server id/],
    ['disk add x', /`x` is not a valid server id/],
    ['disk add', /needs a server id/],
    ['backup restore', /needs a backup id.*`\/vs backup restore <backup_id>`/],
    ['backup restore nine', /`nine` is not a valid backup id/],
    ['audit 0', /from 1 to 50/],
    ['audit 51', /from 1 to 50/],
    ['audit ten', /from 1 to 50/],
  ])('%p names the expected form', (text, message) => {
    expect(invalid(parseCommand(text)).message).toMatch(message);
  });

  test.each(['0', '-3', '+3', '4.2', '1e3', '0x10', '١٢', '４２', '9007199254740992', '99999999999999999999', 'NaN', 'Infinity', '3a', '٣'])('server id %p is refused', (id) => {
    expect(parseCommand(`firewall ${id}`).kind).toBe('invalid');
    expect(parseCommand(`disk add ${id}`).kind).toBe('invalid');
    expect(parseCommand(`backup restore ${id}`).kind).toBe('invalid');
  });

  test.each(['firewall 1 2', 'as 1 x', 'disk add 3 now', 'backup restore 9 please', 'whoami please', 'audit 5 6', 'help me'])('extra arguments %p are refused', (text) => {
    expect(parseCommand(text).kind).toBe('invalid');
  });

  test('extra arguments after a good id still suggest the command with that id', () => {
    expect(invalid(parseCommand('firewall 42 now')).suggestion).toBe('/vs firewall 42');
  });

  test('echoes are cut to about 40 characters and lose control characters and backticks', () => {
    const c = invalid(parseCommand(`firewall ${'x'.repeat(500)}\u0007\`<!channel>`));
    const echoed = /`([^`]*)`/.exec(c.message)![1]!;
    expect(echoed.length).toBeLessThanOrEqual(40);
    expect(echoed).toMatch(/…$/);
    // Control characters separate words; format characters (bidi overrides) and backticks are dropped from echoes.
    const odd = invalid(parseCommand('firewall b`c\u202ed'));
    expect(odd.message).toContain("`b'cd`");
  });

  test('100 KB of anything is answered without echoing it back', () => {
    const big = 'firewal '.repeat(5) + '\u0000<!channel>&'.repeat(9000);
    expect(big.length).toBeGreaterThan(100_000);
    const c = parseCommand(big);
    expect(JSON.stringify(c).length).toBeLessThan(400);
  });
});

describe('parseCommand, for any text', () => {
  test('never throws, and an invalid answer stays short', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary', maxLength: 200 }), fc.string({ unit: 'grapheme', maxLength: 50 }), fc.array(fc.constantFrom('firewall', 'as', 'disk', 'add', 'backup', 'restore', 'audit', ' ', '42', '-1', '\n', '<!channel>', 'x'), { maxLength: 8 }).map((a) => a.join(' '))), (text) => {
        const c = parseCommand(text);
        if (c.kind === 'invalid') {
          expect(c.message.length).toBeLessThan(400);
          expect((c.suggestion ?? '').length).toBeLessThan(200);
          // A suggestion is itself a valid command (or a usage form with a placeholder).
          if (c.suggestion && !c.suggestion.includes('<')) expect(parseCommand(c.suggestion.replace(/^\/vs /, '')).kind).not.toBe('invalid');
        }
      }),
      { numRuns: 500 },
    );
  });

  test('any positive safe integer id round-trips', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), fc.constantFrom('firewall', 'autoscaling', 'as', 'disk add', 'backup restore'), (id, sub) => {
        const c = parseCommand(`${sub} ${id}`);
        expect(c.kind).not.toBe('invalid');
        expect('vsId' in c ? c.vsId : 'backupId' in c ? c.backupId : null).toBe(id);
        expect(parseId(String(id))).toBe(id);
      }),
      { numRuns: 300 },
    );
  });

  test('any id with a character that is not an ASCII digit is refused', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }).filter((s) => /[^0-9]/.test(s.trim()) && !/\s/.test(s)), (id) => {
        expect(parseId(id)).toBeNull();
        expect(parseCommand(`firewall ${id}`).kind).toBe('invalid');
      }),
      { numRuns: 300 },
    );
  });
});

describe('parseId', () => {
  test('accepts what modal inputs hand over', () => {
    expect(parseId(' 46 ')).toBe(46);
    expect(parseId(46)).toBe(46);
    expect(parseId(undefined)).toBeNull();
    expect(parseId(true)).toBeNull();
    expect(parseId('')).toBeNull();
    expect(parseId(0)).toBeNull();
    expect(parseId(1.5)).toBeNull();
  });
});

describe('editDistance', () => {
  test.each([
    ['firewal', 'firewall', 1],
    ['hepl', 'help', 1],
    ['', 'abc', 3],
    ['same', 'same', 0],
  ])('%p → %p is %p', (a, b, d) => {
    expect(editDistance(a, b)).toBe(d);
  });
});
