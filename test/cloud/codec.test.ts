import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { addDiskWireFields, decodeResponse, encodeBody, parseErrorBody, type WireFormat } from '../../src/cloud/codec';
import { Responses } from '../../src/cloud/shapes';
import { READS } from '../../src/cloud/reads';
import type { AddDiskParams } from '../../src/cloud/schemas';
import { CloudError } from '../../src/cloud/errors';
import { MAX_ATTRIBUTES_PER_ELEMENT, parseXml } from '../../src/cloud/xml';
import { xmlList, xmlRecord } from '../helpers/rails-xml';

const fixture = (name: string) => readFileSync(join(__dirname, 'fixtures', name), 'utf8');

/** The fields XML carries for a firewall rule (docs/cloud-api.md, Firewall rules); JSON carries these and more. */
const XML_FIREWALL_FIELDS = ['id', 'network_interface_id', 'position', 'address', 'port', 'protocol', 'command', 'created_at', 'updated_at'];

function expectBadResponse(run: () => unknown, message: RegExp): void {
  let thrown: unknown;
  try {
    run();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(CloudError);
  expect((thrown as CloudError).kind).toBe('bad_response');
  expect((thrown as CloudError).message).toMatch(message);
}

describe('decoding firewall rules', () => {
  const fromJson = decodeResponse('json', fixture('firewall_rules.json'), READS.listFirewallRules.answer);
  const fromXml = decodeResponse('xml', fixture('firewall_rules.xml'), READS.listFirewallRules.answer);

  it('reads every rule of the JSON answer with typed fields', () => {
    expect(fromJson).toHaveLength(3);
    expect(fromJson[0]).toMatchObject({
      id: 12,
      network_interface_id: 101,
      position: 1,
      address: '192.168.1.0/24',
      port: '22',
      protocol: 'TCP',
      command: 'ACCEPT',
      identifier: 'kq1y6xl4jxbj2u',
      description: null,
    });
  });

  it('accepts numbers sent as strings and a port sent as a number', () => {
    expect(fromJson[1]).toMatchObject({ id: 13, network_interface_id: 101, position: 2, port: '443' });
  });

  it('reads a null or empty address and port as null ("any")', () => {
    expect(fromJson[1]!.address).toBeNull();
    expect(fromJson[2]).toMatchObject({ address: null, port: null, command: 'DROP', protocol: 'UDP' });
    expect(fromXml[1]!.address).toBeNull();
    expect(fromXml[2]).toMatchObject({ address: null, port: null });
  });

  it('reads the XML subset of fields, the others being absent rather than an error', () => {
    expect(fromXml).toHaveLength(3);
    expect(Object.keys(fromXml[0]!).sort()).toEqual([...XML_FIREWALL_FIELDS].sort());
  });

  it('gives the same rules from JSON and from XML, over the fields XML carries', () => {
    const subset = (rule: Record<string, unknown>) => Object.fromEntries(XML_FIREWALL_FIELDS.map((f) => [f, rule[f]]));
    expect(fromXml.map(subset)).toEqual(fromJson.map(subset));
  });

  it('reads an empty list in both formats', () => {
    expect(decodeResponse('json', '[]', READS.listFirewallRules.answer)).toEqual([]);
    expect(decodeResponse('xml', '<?xml version="1.0" encoding="UTF-8"?>\n<firewall_rules type="array"/>', READS.listFirewallRules.answer)).toEqual([]);
    expect(decodeResponse('xml', '<firewall_rules></firewall_rules>', READS.listFirewallRules.answer)).toEqual([]);
  });

  it('reads a list of one rule in XML as a list, with or without type="array"', () => {
    const one =
      '<firewall_rule><id type="integer">1</id><network_interface_id type="integer">5</network_interface_id><position type="integer">1</position>' +
      '<protocol>TCP</protocol><command>ACCEPT</command></firewall_rule>';
    for (const doc of [`<firewall_rules type="array">${one}</firewall_rules>`, `<firewall_rules>${one}</firewall_rules>`]) {
      expect(decodeResponse('xml', doc, READS.listFirewallRules.answer)).toEqual([
        { id: 1, network_interface_id: 5, position: 1, protocol: 'TCP', command: 'ACCEPT', address: null, port: null },
      ]);
    }
  });

  it('tolerates unknown extra fields', () => {
    const json = JSON.stringify([{ firewall_rule: { id: 1, network_interface_id: 2, position: 1, protocol: 'TCP', command: 'ACCEPT', colour: 'blue' } }]);
    expect(decodeResponse('json', json, READS.listFirewallRules.answer)[0]).toMatchObject({ id: 1, command: 'ACCEPT' });
  });

  it('rejects a rule without an id as a bad response naming the field', () => {
    const json = JSON.stringify([{ firewall_rule: { network_interface_id: 2, position: 1, protocol: 'TCP', command: 'ACCEPT' } }]);
    expectBadResponse(() => decodeResponse('json', json, READS.listFirewallRules.answer), /firewall_rule\[0\]\.id/);
  });

  it('rejects an object where a list is expected', () => {
    expectBadResponse(() => decodeResponse('json', '{"firewall_rule": {}}', READS.listFirewallRules.answer), /expected a list of firewall_rule/);
  });

  it('rejects truncated JSON, garbage, truncated XML and an empty body as bad responses', () => {
    const json = fixture('firewall_rules.json');
    expectBadResponse(() => decodeResponse('json', json.slice(0, json.length / 2), READS.listFirewallRules.answer), /not valid JSON/);
    expectBadResponse(() => decodeResponse('json', '\u0000\u00ff garbage', READS.listFirewallRules.answer), /not valid JSON/);
    const xml = fixture('firewall_rules.xml');
    expectBadResponse(() => decodeResponse('xml', xml.slice(0, xml.length / 2), READS.listFirewallRules.answer), /not valid XML/);
    expectBadResponse(() => decodeResponse('xml', 'garbage', READS.listFirewallRules.answer), /not valid XML/);
    expectBadResponse(() => decodeResponse('json', '   ', READS.listFirewallRules.answer), /empty answer/);
  });

  it('rejects an answer with too many attributes on one element as a bad response, like any malformed XML', () => {
    // A small one: the cap itself (and the 100,000-attribute answer) is test/cloud/xml.test.ts's.
    const attributes = Array.from({ length: MAX_ATTRIBUTES_PER_ELEMENT + 1 }, (_, k) => ` a${k}="1"`).join('');
    const xml = `<firewall_rules type="array"><firewall_rule${attributes}><id type="integer">1</id></firewall_rule></firewall_rules>`;
    expectBadResponse(
      () => decodeResponse('xml', xml, READS.listFirewallRules.answer),
      /^the cloud API sent an answer that is not valid XML \(XML with more than \d+ attributes on one element is not read\)$/,
    );
  });
});

describe('decoding autoscaling', () => {
  const fromJson = decodeResponse('json', fixture('auto_scaling.json'), READS.listAutoscaling.answer);
  const fromXml = decodeResponse('xml', fixture('auto_scaling.xml'), READS.listAutoscaling.answer);

  it('keeps the six slots in the order returned, placeholders marked as not configured', () => {
    expect(fromJson.map((s) => `${s.resource}/${s.scale_type}/${s.configured}`)).toEqual([
      'memory/up/true',
      'memory/down/false',
      'cpu/up/true',
      'cpu/down/false',
      'disk/up/true',
      'disk/down/false',
    ]);
    expect(fromJson[1]).toMatchObject({ id: null, virtual_machine_id: 42, limit_trigger: null, adjust_units: null });
  });

  it('fills limit_trigger/adjust_units from above/add_units and the other way round', () => {
    expect(fromJson[2]).toMatchObject({ id: 8, limit_trigger: 80, above: 80, adjust_units: 1, add_units: 1, for_minutes: 5 });
    expect(fromJson[4]).toMatchObject({ id: 9, limit_trigger: 85, above: 85, adjust_units: 10, add_units: 10, up_to: null });
  });

  it('gives the same slots from JSON and from XML', () => {
    expect(fromXml).toEqual(fromJson);
  });
});

describe('decoding a disk and a backup', () => {
  it('gives the same disk from JSON and from XML', () => {
    const fromJson = decodeResponse('json', fixture('disk.json'), Responses.disk);
    expect(fromJson).toMatchObject({ id: 311, disk_size: 20, built: false, locked: true, file_system: null, disk_type: 'SSD' });
    expect(decodeResponse('xml', fixture('disk.xml'), Responses.disk)).toEqual(fromJson);
  });

  it('gives the same backup from JSON and from XML', () => {
    const fromJson = decodeResponse('json', fixture('backup.json'), Responses.backup);
    expect(fromJson).toMatchObject({ id: 9, target_id: 42, disk_id: 310, built: true, note: null, built_at: '2015-10-06T02:00:13+03:00' });
    expect(decodeResponse('xml', fixture('backup.xml'), Responses.backup)).toEqual(fromJson);
  });

  it('reads flags sent as "1"/"0" and "true"/"false" strings', () => {
    const disk = decodeResponse('json', JSON.stringify({ disk: { id: '5', disk_size: '10', built: '1', locked: 'false', primary: 0 } }), Responses.disk);
    expect(disk).toMatchObject({ id: 5, disk_size: 10, built: true, locked: false, primary: false });
  });

  it('rejects a disk without a size as a bad response', () => {
    expectBadResponse(() => decodeResponse('json', '{"disk": {"id": 1}}', Responses.disk), /disk\.disk_size/);
  });
});

describe('the property: any list of rules decodes the same from JSON and from XML', () => {
  const text = fc.string({ maxLength: 20 });
  const rule = fc.record({
    id: fc.integer({ min: 1, max: 2 ** 31 }),
    network_interface_id: fc.integer({ min: 1, max: 100000 }),
    position: fc.integer({ min: 0, max: 10000 }),
    address: fc.oneof(
      fc.constant(null),
      fc.ipV4().map((ip) => `${ip}/24`),
      text,
    ),
    port: fc.oneof(fc.constant(null), fc.integer({ min: 1, max: 65535 }).map(String), fc.constant('0800'), fc.constant('1000:2000'), text),
    protocol: fc.constantFrom('TCP', 'UDP'),
    command: fc.constantFrom('ACCEPT', 'DROP'),
    created_at: fc.constant('2015-10-05T11:22:43+03:00'),
    updated_at: fc.constant('2015-10-05T11:22:43+03:00'),
  });

  it('holds for lists of 0 to 30 rules with arbitrary text', () => {
    fc.assert(
      fc.property(fc.array(rule, { maxLength: 30 }), (rules) => {
        // XML 1.0 cannot carry control characters, and XML trims text: compare what both formats can say.
        const clean = rules.map((r) => ({
          ...r,
          address: typeof r.address === 'string' ? xmlSafe(r.address) : r.address,
          port: typeof r.port === 'string' ? xmlSafe(r.port) : r.port,
        }));
        const json = JSON.stringify(clean.map((r) => ({ firewall_rule: r })));
        const xml = xmlList('firewall_rules', 'firewall_rule', clean);
        expect(decodeResponse('xml', xml, READS.listFirewallRules.answer)).toEqual(decodeResponse('json', json, READS.listFirewallRules.answer));
      }),
      { numRuns: 200 },
    );
  });
});

/** What survives an XML round trip unchanged: no control characters, no surrounding spaces. */
function xmlSafe(s: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what it removes
  return s.replace(/[\u0000-\u001F\u007F\uFFFE\uFFFF]/g, '').trim();
}

describe('parsing error bodies', () => {
  it('reads field messages from {"errors": {"field": ["msg"]}}, with base errors as plain messages', () => {
    expect(parseErrorBody('{"errors": {"disk_size": ["must be greater than 0"], "base": ["VS is locked"]}}')).toEqual({
      messages: ['VS is locked'],
      fieldErrors: { disk_size: ['must be greater than 0'] },
    });
  });

  it('takes field names that are also names on Object (toString, constructor, __proto__) as plain names', () => {
    const details = parseErrorBody('{"errors": {"toString": ["is odd"], "constructor": ["too"], "__proto__": ["and this"], "label": ["is long"]}}');
    expect(details.messages).toEqual(['__proto__: and this']);
    expect(Object.entries(details.fieldErrors)).toEqual([
      ['toString', ['is odd']],
      ['constructor', ['too']],
      ['label', ['is long']],
    ]);
    expect(Object.getPrototypeOf(details.fieldErrors)).toBe(Object.prototype);
  });

  it('reads messages from {"errors": ["msg"]} and {"error": "msg"}', () => {
    expect(parseErrorBody('{"errors": ["Disk size can\'t be blank", "Disk type is invalid"]}')).toEqual({
      messages: ["Disk size can't be blank", 'Disk type is invalid'],
      fieldErrors: {},
    });
    expect(parseErrorBody('{"error": "Access denied"}')).toEqual({ messages: ['Access denied'], fieldErrors: {} });
  });

  it('reads the bare field hash of older OnApp versions (no errors wrapper) as field errors, in JSON and XML', () => {
    expect(parseErrorBody('{"label":["has already been taken"]}')).toEqual({ messages: [], fieldErrors: { label: ['has already been taken'] } });
    expect(parseErrorBody('{"identifier":["has already been taken","is invalid"],"disk_size":"must be positive"}')).toEqual({
      messages: [],
      fieldErrors: { identifier: ['has already been taken', 'is invalid'], disk_size: ['must be positive'] },
    });
    const xml = '<?xml version="1.0" encoding="UTF-8"?>\n<hash>\n  <label type="array">\n    <label>has already been taken</label>\n  </label>\n</hash>\n';
    expect(parseErrorBody(xml)).toEqual({ messages: [], fieldErrors: { label: ['has already been taken'] } });
    expect(parseErrorBody('<hash><identifier type="array"><identifier>has already been taken</identifier></identifier></hash>')).toEqual({
      messages: [],
      fieldErrors: { identifier: ['has already been taken'] },
    });
  });

  it('does not mistake other JSON for a bare field hash', () => {
    for (const body of ['{"status":500,"ok":false}', '{"label":[1,2]}', '{}', '{"hash":{"n":3}}']) {
      expect(parseErrorBody(body)).toEqual({ messages: [], fieldErrors: {} });
    }
  });

  it('reads <errors><error>msg</error></errors> and field-named XML errors', () => {
    expect(parseErrorBody('<?xml version="1.0"?><errors><error>Disk size must be positive</error></errors>')).toEqual({
      messages: ['Disk size must be positive'],
      fieldErrors: {},
    });
    expect(parseErrorBody('<errors><disk_size>must be positive</disk_size><disk_size>is too big</disk_size></errors>')).toEqual({
      messages: [],
      fieldErrors: { disk_size: ['must be positive', 'is too big'] },
    });
  });

  it('takes only the title of an HTML error page', () => {
    const page =
      '<!DOCTYPE html><html><head><title>We&#39;re sorry, but something went wrong (500)</title></head><body><script>x()</script><h1>Oops</h1></body></html>';
    expect(parseErrorBody(page)).toEqual({ messages: ["We're sorry, but something went wrong (500)"], fieldErrors: {} });
  });

  it('says nothing for an empty, garbage or truncated body', () => {
    for (const body of ['', '   ', 'garbage', '{"errors": ["cut', '<errors><error>cut']) {
      expect(parseErrorBody(body)).toEqual({ messages: [], fieldErrors: {} });
    }
  });

  it('survives an error body nested thousands deep: JSON is read near the top, XML past the depth cap is not read at all', () => {
    const depth = 9000;
    const xml = `<errors><error>near the top</error>${'<a>'.repeat(depth)}deep${'</a>'.repeat(depth)}</errors>`;
    const json = `{"errors": ["near the top", ${'['.repeat(depth)}"deep"${']'.repeat(depth)}]}`;
    expect(parseErrorBody(json).messages).toEqual(['near the top']);
    expect(parseErrorBody(xml)).toEqual({ messages: [], fieldErrors: {} });
  });

  it('survives a body without an errors wrapper nested thousands deep (not taken for a bare field hash)', () => {
    const depth = 100_000;
    const bodies = [
      `<hash>${'<a>'.repeat(depth)}deep${'</a>'.repeat(depth)}</hash>`,
      `${'<a>'.repeat(depth)}deep${'</a>'.repeat(depth)}`,
      `${'{"a":'.repeat(5000)}"deep"${'}'.repeat(5000)}`,
    ];
    for (const body of bodies) expect(parseErrorBody(body)).toEqual({ messages: [], fieldErrors: {} });
    // A real field hash a few levels deep is still read as one.
    expect(parseErrorBody('<hash><disk><size>must be positive</size></disk></hash>')).toEqual({ messages: [], fieldErrors: { size: ['must be positive'] } });
  });

  it('keeps messages to one line of bounded length', () => {
    const { messages } = parseErrorBody(JSON.stringify({ errors: [`line one\nline two\u0007 ${'x'.repeat(1000)}`] }));
    expect(messages[0]).toMatch(/^line one line two x+…$/);
    expect(messages[0]!.length).toBeLessThanOrEqual(300);
  });
});

describe('the add-disk body', () => {
  const params = {
    disk_type: 'SSD' as const,
    disk_size: 20,
    label: 'data & logs',
    primary: true,
    is_swap: true,
    mount_point: '/data',
    hot_attach: false,
    min_iops: 100,
    add_to_linux_fstab: false,
    add_to_freebsd_fstab: true,
    require_format_disk: true,
    file_system: 'ext4' as const,
  };

  const encodeAddDiskBody = (format: WireFormat, p: AddDiskParams) => encodeBody(format, { root: 'disk', fields: addDiskWireFields(p) })!;

  it('sends every value as a string, 1/0 flags as "1"/"0" and true/false flags as "true"/"false" (JSON)', () => {
    expect(JSON.parse(encodeAddDiskBody('json', params))).toEqual({
      disk: {
        disk_type: 'SSD',
        disk_size: '20',
        label: 'data & logs',
        primary: '1',
        is_swap: 'true',
        mount_point: '/data',
        hot_attach: '0',
        min_iops: '100',
        add_to_linux_fstab: 'false',
        add_to_freebsd_fstab: 'true',
        require_format_disk: '1',
        file_system: 'ext4',
      },
    });
  });

  it('sends the same values as element text under <disk> (XML), escaped', () => {
    const xml = encodeAddDiskBody('xml', params);
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?><disk><disk_type>SSD</disk_type><disk_size>20</disk_size>')).toBe(true);
    expect(xml).toContain('<label>data &amp; logs</label>');
    expect(xml).toContain('<primary>1</primary><is_swap>true</is_swap>');
    expect(parseXml(xml)).toEqual({ disk: addDiskWireFields(params) });
  });

  it('leaves out parameters that are not given', () => {
    expect(JSON.parse(encodeAddDiskBody('json', { disk_type: 'HDD', disk_size: 5 }))).toEqual({ disk: { disk_type: 'HDD', disk_size: '5' } });
    expect(encodeAddDiskBody('xml', { disk_type: 'HDD', disk_size: 5, primary: false })).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><disk><disk_type>HDD</disk_type><disk_size>5</disk_size><primary>0</primary></disk>',
    );
  });

  it('writes one field alone as a body of its own: {"mode": "recovery"} or <mode>recovery</mode>; no body as null', () => {
    expect(encodeBody('json', { field: 'mode', value: 'recovery' })).toBe('{"mode":"recovery"}');
    expect(encodeBody('xml', { field: 'mode', value: 'a<b' })).toBe('<?xml version="1.0" encoding="UTF-8"?><mode>a&lt;b</mode>');
    expect(encodeBody('xml', null)).toBeNull();
  });

  it('writes test-side XML records the client reads back (helper sanity)', () => {
    expect(parseXml(xmlRecord('r', { a: 1, b: null, c: true, d: 'x<y' }))).toEqual({ r: { a: 1, b: null, c: true, d: 'x<y' } });
  });
});
