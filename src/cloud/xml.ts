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
// Safe for hostile answers: entities are never expanded (processEntities off;
// the five XML entities and character references are decoded here, nothing
// else); the text's length is capped, and one linear pre-scan (prescanXml)
// refuses a DOCTYPE, too many attributes on an element and too deep a nesting
// before the parser sees anything, the parser's own caps standing behind it.
// The parser is lenient about structure, so the text must be one well-formed
// document (a cut answer must not read as a shorter list): the pre-scan
// recognises the plain form the API writes, and only other text goes through
// fast-xml-parser's validator, a second whole parse (docs/benchmark.md, scenario 4).

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
  const plain = prescanXml(text);
  // Only text outside the plain form needs the validator's verdict (and its wording).
  if (!plain) {
    const validation = XMLValidator.validate(text);
    if (validation !== true) throw malformed(validation);
  }
  let nodes: ParsedNode[];
  try {
    nodes = parser.parse(text) as ParsedNode[];
  } catch (error) {
    throw refusal(error);
  }
  const elements = nodes.filter((node) => elementName(node) !== undefined);
  const root = elements[0];
  const rootName = root && elementName(root);
  if (root === undefined || rootName === undefined) throw new XmlSyntaxError('no XML element found');
  // The validator misses what follows a self-closing root (`<r/><r/>`, `<r/>text`); the parser keeps the second root.
  // Plain text has neither.
  if (elements.length > 1) throw new XmlSyntaxError('malformed XML: a second root element');
  const children = root[rootName] as ParsedNode[];
  if (!plain && children.length === 0 && !onlyMarkupAfterRoot(text)) throw new XmlSyntaxError('malformed XML: text after the root element');
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

const GT = 0x3e;
const SLASH = 0x2f;
const BANG = 0x21;
const QUESTION = 0x3f;
const EQUALS = 0x3d;
const SEMICOLON = 0x3b;
const HASH = 0x23;
const DOUBLE_QUOTE = 0x22;
const SINGLE_QUOTE = 0x27;
const OPEN_BRACKET = 0x5b;

/** Where a start tag's reading stands, for the plain form's grammar: `<name( name="value")*( )?/?>`. */
const AFTER_NAME = 0;
const AFTER_SPACE = 1;
const AFTER_ATTRIBUTE_NAME = 2;
const AFTER_EQUALS = 3;
const AFTER_VALUE = 4;
const AFTER_SLASH = 5;

/**
 * One pass over the text before the parser sees it (indexOf and charCodeAt,
 * nothing allocated per element): refuses a DOCTYPE, an element with more than
 * MAX_ATTRIBUTES_PER_ELEMENT attributes and an element deeper than
 * MAX_XML_DEPTH, wherever they are and whatever else the text holds: a bomb
 * costs what reading up to it costs (a few milliseconds a megabyte), not a parse
 * up to the cap (docs/benchmark.md, scenario 4).
 *
 * Returns whether the text is a document in the plain form Rails writes: a
 * prolog of the declaration, comments and processing instructions; one root
 * element; end tags that match their start tags; at most two attributes an
 * element, each ` name="value"` with no `<` in the value; names of ASCII name
 * characters; `&` in text only as a reference (`&amp;`, `&#38;`, `&#x26;`);
 * CDATA inside the root; only comments, processing instructions and white
 * space after it. Such a text is well-formed, as the validator would find
 * (test/cloud/xml.test.ts holds the two to that), so it is not validated again;
 * anything else is left to the validator. Where the plain form and the parser
 * could disagree on where a tag ends, the parser's own caps still hold.
 */
export function prescanXml(text: string): boolean {
  // Our API never sends a DTD; refusing it before parsing closes the door on entity tricks.
  if (/<!DOCTYPE/i.test(text)) throw new XmlSyntaxError('XML with a DOCTYPE is not accepted');
  const length = text.length;
  // Start and length of each open element's name, for matching its end tag.
  const open = new Int32Array(2 * MAX_XML_DEPTH);
  let depth = 0;
  let roots = 0;
  let plain = true;
  // The next `<` and `&` at or after where they were last looked for: each is searched for once per occurrence.
  let nextLt = -1;
  let nextAmpersand = -1;
  let at = 0;
  while (at < length) {
    if (nextLt < at) nextLt = indexOrEnd(text, '<', at);
    const lt = nextLt;
    if (plain && lt > at) {
      if (depth === 0) plain = isBlank(text, at, lt);
      else {
        if (nextAmpersand < at) nextAmpersand = indexOrEnd(text, '&', at);
        while (plain && nextAmpersand < lt) {
          const end = referenceEnd(text, nextAmpersand);
          if (end === -1) plain = false;
          else nextAmpersand = indexOrEnd(text, '&', end + 1);
        }
      }
    }
    if (lt >= length) break;
    const next = text.charCodeAt(lt + 1);

    if (next === SLASH) {
      const nameEnd = nameEndAt(text, lt + 2);
      let gt = nameEnd;
      while (gt < length && isSpace(text.charCodeAt(gt))) gt++;
      if (depth === 0) plain = false;
      else {
        depth--;
        const nameLength = open[2 * depth + 1] as number;
        if (text.charCodeAt(gt) !== GT || nameEnd - (lt + 2) !== nameLength || !sameText(text, open[2 * depth] as number, lt + 2, nameLength)) plain = false;
      }
      // Where the parser takes the end tag to end.
      at = indexOrEnd(text, '>', lt + 2) + 1;
      continue;
    }

    // Markup is read where the parser reads it, so that what is counted is what the parser would read.
    if (next === BANG && text.startsWith('--', lt + 2)) {
      at = indexOrEnd(text, '-->', lt + 4) + 3;
      if (at > length) plain = false;
      continue;
    }
    if (next === BANG && text.charCodeAt(lt + 2) === OPEN_BRACKET) {
      if (depth === 0 || !text.startsWith('CDATA[', lt + 3)) plain = false;
      at = indexOrEnd(text, ']]>', lt + 3) + 3;
      if (at > length) plain = false;
      continue;
    }
    if (next === QUESTION) {
      // The parser reads a processing instruction to the first `?>` outside quotes, and its attributes.
      const end = processingInstructionEnd(text, lt + 1);
      if (end === -1) {
        plain = false;
        break;
      }
      // The plain form: the declaration at the start, other instructions outside the root, quotes that end before `?>`.
      const targetEnd = nameEndAt(text, lt + 2);
      if (depth > 0 || targetEnd === lt + 2 || text.indexOf('?>', lt + 1) !== end || (lt !== 0 && text.slice(lt + 2, targetEnd).toLowerCase() === 'xml')) {
        plain = false;
      }
      at = end + 2;
      continue;
    }

    // A start tag, or what the parser reads as one (`<!x …>` too): it ends at the first `>` outside quotes.
    if (next === BANG) plain = false;
    const nameStart = lt + 1;
    let k = nameEndAt(text, nameStart);
    if (k === nameStart || !isNameStart(text.charCodeAt(nameStart))) plain = false;
    const nameLength = k - nameStart;
    let state = AFTER_NAME;
    let attributes = 0;
    let firstAttribute = -1;
    let firstAttributeLength = 0;
    for (; k < length; k++) {
      const c = text.charCodeAt(k);
      if (c === GT) break;
      if (c === DOUBLE_QUOTE || c === SINGLE_QUOTE) {
        const close = text.indexOf(c === DOUBLE_QUOTE ? '"' : "'", k + 1);
        if (close === -1) {
          k = length;
          break;
        }
        if (state !== AFTER_EQUALS) plain = false;
        else if (plain) {
          if (nextLt < k) nextLt = indexOrEnd(text, '<', k);
          if (nextLt < close) plain = false;
        }
        state = AFTER_VALUE;
        k = close;
      } else if (c === EQUALS) {
        if (++attributes > MAX_ATTRIBUTES_PER_ELEMENT) throw attributeCapReached();
        if (state !== AFTER_ATTRIBUTE_NAME) plain = false;
        state = AFTER_EQUALS;
      } else if (isSpace(c) || c === SLASH) {
        if (state === AFTER_ATTRIBUTE_NAME || state === AFTER_EQUALS || state === AFTER_SLASH) plain = false;
        state = c === SLASH ? AFTER_SLASH : AFTER_SPACE;
      } else if (state === AFTER_SPACE && isNameStart(c)) {
        const end = nameEndAt(text, k);
        if (firstAttribute === -1) {
          firstAttribute = k;
          firstAttributeLength = end - k;
        } else if (attributes > 1 || (end - k === firstAttributeLength && sameText(text, firstAttribute, k, firstAttributeLength))) {
          // A third attribute, or the first one given twice.
          plain = false;
        }
        state = AFTER_ATTRIBUTE_NAME;
        k = end - 1;
      } else {
        plain = false;
      }
    }
    if (k >= length) {
      // The text ends inside the tag.
      plain = false;
      break;
    }
    if (state === AFTER_ATTRIBUTE_NAME || state === AFTER_EQUALS) plain = false;
    if (depth >= MAX_XML_DEPTH) throw depthCapReached();
    if (depth === 0 && roots++ > 0) plain = false;
    if (text.charCodeAt(k - 1) !== SLASH) {
      open[2 * depth] = nameStart;
      open[2 * depth + 1] = nameLength;
      depth++;
    }
    at = k + 1;
  }
  return plain && depth === 0 && roots === 1;
}

const attributeCapReached = () => new XmlSyntaxError(`XML with more than ${MAX_ATTRIBUTES_PER_ELEMENT} attributes on one element is not read`);
const depthCapReached = () => new XmlSyntaxError(`XML nested deeper than ${MAX_XML_DEPTH} elements is not read`);

/** Where `search` next occurs at or after `from`, or the text's length. */
function indexOrEnd(text: string, search: string, from: number): number {
  const found = text.indexOf(search, from);
  return found === -1 ? text.length : found;
}

/** The `;` of the reference at `at` (`&name;` of up to 20 word characters, `&#38;`, `&#x26;`), or -1 if none is there. */
function referenceEnd(text: string, at: number): number {
  let k = at + 1;
  const numeric = text.charCodeAt(k) === HASH;
  const hex = numeric && text.charCodeAt(k + 1) === 0x78;
  if (numeric) k += hex ? 2 : 1;
  const from = k;
  const isPart = hex ? isHexDigit : numeric ? isDigit : isWordCharacter;
  while (k < text.length && isPart(text.charCodeAt(k))) k++;
  const count = k - from;
  return count > 0 && (numeric || count <= 20) && text.charCodeAt(k) === SEMICOLON ? k : -1;
}

/** Whether the `length` characters at `a` and at `b` are the same. */
function sameText(text: string, a: number, b: number, length: number): boolean {
  for (let k = 0; k < length; k++) if (text.charCodeAt(a + k) !== text.charCodeAt(b + k)) return false;
  return true;
}

/** The `?` of the first `?>` outside quotes at or after `from`, or -1 if there is none; `=` outside quotes counted as attributes. */
function processingInstructionEnd(text: string, from: number): number {
  let attributes = 0;
  for (let k = from; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c === DOUBLE_QUOTE || c === SINGLE_QUOTE) {
      k = text.indexOf(c === DOUBLE_QUOTE ? '"' : "'", k + 1);
      if (k === -1) return -1;
    } else if (c === EQUALS) {
      if (++attributes > MAX_ATTRIBUTES_PER_ELEMENT) throw attributeCapReached();
    } else if (c === QUESTION && text.charCodeAt(k + 1) === GT) {
      return k;
    }
  }
  return -1;
}

function nameEndAt(text: string, from: number): number {
  let k = from;
  while (k < text.length && isNameCharacter(text.charCodeAt(k))) k++;
  return k;
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x09 || code === 0x0d;
}

function isBlank(text: string, from: number, to: number): boolean {
  for (let k = from; k < to; k++) if (!isSpace(text.charCodeAt(k))) return false;
  return true;
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

function isHexDigit(code: number): boolean {
  return isDigit(code) || (code >= 0x61 && code <= 0x66) || (code >= 0x41 && code <= 0x46);
}

/** ASCII letters, `_` and `:`: the start of a name in the plain form (XML allows more; the validator judges those). */
function isNameStart(code: number): boolean {
  return (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) || code === 0x5f || code === 0x3a;
}

function isNameCharacter(code: number): boolean {
  return isNameStart(code) || isDigit(code) || code === 0x2d || code === 0x2e;
}

function isWordCharacter(code: number): boolean {
  return (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) || code === 0x5f || isDigit(code);
}

/**
 * Why the parser stopped, in our words. The text is well-formed by then (plain, or validated), so it is a cap or a
 * name we refuse; the parser's own messages may quote the document, so none is passed on.
 */
function refusal(error: unknown): XmlSyntaxError {
  if (error instanceof CapReached) return attributeCapReached();
  const message = error instanceof Error ? error.message : '';
  if (message.startsWith('Maximum nested tags')) return depthCapReached();
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
  if (attributes !== undefined && attributes.nil === 'true') return null;
  const type = attributes === undefined ? undefined : attributes.type;
  const isList = type === 'array' || LIST_ELEMENTS.has(name);
  let text = '';
  let names: string[] | undefined;
  let values: PlainValue[] | undefined;
  for (let k = 0; k < children.length; k++) {
    const child = children[k] as ParsedNode;
    // Text first: it is the most common child. Mixed content keeps the children only.
    const childText = child[TEXT];
    if (typeof childText === 'string') {
      if (names === undefined) text += decodeEntities(childText);
      continue;
    }
    const childName = elementName(child);
    if (childName === undefined) {
      // CDATA is kept as sent.
      if (names === undefined && CDATA in child) text += cdataText(child[CDATA]);
      continue;
    }
    const value = toPlain(childName, child[childName] as ParsedNode[], child[ATTRIBUTES] as Attributes | undefined);
    if (names === undefined || values === undefined) {
      names = [childName];
      values = [value];
    } else {
      names.push(childName);
      values.push(value);
    }
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

function cdataText(cdata: unknown): string {
  const text = Array.isArray(cdata) ? (cdata[0] as ParsedNode | undefined)?.[TEXT] : undefined;
  return typeof text === 'string' ? text : '';
}

/** Items of a list, grouped by element name in order of first appearance (lists hold one kind of child). */
function listItems(names: string[], values: PlainValue[]): PlainValue[] {
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
function objectOf(names: string[], values: PlainValue[]): PlainObject {
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
  // Assignment makes an own field of any name but `__proto__`, Object.prototype's one setter; defining is slower.
  if (name === '__proto__') Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
  else out[name] = value;
}

/** Text of an element with Rails' `type` attribute applied (the baseline scanner of bench/ applies it too). */
function typedText(value: string, type: string | undefined): PlainValue {
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
function decodeEntities(raw: string): string {
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
