import { parseIp } from '../../src/firewall/address';
import { answerPortQuestion, type RuleRecord } from '../../src/firewall/port-question';

let nextId = 1;
const rule = (r: Partial<RuleRecord> & Pick<RuleRecord, 'position'>): RuleRecord => ({
  id: nextId++,
  network_interface_id: 1,
  protocol: 'TCP',
  port: '',
  address: null,
  command: 'ACCEPT',
  ...r,
});
const from = (text: string) => parseIp(text)!;

describe('the port question: examples a network engineer would check', () => {
  test('without a source: who is let in before the first rule for every source, then what that rule does for everyone else', () => {
    const office = rule({ position: 1, port: '443', address: '203.0.113.7' });
    const blocked = rule({ position: 2, port: '400:500', address: '198.51.100.0/24', command: 'DROP' });
    const everyone = rule({ position: 3, port: '443,8443', command: 'DROP' });
    const later = rule({ position: 4, port: '' });
    const [iface] = answerPortQuestion([later, everyone, blocked, office], { port: 443, protocol: 'tcp', source: null }).interfaces;
    expect(iface!.decisions.map((d) => [d.rule.position, d.verdict, d.everyoneElse])).toEqual([
      [1, 'accepted', false],
      [2, 'dropped', false],
      [3, 'dropped', true],
    ]);
    expect(iface!.reachesDefault).toBe(false);
    expect(iface!.shadowed).toEqual([later]);
  });

  test('without a source and no rule for everyone: the rest reach the interface default', () => {
    const [iface] = answerPortQuestion([rule({ position: 1, port: '443', address: '203.0.113.7' })], { port: 443, protocol: 'tcp', source: null }).interfaces;
    expect(iface!.decisions).toHaveLength(1);
    expect(iface!.reachesDefault).toBe(true);
  });

  test('a rule whose sources were all decided above is shadowed, one partly decided above says so', () => {
    const wide = rule({ position: 1, port: '22', address: '10.0.0.0/8', command: 'DROP' });
    const inside = rule({ position: 2, port: '22', address: '10.1.2.3' });
    const overlapping = rule({ position: 3, port: '22', address: '9.255.255.250-10.0.0.5' });
    const [iface] = answerPortQuestion([wide, inside, overlapping], { port: 22, protocol: 'tcp', source: null }).interfaces;
    expect(iface!.shadowed).toEqual([inside]);
    expect(iface!.decisions.map((d) => [d.rule.position, d.partly])).toEqual([
      [1, false],
      [3, true],
    ]);
  });

  test('IPv4 rules never match an IPv6 source, and the other way round; an empty address matches both', () => {
    const rules = [
      rule({ position: 1, port: '443', address: '0.0.0.0/0', command: 'DROP' }),
      rule({ position: 2, port: '443', address: '::/0' }),
      rule({ position: 3, port: '443', command: 'DROP' }),
    ];
    const decide = (src: string) => answerPortQuestion(rules, { port: 443, protocol: 'tcp', source: from(src) }).interfaces[0]!.decisions[0]!.rule.position;
    expect(decide('192.0.2.1')).toBe(1);
    expect(decide('2001:db8::1')).toBe(2);
    expect(decide('::ffff:192.0.2.1')).toBe(2);
    // Without a source, 0.0.0.0/0 and ::/0 together leave nobody for rule 3.
    const [iface] = answerPortQuestion(rules, { port: 443, protocol: 'tcp', source: null }).interfaces;
    expect(iface!.decisions.map((d) => d.rule.position)).toEqual([1, 2]);
    expect(iface!.decisions[1]!.everyoneElse).toBe(true);
    expect(iface!.shadowed.map((r) => r.position)).toEqual([3]);
  });

  test('IPv6 blocks, ranges and compressed forms', () => {
    const rules = [
      rule({ position: 1, port: '8443', address: '2001:db8:0:1::/64', command: 'DROP' }),
      rule({ position: 2, port: '8443', address: '2001:db8::10-2001:db8::1f' }),
      rule({ position: 3, port: '8443', address: '2001:DB8:0:0:0:0:0:2' }),
    ];
    const decide = (src: string) =>
      answerPortQuestion(rules, { port: 8443, protocol: 'tcp', source: from(src) }).interfaces[0]!.decisions[0]?.rule.position ?? null;
    expect(decide('2001:db8:0:1:ffff:ffff:ffff:ffff')).toBe(1);
    expect(decide('2001:db8:0:2::')).toBeNull();
    expect(decide('2001:db8::1f')).toBe(2);
    expect(decide('2001:db8::20')).toBeNull();
    expect(decide('2001:db8::2')).toBe(3);
  });

  test('a disabled rule is skipped and named; a rule without `enabled` (XML) counts as enabled', () => {
    const off = rule({ position: 1, port: '53', protocol: 'UDP', command: 'DROP', enabled: false });
    const xml = rule({ position: 2, port: '53', protocol: 'udp' });
    const [iface] = answerPortQuestion([off, xml], { port: 53, protocol: 'udp', source: from('10.0.0.1') }).interfaces;
    expect(iface!.disabled).toEqual([off]);
    expect(iface!.decisions.map((d) => [d.rule, d.verdict])).toEqual([[xml, 'accepted']]);
  });

  test('a protocol the rule names that is neither TCP nor UDP does not match; one it cannot read is quoted', () => {
    const icmp = rule({ position: 1, protocol: 'ICMP', command: 'DROP' });
    const odd = rule({ position: 2, protocol: 'SCTP/TCP' });
    const [iface] = answerPortQuestion([icmp, odd], { port: 80, protocol: 'tcp', source: null }).interfaces;
    expect(iface!.decisions).toEqual([]);
    expect(iface!.cannotTell).toEqual([{ rule: odd, fields: [{ field: 'protocol', value: 'SCTP/TCP' }] }]);
    expect(iface!.reachesDefault).toBe(true);
    expect(iface!.defaultUncertain).toBe(true);
  });

  test('interfaces are answered separately, in id order', () => {
    const rules = [rule({ position: 1, network_interface_id: 9, port: '443', command: 'DROP' }), rule({ position: 1, network_interface_id: 8, port: '443' })];
    const answer = answerPortQuestion(rules, { port: 443, protocol: 'tcp', source: null });
    expect(answer.interfaces.map((i) => [i.networkInterfaceId, i.decisions[0]!.verdict])).toEqual([
      [8, 'accepted'],
      [9, 'dropped'],
    ]);
  });

  test('rules at the same position are read in id order', () => {
    const later = rule({ position: 1, port: '443', command: 'DROP' });
    const earlier = { ...rule({ position: 1, port: '443' }), id: later.id - 100 };
    for (const rules of [
      [later, earlier],
      [earlier, later],
    ]) {
      const [iface] = answerPortQuestion(rules, { port: 443, protocol: 'tcp', source: null }).interfaces;
      expect(iface!.decisions.map((d) => d.rule)).toEqual([earlier]);
      expect(iface!.shadowed).toEqual([later]);
    }
  });

  test('protocol and command are read whatever their case and surrounding space; a missing one is quoted as empty', () => {
    const spaced = rule({ position: 1, port: '22', protocol: ' Tcp ', command: ' drop ' });
    const [iface] = answerPortQuestion([spaced], { port: 22, protocol: 'tcp', source: null }).interfaces;
    expect(iface!.decisions.map((d) => d.verdict)).toEqual(['dropped']);

    const noProtocol = rule({ position: 1, port: '22', protocol: null as unknown as string });
    const noCommand = rule({ position: 2, port: '22', command: null as unknown as string });
    const [missing] = answerPortQuestion([noProtocol, noCommand], { port: 22, protocol: 'tcp', source: null }).interfaces;
    expect(missing!.cannotTell).toEqual([
      { rule: noProtocol, fields: [{ field: 'protocol', value: '' }] },
      { rule: noCommand, fields: [{ field: 'command', value: '' }] },
    ]);
  });

  test('a rule with several unreadable fields quotes each, the command last', () => {
    const odd = rule({ position: 1, protocol: 'ALL', port: 'https', address: 'office', command: 'REJECT' });
    const [iface] = answerPortQuestion([odd], { port: 443, protocol: 'tcp', source: null }).interfaces;
    expect(iface!.cannotTell).toEqual([
      {
        rule: odd,
        fields: [
          { field: 'protocol', value: 'ALL' },
          { field: 'port', value: 'https' },
          { field: 'address', value: 'office' },
          { field: 'command', value: 'REJECT' },
        ],
      },
    ]);
  });

  test('disabled and unreadable rules are named only when they could still decide something', () => {
    const office = rule({ position: 1, port: '22', address: '10.0.0.0/8', command: 'DROP' });
    const disabledInside = rule({ position: 2, port: '22', address: '10.1.2.3', enabled: false });
    const unreadableInside = rule({ position: 3, port: '22', address: '10.1.2.4', command: 'REJECT' });
    const disabledOutside = rule({ position: 4, port: '22', address: '192.0.2.1', enabled: false });
    const unreadableOutside = rule({ position: 5, port: '22', address: '192.0.2.2', command: 'REJECT' });
    const everyone = rule({ position: 6, port: '22' });
    const disabledAfter = rule({ position: 7, port: '22', enabled: false });
    const unreadableAfter = rule({ position: 8, port: '22', command: 'LOG' });
    const [iface] = answerPortQuestion(
      [office, disabledInside, unreadableInside, disabledOutside, unreadableOutside, everyone, disabledAfter, unreadableAfter],
      {
        port: 22,
        protocol: 'tcp',
        source: null,
      },
    ).interfaces;
    expect(iface!.disabled).toEqual([disabledOutside]);
    expect(iface!.cannotTell.map((c) => c.rule)).toEqual([unreadableOutside]);
    expect(iface!.decisions.map((d) => [d.rule.position, d.everyoneElse, d.uncertain])).toEqual([
      [1, false, false],
      [6, true, true],
    ]);
    expect(iface!.reachesDefault).toBe(false);
    expect(iface!.defaultUncertain).toBe(false);
  });

  test('with no rule that matches, every source reaches the default, and nothing makes that uncertain', () => {
    const [iface] = answerPortQuestion([rule({ position: 1, port: '80' })], { port: 443, protocol: 'tcp', source: from('192.0.2.1') }).interfaces;
    expect(iface).toEqual({ networkInterfaceId: 1, decisions: [], reachesDefault: true, defaultUncertain: false, cannotTell: [], disabled: [], shadowed: [] });
  });
});
