import { XMLParser, XMLValidator } from 'fast-xml-parser';

// The one XML configuration of the client. OnApp answers Rails-style XML:
// typed attributes (type="integer" | "boolean" | "datetime"), nil="true" for
// null, type="array" on lists. The parser keeps every text as a string
// (parseTagValue: false, so "0800" stays "0800"); `toPlain` then applies the
// typed attributes and drops every attribute, so the result has the same
// shape as the JSON form and goes through the same zod schemas.

/** What XML turns into: the same plain values JSON.parse gives. */
export type PlainValue = string | number | boolean | null | PlainValue[] | { [key: string]: PlainValue };
export type PlainObject = { [key: string]: PlainValue };

const ATTRIBUTE_PREFIX = '@_';
const TEXT_NODE = '#text';

/** Roots that are lists even when a server forgets type="array". */
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
  // Only the five XML entities and numeric references; no HTML entity table.
  htmlEntities: false,
});

export class XmlSyntaxError extends Error {
  override readonly name = 'XmlSyntaxError';
}

/**
 * Parses an XML document into `{ rootName: plainValue }`. Throws
 * XmlSyntaxError on anything that is not a well-formed document: the parser
 * alone accepts truncated input, so the validator runs first.
 */
export function parseXml(text: string): PlainObject {
  // Our API never sends a DTD; refusing it closes the door on entity tricks.
  if (/<!DOCTYPE/i.test(text)) throw new XmlSyntaxError('XML with a DOCTYPE is not accepted');
  const validation = XMLValidator.validate(text);
  if (validation !== true) {
    // Only the line: the validator's text quotes the document, which is not ours to repeat.
    throw new XmlSyntaxError(`malformed XML at line ${validation.err.line}`);
  }
  const raw: unknown = parser.parse(text);
  if (raw === null || typeof raw !== 'object' || Object.keys(raw).length === 0) {
    throw new XmlSyntaxError('no XML element found');
  }
  const out: PlainObject = {};
  for (const [name, node] of Object.entries(raw as Record<string, unknown>)) {
    out[name] = toPlain(name, node);
  }
  return out;
}

/** One parsed node (string, attribute-bearing object, array of repeats) → a plain value. */
function toPlain(name: string, node: unknown): PlainValue {
  if (Array.isArray(node)) return node.map((n) => toPlain(name, n));
  if (node === null || node === undefined) return null;
  if (typeof node !== 'object') {
    // Without attributes: a list root is still a list (empty here), the rest is text.
    return KNOWN_LIST_ELEMENTS.has(name) && node === '' ? [] : String(node);
  }
  const element = node as Record<string, unknown>;
  const type = element[`${ATTRIBUTE_PREFIX}type`];
  if (element[`${ATTRIBUTE_PREFIX}nil`] === 'true') return null;
  if (type === 'array' || KNOWN_LIST_ELEMENTS.has(name)) return listItems(name, element);

  const childNames = Object.keys(element).filter((k) => !k.startsWith(ATTRIBUTE_PREFIX) && k !== TEXT_NODE);
  if (childNames.length === 0) return typedText(element[TEXT_NODE], type);
  const out: PlainObject = {};
  for (const child of childNames) out[child] = toPlain(child, element[child]);
  return out;
}

/**
 * Items of a list element: every child element, in order per name (lists hold
 * one kind of child). `<errors>` is the exception: its children are named
 * after what they describe, so it keeps an object when they are not `error`.
 */
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

function typedText(text: unknown, type: unknown): PlainValue {
  const value = text === undefined ? '' : String(text);
  switch (type) {
    case 'integer':
      if (value === '') return null;
      // A malformed integer stays a string so that the schema names the field.
      return /^-?\d+$/.test(value) ? Number(value) : value;
    case 'float':
    case 'decimal':
      if (value === '') return null;
      return Number.isFinite(Number(value)) ? Number(value) : value;
    case 'boolean':
      if (value === 'true') return true;
      if (value === 'false') return false;
      return value === '' ? null : value;
    case 'datetime':
    case 'date':
      return value === '' ? null : value;
    default:
      return value;
  }
}

const DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>';

// Characters XML 1.0 cannot carry, even escaped: dropped rather than sent broken.
// eslint-disable-next-line no-control-regex
const CHARACTERS_XML_CANNOT_CARRY = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

export function escapeXmlText(text: string): string {
  return text
    .replace(CHARACTERS_XML_CANNOT_CARRY, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

const XML_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/** `<?xml …?><root><field>text</field>…</root>`, fields in the order given. Element names must be plain XML names. */
export function writeXmlDocument(root: string, fields: Readonly<Record<string, string>>): string {
  if (!XML_NAME.test(root)) throw new Error(`not an XML element name: ${root}`);
  let body = '';
  for (const [name, value] of Object.entries(fields)) {
    if (!XML_NAME.test(name)) throw new Error(`not an XML element name: ${name}`);
    body += `<${name}>${escapeXmlText(value)}</${name}>`;
  }
  return `${DECLARATION}<${root}>${body}</${root}>`;
}
