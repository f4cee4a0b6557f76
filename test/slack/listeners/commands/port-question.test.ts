import { useHarness } from '../../../helpers/app-harness';
import { answerTo, visibleText, type Message } from '../../../helpers/drive';
import { blockViolations } from '../../blocks/limits';

// "Is port 443 open on VS 77?" over the real Bolt app: signed slash commands,
// the loopback Slack fake, and the sandbox's VS 77, whose rules use every
// form the matcher reads, in JSON (with `enabled`) and in XML (without it).

type Section = { type: string; text?: { text?: string } };
const sections = (m: Message) => ((m.blocks ?? []) as Section[]).filter((b) => b.type === 'section').map((b) => b.text?.text ?? '');

describe.each([
  { format: 'json', visibility: 'in_channel' },
  { format: 'xml', visibility: 'ephemeral' },
] as const)('/vs firewall <vs_id> <port> against the sandbox in $format (VS_RESPONSE_VISIBILITY=$visibility)', ({ format, visibility }) => {
  const h = useHarness({ sandbox: true, env: { VS_API_FORMAT: format, VS_RESPONSE_VISIBILITY: visibility } });

  test('"is 443 open on 77?" gets a verdict per interface (they disagree), from one API call, as a summary', async () => {
    const m = await answerTo(h, 'firewall 77 443');
    expect(m.response_type).toBe(visibility);
    expect(sections(m)[0]).toBe(
      '*VS 77 · 443/tcp*: the network interfaces disagree\n• network interface 21: *accepted* for everyone (rules #1, #4)\n' +
        '• network interface 22: *accepted* from `10.77.0.0/16` (rule #1); *dropped* for everyone else (rule #3)',
    );
    expect(sections(m)[1]).toContain('Decides: `#1` :white_check_mark: *ACCEPT* TCP from `203.0.113.0/24` to port `22,443,8443`');
    expect(sections(m)[1]).toContain(' · id 7704');
    expect(visibleText(m)).toContain('sandbox data — not a real cloud account');
    expect(blockViolations(m.blocks)).toEqual([]);
    expect(h.sandbox.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET /virtual_machines/77/firewall_rules.${format}`]);
  });

  test('"from the partner" gets a one-line answer: an address range lets it in on 21; on 22 the rule that would is disabled (JSON only)', async () => {
    const m = await answerTo(h, 'firewall #77 8443 from 198.51.100.9');
    if (format === 'json') {
      expect(sections(m)[0]).toBe(
        '*VS 77 · 8443/tcp from 198.51.100.9*: the network interfaces disagree\n• network interface 21: *accepted* (rule #2)\n' +
          '• network interface 22: *dropped* (rule #3)',
      );
      expect(m.text).toContain('interface 21: accepted (rule #2)');
    } else {
      expect(sections(m)[0]).toBe('*VS 77 · 8443/tcp from 198.51.100.9*: *accepted*, on both network interfaces');
      expect(sections(m)[2]).toContain('Decides: `#2`');
    }
    expect(sections(m)[1]).toContain('Decides: `#2` :white_check_mark: *ACCEPT* TCP from `198.51.100.1-198.51.100.20` to port `8443`');
  });

  test('a disabled rule is skipped in JSON; XML does not carry `enabled`, so there it counts', async () => {
    const m = await answerTo(h, 'firewall 77 8443 from 198.51.100.50');
    const nic21 = sections(m).find((s) => s.startsWith('*Network interface 21*'))!;
    if (format === 'json') {
      expect(sections(m)[0]).toBe('*VS 77 · 8443/tcp from 198.51.100.50*: *dropped*, on both network interfaces');
      expect(nic21).toContain('Decides: `#9`');
      expect(nic21).toContain('_Skipped, disabled:_ `#3`');
    } else {
      expect(sections(m)[0]).toContain('network interface 21: *dropped* (rule #3)');
      expect(sections(m)[0]).toContain('network interface 22: *accepted* (rule #2)');
      expect(nic21).not.toContain('disabled');
    }
  });

  test('a port written in a form nobody can read gives "cannot tell", quoted, and what holds if it does not apply', async () => {
    const m = await answerTo(h, 'firewall 77 9000 from 10.77.0.5');
    expect(sections(m)[0]).toContain('network interface 21: *cannot tell*: rule #8 cannot be read; if it does not apply, *dropped* (rule #9)');
    expect(sections(m)[0]).toContain('network interface 22: *accepted* (rule #1)');
    expect(visibleText(m)).toContain('its port `9000;9001` is not a form the bot reads');
  });

  test('UDP: who may ask the resolver, and an interface without UDP rules falls to its default', async () => {
    const m = await answerTo(h, 'firewall 77 53/udp');
    expect(sections(m)[0]).toContain('network interface 21: *accepted* from `10.77.0.0/16` (rule #7); *dropped* for everyone else (rule #10)');
    expect(sections(m)[0]).toContain("network interface 22: no rule decides: the interface's default applies (the API does not show it)");
  });

  test('IPv6: a colon port range and an IPv6 block; a dash port range and an IPv6 address range', async () => {
    const ftp = await answerTo(h, 'firewall 77 1026 from 2001:db8:77:ff::1');
    expect(sections(ftp)[0]).toContain('network interface 21: *accepted* (rule #5)');
    const build = await answerTo(h, 'firewall 77 5010 from 2001:db8:77::1f');
    expect(sections(build)[0]).toContain('network interface 21: *accepted* (rule #6)');
    const outside = await answerTo(h, 'firewall 77 5010 from 2001:db8:77::20');
    expect(sections(outside)[0]).toBe('*VS 77 · 5010/tcp from 2001:db8:77::20*: *dropped*, on both network interfaces');
    expect(sections(outside)[1]).toContain('Decides: `#9`');
  });

  test('an unknown server is "VS 999 was not found", only for the user', async () => {
    const m = await answerTo(h, 'firewall 999 443');
    expect(m.response_type).toBe('ephemeral');
    expect(visibleText(m)).toContain('VS 999 was not found');
  });

  test.each([
    ['firewall 77 99999', '`99999` is not a port'],
    ['firewall 77 443 from 300.1.1.1', '`300.1.1.1` is not an IP address'],
    ['firewall 77 443/icmp', '`icmp` is not a protocol'],
  ])('"/vs %s" gets a clear error naming the accepted forms, only for the user, and no API call', async (text, said) => {
    const m = await answerTo(h, text);
    expect(m.response_type).toBe('ephemeral');
    expect(visibleText(m)).toContain(said);
    expect(visibleText(m)).toContain('/vs firewall &lt;vs_id&gt; &lt;port&gt;[/tcp|/udp] [from &lt;ip&gt;]');
    expect(h.sandbox.requests).toHaveLength(0);
  });

  test('/vs help shows the port question', async () => {
    const m = await answerTo(h, 'help');
    expect(visibleText(m)).toContain('/vs firewall &lt;vs_id&gt; &lt;port&gt;[/tcp|/udp] [from &lt;ip&gt;]');
  });
});
