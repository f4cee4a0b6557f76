import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { typedText, type PlainObject, type PlainValue } from '../../src/cloud/xml';

// The reader the client used before src/cloud/xml.ts got its own scanner:
// fast-xml-parser (validator, then parser), then the same Rails typing rule
// (typedText) as the scanner: the differential test is about structure.
// Kept here as the oracle of the differential test in xml.test.ts, so the
// scanner reads every document the way a mature parser does.

const ATTRIBUTE_PREFIX = '@_';
const TEXT_NODE = '#text';
const KNOWN_LIST_ELEMENTS: ReadonlySet<string> = new Set(['firewall_rules', 'auto_scaling_configurations', 'errors']);

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: ATTRIBUTE_PREFIX,
  textNodeName: TEXT_NODE,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  htmlEntities: false,
});

/** `{ rootName: plainValue }`, or throws on a document fast-xml-parser's validator refuses. */
export function referenceParseXml(text: string): PlainObject {
  const validation = XMLValidator.validate(text);
  if (validation !== true) throw new Error(`malformed XML at line ${validation.err.line}: ${validation.err.msg}`);
  const raw = parser.parse(text) as Record<string, unknown>;
  const out: PlainObject = {};
  for (const [name, node] of Object.entries(raw)) out[name] = toPlain(name, node);
  return out;
}

/** The parser's leaves are strings, numbers and booleans: each as its text. */
const leafText = (leaf: unknown): string => (typeof leaf === 'string' ? leaf : JSON.stringify(leaf));

function toPlain(name: string, node: unknown): PlainValue {
  if (Array.isArray(node)) return node.map((n) => toPlain(name, n));
  if (node === null || node === undefined) return null;
  if (typeof node !== 'object') return KNOWN_LIST_ELEMENTS.has(name) && node === '' ? [] : leafText(node);
  const element = node as Record<string, unknown>;
  const type = element[`${ATTRIBUTE_PREFIX}type`];
  if (element[`${ATTRIBUTE_PREFIX}nil`] === 'true') return null;
  if (type === 'array' || KNOWN_LIST_ELEMENTS.has(name)) return listItems(name, element);
  const childNames = Object.keys(element).filter((k) => !k.startsWith(ATTRIBUTE_PREFIX) && k !== TEXT_NODE);
  if (childNames.length === 0)
    return typedText(element[TEXT_NODE] === undefined ? '' : leafText(element[TEXT_NODE]), typeof type === 'string' ? type : undefined);
  const out: PlainObject = {};
  for (const child of childNames) out[child] = toPlain(child, element[child]);
  return out;
}

function listItems(name: string, element: Record<string, unknown>): PlainValue {
  const childNames = Object.keys(element).filter((k) => !k.startsWith(ATTRIBUTE_PREFIX) && k !== TEXT_NODE);
  if (name === 'errors' && childNames.some((c) => c !== 'error')) {
    const out: PlainObject = {};
    for (const child of childNames) out[child] = toPlain(child, element[child]);
    return out;
  }
  const items: PlainValue[] = [];
  for (const child of childNames) {
    const value = element[child];
    for (const item of Array.isArray(value) ? value : [value]) items.push(toPlain(child, item));
  }
  return items;
}
