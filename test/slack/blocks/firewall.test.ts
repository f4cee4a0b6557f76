import { FIREWALL_PAGE_SIZE, renderFirewallRules } from '../../../src/slack/blocks/firewall';
import { ruleLine } from '../../../src/slack/blocks/firewall-rule';
import { parsePageButtonValue } from '../../../src/slack/blocks/pages';
import { expectNoDataMarkup, expectWithinSlackLimits } from './limits';
import { buttons, contextTexts, FETCHED_AT, headerText, manyRules, rule, SANDBOX_NOTICE, sectionTexts, visible } from './fixtures';

const render = (rules: ReturnType<typeof rule>[], page = 1, sandbox = false) => renderFirewallRules({ vsId: 42, rules, page, fetchedAt: FETCHED_AT, sandbox });

/** The rule lines shown, in order (sections minus their interface heading). */
const ruleLines = (m: ReturnType<typeof render>) => sectionTexts(m).flatMap((t) => t.split('\n').filter((l) => l.startsWith('`#')));

describe('firewall rules summary', () => {
  test('the header names the server and the context says how many rules and when they were fetched', () => {
    const m = render([rule({ id: 1 }), rule({ id: 2, network_interface_id: 2 })]);
    expect(headerText(m)).toBe('Firewall rules · VS 42');
    expect(contextTexts(m)[0]).toContain('2 rules on 2 network interfaces');
    expect(contextTexts(m)[0]).toContain('fetched <!date^1715004192^{date_short_pretty} at {time}|2024-05-06 14:03:12 UTC>');
    expect(m.text).toContain('VS 42');
    expectWithinSlackLimits(m);
  });

  test('rules are sorted by position and grouped under their network interface', () => {
    const m = render([
      rule({ id: 11, network_interface_id: 7, position: 2, port: '22' }),
      rule({ id: 12, network_interface_id: 3, position: 5, port: '443' }),
      rule({ id: 13, network_interface_id: 7, position: 1, port: '80' }),
      rule({ id: 14, network_interface_id: 3, position: 1, port: '53' }),
    ]);
    const sections = sectionTexts(m);
    expect(sections).toHaveLength(2);
    expect(sections[0]).toMatch(/^\*Network interface 3\*\n`#1` .*`53`.*\n`#5` .*`443`/);
    expect(sections[1]).toMatch(/^\*Network interface 7\*\n`#1` .*`80`.*\n`#2` .*`22`/);
  });

  test('an open port reads at a glance: mark, command, protocol, source and port', () => {
    const line = ruleLine(rule({ id: 1, position: 3, command: 'accept', protocol: 'TCP', address: '', port: 443 }));
    expect(line).toBe('`#3` :white_check_mark: *ACCEPT* TCP from *any* to port `443`');
    expect(ruleLine(rule({ id: 2, position: 4, command: 'DROP', protocol: 'UDP', address: '10.0.0.0/8', port: '53' }))).toBe(
      '`#4` :no_entry: *DROP* UDP from `10.0.0.0/8` to port `53`',
    );
  });

  test.each([
    ['null', null],
    ['empty', ''],
    ['blank', '   '],
    ['absent', undefined],
  ])('a %s address reads "any" and a port like it reads "all ports"', (_name, value) => {
    const line = ruleLine(rule({ id: 1, address: value, port: value }));
    expect(line).toContain('from *any*');
    expect(line).toContain('to *all ports*');
  });

  test('port ranges and lists are shown exactly as the API gave them', () => {
    expect(ruleLine(rule({ id: 1, port: '8000:8100' }))).toContain('port `8000:8100`');
    expect(ruleLine(rule({ id: 2, port: '53,123' }))).toContain('port `53,123`');
  });

  test('description, disabled state and logging are shown when the API sends them (JSON mode)', () => {
    const line = ruleLine(rule({ id: 1, description: 'Allow web', enabled: '0', enable_logging: 1 }));
    expect(line).toContain('— Allow web');
    expect(line).toContain('_(disabled, logging)_');
  });

  test('a rule from XML mode (no description, enabled or logging) shows none of them', () => {
    const line = ruleLine(rule({ id: 1, port: '22' }));
    expect(line).not.toContain('—');
    expect(line).not.toMatch(/disabled|logging/);
  });

  test('an enabled rule without logging carries no remark', () => {
    expect(ruleLine(rule({ id: 1, enabled: true, enable_logging: false }))).not.toContain('_(');
  });

  test('a hostile description cannot mention the channel, a user or fake a link', () => {
    const m = render([rule({ id: 1, description: '<!channel> ping <@U123> <#C1> <https://evil|click> & co', address: '<!here>', protocol: '<@U9>' })]);
    expectNoDataMarkup(m);
    expect(visible(m)).toContain('&lt;!channel&gt; ping &lt;@U123&gt; &lt;#C1&gt; &lt;https://evil|click&gt; &amp; co');
  });

  test('an empty list says there are no rules, with no pager', () => {
    const m = render([]);
    expect(sectionTexts(m)).toEqual(['No firewall rules are set on VS 42.']);
    expect(buttons(m)).toEqual([]);
    expect(m.text).toBe('VS 42 has no firewall rules');
    expectWithinSlackLimits(m);
  });

  test('one rule reads in the singular and has no pager, only Export CSV', () => {
    const m = render([rule({ id: 1, port: '22' })]);
    expect(contextTexts(m)[0]).toContain('1 rule on 1 network interface ·');
    expect(contextTexts(m)[0]).not.toContain('rules 1–1 of 1');
    expect(m.text).toBe('Firewall rules of VS 42: 1 rule (1 ACCEPT)');
    expect(ruleLines(m)).toHaveLength(1);
    expect(buttons(m)).toEqual([{ text: 'Export CSV', value: '42', actionId: 'firewall_export' }]);
    expectWithinSlackLimits(m);
  });

  test('the notification counts ACCEPT and DROP by name (was "0 other")', () => {
    const m = render([rule({ id: 1, command: 'ACCEPT' }), rule({ id: 2, command: 'drop' }), rule({ id: 3, command: 'DROP' })]);
    expect(m.text).toBe('Firewall rules of VS 42: 3 rules (2 DROP, 1 ACCEPT)');
    expect(render(manyRules(FIREWALL_PAGE_SIZE + 1)).text).toMatch(
      /^Firewall rules of VS 42: page 1 of 2, rules 1–20 of 21 \(\d+ [A-Z]+(, \d+ [A-Z]+)*? on this page\)$/,
    );
  });

  test(`exactly ${FIREWALL_PAGE_SIZE} rules fit on one page; one more adds a Next button and "page 1 of 2"`, () => {
    expect(buttons(render(manyRules(FIREWALL_PAGE_SIZE))).map((b) => b.actionId)).toEqual(['firewall_export']);
    expect(contextTexts(render(manyRules(FIREWALL_PAGE_SIZE)))[0]).not.toContain('page');
    expect(buttons(render(manyRules(FIREWALL_PAGE_SIZE + 1))).map((b) => b.value)).toEqual(['42:2', '42']);
    expect(contextTexts(render(manyRules(FIREWALL_PAGE_SIZE + 1)))[0]).toContain('page 1 of 2 · rules 1–20 of 21');
  });

  describe('300 rules page by 20', () => {
    const rules = manyRules(300);

    test('page 1 of 15 shows rules 1–20, a Next button and Export CSV', () => {
      const m = render(rules, 1);
      expect(contextTexts(m)[0]).toContain('page 1 of 15 · rules 1–20 of 300');
      expect(ruleLines(m)[0]).toMatch(/^`#1` /);
      expect(ruleLines(m)).toHaveLength(20);
      expect(buttons(m)).toEqual([
        { text: 'Next →', value: '42:2', actionId: 'firewall_page_next' },
        { text: 'Export CSV', value: '42', actionId: 'firewall_export' },
      ]);
    });

    test('page 2 says "rules 21–40 of 300" and has Prev and Next carrying "<vsId>:<page>"', () => {
      const m = render(rules, 2);
      expect(contextTexts(m)[0]).toContain('rules 21–40 of 300');
      expect(m.text).toContain('rules 21–40 of 300');
      expect(ruleLines(m)[0]).toMatch(/^`#21` /);
      expect(ruleLines(m)[19]).toMatch(/^`#40` /);
      expect(buttons(m)).toEqual([
        { text: '← Prev', value: '42:1', actionId: 'firewall_page_prev' },
        { text: 'Next →', value: '42:3', actionId: 'firewall_page_next' },
        { text: 'Export CSV', value: '42', actionId: 'firewall_export' },
      ]);
      expectWithinSlackLimits(m);
    });

    test('the last page is 15: rules 281–300, only a Prev button', () => {
      const m = render(rules, 15);
      expect(contextTexts(m)[0]).toContain('page 15 of 15 · rules 281–300 of 300');
      expect(buttons(m).map((b) => b.value)).toEqual(['42:14', '42']);
    });

    test.each([
      [16, 15],
      [9999, 15],
      [0, 1],
      [-3, 1],
      [Number.NaN, 1],
      [2.7, 2],
    ])('page %p is clamped to page %p', (asked, shown) => {
      const m = render(rules, asked);
      const from = (shown - 1) * 20 + 1;
      expect(contextTexts(m)[0]).toContain(`rules ${from}–${from + 19} of 300`);
    });

    test('every page button value parses back to the server and the page it shows', () => {
      for (let page = 1; page <= 15; page++) {
        for (const b of buttons(render(rules, page)).filter((b) => b.actionId !== 'firewall_export')) {
          const target = parsePageButtonValue(b.value!);
          expect(target?.vsId).toBe(42);
          expect(Math.abs(target!.page - page)).toBe(1);
        }
      }
    });
  });

  test('10,000 rules render just one page of blocks (its speed: bench scenario 5)', () => {
    const rules = manyRules(10_000);
    const m = render(rules, 250);
    expect(ruleLines(m)).toHaveLength(20);
    expect(contextTexts(m)[0]).toContain('rules 4981–5000 of 10000');
    expect(contextTexts(m)[0]).toContain('page 250 of 500');
    expect(buttons(m).map((b) => b.value)).toEqual(['42:249', '42:251', '42']);
    expect(m.blocks.length).toBeLessThanOrEqual(50);
    expectWithinSlackLimits(m);
  });

  test('a page whose rules sit on 20 different interfaces still fits in 50 blocks', () => {
    const rules = Array.from({ length: 40 }, (_, i) => rule({ id: i + 1, network_interface_id: i + 1, position: 1, description: 'x'.repeat(5000) }));
    const m = render(rules, 2);
    expect(sectionTexts(m)).toHaveLength(20);
    expectWithinSlackLimits(m);
  });

  test('the sandbox notice appears only on sandbox data', () => {
    expect(visible(render([rule({ id: 1 })], 1, true))).toContain(SANDBOX_NOTICE);
    expect(visible(render([rule({ id: 1 })], 1, false))).not.toContain(SANDBOX_NOTICE);
    expect(visible(render([], 1, true))).toContain(SANDBOX_NOTICE);
  });
});

describe('page button values', () => {
  test('"<vsId>:<page>" parses to both numbers', () => {
    expect(parsePageButtonValue('42:3')).toEqual({ vsId: 42, page: 3 });
    expect(parsePageButtonValue('9007199254740991:1')).toEqual({ vsId: 9007199254740991, page: 1 });
  });

  test.each([
    '',
    '42',
    '42:',
    ':3',
    '0:1',
    '42:0',
    '-1:2',
    '42:-1',
    '42:1.5',
    '42:3:4',
    ' 42:3',
    '42:3 ',
    '1e3:1',
    '9007199254740993:1',
    '٤٢:1',
    '42:12345678',
  ])('a forged or broken value %p is refused', (value) => {
    expect(parsePageButtonValue(value)).toBeNull();
  });
});
