import { serverLinks, serverOfLink } from '../../../../src/slack/listeners/events/panel-links';

// Which links name a server in the control panel: parsed strictly, so that a
// look-alike link never costs a cloud call and never unfurls.

describe('a server link under the panel', () => {
  const panel = 'https://cloud.example.com';

  test.each([
    ['https://cloud.example.com/virtual_machines/42', 42],
    ['https://cloud.example.com/virtual_machines/42/', 42],
    ['https://cloud.example.com/virtual_machines/42/firewall_rules', 42],
    ['https://cloud.example.com/virtual_machines/42/firewall_rules/', 42],
    ['https://cloud.example.com/virtual_machines/42?tab=disks#top', 42],
    ['https://CLOUD.example.com:443/virtual_machines/0042', 42],
    ['https://cloud.example.com/virtual_machines/9007199254740991', 9007199254740991],
  ])('%s names VS %d', (link, vsId) => {
    expect(serverOfLink(panel, link)).toBe(vsId);
  });

  test.each([
    'http://cloud.example.com/virtual_machines/42',
    'https://cloud.example.com:8443/virtual_machines/42',
    'https://eu.cloud.example.com/virtual_machines/42',
    'https://cloud.example.com.evil.example/virtual_machines/42',
    'https://user:pass@cloud.example.com/virtual_machines/42',
    'https://cloud.example.com/virtual_machines',
    'https://cloud.example.com/virtual_machines/',
    'https://cloud.example.com/virtual_machines/0',
    'https://cloud.example.com/virtual_machines/-1',
    'https://cloud.example.com/virtual_machines/4.2',
    'https://cloud.example.com/virtual_machines/42.json',
    'https://cloud.example.com/virtual_machines/%34%32',
    'https://cloud.example.com/virtual_machines/9007199254740992',
    'https://cloud.example.com/virtual_machines/42//firewall_rules',
    'https://cloud.example.com/Virtual_Machines/42',
    'https://cloud.example.com/backups/9',
    'not a URL',
  ])('%s names no server', (link) => {
    expect(serverOfLink(panel, link)).toBeNull();
  });

  test('under a panel with a path, only links below that path count', () => {
    const under = 'https://example.com/panel';
    expect(serverOfLink(under, 'https://example.com/panel/virtual_machines/42')).toBe(42);
    expect(serverOfLink(under, 'https://example.com/virtual_machines/42')).toBeNull();
    expect(serverOfLink(under, 'https://example.com/panelx/virtual_machines/42')).toBeNull();
  });

  test("a message's server links: in order, each URL once, others left out", () => {
    const links = ['https://cloud.example.com/virtual_machines/44', 'https://example.com/x', 'https://cloud.example.com/virtual_machines/42/firewall_rules']
      .concat('https://cloud.example.com/virtual_machines/44')
      .map((url) => ({ url, domain: 'cloud.example.com' }));
    expect(serverLinks(panel, links)).toEqual([
      { url: 'https://cloud.example.com/virtual_machines/44', vsId: 44 },
      { url: 'https://cloud.example.com/virtual_machines/42/firewall_rules', vsId: 42 },
    ]);
  });
});
