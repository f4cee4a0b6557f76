import type { ActionsBlock, Button, KnownBlock, SectionBlock } from '@slack/types';
import fc from 'fast-check';
import type { FirewallRule } from '../../../src/cloud/schemas';
import { FIREWALL_PAGE_SIZE, parsePageButtonValue, renderFirewallRules } from '../../../src/slack/blocks/firewall';
import { allTexts, expectSlackSafe, hostileText, nullableHostile } from './slack-limits';

const fetchedAt = new Date('2026-11-23T14:03:12.345Z');

function rule(over: Partial<FirewallRule> = {}): FirewallRule {
  return {
    id: 1,
    network_interface_id: 7,
    position: 1,
    address: null,
    port: null,
    protocol: 'TCP',
    command: 'ACCEPT',
    ...over,
  } as FirewallRule;
}

function manyRules(n: number, interfaces = 1): FirewallRule[] {
  return Array.from({ length: n }, (_, i) => rule({ id: i + 1, position: i + 1, network_interface_id: 1 + (i % interfaces), port: String(1000 + i) }));
}

const render = (rules: FirewallRule[], page = 1, sandbox = false) => renderFirewallRules({ vsId: 42, rules, page, fetchedAt, sandbox });
const sections = (blocks: KnownBlock[]) => blocks.filter((b): b is SectionBlock => b.type === 'section').map((b) => b.text?.text ?? '');
const buttons = (blocks: KnownBlock[]) => blocks.filter((b): b is ActionsBlock => b.type === 'actions').flatMap((b) => b.elements as Button[]);
const visible = (blocks: KnownBlock[]) => allTexts(blocks).join('\n');

describe('renderFirewallRules', () => {
  test('has a header naming the server and a context line with count and fetch time', () => {
    const m = render(manyRules(3));
    expect(m.blocks[0]).toMatchObject({ type: 'header', text: { text: 'Firewall rules · VS 42' } });
    expect(visible(m.blocks)).toMatch(/3 rules/);
    expect(visible(m.blocks)).toContain('fetched 14:03:12 UTC');
  });

  test('an empty list says plainly that no rules are set, with no buttons', () => {
    const m = renderFirewallRules({ vsId: 43, rules: [], page: 1, fetchedAt, sandbox: false });
    expect(visible(m.blocks)).toContain('No firewall rules are set on VS 43');
    expect(buttons(m.blocks)).toHaveLength(0);
    expect(m.text).toMatch(/no firewall rules/i);
    expectSlackSafe(m);
  });

  test('one rule reads as one line: position, ACCEPT marker, protocol, any address, all ports', () => {
    const m = render([rule({ position: 5 })]);
    const [line] = sections(m.blocks);
    expect(line).toContain('`#5`');
    expect(line).toContain(':white_check_mark:');
    expect(line).toContain('ACCEPT');
    expect(line).toContain('TCP');
    expect(line).toMatch(/any/);
    expect(line).toMatch(/all ports/);
    expect(visible(m.blocks)).toMatch(/\b1 rule\b/);
    expect(buttons(m.blocks)).toHaveLength(0);
  });

  test('"is 443 open from the internet?" is answered by one line', () => {
    const m = render([rule({ position: 3, port: '443', address: '' as unknown as null }), rule({ id: 2, position: 4, command: 'DROP', port: '3306' })]);
    const text = sections(m.blocks).join('\n');
    expect(text).toMatch(/`#3` :white_check_mark: \*ACCEPT\* TCP from \*any\* to port `443`/);
    expect(text).toMatch(/`#4` :no_entry: \*DROP\* TCP from \*any\* to port `3306`/);
  });

  test('ranges and lists of ports and CIDR addresses are shown as given', () => {
    const text = sections(render([rule({ port: '8000:8100', address: '10.20.0.0/16' }), rule({ id: 2, position: 2, port: '53,123', protocol: 'UDP' })]).blocks).join('\n');
    expect(text).toContain('port `8000:8100`');
    expect(text).toContain('`10.20.0.0/16`');
    expect(text).toContain('port `53,123`');
    expect(text).toContain('UDP');
  });

  test('JSON-only details appear where present: description, disabled, logging', () => {
    const text = sections(render([rule({ description: 'SSH from the office', enabled: false, enable_logging: true })]).blocks).join('\n');
    expect(text).toContain('SSH from the office');
    expect(text).toMatch(/disabled/);
    expect(text).toMatch(/logging/);
  });

  test('rules are grouped by network interface and sorted by position inside each', () => {
    const rules = [rule({ id: 1, network_interface_id: 9, position: 2, port: '2' }), rule({ id: 2, network_interface_id: 3, position: 2, port: '22' }), rule({ id: 3, network_interface_id: 9, position: 1, port: '1' }), rule({ id: 4, network_interface_id: 3, position: 1, port: '11' })];
    const texts = sections(render(rules).blocks);
    expect(texts).toHaveLength(2);
    expect(texts[0]).toMatch(/^\*Network interface 3\*/);
    expect(texts[1]).toMatch(/^\*Network interface 9\*/);
    expect(texts[0]!.indexOf('`11`')).toBeLessThan(texts[0]!.indexOf('`22`'));
    expect(texts[1]!.indexOf('`1`')).toBeLessThan(texts[1]!.indexOf('`2`'));
    expect(visible(render(rules).blocks)).toMatch(/2 network interfaces/);
  });

  test('API text is escaped: a description cannot ping the channel or fake a link', () => {
    const m = render([rule({ description: 'Allow web <public> & <!channel> <https://evil|click>', address: '<@U123>', port: '<#C1>' })]);
    const text = visible(m.blocks);
    expect(text).toContain('&lt;public&gt; &amp; &lt;!channel&gt;');
    expect(text).not.toMatch(/<!|<@|<#|<http/);
    expectSlackSafe(m);
  });

  test('a newline in API data cannot start a fake rule line', () => {
    const text = sections(render([rule({ description: 'x\n`#1` :white_check_mark: *ACCEPT*' })]).blocks).join('\n');
    expect(text.split('\n')).toHaveLength(2); // the heading and the one rule
  });

  describe('pages of 20', () => {
    test('20 rules fit one page: no buttons', () => {
      expect(FIREWALL_PAGE_SIZE).toBe(20);
      expect(buttons(render(manyRules(20)).blocks)).toHaveLength(0);
    });

    test('21 rules: page 1 has only Next, page 2 only Prev', () => {
      const first = buttons(render(manyRules(21), 1).blocks);
      expect(first.map((b) => b.action_id)).toEqual(['firewall_page_next']);
      expect(first[0]!.value).toBe('42:2');
      const second = render(manyRules(21), 2);
      expect(buttons(second.blocks).map((b) => [b.action_id, b.value])).toEqual([['firewall_page_prev', '42:1']]);
      expect(visible(second.blocks)).toContain('rules 21–21 of 21');
    });

    test('300 rules: the middle page has both buttons and says which rules it shows', () => {
      const m = render(manyRules(300, 3), 2);
      expect(visible(m.blocks)).toContain('rules 21–40 of 300');
      expect(buttons(m.blocks).map((b) => [b.action_id, b.value])).toEqual([
        ['firewall_page_prev', '42:1'],
        ['firewall_page_next', '42:3'],
      ]);
      expect((visible(m.blocks).match(/`#\d+`/g) ?? []).length).toBe(20);
      expectSlackSafe(m);
    });

    test.each([
      [99, 15, 'rules 281–300 of 300'],
      [0, 1, 'rules 1–20 of 300'],
      [-4, 1, 'rules 1–20 of 300'],
      [Number.NaN, 1, 'rules 1–20 of 300'],
      [2.7, 2, 'rules 21–40 of 300'],
    ])('page %p is clamped to page %p', (asked, _shown, range) => {
      const m = render(manyRules(300), asked);
      expect(visible(m.blocks)).toContain(range);
    });

    test('the last page offers only Prev', () => {
      expect(buttons(render(manyRules(300), 15).blocks).map((b) => b.action_id)).toEqual(['firewall_page_prev']);
    });

    test('10,000 rules: only the page is formatted, quickly', () => {
      const rules = manyRules(10_000, 4);
      const started = performance.now();
      const m = render(rules, 250);
      expect(performance.now() - started).toBeLessThan(500);
      expect((visible(m.blocks).match(/`#\d+`/g) ?? []).length).toBe(20);
      expect(visible(m.blocks)).toContain('rules 4981–5000 of 10000');
      expectSlackSafe(m);
    });
  });

  test('the sandbox notice appears only on the sandbox', () => {
    expect(visible(render(manyRules(2), 1, true).blocks)).toMatch(/sandbox data — not a real cloud account/);
    expect(visible(render(manyRules(2), 1, false).blocks)).not.toMatch(/sandbox/);
    expect(visible(render([], 1, true).blocks)).toMatch(/sandbox data/);
  });
});

describe('parsePageButtonValue', () => {
  test('reads "<vsId>:<page>"', () => {
    expect(parsePageButtonValue('42:3')).toEqual({ vsId: 42, page: 3 });
  });

  test.each(['', '42', ':3', '42:', '0:1', '42:0', '-1:2', '42:2:1', 'a:b', '42:1e3', ' 42:3', '9007199254740992:1', '４２:1'])('refuses %p', (value) => {
    expect(parsePageButtonValue(value)).toBeNull();
  });

  test('every button value a render produces parses back to its server and page', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), fc.integer({ min: 0, max: 400 }), fc.integer({ min: -3, max: 30 }), (vsId, n, page) => {
        const m = renderFirewallRules({ vsId, rules: manyRules(n), page, fetchedAt, sandbox: false });
        for (const b of buttons(m.blocks)) {
          const target = parsePageButtonValue(b.value ?? '');
          expect(target?.vsId).toBe(vsId);
          expect(target!.page).toBeGreaterThanOrEqual(1);
          expect(target!.page).toBeLessThanOrEqual(Math.ceil(n / FIREWALL_PAGE_SIZE));
        }
      }),
      { numRuns: 100 },
    );
  });
});

describe('renderFirewallRules, for any rules', () => {
  // Rules are generated lazily from a small pool of hostile values, so that
  // 10,000-rule lists stay cheap to build.
  const pool = fc.array(
    fc.record({
      address: nullableHostile,
      port: nullableHostile,
      protocol: hostileText,
      command: fc.oneof(fc.constantFrom('ACCEPT', 'DROP', 'accept'), hostileText),
      description: fc.option(hostileText, { nil: undefined }),
      enabled: fc.option(fc.boolean(), { nil: null }),
      enable_logging: fc.option(fc.boolean(), { nil: null }),
    }),
    { minLength: 1, maxLength: 6 },
  );

  test('keeps Slack limits and lets no markup through from data', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
        fc.oneof(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 10_000 })),
        pool,
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: -2, max: 600 }),
        fc.boolean(),
        (vsId, n, values, interfaces, page, sandbox) => {
          const rules = Array.from({ length: n }, (_, i) => ({ id: i, network_interface_id: (i * 7919) % interfaces, position: (i * 104729) % (n + 3), ...values[i % values.length]! }) as FirewallRule);
          const m = renderFirewallRules({ vsId, rules, page, fetchedAt, sandbox });
          expectSlackSafe(m);
          expect(m.blocks.some((b) => b.type === 'context' && JSON.stringify(b).includes('sandbox data'))).toBe(sandbox);
        },
      ),
      { numRuns: 60 },
    );
  });
});
