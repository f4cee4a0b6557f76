import { escapeXmlText, parseXml, writeXmlDocument, XmlSyntaxError } from '../../src/cloud/xml';

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

  it('reads known list roots as lists even without type="array"', () => {
    expect(parseXml('<firewall_rules><firewall_rule><id>1</id></firewall_rule></firewall_rules>')).toEqual({
      firewall_rules: [{ id: '1' }],
    });
    expect(parseXml('<auto_scaling_configurations></auto_scaling_configurations>')).toEqual({ auto_scaling_configurations: [] });
    expect(parseXml('<errors><error>one</error></errors>')).toEqual({ errors: ['one'] });
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

  it('refuses truncated XML, garbage and documents with a DOCTYPE', () => {
    expect(() => parseXml('<firewall_rules type="array"><firewall_rule><id>1</id>')).toThrow(XmlSyntaxError);
    expect(() => parseXml('this is not xml {')).toThrow(XmlSyntaxError);
    expect(() => parseXml('<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaa">]><r>&a;</r>')).toThrow(XmlSyntaxError);
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
