import fc from 'fast-check';
import { parsePortForm, portFormIncludes, PORT_MAX } from '../../src/firewall/ports';

describe('port forms of a rule', () => {
  test.each<[string | null, ReturnType<typeof parsePortForm>]>([
    [null, { kind: 'all' }],
    ['', { kind: 'all' }],
    ['443', { kind: 'ports', ranges: [[443, 443]] }],
    [
      '80,443,21',
      {
        kind: 'ports',
        ranges: [
          [80, 80],
          [443, 443],
          [21, 21],
        ],
      },
    ],
    [
      '80, 443',
      {
        kind: 'ports',
        ranges: [
          [80, 80],
          [443, 443],
        ],
      },
    ],
    ['1024:1028', { kind: 'ports', ranges: [[1024, 1028]] }],
    ['1024-1028', { kind: 'ports', ranges: [[1024, 1028]] }],
    [
      '22,8000:8100',
      {
        kind: 'ports',
        ranges: [
          [22, 22],
          [8000, 8100],
        ],
      },
    ],
    ['65535', { kind: 'ports', ranges: [[65535, 65535]] }],
    ['1:65535', { kind: 'ports', ranges: [[1, 65535]] }],
    ['0', { kind: 'ports', ranges: [[0, 0]] }],
    ['1024 : 1028', { kind: 'ports', ranges: [[1024, 1028]] }],
    ['1024 - 1028', { kind: 'ports', ranges: [[1024, 1028]] }],
    [' 80 ', { kind: 'ports', ranges: [[80, 80]] }],
  ])('%p is read', (text, form) => {
    expect(parsePortForm(text)).toEqual(form);
  });

  test.each([
    '65536',
    '99999',
    '1028:1024',
    '80,,443',
    '80;443',
    'https',
    '1024:',
    ':1024',
    '*',
    '-1',
    '443/tcp',
    '1e3',
    '1:65536',
    '65536:65537',
    '80:90:100',
    '100000',
    '   ,',
  ])('%p cannot be read', (text) => {
    expect(parsePortForm(text)).toEqual({ kind: 'unreadable', text });
  });
});

describe('which ports a form includes', () => {
  test('an empty form includes every port', () => {
    expect(portFormIncludes({ kind: 'all' }, 0)).toBe(true);
    expect(portFormIncludes({ kind: 'all' }, PORT_MAX)).toBe(true);
  });

  test('a list of ranges includes exactly the ports within one of them, ends included', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(PORT_MAX), fc.nat(PORT_MAX)), { minLength: 1, maxLength: 4 }), fc.nat(PORT_MAX), (pairs, port) => {
        const ranges = pairs.map(([a, b]) => [Math.min(a, b), Math.max(a, b)] as const);
        const form = parsePortForm(ranges.map(([first, last]) => `${first}:${last}`).join(','));
        if (form.kind === 'unreadable') throw new Error('not read');
        expect(portFormIncludes(form, port)).toBe(ranges.some(([first, last]) => first <= port && port <= last));
        for (const [first, last] of ranges) {
          expect(portFormIncludes(form, first)).toBe(true);
          expect(portFormIncludes(form, last)).toBe(true);
        }
      }),
    );
  });
});
