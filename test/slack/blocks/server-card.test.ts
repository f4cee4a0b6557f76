import fc from 'fast-check';
import { FirewallRule } from '../../../src/cloud/schemas';
import { renderServerCard } from '../../../src/slack/blocks/server-card';
import { summarizeAutoscaling, summarizeFirewall } from '../../../src/slack/blocks/summaries';
import { FETCHED_AT, placeholder, rule, SANDBOX_NOTICE, slot } from './fixtures';
import { blockViolations, brokenUnicode, dataMarkup, describeProblems, INJECTIONS } from './limits';

// The card a control-panel link unfurls into, and the one-line summaries it
// is made of: data in, blocks out, without Slack.

const slots = [
  slot({ id: 1, resource: 'memory', scale_type: 'up', limit_trigger: 90, for_minutes: 5, adjust_units: 1, up_to: 4 }),
  placeholder('memory', 'down'),
  placeholder('cpu', 'up'),
  slot({ id: 4, resource: 'cpu', scale_type: 'down', limit_trigger: 10, for_minutes: 60, adjust_units: 1, up_to: 2 }),
  placeholder('disk', 'up'),
  placeholder('disk', 'down'),
];
const rules = [
  rule({ id: 1, network_interface_id: 1, command: 'ACCEPT', port: '443' }),
  rule({ id: 2, network_interface_id: 1, command: 'ACCEPT', port: '22', enabled: false }),
  rule({ id: 3, network_interface_id: 2, command: 'DROP' }),
];

const texts = (blocks: unknown[]) =>
  (blocks as { text?: { text: string }; elements?: { text: string }[] }[]).map((b) => b.text?.text ?? b.elements!.map((e) => e.text).join(' '));

describe('one-line summaries', () => {
  test('firewall: how many rules, on how many interfaces, accepted or dropped, how many disabled', () => {
    expect(summarizeFirewall(rules)).toEqual({ line: '3 rules on 2 network interfaces: 2 ACCEPT, 1 DROP (1 disabled)', ruleCount: 3 });
    expect(summarizeFirewall([rules[0]!])).toEqual({ line: '1 rule on 1 network interface: 1 ACCEPT', ruleCount: 1 });
    expect(summarizeFirewall([])).toEqual({ line: "no rules: each network interface's default applies (the API does not show it)", ruleCount: 0 });
  });

  test('autoscaling: how many of the six slots are configured, and which', () => {
    expect(summarizeAutoscaling(slots)).toEqual({ line: '2 of 6 rules configured: Memory up, CPU down', configuredCount: 2 });
    expect(summarizeAutoscaling([])).toEqual({ line: '0 of 6 rules configured', configuredCount: 0 });
  });

  test('a command from the API is escaped and kept on one line', () => {
    const { line } = summarizeFirewall([rule({ id: 1, command: '<!here>\n*fake line*' })]);
    expect(line).toBe('1 rule on 1 network interface: 1 &lt;!HERE&gt; *FAKE…');
  });
});

describe('the server card', () => {
  test('names the server, says its firewall and autoscaling in a line each, and the commands that show more', () => {
    const card = renderServerCard({ vsId: 42, rules, slots, fetchedAt: FETCHED_AT, sandbox: false });
    expect(texts(card.blocks)).toEqual([
      '*VS 42*\n*Firewall:* 3 rules on 2 network interfaces: 2 ACCEPT, 1 DROP (1 disabled)\n*Autoscaling:* 2 of 6 rules configured: Memory up, CPU down',
      'More: `/vs firewall 42` · `/vs firewall 42 &lt;port&gt;` · `/vs autoscaling 42` · ' +
        'fetched <!date^1715004192^{date_short_pretty} at {time}|2024-05-06 14:03:12 UTC>',
    ]);
  });

  test('says so on sandbox data', () => {
    const card = renderServerCard({ vsId: 42, rules, slots, fetchedAt: FETCHED_AT, sandbox: true });
    expect(texts(card.blocks).at(-1)).toContain(SANDBOX_NOTICE);
  });

  test('any hostile rules keep the card within Slack’s limits, with no markup from the data and its text verbatim', () => {
    // Slack markup among printable text (hostileString's full Unicode costs seconds to warm up, and the card cuts a command to 20 characters).
    const markupAndText = fc
      .array(fc.oneof(fc.constantFrom(...INJECTIONS), fc.string({ unit: 'grapheme-ascii', maxLength: 12 }), fc.constant('😀')), { maxLength: 8 })
      .map((parts) => parts.join(''));
    const hostileRule = fc
      // The command is the only text of a rule the card quotes.
      .record({ network_interface_id: fc.integer({ min: 1, max: 1000 }), command: markupAndText, enabled: fc.boolean() })
      .map((raw) => FirewallRule.parse({ id: 1, position: 1, protocol: 'TCP', ...raw }));
    fc.assert(
      fc.property(fc.array(hostileRule, { maxLength: 8 }), fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), (hostile, vsId) => {
        const { blocks } = renderServerCard({ vsId, rules: hostile, slots, fetchedAt: FETCHED_AT, sandbox: false });
        const found = [...blockViolations(blocks), ...dataMarkup({ blocks }), ...brokenUnicode({ blocks })];
        if (found.length > 0) throw new Error(describeProblems(found));
        expect(JSON.stringify(blocks)).not.toContain('"verbatim":false');
      }),
      { numRuns: 40 },
    );
  });
});
