import fc from 'fast-check';
import { formatIp, parseIp, type IpAddress } from '../../src/firewall/address';
import { answerPortQuestion, type Protocol, type RuleRecord } from '../../src/firewall/port-question';
import { parsePortForm, portFormIncludes } from '../../src/firewall/ports';

// The matcher against an oracle that never reads text: rules are generated as
// structured specs (which ports, which sources), written out in the forms real
// deployments send, and the oracle decides from the specs alone.

type PortSpec = { kind: 'all'; text: '' | null } | { kind: 'list'; ports: number[] } | { kind: 'range'; first: number; last: number; sep: ':' | '-' };
type AddressSpec = { kind: 'all'; text: '' | null } | { kind: 'interval'; family: 4 | 6; first: bigint; last: bigint; text: string };

interface Spec {
  nic: number;
  position: number;
  protocol: Protocol;
  ports: PortSpec;
  address: AddressSpec;
  command: 'ACCEPT' | 'DROP';
  enabled: boolean | null;
}

const V4_BASE = 0x0a000000n; // 10.0.0.0
const V6_BASE = 0x20010db8n << 96n; // 2001:db8::

const v4Text = (v: bigint) => [24n, 16n, 8n, 0n].map((s) => String((v >> s) & 0xffn)).join('.');
/** Uncompressed, so the oracle's text does not go through the code under test. */
const v6Text = (v: bigint) => Array.from({ length: 8 }, (_, i) => ((v >> BigInt(112 - 16 * i)) & 0xffffn).toString(16)).join(':');
const ipText = (family: 4 | 6, v: bigint) => (family === 4 ? v4Text(v) : v6Text(v));
const ip = (family: 4 | 6, v: bigint): IpAddress => ({ family, value: v });

// A small space, so rules overlap and questions hit them often.
const PORTS = [22, 53, 80, 443, 1024, 1025, 1026, 1027, 1028, 8443];
const port = fc.constantFrom(...PORTS);
const offset = fc.bigInt({ min: 0n, max: 15n });
const family = fc.constantFrom<4 | 6>(4, 6);
const source = fc.tuple(family, offset).map(([f, o]) => ip(f, (f === 4 ? V4_BASE : V6_BASE) + o));

const portSpec: fc.Arbitrary<PortSpec> = fc.oneof(
  fc.constantFrom<PortSpec>({ kind: 'all', text: '' }, { kind: 'all', text: null }),
  fc.uniqueArray(port, { minLength: 1, maxLength: 4 }).map((ports): PortSpec => ({ kind: 'list', ports })),
  fc
    .tuple(port, port, fc.constantFrom<':' | '-'>(':', '-'))
    .map(([a, b, sep]): PortSpec => ({ kind: 'range', first: Math.min(a, b), last: Math.max(a, b), sep })),
);

const addressSpec: fc.Arbitrary<AddressSpec> = fc.oneof(
  fc.constantFrom<AddressSpec>({ kind: 'all', text: '' }, { kind: 'all', text: null }),
  fc.tuple(family, offset).map(([f, o]): AddressSpec => {
    const v = (f === 4 ? V4_BASE : V6_BASE) + o;
    return { kind: 'interval', family: f, first: v, last: v, text: ipText(f, v) };
  }),
  fc.tuple(family, offset, fc.integer({ min: 0, max: 4 })).map(([f, o, hostBits]): AddressSpec => {
    const bits = f === 4 ? 32 : 128;
    const size = 1n << BigInt(hostBits);
    const first = (((f === 4 ? V4_BASE : V6_BASE) + o) / size) * size;
    return { kind: 'interval', family: f, first, last: first + size - 1n, text: `${ipText(f, first)}/${bits - hostBits}` };
  }),
  fc.tuple(family, offset, offset).map(([f, a, b]): AddressSpec => {
    const base = f === 4 ? V4_BASE : V6_BASE;
    const [first, last] = a <= b ? [base + a, base + b] : [base + b, base + a];
    return { kind: 'interval', family: f, first, last, text: `${ipText(f, first)}-${ipText(f, last)}` };
  }),
);

function specsArbitrary(maxRules: number) {
  return fc
    .array(
      fc.record({
        nic: fc.constantFrom(3, 4),
        protocol: fc.constantFrom<Protocol>('tcp', 'udp'),
        ports: portSpec,
        address: addressSpec,
        command: fc.constantFrom<'ACCEPT' | 'DROP'>('ACCEPT', 'DROP'),
        enabled: fc.constantFrom<boolean | null>(true, true, true, false, null),
      }),
      { minLength: 1, maxLength: maxRules },
    )
    .chain((rules) =>
      fc
        .shuffledSubarray(
          rules.map((_, i) => i + 1),
          { minLength: rules.length, maxLength: rules.length },
        )
        .map((positions) => rules.map((r, i): Spec => ({ ...r, position: positions[i]! }))),
    );
}

function toRecord(s: Spec, i: number): RuleRecord {
  const portText = s.ports.kind === 'all' ? s.ports.text : s.ports.kind === 'list' ? s.ports.ports.join(',') : `${s.ports.first}${s.ports.sep}${s.ports.last}`;
  return {
    id: 100 + i,
    network_interface_id: s.nic,
    position: s.position,
    protocol: s.protocol.toUpperCase(),
    port: portText,
    address: s.address.text,
    command: s.command,
    enabled: s.enabled,
  };
}

function oracleMatches(s: Spec, q: { port: number; protocol: Protocol; source: IpAddress }): boolean {
  const portOk = s.ports.kind === 'all' || (s.ports.kind === 'list' ? s.ports.ports.includes(q.port) : s.ports.first <= q.port && q.port <= s.ports.last);
  const addressOk = s.address.kind === 'all' || (s.address.family === q.source.family && s.address.first <= q.source.value && q.source.value <= s.address.last);
  return s.protocol === q.protocol && portOk && addressOk;
}

const question = fc.record({ port, protocol: fc.constantFrom<Protocol>('tcp', 'udp'), source });

describe('the port question, against an oracle', () => {
  test('with a source, the first enabled matching rule by position decides; later ones are shadowed; disabled ones above are skipped and named', () => {
    fc.assert(
      fc.property(specsArbitrary(12), question, (specs, q) => {
        const records = specs.map(toRecord);
        const answer = answerPortQuestion(records, q);
        for (const nic of [...new Set(specs.map((s) => s.nic))]) {
          const ordered = specs
            .map((s, i) => ({ s, r: records[i]! }))
            .filter(({ s }) => s.nic === nic)
            .sort((a, b) => a.s.position - b.s.position);
          const matching = ordered.filter(({ s }) => oracleMatches(s, q));
          const enabled = matching.filter(({ s }) => s.enabled !== false);
          const deciding = enabled[0];
          const iface = answer.interfaces.find((a) => a.networkInterfaceId === nic)!;
          expect(iface.decisions.map((d) => [d.rule.id, d.verdict])).toEqual(
            deciding ? [[deciding.r.id, deciding.s.command === 'ACCEPT' ? 'accepted' : 'dropped']] : [],
          );
          expect(iface.reachesDefault).toBe(deciding === undefined);
          expect(iface.shadowed.map((r) => r.id)).toEqual(enabled.slice(1).map(({ r }) => r.id));
          const before = deciding ? deciding.s.position : Infinity;
          expect(iface.disabled.map((r) => r.id)).toEqual(matching.filter(({ s }) => s.enabled === false && s.position < before).map(({ r }) => r.id));
          expect(iface.cannotTell).toEqual([]);
        }
        expect(answer.interfaces.map((a) => a.networkInterfaceId)).toEqual([...new Set(specs.map((s) => s.nic))].sort());
      }),
      { numRuns: 400 },
    );
  });

  test('without a source, every source gets what the question about that one source gets', () => {
    fc.assert(
      fc.property(specsArbitrary(10), question, (specs, q) => {
        const records = specs.map(toRecord);
        const everyone = answerPortQuestion(records, { port: q.port, protocol: q.protocol, source: null });
        const one = answerPortQuestion(records, q);
        for (const iface of everyone.interfaces) {
          const single = one.interfaces.find((a) => a.networkInterfaceId === iface.networkInterfaceId)!;
          const covering = iface.decisions.find((d) => oracleMatches(specs[d.rule.id - 100]!, q));
          expect(covering?.rule.id).toBe(single.decisions[0]?.rule.id);
          if (covering === undefined) expect(iface.reachesDefault).toBe(true);
          // Decisions after one that applies to everyone left cannot exist.
          const everyoneElse = iface.decisions.findIndex((d) => d.everyoneElse);
          if (everyoneElse >= 0) expect(everyoneElse).toBe(iface.decisions.length - 1);
          expect(iface.reachesDefault).toBe(everyoneElse < 0);
        }
      }),
      { numRuns: 400 },
    );
  });
});

describe('properties of the forms', () => {
  const anySource = fc.oneof(fc.ipV4(), fc.ipV6()).map((t) => parseIp(t)!);
  const anyPort = fc.integer({ min: 1, max: 65535 });
  const anyProtocol = fc.constantFrom<Protocol>('tcp', 'udp');

  test('a rule with an empty port matches every port, and one with an empty address every source, IPv4 and IPv6', () => {
    fc.assert(
      fc.property(
        anyPort,
        anyProtocol,
        anySource,
        fc.constantFrom('', null, '  '),
        fc.constantFrom('', null),
        fc.constantFrom('ACCEPT', 'DROP', 'accept', 'drop'),
        (p, protocol, src, emptyPort, emptyAddress, command) => {
          const rule: RuleRecord = {
            id: 1,
            network_interface_id: 1,
            position: 1,
            protocol: protocol.toUpperCase(),
            port: emptyPort,
            address: emptyAddress,
            command,
          };
          const iface = answerPortQuestion([rule], { port: p, protocol, source: src }).interfaces[0]!;
          expect(iface.decisions).toEqual([
            { rule, verdict: command.toUpperCase() === 'ACCEPT' ? 'accepted' : 'dropped', everyoneElse: true, partly: false, uncertain: false },
          ]);
          // With the port named, the empty address still matches every source.
          const named = answerPortQuestion([{ ...rule, port: String(p) }], { port: p, protocol, source: src }).interfaces[0]!;
          expect(named.decisions.map((d) => d.rule.id)).toEqual([1]);
        },
      ),
    );
  });

  test('a CIDR block and the equivalent address range give the same answer', () => {
    const block = fc.oneof(
      fc.tuple(fc.ipV4(), fc.integer({ min: 0, max: 32 })).map(([t, prefix]) => ({ network: parseIp(t)!, prefix, bits: 32 })),
      fc.tuple(fc.ipV6(), fc.integer({ min: 0, max: 128 })).map(([t, prefix]) => ({ network: parseIp(t)!, prefix, bits: 128 })),
    );
    fc.assert(
      fc.property(block, fc.bigInt({ min: -2n, max: 2n }), fc.boolean(), anySource, (b, nudge, nearEdge, randomSource) => {
        const host = (1n << BigInt(b.bits - b.prefix)) - 1n;
        const first = b.network.value & ~host & ((1n << BigInt(b.bits)) - 1n);
        const last = first | host;
        const cidr = `${formatIp(b.network)}/${b.prefix}`;
        const range = `${formatIp({ family: b.network.family, value: first })}-${formatIp({ family: b.network.family, value: last })}`;
        // Probe at the edges of the block (just inside and just outside) as well as anywhere.
        const edge = (nudge < 0n ? first : last) + nudge;
        const max = (1n << BigInt(b.bits)) - 1n;
        const src = nearEdge && edge >= 0n && edge <= max ? { family: b.network.family, value: edge } : randomSource;
        const ask = (address: string) =>
          answerPortQuestion([{ id: 1, network_interface_id: 1, position: 1, protocol: 'TCP', port: '443', address, command: 'ACCEPT' }], {
            port: 443,
            protocol: 'tcp',
            source: src,
          }).interfaces[0]!.decisions.length;
        expect(ask(cidr)).toBe(ask(range));
        expect(ask(cidr)).toBe(src.family === b.network.family && first <= src.value && src.value <= last ? 1 : 0);
      }),
      { numRuns: 500 },
    );
  });

  test('a port list matches exactly its members', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(anyPort, { minLength: 1, maxLength: 8 }),
        anyPort,
        fc.boolean(),
        fc.constantFrom(',', ', '),
        (members, other, askMember, sep) => {
          const asked = askMember ? members[other % members.length]! : other;
          const rule: RuleRecord = { id: 1, network_interface_id: 1, position: 1, protocol: 'UDP', port: members.join(sep), address: null, command: 'DROP' };
          const iface = answerPortQuestion([rule], { port: asked, protocol: 'udp', source: null }).interfaces[0]!;
          expect(iface.decisions.length).toBe(members.includes(asked) ? 1 : 0);
          expect(iface.cannotTell).toEqual([]);
        },
      ),
    );
  });

  test('a port or address in a form the bot does not know gives "cannot tell", the value quoted; what follows holds only if that rule does not apply', () => {
    const badPort = fc.oneof(
      fc.constantFrom('80;443', 'https', '1024:', ':1024', '*', '443/tcp', '65536', '1028:1024', 'all'),
      fc.string({ maxLength: 10 }).map((s) => `x${s}`),
    );
    const badAddress = fc.oneof(
      fc.constantFrom('any', 'office', '10.0.0.0/33', '010.0.0.1', '10.0.0.*', 'fe80::1%eth0', '10.0.0.9-10.0.0.1', '10.0.0.0/8,192.168.0.0/16'),
      fc.string({ maxLength: 10 }).map((s) => `host-${s}`),
    );
    const badCommand = fc.constantFrom('REJECT', 'LOG', '', 'ALLOW');
    const unreadable = fc.oneof(
      badPort.map((value) => ({ field: 'port' as const, value, rule: { port: value } })),
      badAddress.map((value) => ({ field: 'address' as const, value, rule: { address: value } })),
      badCommand.map((value) => ({ field: 'command' as const, value, rule: { command: value } })),
      fc.constantFrom('ALL', 'any', '').map((value) => ({ field: 'protocol' as const, value, rule: { protocol: value } })),
    );
    fc.assert(
      fc.property(unreadable, fc.option(anySource, { nil: null }), fc.constantFrom('ACCEPT', 'DROP'), (u, src, fallback) => {
        const first: RuleRecord = { id: 1, network_interface_id: 1, position: 1, protocol: 'TCP', port: '443', address: null, command: 'ACCEPT', ...u.rule };
        const second: RuleRecord = { id: 2, network_interface_id: 1, position: 2, protocol: 'TCP', port: '', address: '', command: fallback };
        const iface = answerPortQuestion([second, first], { port: 443, protocol: 'tcp', source: src }).interfaces[0]!;
        expect(iface.cannotTell).toEqual([{ rule: first, fields: [{ field: u.field, value: u.value }] }]);
        expect(iface.decisions.map((d) => [d.rule.id, d.uncertain])).toEqual([[2, true]]);
      }),
    );
  });
});

describe('the ports as the walk reads them', () => {
  // The walk reads the common forms (`443`, `80,443`, `1024:1028`) by hand and leaves anything else to parsePortForm:
  // whatever the text, a rule applies to a port exactly when parsePortForm says it includes it, and a text it cannot
  // read is "cannot tell", quoted as sent.
  test('agree with parsePortForm, whatever the text', () => {
    const text = fc.oneof(
      fc.stringMatching(/^[0-9,:\- ]{0,14}$/),
      fc
        .array(fc.tuple(fc.integer({ min: 0, max: 70_000 }), fc.option(fc.integer({ min: 0, max: 70_000 }), { nil: null })), { minLength: 1, maxLength: 4 })
        .map((items) => items.map(([a, b]) => (b === null ? String(a) : `${a}${b % 2 === 0 ? ':' : '-'}${b}`)).join(',')),
    );
    fc.assert(
      fc.property(text, fc.integer({ min: 0, max: 70_000 }), (portText, asked) => {
        const rule: RuleRecord = { id: 1, network_interface_id: 1, position: 1, protocol: 'TCP', port: portText, address: null, command: 'DROP' };
        const iface = answerPortQuestion([rule], { port: asked, protocol: 'tcp', source: null }).interfaces[0]!;
        const form = parsePortForm(portText);
        if (form.kind === 'unreadable') {
          expect(iface.cannotTell).toEqual([{ rule, fields: [{ field: 'port', value: portText }] }]);
          expect(iface.decisions).toEqual([]);
        } else {
          expect(iface.cannotTell).toEqual([]);
          expect(iface.decisions.length).toBe(portFormIncludes(form, asked) ? 1 : 0);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
