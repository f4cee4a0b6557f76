import { useHarness, type Harness } from '../helpers/app-harness';
import { answerTo, CHANNEL, openForm, postedIn, submit, visibleText } from '../helpers/drive';
import { input } from '../helpers/payloads';

// Removing a firewall rule (docs/product.md, More of the control panel), over the real app: signed commands and
// submissions in, the sandbox on loopback as the cloud (VS 42's rule 17: DROP TCP 3306 from anyone).

const USERS = { admin: 'UADMIN', operator: 'UOPER' } as const;
/** Added to the real clock: the sandbox's, moved past a change's transactions when a test needs the server unlocked again. */
let cloudSkew = 0;
const h = useHarness({ env: { VS_ADMINS: USERS.admin, VS_OPERATORS: USERS.operator }, sandboxNow: () => Date.now() + cloudSkew });

const changes = (harness: Harness) => harness.sandbox.requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path} ${r.status}`);
const filled = (o: { confirm?: string; reason?: string } = {}) => ({
  confirm: input.text(o.confirm ?? '17'),
  reason: input.text(o.reason ?? 'MySQL moved to its own network'),
});

describe('/vs firewall remove', () => {
  test('reads the server’s rules first; the form names the rule in words and asks for its id again', async () => {
    const view = await openForm(h, 'firewall remove 42 17', USERS.admin);
    expect(view.callback_id).toBe('firewall_remove');
    // The server (a locked one takes no change) and its rules, read side by side.
    expect(h.sandbox.requests.map((r) => `${r.method} ${r.path}`).sort()).toEqual([
      'GET /virtual_machines/42.json',
      'GET /virtual_machines/42/firewall_rules.json',
    ]);
    expect(visibleText(view)).toContain('*Removing rule 17 of VS 42*');
    expect(visibleText(view)).toMatch(/\*DROP\* TCP from \*any\* to port `3306`/);
    expect(JSON.stringify(view.blocks)).toContain('Type 17 to confirm');
  });

  test('an admin removes it: DELETE, then the rules applied; scheduled, audited with the rule', async () => {
    const view = await openForm(h, 'firewall remove 42 17', USERS.admin);
    const ack = await submit(h, 'firewall_remove', USERS.admin, view.private_metadata, filled());
    expect(ack.response_action).toBe('update');
    expect(changes(h)).toEqual(['DELETE /virtual_machines/42/firewall_rules/17.json 204', 'POST /virtual_machines/42/update_firewall_rules.json 201']);
    const result = await postedIn(h, CHANNEL, 'Remove firewall rule · web-1 (VS 42)');
    expect(visibleText(result.blocks)).toContain('*Removal of firewall rule 17* on VS 42, then its rules applied');
    expect((await h.store.audit.latest(1))[0]).toMatchObject({
      userId: USERS.admin,
      action: 'firewall_remove',
      target: 'vs:42',
      outcome: 'scheduled',
      apiRequest: { method: 'DELETE', path: '/virtual_machines/42/firewall_rules/17.json', body: null },
      params: { rule_id: 17, reason: 'MySQL moved to its own network' },
      detail: 'removal of firewall rule 17 on VS 42, applied',
    });
  });

  test('the wrong id typed to confirm, or no reason: inline on the fields, nothing sent', async () => {
    const view = await openForm(h, 'firewall remove 42 17', USERS.admin);
    const ack = await submit(h, 'firewall_remove', USERS.admin, view.private_metadata, filled({ confirm: '16', reason: '' }));
    expect(ack).toMatchObject({
      response_action: 'errors',
      errors: { confirm: 'Type the rule id (17) to confirm its removal', reason: expect.stringContaining('Say why') },
    });
    expect(changes(h)).toEqual([]);
  });

  test('an operator is denied by role, recorded, and the rules are not even read', async () => {
    const answer = await answerTo(h, 'firewall remove 42 17', { user: USERS.operator });
    expect(visibleText(answer)).toContain('Removing a firewall rule needs the admin role; you are an operator.');
    expect(h.sandbox.requests).toEqual([]);
    expect((await h.store.audit.latest(1))[0]).toMatchObject({ action: 'firewall_remove', target: 'vs:42', outcome: 'refused' });
  });

  test('a server still locked by a transaction takes no removal: said with the transaction, and no form opens', async () => {
    const view = await openForm(h, 'firewall remove 42 17', USERS.admin);
    await submit(h, 'firewall_remove', USERS.admin, view.private_metadata, filled());
    const answer = await answerTo(h, 'firewall remove 42 16', { user: USERS.admin });
    expect(visibleText(answer)).toContain('Busy: a transaction is running on VS 42: updating the firewall. Nothing was sent');
    expect(h.slack.callsTo('views.open')).toHaveLength(1);
    expect(changes(h).filter((c) => c.includes('/16.json'))).toEqual([]);
    cloudSkew += 60_000;
  });

  test('a rule the server does not have is said so, and no form opens', async () => {
    const answer = await answerTo(h, 'firewall remove 42 999', { user: USERS.admin });
    expect(visibleText(answer)).toContain('Firewall rule 999 was not found on VS 42');
    expect(h.slack.callsTo('views.open')).toEqual([]);
  });

  test('a rule removed by someone else since the form opened: the 404 names the rule; nothing applied', async () => {
    const view = await openForm(h, 'firewall remove 42 17', USERS.admin);
    const first = await submit(h, 'firewall_remove', USERS.admin, view.private_metadata, filled());
    expect(first.response_action).toBe('update');
    // Its rules applied (update_firewall ended): the server takes changes again.
    cloudSkew += 60_000;
    const again = await openForm(h, 'firewall remove 42 16', USERS.admin);
    // The same form's metadata, with rule 17 (gone now) in place of 16.
    const ack = await submit(h, 'firewall_remove', USERS.admin, again.private_metadata.replace('"16"', '"17"'), filled());
    expect(visibleText(ack)).toContain('*Failed*: Firewall rule 17 was not found');
    expect(changes(h).filter((c) => c.includes('/17.json'))).toEqual([
      'DELETE /virtual_machines/42/firewall_rules/17.json 204',
      'DELETE /virtual_machines/42/firewall_rules/17.json 404',
    ]);
  });

  test('a server id without a rule id gets the usage', async () => {
    const answer = await answerTo(h, 'firewall remove 42', { user: USERS.admin });
    expect(visibleText(answer)).toContain('`/vs firewall remove` needs a rule id');
    expect(visibleText(answer)).toContain('e.g. `/vs firewall remove 42 17`');
  });
});
