import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { XMLValidator } from 'fast-xml-parser';
import { scanXml } from '../../bench/baselines/xml-scanner';
import { XML_LIST_ELEMENTS } from '../../src/cloud/reads';
import {
  escapeXmlText,
  MAX_ATTRIBUTES_PER_ELEMENT,
  MAX_XML_DEPTH,
  MAX_XML_LENGTH,
  parseXml,
  prescanXml,
  writeXmlDocument,
  XmlSyntaxError,
} from '../../src/cloud/xml';

describe('the XML reader', () => {
  it('turns typed elements into numbers, booleans and timestamp strings', () => {
    const doc = parseXml(
      '<disk><id type="integer">311</id><built type="boolean">false</built><locked type="boolean">true</locked>' +
        '<created_at type="datetime">2015-10-07T12:00:00+03:00</created_at></disk>',
    );
    expect(doc).toEqual({ disk: { id: 311, built: false, locked: true, created_at: '2015-10-07T12:00:00+03:00' } });
  });

  it('keeps untyped text as strings, so a port of "0800" keeps its leading zero', () => {
    expect(parseXml('<r><port>0800</port><address>10.0.0.1/32</address><flag>true</flag></r>')).toEqual({
      r: { port: '0800', address: '10.0.0.1/32', flag: 'true' },
    });
  });

  it('reads nil="true" as null', () => {
    expect(parseXml('<r><note nil="true"/><iqn nil="true"></iqn></r>')).toEqual({ r: { note: null, iqn: null } });
  });

  it('reads an empty type="array" element as an empty list', () => {
    expect(parseXml('<firewall_rules type="array"/>')).toEqual({ firewall_rules: [] });
    expect(parseXml('<things type="array"></things>')).toEqual({ things: [] });
  });

  it('reads a type="array" element with one child as a list of one', () => {
    expect(parseXml('<things type="array"><thing><id type="integer">1</id></thing></things>')).toEqual({ things: [{ id: 1 }] });
  });

  it('reads the lists of the reads table as lists even without type="array", a list of one included', () => {
    expect(XML_LIST_ELEMENTS).toEqual(
      expect.arrayContaining(['firewall_rules', 'auto_scaling_configurations', 'disks', 'backups', 'transactions', 'ip_addresses']),
    );
    for (const list of XML_LIST_ELEMENTS) expect(parseXml(`<${list}><item><id>1</id></item></${list}>`)).toEqual({ [list]: [{ id: '1' }] });
    expect(parseXml('<auto_scaling_configurations></auto_scaling_configurations>')).toEqual({ auto_scaling_configurations: [] });
    expect(parseXml('<errors><error>one</error></errors>')).toEqual({ errors: ['one'] });
    expect(parseXml('<virtual_machine><ip_addresses><ip_address><address>10.0.0.5</address></ip_address></ip_addresses></virtual_machine>')).toEqual({
      virtual_machine: { ip_addresses: [{ address: '10.0.0.5' }] },
    });
  });

  it('keeps <errors> with field-named children as an object of fields', () => {
    expect(parseXml('<errors><disk_size>must be positive</disk_size><label>too long</label></errors>')).toEqual({
      errors: { disk_size: 'must be positive', label: 'too long' },
    });
  });

  it('does not turn attributes into fields', () => {
    expect(parseXml('<r lang="en"><label kind="x">data</label><size type="integer" unit="GB">20</size></r>')).toEqual({
      r: { label: 'data', size: 20 },
    });
  });

  it('decodes the XML entities in text', () => {
    expect(parseXml('<r><label>a &amp; b &lt;c&gt; &quot;d&quot;</label></r>')).toEqual({ r: { label: 'a & b <c> "d"' } });
  });

  it('leaves a malformed integer as a string so that the schema can name the field', () => {
    expect(parseXml('<r><id type="integer">twelve</id></r>')).toEqual({ r: { id: 'twelve' } });
  });

  it('decodes character references', () => {
    expect(parseXml('<r><label>&#65;&#x42;&#233; &#0; &nope;</label></r>')).toEqual({ r: { label: 'ABé &#0; &nope;' } });
  });

  it('keeps CDATA exactly as sent', () => {
    expect(parseXml('<r><note><![CDATA[ <b>not markup</b> & ]]></note></r>')).toEqual({ r: { note: ' <b>not markup</b> & ' } });
  });

  it('makes elements named like Object properties plain own fields, and refuses those that could reach a prototype', () => {
    const doc = parseXml('<r><toString>t</toString><hasOwnProperty>h</hasOwnProperty><valueOf><x>1</x></valueOf></r>');
    const r = doc.r as Record<string, unknown>;
    expect(Object.keys(r)).toEqual(['toString', 'hasOwnProperty', 'valueOf']);
    expect(Object.getPrototypeOf(r)).toBe(Object.prototype);
    expect(r).toMatchObject({ toString: 't', hasOwnProperty: 'h', valueOf: { x: '1' } });
    for (const name of ['__proto__', 'constructor', 'prototype']) {
      expect(() => parseXml(`<r><${name}><polluted>yes</polluted></${name}></r>`)).toThrow(
        new XmlSyntaxError('XML with an element named __proto__, constructor or prototype is not read'),
      );
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('reads well-formed text outside the plain form the API writes too (the validator judges it)', () => {
    const unusual = [
      '<r a="1" b="2" c="3"><x>1</x></r>',
      '<r a = "1"><x>1</x></r>',
      '<r><é>x</é></r>',
      "<r><x y='1'>&#;</x></r>",
      '<?xml version="1.0"?><r><?pi inside?><x>1</x></r>',
    ];
    for (const text of unusual) {
      expect(prescanXml(text)).toBe(false);
      expect(parseXml(text)).toEqual(scanXml(text));
    }
    expect(prescanXml('<?xml version="1.0"?><!-- a --><r type="array" nil="false"><x>a &amp; &#38; &#x26; &nbsp;</x><![CDATA[<]]></r>\n<?pi after?>')).toBe(
      true,
    );
  });

  it('says where a document breaks without repeating what it says', () => {
    expect(() => parseXml('<r>\n<secret>hunter2</secret>\n</oops>')).toThrow(/^malformed XML at line 3: an end tag that does not match its start tag$/);
    expect(() => parseXml('<r a=hunter2/>')).toThrow(/^malformed XML at line 1: a malformed attribute$/);
    expect(() => parseXml('<r/><r/>')).toThrow(/^malformed XML: a second root element$/);
    expect(() => parseXml('<r></r><r/>')).toThrow(/a second root element$/);
    expect(() => parseXml('<r/>hunter2')).toThrow(/^malformed XML: text after the root element$/);
    expect(() => parseXml('<r></r>hunter2')).toThrow(/^malformed XML at line 1: text after the root element$/);
    expect(parseXml('<?xml version="1.0"?><!-- a --><r a=">"/>\n<!-- b --><?pi x?> ')).toEqual({ r: '' });
    expect(() => parseXml('<r a="1" a="2"/>')).toThrow(/^malformed XML at line 1: an attribute given twice$/);
    expect(() => parseXml('<firewall_rules type="array"><firewall_rule><id>1</id>')).toThrow(/^malformed XML at line 1: the document ends inside an element$/);
    expect(() => parseXml('   ')).toThrow(/^no XML element found$/);
    expect(() => parseXml('this is not xml {')).toThrow(XmlSyntaxError);
  });
});

// The hostile answers of docs/reliability.md: each is refused within its cap, quickly, without reading it whole.
describe('hostile XML', () => {
  it('refuses a DOCTYPE before parsing, so no entity is ever declared, let alone expanded (billion laughs)', () => {
    const laughs =
      '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">' +
      Array.from({ length: 9 }, (_, k) => `<!ENTITY lol${k + 1} "${`&lol${k === 0 ? '' : k};`.repeat(10)}">`).join('') +
      ']><lolz>&lol9;</lolz>';
    for (const document of [laughs, '<!doctype r [<!ENTITY a "aaaa">]><r>&a;</r>', '<?xml version="1.0"?><!DOCTYPE r SYSTEM "file:///etc/passwd"><r>&x;</r>']) {
      expect(() => parseXml(document)).toThrow(new XmlSyntaxError('XML with a DOCTYPE is not accepted'));
    }
    // Without a DTD an undeclared entity is text, as it came: nothing is looked up or expanded.
    expect(parseXml('<r>&lol9;&xxe;</r>')).toEqual({ r: '&lol9;&xxe;' });
  });

  describe('attributes: an element with more than the cap is refused', () => {
    const attributes = (count: number) => Array.from({ length: count }, (_, k) => ` a${k.toString(36)}=""`).join('');
    const refusal = new XmlSyntaxError(`XML with more than ${MAX_ATTRIBUTES_PER_ELEMENT} attributes on one element is not read`);

    it('reads an element with as many attributes as the cap allows, each element counted on its own', () => {
      expect(parseXml(`<r${attributes(MAX_ATTRIBUTES_PER_ELEMENT)}>x</r>`)).toEqual({ r: 'x' });
      const cap = MAX_ATTRIBUTES_PER_ELEMENT;
      expect(parseXml(`<r${attributes(cap)}><c${attributes(cap)}/><c${attributes(cap)}/></r>`)).toEqual({ r: { c: ['', ''] } });
      expect(() => parseXml(`<r><c${attributes(cap + 1)}/></r>`)).toThrow(refusal);
    });

    it('refuses an answer with 100,000 attributes on one element (under 1 MB)', () => {
      const hostile = `<firewall_rules type="array"><firewall_rule${attributes(100_000)}/></firewall_rules>`;
      expect(hostile.length).toBeLessThan(1_000_000);
      expect(() => parseXml(hostile)).toThrow(refusal);
    });
  });

  // The pre-scan is one pass over the text before the parser sees it: what it refuses, the parser never reads.
  describe('the pre-scan alone refuses, naming the cap, wherever in the text it is', () => {
    const attributes = (count: number, value = '') => Array.from({ length: count }, (_, k) => ` a${k.toString(36)}="${value}"`).join('');
    const tooManyAttributes = new XmlSyntaxError(`XML with more than ${MAX_ATTRIBUTES_PER_ELEMENT} attributes on one element is not read`);
    const tooDeep = new XmlSyntaxError(`XML nested deeper than ${MAX_XML_DEPTH} elements is not read`);
    const rules = '<firewall_rule><id type="integer">1</id><port>22</port></firewall_rule>'.repeat(10_000);

    it('an attribute bomb: first, after 10,000 rules, with `>` in its values, in markup the parser reads as a tag', () => {
      const bombs = [
        `<firewall_rules type="array"><firewall_rule${attributes(100_000)}/></firewall_rules>`,
        `<firewall_rules type="array">${rules}<firewall_rule${attributes(MAX_ATTRIBUTES_PER_ELEMENT + 1)}/></firewall_rules>`,
        `<r${attributes(MAX_ATTRIBUTES_PER_ELEMENT + 1, '/>')}/>`,
        `<r><!x${attributes(100_000)}></r>`,
        `<?pi${attributes(100_000)}?><r/>`,
        `<r>${attributes(100_000)}</r><r${attributes(100_000)}>`,
      ];
      for (const bomb of bombs) expect(() => prescanXml(bomb)).toThrow(tooManyAttributes);
      expect(prescanXml(`<r${attributes(MAX_ATTRIBUTES_PER_ELEMENT, '>')}/>`)).toBe(false);
    });

    it('deep nesting: open, self-closing, after 10,000 rules, in text that is not even well-formed', () => {
      const deep = MAX_XML_DEPTH + 1;
      const nestings = [
        '<a>'.repeat(100_000),
        `${'<a>'.repeat(deep - 1)}<b/>${'</a>'.repeat(deep - 1)}`,
        `<firewall_rules>${rules}${'<a>'.repeat(deep)}`,
        `<r></oops>${'<a x="<">'.repeat(deep)}`,
      ];
      for (const nesting of nestings) expect(() => prescanXml(nesting)).toThrow(tooDeep);
      expect(prescanXml(`${'<a>'.repeat(MAX_XML_DEPTH)}x${'</a>'.repeat(MAX_XML_DEPTH)}`)).toBe(true);
    });

    it('a DOCTYPE, even one the parser would take for something else', () => {
      for (const text of ['<!DOCTYPE r><r/>', '<r><![CDATA[<!doctype x>]]></r>']) {
        expect(() => prescanXml(text)).toThrow(new XmlSyntaxError('XML with a DOCTYPE is not accepted'));
      }
    });
  });

  it(`refuses nesting deeper than ${MAX_XML_DEPTH} elements, however deep, without running out of stack`, () => {
    const nested = (depth: number) => '<a>'.repeat(depth) + 'x' + '</a>'.repeat(depth);
    let node: unknown = parseXml(nested(MAX_XML_DEPTH));
    for (let k = 0; k < MAX_XML_DEPTH; k++) node = (node as Record<string, unknown>).a;
    expect(node).toBe('x');
    for (const depth of [MAX_XML_DEPTH + 2, 100_000]) {
      expect(() => parseXml(nested(depth))).toThrow(new XmlSyntaxError(`XML nested deeper than ${MAX_XML_DEPTH} elements is not read`));
    }
  });

  it('refuses text longer than the cap before parsing it (even text that would not parse), and reads a long text under it', () => {
    const refusal = new XmlSyntaxError(`XML longer than ${MAX_XML_LENGTH} characters is not read`);
    expect(() => parseXml(`<r>${'x'.repeat(MAX_XML_LENGTH - 7)}</r>!`)).toThrow(refusal);
    expect(() => parseXml('<'.repeat(MAX_XML_LENGTH + 1))).toThrow(refusal);
    expect((parseXml(`<r>${'x'.repeat(100_000)}</r>`).r as string).length).toBe(100_000);
  });
});

describe('the XML writer', () => {
  it('writes a declaration and one element per field, in order', () => {
    expect(writeXmlDocument('disk', { disk_type: 'SSD', disk_size: '20' })).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><disk><disk_type>SSD</disk_type><disk_size>20</disk_size></disk>',
    );
  });

  it('escapes markup characters and drops characters XML cannot carry', () => {
    expect(escapeXmlText(`a<b>&"c"'\u0001`)).toBe('a&lt;b&gt;&amp;&quot;c&quot;&apos;');
    const doc = writeXmlDocument('disk', { label: '</label><primary>1</primary>' });
    expect(parseXml(doc)).toEqual({ disk: { label: '</label><primary>1</primary>' } });
  });

  it('refuses element names that are not XML names', () => {
    expect(() => writeXmlDocument('disk', { 'a b': 'x' })).toThrow(/not an XML element name/);
  });
});

// ---------------------------------------------------------------------------
// The reader against the scanner it replaced (bench/baselines/xml-scanner.ts)
// on generated Rails-style documents, and on broken ones: the switch to
// fast-xml-parser changed nothing the API's answers can show.

interface GeneratedElement {
  name: string;
  attributes: [string, string][];
  content: { kind: 'text'; text: string; cdata: boolean } | { kind: 'children'; children: GeneratedElement[] };
}

const NAMES = ['firewall_rules', 'firewall_rule', 'errors', 'error', 'id', 'port', 'address', 'label', 'disk_size', 'a', 'x-y', 'n.s', 'ns:tag'];
const TYPES = ['integer', 'boolean', 'datetime', 'date', 'float', 'decimal', 'array', 'string'];
const UNICODE = 'é ü 雪';
const TEXT_PIECES = ['0800', '42', '-7', '1.5', 'true', 'false', '', ' ', 'a & b', '<tag>', '"q"', "it's", UNICODE, '10.0.0.0/8', 'x > y', '  padded  ', '\n'];

const attributeArb = fc.oneof(
  fc.constantFrom(...TYPES).map((t): [string, string] => ['type', t]),
  fc.constantFrom('true', 'false').map((v): [string, string] => ['nil', v]),
  fc.constantFrom('en', 'a & b', 'GB').map((v): [string, string] => ['lang', v]),
);

const elementArb: fc.Arbitrary<GeneratedElement> = fc.letrec<{ element: GeneratedElement }>((tie) => ({
  element: fc.record({
    name: fc.constantFrom(...NAMES),
    attributes: fc.uniqueArray(attributeArb, { maxLength: 2, selector: ([name]) => name }),
    content: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.record({
        kind: fc.constant('text' as const),
        text: fc.array(fc.constantFrom(...TEXT_PIECES), { maxLength: 3 }).map((pieces) => pieces.join('')),
        cdata: fc.boolean(),
      }),
      fc.record({ kind: fc.constant('children' as const), children: fc.array(tie('element'), { minLength: 1, maxLength: 4 }) }),
    ),
  }),
})).element;

const escapeText = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeAttribute = (text: string) => escapeText(text).replace(/"/g, '&quot;');

function serialize(element: GeneratedElement, gap: string): string {
  const attributes = element.attributes.map(([name, value]) => ` ${name}="${escapeAttribute(value)}"`).join('');
  const { content } = element;
  if (content.kind === 'text') {
    if (content.text === '') return `<${element.name}${attributes}/>`;
    const body = content.cdata ? `<![CDATA[${content.text}]]>` : escapeText(content.text);
    return `<${element.name}${attributes}>${body}</${element.name}>`;
  }
  const children = content.children.map((child) => gap + serialize(child, gap)).join('');
  return `<${element.name}${attributes}>${children}${gap}</${element.name}>`;
}

const documentArb = fc
  .record({
    root: elementArb,
    declaration: fc.boolean(),
    gap: fc.constantFrom('', '\n', '\n  ', ' '),
    comment: fc.boolean(),
  })
  .map(
    ({ root, declaration, gap, comment }) =>
      `${declaration ? '<?xml version="1.0" encoding="UTF-8"?>\n' : ''}${comment ? '<!-- generated -->' : ''}${serialize(root, gap)}${gap}`,
  );

describe('the XML reader against the scanner it replaced', () => {
  it('reads every generated Rails-style document as the scanner did', () => {
    fc.assert(
      fc.property(documentArb, (document) => {
        expect(parseXml(document)).toEqual(scanXml(document));
      }),
      { numRuns: 1500 },
    );
  });

  it('reads the recorded answers of the first four operations as the scanner did, each in the plain form', () => {
    for (const name of ['firewall_rules', 'auto_scaling', 'disk', 'backup']) {
      const document = readFileSync(join(__dirname, 'fixtures', `${name}.xml`), 'utf8');
      expect(prescanXml(document)).toBe(true);
      expect(parseXml(document)).toEqual(scanXml(document));
    }
  });

  it('finds every generated Rails-style document in the plain form, so none is validated a second time', () => {
    fc.assert(
      fc.property(documentArb, (document) => {
        expect(prescanXml(document)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('calls text plain only if the validator finds it well-formed and the scanner reads it as the reader does', () => {
    const piece = fc.constantFrom('<', '>', '/', '"', "'", '&', '=', ' ', '!', '?', '[', ']', '-', ';', '#', 'x', '', '<!--', '-->', ']]>', '?>');
    // Each generated document with one character replaced by a piece, or a piece put in.
    const broken = fc.tuple(documentArb, fc.double({ min: 0, max: 1, noNaN: true }), piece, fc.boolean()).map(([document, where, inserted, replace]) => {
      const at = Math.floor(where * document.length);
      return document.slice(0, at) + inserted + document.slice(replace ? at + 1 : at);
    });
    fc.assert(
      fc.property(broken, (text) => {
        let plain: boolean;
        try {
          plain = prescanXml(text);
        } catch (error) {
          expect(error).toBeInstanceOf(XmlSyntaxError);
          return;
        }
        if (!plain) return;
        expect(XMLValidator.validate(text)).toBe(true);
        expect(parseXml(text)).toEqual(scanXml(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('refuses every truncation of a document, wherever it is cut', () => {
    fc.assert(
      fc.property(documentArb, fc.double({ min: 0, max: 1, noNaN: true }), (document, where) => {
        const end = document.trimEnd().length - 1;
        const cut = document.slice(0, Math.floor(where * end));
        expect(prescanXml(cut)).toBe(false);
        expect(() => parseXml(cut)).toThrow(XmlSyntaxError);
      }),
      { numRuns: 1500 },
    );
  });

  it('throws nothing but XmlSyntaxError on arbitrary text, and reads what it reads as the scanner did', () => {
    const markupish = fc.array(fc.constantFrom('<', '>', '/', 'a', 'b', ' ', '=', '"', "'", '&', ';', '!', '?', '-', '[', ']', 'CDATA', 'amp'), {
      maxLength: 40,
    });
    fc.assert(
      fc.property(markupish, (pieces) => {
        const text = pieces.join('');
        let ours: unknown;
        try {
          ours = parseXml(text);
        } catch (error) {
          expect(error).toBeInstanceOf(XmlSyntaxError);
          expect(prescanXml(text)).toBe(false);
          return;
        }
        expect(ours).toEqual(scanXml(text));
        if (prescanXml(text)) expect(XMLValidator.validate(text)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });
});
