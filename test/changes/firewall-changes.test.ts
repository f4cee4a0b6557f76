import type { FirewallRule } from '../../src/cloud/schemas';
import { firewallRisk, previewFirewallRule, validateFirewallAddForm, validateFirewallRemoveForm } from '../../src/changes/firewall-changes';

// The firewall forms' checks and what a new rule would do given the rules as they are (first match in position order;
// a new rule lands at the end of its interface's list): the data the firewall forms word.

const rule = (r: Partial<FirewallRule> & Pick<FirewallRule, 'id' | 'position' | 'command'>): FirewallRule => ({
  network_interface_id: 105,
  protocol: 'TCP',
  address: null,
  port: null,
  ...r,
});

const RULES = [
  rule({ id: 12, position: 1, command: 'ACCEPT', port: '22', address: '203.0.113.0/24' }),
  rule({ id: 14, position: 3, command: 'ACCEPT', port: '443' }),
  rule({ id: 17, position: 6, command: 'DROP', port: '3306' }),
];
const add = { network_interface_id: 105, protocol: 'TCP' as const };

describe('what a new rule would do', () => {
  test('a DROP under an ACCEPT for everyone on the same port would not take effect: the rule that decides first is named', () => {
    expect(previewFirewallRule(RULES, { ...add, command: 'DROP', address: '198.51.100.5', port: '443' })).toMatchObject({
      effect: 'overridden',
      by: { id: 14 },
      port: 443,
      protocol: 'tcp',
    });
  });

  test('a DROP of a port no rule decides takes effect; one already dropped changes nothing', () => {
    expect(previewFirewallRule(RULES, { ...add, command: 'DROP', address: '198.51.100.5', port: '8080' })).toMatchObject({
      effect: 'takes_effect',
      port: 8080,
    });
    expect(previewFirewallRule(RULES, { ...add, command: 'DROP', address: '', port: '3306' })).toMatchObject({ effect: 'already', by: { id: 17 } });
  });
});

describe('the add-rule form', () => {
  const values = { network_interface_id: '105', command: 'DROP', address: '198.51.100.5', port: '443', protocol: 'TCP', reason: 'scanner' };

  test('reads an address, ports, a protocol and a command', () => {
    expect(validateFirewallAddForm(values)).toEqual({
      ok: true,
      params: { network_interface_id: 105, command: 'DROP', address: '198.51.100.5', port: '443', protocol: 'TCP', reason: 'scanner', confirmed_risk: false },
    });
  });

  test('refuses an unreadable address or port on its field', () => {
    const checked = validateFirewallAddForm({ ...values, address: '198.51.100.500', port: '70000' });
    expect(checked.ok).toBe(false);
    expect(Object.keys(checked.ok ? {} : checked.fieldErrors).sort()).toEqual(['address', 'port']);
  });

  test('a DROP of every address on port 22 needs the second confirmation', () => {
    expect(firewallRisk({ command: 'DROP', address: '', port: '22', protocol: 'TCP' })).toBe('ssh_everyone');
    expect(firewallRisk({ command: 'DROP', address: '198.51.100.5', port: '22', protocol: 'TCP' })).toBeNull();
    const risky = { ...values, address: '', port: '' };
    expect(validateFirewallAddForm(risky)).toMatchObject({ ok: false, fieldErrors: { confirm_risk: expect.stringContaining('port 22') } });
    expect(validateFirewallAddForm({ ...risky, confirm_risk: true })).toMatchObject({ ok: true, params: { confirmed_risk: true } });
  });

  test("a DROP of an address the bot reaches the cloud from (VS_BOT_ADDRESSES), on the API's port, needs the second confirmation", () => {
    const limits = { botAccess: { addresses: ['203.0.113.7', '198.51.100.0/28'], port: 443 } };
    const drop = (address: string, port: string, protocol = 'TCP') => firewallRisk({ command: 'DROP', address, port, protocol: protocol as 'TCP' }, limits);
    // The bot's address, a block holding it, a range over one of its blocks, every address: on 443, a list holding it, every port.
    expect(drop('203.0.113.7', '443')).toBe('bot_access');
    expect(drop('203.0.113.0/24', '80,443')).toBe('bot_access');
    expect(drop('198.51.100.10-198.51.100.40', '')).toBe('bot_access');
    expect(drop('', '443')).toBe('bot_access');
    // Another address, another port, UDP, an ACCEPT: nothing to confirm.
    expect(drop('203.0.113.8', '443')).toBeNull();
    expect(drop('203.0.113.7', '8443')).toBeNull();
    expect(drop('203.0.113.7', '443', 'UDP')).toBeNull();
    expect(firewallRisk({ command: 'ACCEPT', address: '203.0.113.7', port: '443', protocol: 'TCP' }, limits)).toBeNull();
    // Not known: not checked.
    expect(firewallRisk({ command: 'DROP', address: '203.0.113.7', port: '443', protocol: 'TCP' })).toBeNull();
    expect(firewallRisk({ command: 'DROP', address: '203.0.113.7', port: '443', protocol: 'TCP' }, { botAccess: null })).toBeNull();

    const cutting = { ...values, address: '203.0.113.0/24', port: '443' };
    expect(validateFirewallAddForm(cutting, limits)).toMatchObject({ ok: false, fieldErrors: { confirm_risk: expect.stringContaining("bot's own address") } });
    expect(validateFirewallAddForm({ ...cutting, confirm_risk: true }, limits)).toMatchObject({ ok: true, params: { confirmed_risk: true } });
    expect(validateFirewallAddForm(cutting)).toMatchObject({ ok: true });
  });
});

describe('the remove-rule form', () => {
  test('the rule id typed again, and a reason', () => {
    expect(validateFirewallRemoveForm({ rule_id: '17', confirm: '17', reason: 'moved' })).toEqual({ ok: true, params: { rule_id: 17, reason: 'moved' } });
    expect(validateFirewallRemoveForm({ rule_id: '17', confirm: '#17', reason: 'moved' })).toMatchObject({ ok: true });
    expect(validateFirewallRemoveForm({ rule_id: '17', confirm: '16', reason: '' })).toMatchObject({
      ok: false,
      fieldErrors: { confirm: 'Type the rule id (17) to confirm its removal', reason: expect.any(String) },
    });
  });
});
