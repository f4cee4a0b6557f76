import { call, leafText, parseXml, typed, unwrap, xmlItems } from './http';
import { useSandbox } from './started';

const sandbox = useSandbox({}, { reset: false });

const ALL_FIELDS = [
  'id',
  'identifier',
  'network_interface_id',
  'position',
  'address',
  'port',
  'protocol',
  'command',
  'created_at',
  'updated_at',
  'description',
  'destination_ip',
  'enable_logging',
  'enabled',
  'firewall_service_id',
  'source_port',
].sort();
const XML_SUBSET = ['position', 'address', 'created_at', 'command', 'updated_at', 'port', 'protocol', 'id', 'network_interface_id'].sort();
const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/;

async function jsonRules(vsId: number): Promise<Array<Record<string, unknown>>> {
  const res = await call(sandbox, `/virtual_machines/${vsId}/firewall_rules.json`);
  expect(res.status).toBe(200);
  return unwrap(res.text, 'firewall_rule') as Array<Record<string, unknown>>;
}

async function xmlRules(vsId: number) {
  const res = await call(sandbox, `/virtual_machines/${vsId}/firewall_rules.xml`);
  expect(res.status).toBe(200);
  return { text: res.text, rules: xmlItems(parseXml(res.text), 'firewall_rules', 'firewall_rule') };
}

describe('GET /virtual_machines/:id/firewall_rules in JSON', () => {
  it('lists the web server rules with every field of docs/cloud-api.md (Firewall rules), each wrapped in firewall_rule', async () => {
    const rules = await jsonRules(42);
    expect(rules).toHaveLength(8);
    for (const r of rules) expect(Object.keys(r).sort()).toEqual(ALL_FIELDS);
    expect(rules.map((r) => r.position)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    for (const r of rules) expect(r.created_at).toMatch(ISO_WITH_OFFSET);
  });

  it('mixes commands, protocols, ranged and listed ports, empty and null addresses on the web server', async () => {
    const rules = await jsonRules(42);
    const first = rules[0];
    expect(first).toMatchObject({ id: 12, network_interface_id: 3, port: '22', address: '203.0.113.0/24', command: 'ACCEPT', protocol: 'TCP' });
    expect(new Set(rules.map((r) => r.command))).toEqual(new Set(['ACCEPT', 'DROP']));
    expect(new Set(rules.map((r) => r.protocol))).toEqual(new Set(['TCP', 'UDP']));
    expect(rules.map((r) => r.port)).toEqual(expect.arrayContaining(['80', '443', '8000:8100', '53,123']));
    expect(rules.find((r) => r.port === '80')?.address).toBe('');
    expect(rules.find((r) => r.port === '443')?.address).toBeNull();
    expect(rules.at(-1)).toMatchObject({ command: 'DROP', port: '', address: '' });
    expect(rules.find((r) => r.port === '443')?.description).toBe('Allow web <public> & health checks');
  });

  it('answers an empty array for a server without rules and a one-element array for the bastion', async () => {
    expect(await jsonRules(43)).toEqual([]);
    expect(await jsonRules(44)).toHaveLength(1);
  });

  it('lists 300 rules over two network interfaces, positions 1..150 on each', async () => {
    const rules = await jsonRules(45);
    expect(rules).toHaveLength(300);
    const byNic = new Map<unknown, unknown[]>();
    for (const r of rules) byNic.set(r.network_interface_id, [...(byNic.get(r.network_interface_id) ?? []), r.position]);
    expect(byNic.size).toBe(2);
    const positions = Array.from({ length: 150 }, (_, i) => i + 1);
    for (const list of byNic.values()) expect(list).toEqual(positions);
    expect(new Set(rules.map((r) => r.command)).size).toBe(2);
    expect(new Set(rules.map((r) => r.protocol)).size).toBe(2);
    expect(new Set(rules.map((r) => r.port)).size).toBeGreaterThan(5);
  });
});

describe('VS 77, the server for the port question', () => {
  it('uses every port and address form, disabled rules, DROP and UDP, and one port nobody can read, on two interfaces', async () => {
    const rules = await jsonRules(77);
    expect(new Set(rules.map((r) => r.network_interface_id))).toEqual(new Set([21, 22]));
    const ports = rules.map((r) => r.port);
    expect(ports).toEqual(expect.arrayContaining(['22,443,8443', '1024:1028', '5000-5010', '', null, '9000;9001']));
    const addresses = rules.map((r) => r.address);
    expect(addresses).toEqual(
      expect.arrayContaining(['203.0.113.0/24', '198.51.100.1-198.51.100.20', '2001:db8:77::/48', '2001:db8:77::10-2001:db8:77::1f', '10.77.0.5', '', null]),
    );
    expect(rules.filter((r) => r.enabled === false).map((r) => r.id)).toEqual([7703, 7712]);
    expect(new Set(rules.map((r) => r.command))).toEqual(new Set(['ACCEPT', 'DROP']));
    expect(new Set(rules.map((r) => r.protocol))).toEqual(new Set(['TCP', 'UDP']));
  });

  it('sends the same rules in XML, without `enabled` (the XML form does not carry it)', async () => {
    const { rules, text } = await xmlRules(77);
    expect(rules).toHaveLength(13);
    expect(text).not.toContain('enabled');
    expect(rules.map((r) => typed(r.id).text)).toEqual((await jsonRules(77)).map((r) => String(r.id)));
  });
});

describe('GET /virtual_machines/:id/firewall_rules in XML', () => {
  it('carries only the XML subset of docs/cloud-api.md (Firewall rules), with typed attributes', async () => {
    const { rules } = await xmlRules(42);
    expect(rules).toHaveLength(8);
    for (const r of rules) expect(Object.keys(r).sort()).toEqual(XML_SUBSET);
    const first = rules[0] ?? {};
    expect(typed(first.id)).toEqual({ text: '12', type: 'integer', nil: false });
    expect(typed(first.position)).toEqual({ text: '1', type: 'integer', nil: false });
    expect(typed(first.network_interface_id)).toEqual({ text: '3', type: 'integer', nil: false });
    expect(typed(first.created_at)).toEqual({ text: '2026-01-02T10:00:00+00:00', type: 'datetime', nil: false });
    expect(first.port).toBe('22');
    expect(first.address).toBe('203.0.113.0/24');
  });

  it('writes a null address as nil and an empty one as an empty element', async () => {
    const { text } = await xmlRules(42);
    expect(text).toContain('<address nil="true"/>');
    expect(text).toContain('<address></address>');
  });

  it('answers a self-closing array for a server without rules and a list of one for the bastion', async () => {
    expect((await xmlRules(43)).text).toBe('<?xml version="1.0" encoding="UTF-8"?>\n<firewall_rules type="array"/>');
    const { rules, text } = await xmlRules(44);
    expect(rules).toHaveLength(1);
    expect(parseXml(text).firewall_rules).toMatchObject({ '@_type': 'array' });
  });

  it('gives the same values as JSON for the subset fields, on all 300 rules', async () => {
    const json = await jsonRules(45);
    const { rules } = await xmlRules(45);
    const plain = (node: unknown) => {
      const t = typed(node);
      return t.nil ? null : (t.text ?? '');
    };
    expect(rules.map((r) => Object.fromEntries(XML_SUBSET.map((f) => [f, plain(r[f])])))).toEqual(
      json.map((r) => Object.fromEntries(XML_SUBSET.map((f) => [f, r[f] === null ? null : leafText(r[f])]))),
    );
  });
});
