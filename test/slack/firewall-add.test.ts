import type { ChannelMessage } from '@vs-chatops/slack-standin';
import { startHarness, useHarness, type Harness } from '../helpers/app-harness';
import { answerTo, CHANNEL, openForm, postedIn, submit, visibleText, type View } from '../helpers/drive';
import { input } from '../helpers/payloads';
import { approvalIdIn } from '../helpers/requests';
import { waitFor } from '../helpers/wait';

// Adding a firewall rule (docs/product.md, More of the control panel), over the real app: signed commands and
// submissions in, the sandbox on loopback as the cloud (VS 42: one interface, 3; rule #3 ACCEPT anyone on 443/tcp,
// #8 DROP everything else).

const USERS = { admin: 'UADMIN', operator: 'UOPER', viewer: 'UVIEWER' } as const;
const ROLES = { VS_ADMINS: USERS.admin, VS_OPERATORS: USERS.operator, VS_VIEWERS: USERS.viewer };

const changes = (harness: Harness) => harness.sandbox.requests.filter((r) => r.method !== 'GET').map((r) => [`${r.method} ${r.path} ${r.status}`, r.body]);
const valueOf = (view: View, id: string) =>
  (view.blocks.find((b) => b.block_id === id)?.element as { initial_value?: string; initial_option?: { value: string } } | undefined) ?? {};
const filled = (o: { command?: string; address?: string; port?: string; protocol?: string; risk?: boolean; reason?: string } = {}) => ({
  command: input.select(o.command ?? 'DROP'),
  address: input.text(o.address ?? '203.0.113.5'),
  port: input.text(o.port ?? '8080'),
  protocol: input.select(o.protocol ?? 'TCP'),
  confirm_risk: input.check(o.risk === true),
  reason: input.text(o.reason ?? 'a scanner on the admin port'),
});

describe('/vs firewall block and allow', () => {
  const h = useHarness({ env: ROLES });

  test('reads the rules first; the form opens prefilled and says a DROP under an ACCEPT for everyone would not take effect', async () => {
    const view = await openForm(h, 'firewall block 42 203.0.113.5 443', USERS.operator);
    expect(view.callback_id).toBe('firewall_add');
    expect(h.sandbox.requests.map((r) => `${r.method} ${r.path}`).sort()).toEqual([
      'GET /virtual_machines/42.json',
      'GET /virtual_machines/42/firewall_rules.json',
    ]);
    expect(visibleText(view)).toContain('DROP 203.0.113.5 on 443/tcp would not take effect: rule #3 (ACCEPT anyone on 443/tcp) decides first');
    expect(valueOf(view, 'address').initial_value).toBe('203.0.113.5');
    expect(valueOf(view, 'port').initial_value).toBe('443');
    expect(valueOf(view, 'command').initial_option?.value).toBe('DROP');
    // One interface: chosen for you, not asked.
    expect(view.blocks.map((b) => b.block_id)).not.toContain('network_interface_id');
  });

  test('an allow of a port no rule decides says it takes effect', async () => {
    const view = await openForm(h, 'firewall allow 42 198.51.100.0/24 8443/udp', USERS.operator);
    expect(visibleText(view)).toContain('ACCEPT 198.51.100.0/24 on 8443/udp would take effect');
    expect(valueOf(view, 'protocol').initial_option?.value).toBe('UDP');
  });

  test('an operator adds it: the rule stored on the one interface, then the rules applied; scheduled and audited', async () => {
    const view = await openForm(h, 'firewall block 42 203.0.113.5 8080', USERS.operator);
    const ack = await submit(h, 'firewall_add', USERS.operator, view.private_metadata, filled());
    expect(ack.response_action).toBe('update');
    expect(changes(h)).toEqual([
      [
        'POST /virtual_machines/42/firewall_rules.json 201',
        { firewall_rule: { address: '203.0.113.5', command: 'DROP', port: '8080', protocol: 'TCP', network_interface_id: '3' } },
      ],
      ['POST /virtual_machines/42/update_firewall_rules.json 201', null],
    ]);
    const result = await postedIn(h, CHANNEL, 'Add firewall rule · web-1 (VS 42)');
    expect(visibleText(result.blocks)).toMatch(/\*Firewall rule \d+\* on VS 42: DROP `203\.0\.113\.5` on port 8080\/tcp, then its rules applied/);
    expect((await h.store.audit.latest(1))[0]).toMatchObject({ action: 'firewall_add', target: 'vs:42', outcome: 'scheduled', apiStatus: 201 });
  });

  test('a DROP of everyone on port 22 asks for the second confirmation: refused on the box, nothing sent; sent once ticked', async () => {
    const view = await openForm(h, 'firewall block 42 any 22', USERS.operator);
    expect(visibleText(view)).toContain('drops every address on port 22');
    const ack = await submit(h, 'firewall_add', USERS.operator, view.private_metadata, filled({ address: '', port: '22' }));
    expect(ack).toMatchObject({ response_action: 'errors', errors: { confirm_risk: expect.stringContaining('port 22') } });
    expect(changes(h)).toEqual([]);
    const sent = await submit(h, 'firewall_add', USERS.operator, view.private_metadata, filled({ address: '', port: '22', risk: true }));
    expect(sent.response_action).toBe('update');
    expect(changes(h)).toHaveLength(2);
  });

  test('a bad address on the command line is answered with the forms it takes; in the form, on its field; nothing sent', async () => {
    const answer = await answerTo(h, 'firewall block 42 203.0.113.500 443', { user: USERS.operator });
    expect(visibleText(answer)).toContain('is not an address');
    const view = await openForm(h, 'firewall block 42 203.0.113.5 443', USERS.operator);
    const ack = await submit(h, 'firewall_add', USERS.operator, view.private_metadata, filled({ address: 'not-an-address' }));
    expect(ack).toMatchObject({ response_action: 'errors', errors: { address: expect.stringContaining('CIDR') } });
    expect(changes(h)).toEqual([]);
  });

  test('a viewer is denied by role, recorded, and the rules are not even read', async () => {
    const answer = await answerTo(h, 'firewall block 42 203.0.113.5 443', { user: USERS.viewer });
    expect(visibleText(answer)).toContain('Adding a firewall rule needs the operator role; you are a viewer.');
    expect(h.sandbox.requests).toEqual([]);
    expect((await h.store.audit.latest(1))[0]).toMatchObject({ action: 'firewall_add', outcome: 'refused' });
  });
});

describe("/vs firewall block, when VS_BOT_ADDRESSES names the bot's address toward the cloud", () => {
  // The harness reaches the sandbox on loopback: 127.0.0.1, on the port of its URL.
  let cloudSkew = 0;
  const h = useHarness({ env: { ...ROLES, VS_BOT_ADDRESSES: '127.0.0.1' }, sandboxNow: () => Date.now() + cloudSkew });

  test("a DROP of that address on the API's port asks for the second confirmation: said in the form, refused on the box, sent once ticked", async () => {
    const apiPort = new URL(h.sandbox.url).port;
    const view = await openForm(h, `firewall block 42 127.0.0.0/8 ${apiPort}`, USERS.operator);
    expect(visibleText(view)).toContain("drops an address the bot reaches the cloud API from (`VS_BOT_ADDRESSES`) on the API's port");
    const ack = await submit(h, 'firewall_add', USERS.operator, view.private_metadata, filled({ address: '127.0.0.0/8', port: apiPort }));
    expect(ack).toMatchObject({ response_action: 'errors', errors: { confirm_risk: expect.stringContaining("bot's own address") } });
    expect(changes(h)).toEqual([]);
    const sent = await submit(h, 'firewall_add', USERS.operator, view.private_metadata, filled({ address: '127.0.0.0/8', port: apiPort, risk: true }));
    expect(sent.response_action).toBe('update');
    expect(changes(h)).toHaveLength(2);
  });

  test('another address, or another port, is sent without it', async () => {
    const apiPort = new URL(h.sandbox.url).port;
    const view = await openForm(h, `firewall block 42 203.0.113.5 ${apiPort}`, USERS.operator);
    expect(visibleText(view)).not.toContain('VS_BOT_ADDRESSES');
    expect((await submit(h, 'firewall_add', USERS.operator, view.private_metadata, filled({ port: apiPort }))).response_action).toBe('update');
    // The rules applied (update_firewall ended): the server takes changes again.
    cloudSkew += 60_000;
    const other = await openForm(h, 'firewall block 42 127.0.0.1 8080', USERS.operator);
    expect(visibleText(other)).not.toContain('VS_BOT_ADDRESSES');
  });
});

describe('/vs firewall block, when VS_APPROVALS names firewall_add', () => {
  const h = useHarness({ env: { ...ROLES, VS_APPROVALS: 'firewall_add' } });

  test('is asked for in the channel, and nothing is sent until someone approves', async () => {
    const view = await openForm(h, 'firewall block 42 203.0.113.5 8080', USERS.operator);
    await submit(h, 'firewall_add', USERS.operator, view.private_metadata, filled());
    const request = await waitFor('the approval request', () => h.slack.messagesIn(CHANNEL).find((m) => approvalIdIn(m.blocks)));
    expect(visibleText(request.blocks)).toContain('Add firewall rule');
    expect(changes(h)).toEqual([]);
  });
});

describe('a firewall rule added, followed to its end', () => {
  const T0 = Date.parse('2026-03-14T09:00:00Z');
  const clocks = { bot: T0, cloud: T0 };
  let h: Harness;
  afterEach(async () => {
    await h?.close();
  });

  test('done once the rules are applied: the port question answered again for the new rule', async () => {
    h = await startHarness({ env: { ...ROLES, VS_FOLLOW_INTERVAL_S: '5' }, now: () => clocks.bot, sandboxNow: () => clocks.cloud });
    const view = await openForm(h, 'firewall block 42 203.0.113.5 8080', USERS.operator);
    await submit(h, 'firewall_add', USERS.operator, view.private_metadata, filled());
    const message = await postedIn(h, CHANNEL, 'Add firewall rule · web-1 (VS 42)');
    const [record] = await h.store.audit.latest(1);
    await waitFor('the message remembered', async () => (await h.store.follows.get(record!.id))?.messageTs === message.ts, { within: 5000 });
    const current = (): ChannelMessage => h.slack.messagesIn(CHANNEL).find((m) => m.ts === message.ts)!;
    for (let i = 0; i < 4 && !/\*Done\*/.test(visibleText(current().blocks)); i++) {
      clocks.bot += 5000;
      clocks.cloud += 5000;
      await h.bot.follower.round();
    }
    expect(visibleText(current().blocks)).toMatch(/\*Done\* · the rules are applied; port 8080\/tcp from `203\.0\.113\.5` is now dropped/);
  });

  test('a rule that a rule above decides against: done says the port is still what it was, and where to see which rule decides', async () => {
    h = await startHarness({ env: { ...ROLES, VS_FOLLOW_INTERVAL_S: '5' }, now: () => clocks.bot, sandboxNow: () => clocks.cloud });
    // Rule #3 of VS 42 ACCEPTs everyone on 443/tcp: a DROP added at the end never decides that traffic.
    const view = await openForm(h, 'firewall block 42 203.0.113.5 443', USERS.operator);
    await submit(h, 'firewall_add', USERS.operator, view.private_metadata, filled({ port: '443' }));
    const message = await postedIn(h, CHANNEL, 'Add firewall rule · web-1 (VS 42)');
    const [record] = await h.store.audit.latest(1);
    await waitFor('the message remembered', async () => (await h.store.follows.get(record!.id))?.messageTs === message.ts, { within: 5000 });
    const current = (): ChannelMessage => h.slack.messagesIn(CHANNEL).find((m) => m.ts === message.ts)!;
    for (let i = 0; i < 4 && !/\*Done\*/.test(visibleText(current().blocks)); i++) {
      clocks.bot += 5000;
      clocks.cloud += 5000;
      await h.bot.follower.round();
    }
    const done = visibleText(current().blocks);
    expect(done).toMatch(/\*Done\* · the rules are applied; port 443\/tcp from `203\.0\.113\.5` is still accepted: a rule above the new one decides first/);
    expect(done).toMatch(/\(`\/vs firewall 42 443` says which\)/);
    expect(done).not.toMatch(/is now/);
  });
});

describe('the form shows what exactly will be sent before it is sent', () => {
  const h = useHarness({ env: ROLES });
  type Ack = Omit<Awaited<ReturnType<typeof submit>>, 'view'> & { view?: View };

  test('edited values are not sent: the form comes back with what they would do, prefilled; sent when submitted again unchanged', async () => {
    const view = await openForm(h, 'firewall block 42 203.0.113.5 8080', USERS.operator);
    const edited = filled({ address: '203.0.113.9', port: '443', reason: 'the scanner moved' });
    const again = (await submit(h, 'firewall_add', USERS.operator, view.private_metadata, edited)) as Ack;
    expect(again.response_action).toBe('update');
    const shown = again.view!;
    expect(shown.callback_id).toBe('firewall_add');
    expect(visibleText(shown)).toContain('DROP 203.0.113.9 on 443/tcp would not take effect: rule #3 (ACCEPT anyone on 443/tcp) decides first');
    expect(valueOf(shown, 'address').initial_value).toBe('203.0.113.9');
    expect(valueOf(shown, 'reason').initial_value).toBe('the scanner moved');
    expect(changes(h)).toEqual([]);
    const sent = await submit(h, 'firewall_add', USERS.operator, shown.private_metadata, edited);
    expect(sent.response_action).toBe('update');
    expect(changes(h)[0]).toEqual([
      'POST /virtual_machines/42/firewall_rules.json 201',
      { firewall_rule: { address: '203.0.113.9', command: 'DROP', port: '443', protocol: 'TCP', network_interface_id: '3' } },
    ]);
  });

  test("from the shortcut (no server yet): the first submission shows the rule's effect on the server named, the second sends it", async () => {
    const fields = { ...filled({ port: '443' }), vs_id: input.text('web-1'), network_interface_id: input.text('3'), channel: input.channel(CHANNEL) };
    const first = (await submit(h, 'firewall_add', USERS.operator, '{}', fields)) as Ack;
    expect(first.response_action).toBe('update');
    expect(visibleText(first.view!)).toContain('DROP 203.0.113.5 on 443/tcp would not take effect');
    // The channel picked stays picked.
    expect(first.view!.blocks.find((b) => b.block_id === 'channel')?.element).toMatchObject({ initial_conversation: CHANNEL });
    expect(changes(h)).toEqual([]);
    const second = await submit(h, 'firewall_add', USERS.operator, first.view!.private_metadata, fields);
    expect(second.response_action).toBe('update');
    expect(changes(h)).toHaveLength(2);
  });

  test('someone who may not make the change is shown no preview: the door refuses it and records it, and nothing is read', async () => {
    const fields = { ...filled({ port: '443' }), vs_id: input.text('42'), network_interface_id: input.text('3'), channel: input.channel(CHANNEL) };
    const ack = (await submit(h, 'firewall_add', USERS.viewer, '{}', fields)) as Ack;
    expect(JSON.stringify(ack)).not.toContain('would not take effect');
    expect(h.sandbox.requests.filter((r) => r.path.includes('firewall_rules'))).toEqual([]);
    expect((await h.store.audit.latest(1))[0]).toMatchObject({ userId: USERS.viewer, action: 'firewall_add', outcome: 'refused' });
  });

  test('a server of several interfaces: the preview is for the interface picked, shown again when another is picked', async () => {
    const view = await openForm(h, 'firewall block 45 203.0.113.5 443', USERS.operator);
    expect(valueOf(view, 'network_interface_id').initial_option?.value).toBe('8');
    const other = (await submit(h, 'firewall_add', USERS.operator, view.private_metadata, {
      ...filled({ port: '443' }),
      network_interface_id: input.select('9'),
    })) as Ack;
    expect(other.response_action).toBe('update');
    expect(valueOf(other.view!, 'network_interface_id').initial_option?.value).toBe('9');
    expect(changes(h)).toEqual([]);
  });
});
