import fc from 'fast-check';
import { parseIp } from '../../../src/firewall/address';
import { answerPortQuestion, type PortQuestion } from '../../../src/firewall/port-question';
import { renderPortAnswer } from '../../../src/slack/blocks/port-answer';
import { contextTexts, FETCHED_AT, rule, SANDBOX_NOTICE, sectionTexts } from './fixtures';
import { expectNoDataMarkup, expectWithinSlackLimits } from './limits';

type Rule = ReturnType<typeof rule>;
const ask = (rules: Rule[], q: Partial<PortQuestion> & { from?: string } = {}, sandbox = false) =>
  renderPortAnswer({
    vsId: 42,
    answer: answerPortQuestion(rules, { port: q.port ?? 443, protocol: q.protocol ?? 'tcp', source: q.from ? parseIp(q.from) : null }),
    fetchedAt: FETCHED_AT,
    sandbox,
  });

describe('the answer to a port question', () => {
  test('the verdict comes first, in the words of the issue: who is let in, then everyone else', () => {
    const m = ask([rule({ id: 5, position: 1, port: '443', address: '203.0.113.7' })]);
    expect(sectionTexts(m)[0]).toBe('*VS 42 · 443/tcp*: *accepted* from `203.0.113.7` (rule #1); no rule for anyone else');
    expect(m.text).toBe('VS 42 · 443/tcp: accepted from 203.0.113.7 (rule #1); no rule for anyone else');
    expect(sectionTexts(m)[1]).toContain("No rule decides for anyone else: the interface's default applies (the API does not show it).");
    expectWithinSlackLimits(m);
  });

  test('the deciding rule is named by its position on its interface and its id, quoted as the rule list shows it', () => {
    const m = ask([rule({ id: 14, position: 3, port: '443', description: 'Allow web' }), rule({ id: 19, position: 8, command: 'DROP' })], {
      from: '198.51.100.9',
    });
    expect(sectionTexts(m)[0]).toBe('*VS 42 · 443/tcp from 198.51.100.9*: *accepted* (rule #3)');
    expect(sectionTexts(m)[1]).toBe(
      '*Network interface 1*\nDecides: `#3` :white_check_mark: *ACCEPT* TCP from *any* to port `443` — Allow web · id 14\n' +
        '_Also match further down, never reached for this traffic:_ `#8` (id 19)',
    );
    expect(contextTexts(m).at(-1)).toContain('All rules: `/vs firewall 42`');
  });

  test('interfaces that disagree get a verdict line each; interfaces that agree share one', () => {
    const disagree = ask([rule({ id: 1, network_interface_id: 21, port: '443' }), rule({ id: 2, network_interface_id: 22, port: '443', command: 'DROP' })]);
    expect(sectionTexts(disagree)[0]).toBe(
      '*VS 42 · 443/tcp*: the network interfaces disagree\n• network interface 21: *accepted* for everyone (rule #1)\n' +
        '• network interface 22: *dropped* for everyone (rule #2)',
    );
    const agree = ask([rule({ id: 1, network_interface_id: 21, position: 4, port: '443' }), rule({ id: 2, network_interface_id: 22, position: 9, port: '' })]);
    expect(sectionTexts(agree)[0]).toBe('*VS 42 · 443/tcp*: *accepted* for everyone, on both network interfaces');
    expect(
      sectionTexts(agree)
        .slice(1)
        .map((t) => t.split('\n')[1]?.slice(0, 13)),
    ).toEqual(['Decides: `#4`', 'Decides: `#9`']);
  });

  test('a rule the bot cannot read says "cannot tell", quotes what it cannot read, and what follows holds only if it does not apply', () => {
    const m = ask([rule({ id: 8, position: 1, port: '9000;9001', address: '10.77.0.5' }), rule({ id: 9, position: 2, command: 'DROP' })], {
      port: 9000,
      from: '10.77.0.5',
    });
    expect(sectionTexts(m)[0]).toBe('*VS 42 · 9000/tcp from 10.77.0.5*: *cannot tell*: rule #1 cannot be read; if it does not apply, *dropped* (rule #2)');
    expect(sectionTexts(m)[1]).toContain('its port `9000;9001` is not a form the bot reads');
    const everyone = ask([rule({ id: 8, position: 1, port: '9000;9001', address: '10.77.0.5' }), rule({ id: 9, position: 2, command: 'DROP' })], {
      port: 9000,
    });
    expect(sectionTexts(everyone)[0]).toBe('*VS 42 · 9000/tcp*: *cannot tell* for `10.77.0.5` (rule #1); *dropped* for everyone else (rule #2)');
  });

  test('a command other than ACCEPT or DROP is quoted as cannot tell, never read as either', () => {
    const m = ask([rule({ id: 1, position: 1, port: '443', command: 'REJECT' })], { from: '192.0.2.1' });
    expect(sectionTexts(m)[0]).toContain('*cannot tell*');
    expect(sectionTexts(m)[1]).toContain('its command `REJECT` is not a form the bot reads');
  });

  test('a disabled rule is shown as skipped', () => {
    const m = ask([rule({ id: 3, position: 1, port: '443', command: 'DROP', enabled: false }), rule({ id: 4, position: 2 })]);
    expect(sectionTexts(m)[1]).toContain('_Skipped, disabled:_ `#1` :no_entry: *DROP*');
    expect(sectionTexts(m)[0]).toBe('*VS 42 · 443/tcp*: *accepted* for everyone (rule #2)');
  });

  test('a long verdict is cut after six clauses, saying how many more there are; each interface lists at most six deciding rules', () => {
    const rules = Array.from({ length: 9 }, (_, i) =>
      rule({ id: i + 1, position: i + 1, port: '443', address: `192.0.2.${i + 1}`, command: i % 2 ? 'DROP' : 'ACCEPT' }),
    );
    const m = ask(rules);
    const verdict = sectionTexts(m)[0]!;
    expect(verdict.split('; ')).toHaveLength(7);
    expect(verdict).toContain('*accepted* from `192.0.2.1` (rule #1); *dropped* from `192.0.2.2` (rule #2)');
    expect(verdict.endsWith('…and 4 more rules that decide for other sources')).toBe(true);
    expect(sectionTexts(m)[1]!.match(/^Decides:/gm)).toHaveLength(6);
    expect(sectionTexts(m)[1]).toContain('…and 3 more rules that decide or cannot be read: see the full list');
  });

  test('a server without rules: no rule decides, and the default is not shown by the API', () => {
    const m = ask([], { protocol: 'udp', port: 53 });
    expect(sectionTexts(m)[0]).toBe(
      "*VS 42 · 53/udp*: no rule decides: VS 42 has no firewall rules, so each network interface's default applies (the API does not show it).",
    );
  });

  test('on the sandbox the notice closes the message and the notification says so', () => {
    const m = ask([rule({ id: 1 })], {}, true);
    expect(contextTexts(m).at(-1)).toContain(SANDBOX_NOTICE);
    expect(m.text.startsWith('[sandbox data] ')).toBe(true);
  });

  test('300 rules on 30 interfaces, hostile descriptions and addresses: within Slack limits, no markup from data', () => {
    const hostile = ['<!channel>', '<@U123|x>', '`code`', '*bold*', '&amp;', 'line\nbreak', 'x'.repeat(400)];
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1000 }), fc.option(fc.constantFrom('10.0.0.1', '2001:db8::1'), { nil: undefined }), (salt, from) => {
        const rules: Rule[] = [];
        for (let i = 0; i < 300; i++) {
          rules.push(
            rule({
              id: i + 1,
              network_interface_id: (i + salt) % 30,
              position: i + 1,
              port: i % 5 === 0 ? hostile[(i + salt) % hostile.length] : i % 3 === 0 ? '' : '443',
              address: i % 4 === 0 ? hostile[(i * 7 + salt) % hostile.length] : i % 2 === 0 ? `10.0.${i % 256}.0/24` : null,
              command: i % 11 === 0 ? hostile[(i + 3) % hostile.length] : i % 2 ? 'ACCEPT' : 'DROP',
              enabled: i % 13 === 0 ? false : null,
              description: hostile[(i + salt) % hostile.length],
            }),
          );
        }
        const m = ask(rules, { from });
        expectWithinSlackLimits(m);
        expectNoDataMarkup(m);
      }),
      { numRuns: 20 },
    );
  });
});
