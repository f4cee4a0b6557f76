import { BlockList, isIP } from 'node:net';
import fc from 'fast-check';
import { formatIp, parseAddressForm, parseIp, unmapIpv4 } from '../../src/firewall/address';

describe('IP addresses', () => {
  test.each([
    ['::', 0n],
    ['::1', 1n],
    ['2001:db8::1', 0x20010db8000000000000000000000001n],
    ['2001:DB8::1', 0x20010db8000000000000000000000001n],
    ['1:2:3:4:5:6:7:8', 0x00010002000300040005000600070008n],
    ['::ffff:192.0.2.1', 0xffffc0000201n],
    ['64:ff9b::198.51.100.9', 0x0064ff9b0000000000000000c6336409n],
    ['fe80::', 0xfe800000000000000000000000000000n],
  ])('IPv6 %s is read', (text, value) => {
    expect(parseIp(text)).toEqual({ family: 6, value });
  });

  test.each([
    '1:2:3:4:5:6:7:8:9',
    '1::2::3',
    'fe80::1%eth0',
    '12345::',
    ':1',
    '1:',
    ':::',
    'g::',
    '1:2:3:4:5:6:7::8:9',
    '1.2.3.4::',
    '::1.2.3',
    '[::1]',
    ' ::1',
    '::256.0.0.1',
    '::1.2.3.4:1',
    '1.2.3.4:1:2:3:4:5:6',
  ])('IPv6-looking %p is not an address', (text) => {
    expect(parseIp(text)).toBeNull();
  });

  test.each(['300.1.1.1', '1.2.3', '1.2.3.4.5', '010.0.0.1', '1.2.3.-4', '1.2.3.4 ', '', '0x7f.0.0.1', '１.2.3.4'])(
    'IPv4-looking %p is not an address',
    (text) => {
      expect(parseIp(text)).toBeNull();
    },
  );

  test('an IPv4-mapped IPv6 address stands for its IPv4 address; other addresses stay as they are', () => {
    expect(unmapIpv4(parseIp('::ffff:192.0.2.1')!)).toEqual({ family: 4, value: 0xc0000201n });
    expect(unmapIpv4(parseIp('::ffff:0:0')!)).toEqual({ family: 4, value: 0n });
    for (const text of ['::fffe:192.0.2.1', '1::ffff:192.0.2.1', '::1', '2001:db8::ffff:c000:201', '192.0.2.1', '0.0.255.255']) {
      expect(unmapIpv4(parseIp(text)!)).toEqual(parseIp(text));
    }
  });

  test('IPv6 is written back in RFC 5952 form', () => {
    expect(formatIp(parseIp('2001:0DB8:0:0:0:0:0:0001')!)).toBe('2001:db8::1');
    expect(formatIp(parseIp('2001:db8:0:1:0:0:0:1')!)).toBe('2001:db8:0:1::1');
    expect(formatIp(parseIp('2001:db8:0:0:1:0:0:1')!)).toBe('2001:db8::1:0:0:1');
    expect(formatIp(parseIp('1:0:2:3:4:5:6:7')!)).toBe('1:0:2:3:4:5:6:7');
    expect(formatIp(parseIp('::')!)).toBe('::');
  });

  test('every address node:net accepts is read, and written back to the same address', () => {
    fc.assert(
      fc.property(fc.oneof(fc.ipV4(), fc.ipV6()), (text) => {
        const ip = parseIp(text);
        expect(ip).not.toBeNull();
        expect(ip!.family).toBe(isIP(text));
        const again = parseIp(formatIp(ip!));
        expect(again).toEqual(ip);
        expect(isIP(formatIp(ip!))).toBe(ip!.family);
      }),
    );
  });

  test('nothing node:net refuses is read as an address', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF:.%/- '.split('')), maxLength: 45 }), (text) => {
        if (isIP(text) === 0) expect(parseIp(text)).toBeNull();
      }),
      { numRuns: 2000 },
    );
  });
});

describe('address forms of a rule', () => {
  test.each([null, '', '   '])('%p means every source', (text) => {
    expect(parseAddressForm(text)).toEqual({ kind: 'all' });
  });

  test('one address is an interval of one', () => {
    expect(parseAddressForm('203.0.113.7')).toEqual({ kind: 'interval', family: 4, first: 0xcb007107n, last: 0xcb007107n });
    expect(parseAddressForm(' 2001:db8::1 ')).toEqual({
      kind: 'interval',
      family: 6,
      first: 0x20010db8000000000000000000000001n,
      last: 0x20010db8000000000000000000000001n,
    });
  });

  test('space around the `/` of a block and the `-` of a range is allowed', () => {
    expect(parseAddressForm('10.0.0.0 / 8')).toEqual(parseAddressForm('10.0.0.0/8'));
    expect(parseAddressForm('10.0.0.1 - 10.0.0.5')).toEqual({ kind: 'interval', family: 4, first: 0x0a000001n, last: 0x0a000005n });
  });

  test('a CIDR block with host bits set covers its whole block, as iptables reads it', () => {
    expect(parseAddressForm('10.1.2.3/8')).toEqual({ kind: 'interval', family: 4, first: 0x0a000000n, last: 0x0affffffn });
  });

  test('an IPv6 block and an IPv6 range', () => {
    expect(parseAddressForm('2001:db8::/32')).toEqual({
      kind: 'interval',
      family: 6,
      first: 0x20010db8n << 96n,
      last: (0x20010db8n << 96n) | ((1n << 96n) - 1n),
    });
    expect(parseAddressForm('2001:db8::1-2001:db8::ff')).toEqual({
      kind: 'interval',
      family: 6,
      first: (0x20010db8n << 96n) | 1n,
      last: (0x20010db8n << 96n) | 0xffn,
    });
  });

  test.each([
    '10.0.0.0/33',
    '2001:db8::/129',
    '10.0.0.0/',
    '10.0.0.0/8/8',
    '10.0.0.9-10.0.0.1',
    '10.0.0.1-2001:db8::1',
    '10.0.0.1-',
    'any',
    'office',
    '10.0.0.0/8,192.168.0.0/16',
    '10.0.0.*',
    'office/24',
    '10.0.0/8',
    '10.0.0.0/x',
    '10.0.0.0/a8',
    '10.0.0.0/8a',
    '10.0.0.0/1234',
    'office-10.0.0.1',
    '10.0.0.1-10.0.0.2-10.0.0.3',
    '10.0.0.0/8-10.0.0.1',
  ])('%p cannot be read', (text) => {
    expect(parseAddressForm(text)).toEqual({ kind: 'unreadable', text });
  });

  test('a CIDR block covers what node:net BlockList says it covers', () => {
    fc.assert(
      fc.property(fc.oneof(fc.ipV4(), fc.ipV6()), fc.nat(128), fc.oneof(fc.ipV4(), fc.ipV6()), (network, prefixSeed, probe) => {
        const family = isIP(network) as 4 | 6;
        const prefix = prefixSeed % (family === 4 ? 33 : 129);
        const form = parseAddressForm(`${network}/${prefix}`);
        if (form.kind !== 'interval') throw new Error(`not read: ${network}/${prefix}`);
        const list = new BlockList();
        list.addSubnet(network, prefix, family === 4 ? 'ipv4' : 'ipv6');
        const ip = parseIp(probe)!;
        const inside = ip.family === form.family && form.first <= ip.value && ip.value <= form.last;
        // BlockList also matches IPv4-mapped IPv6 addresses against IPv4 blocks; a firewall rule does not.
        if (ip.family === family) expect(inside).toBe(list.check(probe, family === 4 ? 'ipv4' : 'ipv6'));
        else expect(inside).toBe(false);
      }),
      { numRuns: 500 },
    );
  });
});
