import { XMLParser, XMLValidator, type ValidationError } from 'fast-xml-parser';
import { CodedError } from '../errors';
import { XML_LIST_ELEMENTS } from './reads';

// The one XML configuration of the client, for the answers of the cloud API
// (docs/cloud-api.md): Rails-style XML with typed attributes
// (type="integer" | "boolean" | "datetime"), nil="true" for null and
// type="array" on lists. fast-xml-parser reads the text; this file turns what
// it read into the same plain values JSON.parse gives, so both formats go
// through the same zod schemas. Text stays a string unless its element is
// typed ("0800" stays "0800"); attributes other than type and nil are dropped.
//
// Safe for hostile answers: a DOCTYPE is refused before parsing and entities
// are never expanded (processEntities off; the five XML entities and character
// references are decoded here, nothing else), the text's length is capped before
// parsing, and while parsing the nesting depth and the attributes of an element
// are capped. The parser is lenient about structure, so its validator checks the
// text is one well-formed document (a cut answer must not read as a shorter list).

/** What XML turns into: the same plain values JSON.parse gives. */
export type PlainValue = string | number | boolean | null | PlainValue[] | { [key: string]: PlainValue };
export type PlainObject = { [key: string]: PlainValue };

/** Longer answers are refused unread: the transport's own cap on answers (http.ts) is 5 MB. */
export const MAX_XML_LENGTH = 5 * 1024 * 1024;
/** Rails writes at most two attributes (type, nil) on an element: anything near this many is not an answer from the API. */
export const MAX_ATTRIBUTES_PER_ELEMENT = 32;
/** The API's answers nest four levels (a list, its record, a nested list, its record); deeper than this is refused. */
export const MAX_XML_DEPTH = 32;

export class XmlSyntaxError extends CodedError {
  override readonly name = 'XmlSyntaxError';
  readonly code = 'CLOUD_XML_SYNTAX';
}

/** Elements that are lists even without type="array" (a list of one would read as a record): the reads' lists, and error lists. */
const LIST_ELEMENTS: ReadonlySet<string> = new Set([...XML_LIST_ELEMENTS, 'errors']);

const TEXT = '#text';
const CDATA = '#cdata';
const ATTRIBUTES = ':@';

/** One node of the parser's ordered output: an element `{ name: children, ':@': attributes }`, text, or CDATA. */
type ParsedNode = Record<string, unknown>;
type Attributes = Readonly<Record<string, string>>;

/** Thrown from inside the parser's callbacks when a cap is reached; turned into an XmlSyntaxError before it leaves. */
class CapReached extends CodedError {
  readonly code = 'CLOUD_XML_CAP_REACHED';
}

const parser = new XMLParser({
  // Ordered output: cheaper than its object form, and lists are made here from the reads table.
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  processEntities: false,
  htmlEntities: false,
  cdataPropName: CDATA,
  ignoreDeclaration: true,
  ignorePiTags: true,
  maxNestedTags: MAX_XML_DEPTH,
  // Callbacks get the parser's matcher rather than a path string built for every element.
  jPath: false,
  // Names like `toString` are kept as they are: the ordered output holds them in objects of their own, and
  // toPlain() writes fields as own properties. `__proto__`, `constructor` and `prototype` are still refused.
  onDangerousProperty: (name) => name,
  updateTag: (name, _path, attributes) => {
    let count = 0;
    for (const key in attributes) if (Object.hasOwn(attributes, key) && ++count > MAX_ATTRIBUTES_PER_ELEMENT) throw new CapReached();
    return name;
  },
});

/**
 * Parses an XML document into `{ rootName: plainValue }`. Throws
 * XmlSyntaxError on anything that is not a well-formed document within the
 * caps. Messages give a line and a reason, never the document's text.
 */
export function parseXml(xml: string): PlainObject {
  const text = xml.charCodeAt(0) === 0xfeff ? xml.slice(1) : xml;
  if (text.length > MAX_XML_LENGTH) throw new XmlSyntaxError(`XML longer than ${MAX_XML_LENGTH} characters is not read`);
  // Our API never sends a DTD; refusing it before parsing closes the door on entity tricks.
  if (/<!DOCTYPE/i.test(text)) throw new XmlSyntaxError('XML with a DOCTYPE is not accepted');
  let nodes: ParsedNode[];
  try {
    nodes = parser.parse(text) as ParsedNode[];
  } catch (error) {
    throw refusal(text, error);
  }
  const validation = XMLValidator.validate(text);
  if (validation !== true) throw malformed(validation);
  const elements = nodes.filter((node) => elementName(node) !== undefined);
  const root = elements[0];
  const rootName = root && elementName(root);
  if (root === undefined || rootName === undefined) throw new XmlSyntaxError('no XML element found');
  // The validator misses what follows a self-closing root (`<r/><r/>`, `<r/>text`); the parser keeps the second root.
  if (elements.length > 1) throw new XmlSyntaxError('malformed XML: a second root element');
  const children = root[rootName] as ParsedNode[];
  if (children.length === 0 && !onlyMarkupAfterRoot(text)) throw new XmlSyntaxError('malformed XML: text after the root element');
  const out: PlainObject = {};
  setOwn(out, rootName, toPlain(rootName, children, root[ATTRIBUTES] as Attributes | undefined));
  return out;
}

/**
 * For a root without content: whether only comments, processing instructions
 * and white space follow it. Linear: each character is looked at once or twice.
 */
function onlyMarkupAfterRoot(text: string): boolean {
  let at = 0;
  // Past the prolog: the root is the first `<` that opens neither a comment nor a processing instruction.
  for (;;) {
    at = text.indexOf('<', at);
    if (at === -1) return true;
    if (text.startsWith('<!--', at)) at = text.indexOf('-->', at) + 3;
    else if (text.startsWith('<?', at)) at = text.indexOf('?>', at) + 2;
    else break;
    if (at < 3) return true;
  }
  // Past the root's start tag, skipping quoted values (they may hold `>`), then its end tag if it has one.
  let quote = '';
  for (at++; at < text.length; at++) {
    const c = text[at];
    if (quote !== '') quote = c === quote ? '' : quote;
    else if (c === '"' || c === "'") quote = c;
    else if (c === '>') break;
  }
  at++;
  if (text[at - 2] !== '/') at = text.indexOf('>', text.indexOf('</', at)) + 1;
  for (;;) {
    while (at < text.length && ' \t\n\r'.includes(text[at] as string)) at++;
    if (at >= text.length) return true;
    if (text.startsWith('<!--', at)) at = text.indexOf('-->', at) + 3;
    else if (text.startsWith('<?', at)) at = text.indexOf('?>', at) + 2;
    else return false;
    if (at < 3) return false;
  }
}

/** Why the parser stopped, in our words: a cap, or whatever the validator finds wrong with the text. */
function refusal(text: string, error: unknown): XmlSyntaxError {
  if (error instanceof CapReached) return new XmlSyntaxError(`XML with more than ${MAX_ATTRIBUTES_PER_ELEMENT} attributes on one element is not read`);
  const message = error instanceof Error ? error.message : '';
  if (message.startsWith('Maximum nested tags')) return new XmlSyntaxError(`XML nested deeper than ${MAX_XML_DEPTH} elements is not read`);
  // The parser's own messages may quote the document; the validator's line and our reason do not.
  const validation = XMLValidator.validate(text);
  if (validation !== true) return malformed(validation);
  if (message.startsWith('[SECURITY]')) return new XmlSyntaxError('XML with an element named __proto__, constructor or prototype is not read');
  return new XmlSyntaxError('malformed XML');
}

/** The validator's finding as a line and a reason of ours: its own message may name the document's elements. */
function malformed({ err }: ValidationError): XmlSyntaxError {
  const { code, msg, line } = err;
  if (code === 'InvalidXml' && msg.startsWith('Start tag expected')) return new XmlSyntaxError('no XML element found');
  const reason =
    code === 'InvalidXml'
      ? msg.startsWith('Multiple possible root')
        ? 'a second root element'
        : msg.startsWith('Extra text')
          ? 'text after the root element'
          : 'the document ends inside an element'
      : code === 'InvalidTag'
        ? msg.startsWith('Unclosed tag')
          ? 'the document ends inside an element'
          : msg.startsWith('Expected closing tag') || msg.includes('has not been opened')
            ? 'an end tag that does not match its start tag'
            : 'a malformed tag'
        : code === 'InvalidAttr'
          ? msg.endsWith('is repeated.')
            ? 'an attribute given twice'
            : 'a malformed attribute'
          : 'text or a character where none may be';
  return new XmlSyntaxError(`malformed XML at line ${line}: ${reason}`);
}

/** The element's name, or undefined for text, CDATA and comments. */
function elementName(node: ParsedNode): string | undefined {
  for (const key in node) if (key !== ATTRIBUTES && key !== TEXT && key !== CDATA) return key;
  return undefined;
}

/** The plain value of an element. Depth is bounded by MAX_XML_DEPTH, so recursion is safe. */
function toPlain(name: string, children: readonly ParsedNode[], attributes: Attributes | undefined): PlainValue {
  if (attributes?.nil === 'true') return null;
  const type = attributes?.type;
  const isList = type === 'array' || LIST_ELEMENTS.has(name);
  let text = '';
  let names: string[] | undefined;
  let values: PlainValue[] | undefined;
  for (const child of children) {
    const childName = elementName(child);
    if (childName === undefined) {
      // CDATA is kept as sent; other text has its entities decoded. Mixed content keeps the children only.
      if (names === undefined) text += CDATA in child ? cdataText(child[CDATA]) : decodeEntities(textOf(child));
      continue;
    }
    (names ??= []).push(childName);
    (values ??= []).push(toPlain(childName, child[childName] as ParsedNode[], child[ATTRIBUTES] as Attributes | undefined));
  }
  if (names === undefined || values === undefined) {
    // A list without attributes that holds only text keeps the text: it is an answer, just not a list.
    if (isList) return attributes !== undefined || text === '' ? [] : text;
    return typedText(text, type);
  }
  // `<errors>` children are named after what they describe unless they are all `error`.
  if (isList && !(name === 'errors' && names.some((n) => n !== 'error'))) return listItems(names, values);
  return objectOf(names, values);
}

/** The parser's text nodes hold strings (parseTagValue is off). */
function textOf(node: ParsedNode | undefined): string {
  const text = node?.[TEXT];
  return typeof text === 'string' ? text : '';
}

function cdataText(cdata: unknown): string {
  return textOf(Array.isArray(cdata) ? (cdata[0] as ParsedNode | undefined) : undefined);
}

/** Items of a list, grouped by element name in order of first appearance (lists hold one kind of child). */
export function listItems(names: string[], values: PlainValue[]): PlainValue[] {
  const first = names[0];
  if (names.every((name) => name === first)) return values;
  const groups = new Map<string, PlainValue[]>();
  names.forEach((name, k) => {
    const group = groups.get(name);
    if (group === undefined) groups.set(name, [values[k] as PlainValue]);
    else group.push(values[k] as PlainValue);
  });
  return [...groups.values()].flat(1);
}

/** Children as fields; a name that repeats becomes a list of its values. */
export function objectOf(names: string[], values: PlainValue[]): PlainObject {
  const out: PlainObject = {};
  let repeated: Set<string> | undefined;
  for (let k = 0; k < names.length; k++) {
    const name = names[k] as string;
    const value = values[k] as PlainValue;
    // Values are never undefined, so only a defined one can be a repeat (or an inherited name like `toString`).
    if (out[name] === undefined || !Object.hasOwn(out, name)) {
      setOwn(out, name, value);
    } else if (repeated?.has(name)) {
      (out[name] as PlainValue[]).push(value);
    } else {
      setOwn(out, name, [out[name], value]);
      (repeated ??= new Set()).add(name);
    }
  }
  return out;
}

/** `out[name] = value` as an own field, whatever the name (as JSON.parse makes it). */
function setOwn(out: PlainObject, name: string, value: PlainValue): void {
  Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
}

/** Text of an element with Rails' `type` attribute applied (the baseline scanner of bench/ applies it too). */
export function typedText(value: string, type: string | undefined): PlainValue {
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

const ENTITY = /&(?:(lt|gt|amp|quot|apos)|#([0-9]{1,7})|#x([0-9a-fA-F]{1,6}));/g;
const NAMED_ENTITIES: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** The five XML entities and character references; anything else that starts with `&` is kept as it is. */
export function decodeEntities(raw: string): string {
  if (!raw.includes('&')) return raw;
  return raw.replace(ENTITY, (match, named: string | undefined, decimal: string | undefined, hex: string | undefined) => {
    if (named !== undefined) return NAMED_ENTITIES[named] as string;
    const code = decimal !== undefined ? Number.parseInt(decimal, 10) : Number.parseInt(hex as string, 16);
    return isXmlCharacter(code) ? String.fromCodePoint(code) : match;
  });
}

function isXmlCharacter(code: number): boolean {
  return (
    code === 0x9 ||
    code === 0xa ||
    code === 0xd ||
    (code >= 0x20 && code <= 0xd7ff) ||
    (code >= 0xe000 && code <= 0xfffd) ||
    (code >= 0x10000 && code <= 0x10ffff)
  );
}

const DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>';

// Characters XML 1.0 cannot carry, even escaped: dropped rather than sent broken.
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
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

/** `<?xml …?><name>text</name>`: a document of one element holding text. */
export function writeXmlElement(name: string, text: string): string {
  if (!XML_NAME.test(name)) throw new Error(`not an XML element name: ${name}`);
  return `${DECLARATION}<${name}>${escapeXmlText(text)}</${name}>`;
}

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
