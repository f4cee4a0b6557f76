import { useHarness, type Harness } from '../../../helpers/app-harness';
import { answerTo, CHANNEL, goodDisk, submit, visibleText, type Message, type View } from '../../../helpers/drive';
import { buttonClick, globalShortcut, input } from '../../../helpers/payloads';
import { waitFor } from '../../../helpers/wait';

// Servers by name (docs/product.md) over the real Bolt app and the sandbox's
// seeded servers: web-1 (VS 42, web-1.prod.example.com, 203.0.113.42) and
// web-2 (VS 47) share the prefix `web`; the others have names of their own.

const listReads = (h: Harness) => h.sandbox.requests.filter((r) => r.method === 'GET' && /^\/virtual_machines\.(json|xml)$/.test(r.path)).length;
const serverReads = (h: Harness) => h.sandbox.requests.filter((r) => /^\/virtual_machines\/\d+\.(json|xml)$/.test(r.path)).map((r) => r.path);
const identity = (m: Message) => (m.blocks as { type: string; text?: { text: string } }[]).find((b) => b.type === 'section')?.text?.text ?? '';

interface Picker {
  text: string;
  action_id: string;
  value: string;
}
const pickers = (m: Message): Picker[] =>
  (m.blocks as { accessory?: { action_id: string; value: string; text: { text: string } } }[]).flatMap((b) =>
    b.accessory ? [{ text: b.accessory.text.text, action_id: b.accessory.action_id, value: b.accessory.value }] : [],
  );

describe('a server named by its label, hostname or address', () => {
  const h = useHarness({ env: { VS_OPERATORS: 'UOPER', VS_ADMINS: 'UADMIN' } });

  test('/vs server web-1 is the card of VS 42: one list read for the name, then the server’s own reads', async () => {
    const m = await answerTo(h, 'server web-1');
    expect(m.response_type).toBe('in_channel');
    expect(identity(m)).toContain('*web-1*');
    expect(serverReads(h)).toEqual(['/virtual_machines/42.json']);
    expect(listReads(h)).toBe(1);
  });

  test('case does not matter, and a hostname, its first part or an address name the same server', async () => {
    for (const name of ['WEB-1', 'web-1.prod.example.com', '203.0.113.42', 'bastion']) {
      h.sandbox.requests.length = 0;
      const m = await answerTo(h, `disks ${name}`);
      expect(visibleText(m)).not.toMatch(/No server is named|names \d+ servers/);
      expect(serverReads(h).length + h.sandbox.requests.filter((r) => /\/disks\.json$/.test(r.path)).length).toBeGreaterThan(0);
    }
    // The index was read once for all of them (kept VS_NAME_INDEX_TTL_S).
    expect(listReads(h)).toBe(0);
  });

  test('an id is never looked up as a name', async () => {
    h.sandbox.requests.length = 0;
    await answerTo(h, 'server 43');
    await answerTo(h, 'server #44');
    expect(listReads(h)).toBe(0);
  });

  test('`web` names two servers: never guessed; a pick_server button runs the same command on the one picked', async () => {
    const m = await answerTo(h, 'firewall web 443/tcp');
    expect(m.response_type).toBe('ephemeral');
    expect(visibleText(m)).toContain('names 2 servers');
    const offered = pickers(m);
    expect(offered.map((p) => p.action_id)).toEqual(['pick_server', 'pick_server']);
    expect(offered.map((p) => p.text)).toEqual(['Use web-1 (VS 42)', 'Use web-2 (VS 47)']);
    expect(offered.map((p) => p.value)).toEqual(['firewall 42 443/tcp', 'firewall 47 443/tcp']);
    h.sandbox.requests.length = 0;
    const responseUrl = h.slack.responseUrl();
    const res = await h.interact(
      buttonClick({ user: 'UVIEWER', channel: CHANNEL, actionId: 'pick_server', value: offered[0]!.value, responseUrl, ephemeral: true }),
    );
    expect(res.status).toBe(200);
    const id = responseUrl.slice(responseUrl.lastIndexOf('/') + 1);
    const answer = await waitFor('the answer for web-1', () => h.slack.responses.find((r) => r.id === id)?.body as Message | undefined, { within: 5000 });
    expect(visibleText(answer)).toMatch(/443/);
    expect(h.sandbox.requests.some((r) => r.path.startsWith('/virtual_machines/42/firewall_rules'))).toBe(true);
    expect(h.sandbox.requests.some((r) => r.path.startsWith('/virtual_machines/47/'))).toBe(false);
  });

  test('a name nobody has is told, with the closest names, and nothing else is read', async () => {
    h.sandbox.requests.length = 0;
    const m = await answerTo(h, 'server web-9');
    expect(m.response_type).toBe('ephemeral');
    expect(visibleText(m)).toContain('No server is named web-9. Did you mean web-1 (VS 42)');
    expect(serverReads(h)).toEqual([]);
  });

  test('a change form opens for a named server, checked against the role first', async () => {
    const viewer = await answerTo(h, 'reboot web-1', { user: 'UVIEWER' });
    expect(visibleText(viewer)).toMatch(/operator/);
    expect(h.slack.callsTo('views.open')).toHaveLength(0);
    await h.command('reboot web-1', { user: 'UOPER', responseUrl: h.slack.responseUrl() });
    const opened = await waitFor('the power form', () => h.slack.callsTo('views.open')[0], { within: 5000 });
    expect(JSON.stringify(opened.args.view)).toContain('42');
  });

  test('what is not a name or an id is refused as before, with no call', async () => {
    h.sandbox.requests.length = 0;
    const m = await answerTo(h, 'server 42abc');
    expect(visibleText(m)).toContain('is not a valid server id');
    expect(h.sandbox.requests).toEqual([]);
  });

  describe('the server field of a form opened from a shortcut', () => {
    const diskPosts = () => h.sandbox.requests.filter((r) => r.method === 'POST' && r.path.includes('/disks'));
    const shortcutForm = async (): Promise<View> => {
      h.slack.calls.length = 0;
      expect((await h.interact(globalShortcut({ user: 'UOPER', callbackId: 'disk_add_shortcut' }))).status).toBe(200);
      const [open] = await h.slack.waitForCalls('views.open', 1);
      return open!.args.view as View;
    };

    test('takes a name: the disk is added to the server it names', async () => {
      const view = await shortcutForm();
      const ack = await submit(h, 'disk_add', 'UOPER', view.private_metadata, {
        ...goodDisk,
        vs_id: input.text('db-primary'),
        channel: input.channel('CSHORT'),
      });
      expect(ack.response_action).not.toBe('errors');
      expect(diskPosts().map((r) => r.path)).toEqual(['/virtual_machines/46/disks.json']);
      // The record keeps the label at the time beside the id, and the audit names the server by both.
      const record = (await h.store.audit.latest(10)).find((r) => r.action === 'disk_add' && r.target === 'vs:46');
      expect(record?.serverLabel).toBe('db-primary');
      expect(visibleText(await answerTo(h, 'audit vs 46', { user: 'UADMIN' }))).toContain('db-primary (VS 46)');
    });

    test.each([
      ['web', /web names 2 servers: web-1 \(VS 42\), web-2 \(VS 47\)/],
      ['web-9', /No server is named web-9\. Did you mean web-1 \(VS 42\)/],
    ])('a name that is not one server’s (%s) lands on the field, and nothing is sent', async (typed, said) => {
      const view = await shortcutForm();
      h.sandbox.requests.length = 0;
      const ack = await submit(h, 'disk_add', 'UOPER', view.private_metadata, { ...goodDisk, vs_id: input.text(typed), channel: input.channel('CSHORT') });
      expect(ack.response_action).toBe('errors');
      expect((ack as { errors: Record<string, string> }).errors.vs_id).toMatch(said);
      expect(diskPosts()).toEqual([]);
    });
  });
});
