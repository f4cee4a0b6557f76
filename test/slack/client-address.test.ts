import { clientKey, trustedProxies } from '../../src/slack/client-address';

// Who a client is, as the request guard counts bodies per client (over HTTP:
// test/slack/request-guard.test.ts, "one client").

describe('clientKey', () => {
  test.each([
    ['an IPv4 peer', '203.0.113.7', '203.0.113.7'],
    ['an IPv4 peer of a dual-stack server', '::ffff:203.0.113.7', '203.0.113.7'],
    ['an IPv6 peer: its /64', '2001:db8:1:2:aaaa:bbbb:cccc:dddd', '2001:db8:1:2::/64'],
    ['another address of the same /64', '2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['what is no address (a closed socket)', undefined, ''],
  ])('%s', (_name, remote, key) => {
    expect(clientKey(remote, undefined, null)).toBe(key);
  });

  test('X-Forwarded-For is ignored unless the peer is a trusted proxy', () => {
    expect(clientKey('198.51.100.9', '203.0.113.7', null)).toBe('198.51.100.9');
    expect(clientKey('198.51.100.9', '203.0.113.7', trustedProxies(['10.0.0.0/8']))).toBe('198.51.100.9');
  });

  test('from a trusted proxy, the right-most address not itself a trusted proxy is the client', () => {
    const trusted = trustedProxies(['10.0.0.0/8', '192.0.2.10']);
    // What the client wrote (the left) is never reached: the proxy appended what it saw.
    expect(clientKey('10.0.0.5', '1.2.3.4, 203.0.113.7', trusted)).toBe('203.0.113.7');
    // Two proxies in a row: the first's entry is believed because the second is trusted too.
    expect(clientKey('10.0.0.5', '1.2.3.4, 203.0.113.7, 192.0.2.10', trusted)).toBe('203.0.113.7');
    // The header sent twice reads as one list.
    expect(clientKey('::ffff:10.0.0.5', ['1.2.3.4', '203.0.113.8'], trusted)).toBe('203.0.113.8');
    // An entry a proxy could not read stops the walk: the proxy that reported it is the client.
    expect(clientKey('10.0.0.5', '203.0.113.7, unknown', trusted)).toBe('10.0.0.5');
    // Nothing forwarded: the proxy itself.
    expect(clientKey('10.0.0.5', undefined, trusted)).toBe('10.0.0.5');
  });

  test('trustedProxies: none listed is null (the cheap path)', () => {
    expect(trustedProxies([])).toBeNull();
  });
});
