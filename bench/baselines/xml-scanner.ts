// The hand-written XML scanner src/cloud/xml.ts used before fast-xml-parser
// (issue 26, "The XML the design calls for"), kept as it was for two uses only:
// the cloud-client scenario decodes the same 300-rule answer with it and with
// the client's reader, side by side; and test/cloud/xml.test.ts checks that the
// client reads every generated Rails-style document as this one did. Not product code.
//
// Its own notes: one pass over the text into the plain values JSON.parse gives;
// well-formedness checked as it goes; DTDs refused; at most
// MAX_ATTRIBUTES_PER_ELEMENT attributes an element. What it makes of an element once read (Rails' typing,
// entities, lists and records) is its own too, as it was: a test comparing the two readers then checks those as well.

import type { PlainObject, PlainValue } from '../../src/cloud/xml';

/** What XML turns into: the same plain values JSON.parse gives. */

/**
 * Rails writes at most two attributes (type, nil) on an element: anything near
 * this many is not an answer from the API, and reading it is refused.
 */
export const MAX_ATTRIBUTES_PER_ELEMENT = 256;

/** Roots that are lists even when a server forgets type="array". */
const KNOWN_LIST_ELEMENTS: ReadonlySet<string> = new Set(['firewall_rules', 'auto_scaling_configurations', 'errors']);

export class XmlSyntaxError extends Error {
  override readonly name = 'XmlSyntaxError';
}

/** An element whose end tag has not been read yet. */
interface OpenElement {
  readonly name: string;
  type: string | undefined;
  nil: boolean;
  hasAttributes: boolean;
  /** Character data: text trimmed and decoded, CDATA as sent. Dropped once a child element appears (mixed content keeps the children). */
  text: string;
  childNames: string[] | undefined;
  childValues: PlainValue[] | undefined;
}

const GT = 0x3e;
const SLASH = 0x2f;
const BANG = 0x21;
const QUESTION = 0x3f;
const EQUALS = 0x3d;
const DOUBLE_QUOTE = 0x22;
const SINGLE_QUOTE = 0x27;
const BOM = 0xfeff;

/**
 * Parses an XML document into `{ rootName: plainValue }`. Throws
 * XmlSyntaxError on anything that is not a well-formed document. Messages
 * give a line and a reason, never the document's text.
 */
export function scanXml(text: string): PlainObject {
  const length = text.length;
  const open: OpenElement[] = [];
  let rootName: string | undefined;
  let rootValue: PlainValue = null;
  const fail = (at: number, reason: string): never => {
    throw new XmlSyntaxError(`malformed XML at line ${lineAt(text, at)}: ${reason}`);
  };

  const close = (element: OpenElement): void => {
    const value = settle(element);
    const parent = open[open.length - 1];
    if (parent === undefined) {
      rootName = element.name;
      rootValue = value;
      return;
    }
    if (parent.childNames === undefined) {
      parent.childNames = [];
      parent.childValues = [];
      parent.text = '';
    }
    parent.childNames.push(element.name);
    (parent.childValues as PlainValue[]).push(value);
  };

  let i = text.charCodeAt(0) === BOM ? 1 : 0;
  while (i < length) {
    const lt = text.indexOf('<', i);
    const textEnd = lt === -1 ? length : lt;
    if (textEnd > i) {
      const current = open[open.length - 1];
      if (current === undefined) {
        if (!isBlank(text, i, textEnd)) fail(i, rootName === undefined ? 'text before the root element' : 'text after the root element');
      } else if (current.childNames === undefined) {
        // Each run of text is trimmed on its own; CDATA below is kept exactly as sent.
        current.text += decodeEntities(text.slice(i, textEnd).trim());
      }
    }
    if (lt === -1) break;
    const c = text.charCodeAt(lt + 1);

    if (c === SLASH) {
      const element = open.pop();
      if (element === undefined) return fail(lt, 'an end tag without a start tag');
      let j = lt + 2;
      if (!text.startsWith(element.name, j)) fail(lt, 'an end tag that does not match its start tag');
      j += element.name.length;
      while (j < length && isSpace(text.charCodeAt(j))) j++;
      if (text.charCodeAt(j) !== GT) fail(lt, j >= length ? 'the document ends inside an end tag' : 'an end tag that does not match its start tag');
      i = j + 1;
      close(element);
      continue;
    }

    if (c === BANG) {
      if (text.startsWith('!--', lt + 1)) {
        const end = text.indexOf('-->', lt + 4);
        if (end === -1) fail(lt, 'an unfinished comment');
        i = end + 3;
      } else if (text.startsWith('![CDATA[', lt + 1)) {
        const current = open[open.length - 1];
        if (current === undefined) fail(lt, 'CDATA outside the root element');
        const end = text.indexOf(']]>', lt + 9);
        if (end === -1) fail(lt, 'an unfinished CDATA section');
        if (current !== undefined && current.childNames === undefined) current.text += text.slice(lt + 9, end);
        i = end + 3;
      } else if (/^!DOCTYPE/i.test(text.slice(lt + 1, lt + 9))) {
        // Our API never sends a DTD; refusing it closes the door on entity tricks.
        throw new XmlSyntaxError('XML with a DOCTYPE is not accepted');
      } else {
        fail(lt, 'markup that is neither a comment nor CDATA');
      }
      continue;
    }

    if (c === QUESTION) {
      // The declaration and processing instructions carry nothing we read.
      const end = text.indexOf('?>', lt + 2);
      if (end === -1) fail(lt, 'an unfinished processing instruction');
      i = end + 2;
      continue;
    }

    // A start tag: name, attributes, then `>` or `/>`.
    if (open.length === 0 && rootName !== undefined) fail(lt, 'a second root element');
    let j = lt + 1;
    if (!isNameStart(c)) fail(lt, lt + 1 >= length ? 'the document ends inside a tag' : 'a tag without a name');
    j++;
    while (j < length && isNameChar(text.charCodeAt(j))) j++;
    const element: OpenElement = {
      name: text.slice(lt + 1, j),
      type: undefined,
      nil: false,
      hasAttributes: false,
      text: '',
      childNames: undefined,
      childValues: undefined,
    };
    // A set, not a list: finding a name given twice must not cost a pass over the names before it.
    let attributeNames: Set<string> | undefined;
    let selfClosing = false;
    for (;;) {
      const spaceStart = j;
      while (j < length && isSpace(text.charCodeAt(j))) j++;
      if (j >= length) return fail(lt, 'the document ends inside a tag');
      const next = text.charCodeAt(j);
      if (next === GT) {
        j++;
        break;
      }
      if (next === SLASH) {
        if (text.charCodeAt(j + 1) !== GT) fail(j, "a '/' inside a tag");
        j += 2;
        selfClosing = true;
        break;
      }
      if (j === spaceStart || !isNameStart(next)) fail(j, 'a malformed attribute');
      if (attributeNames !== undefined && attributeNames.size >= MAX_ATTRIBUTES_PER_ELEMENT) {
        fail(j, `more than ${MAX_ATTRIBUTES_PER_ELEMENT} attributes on one element`);
      }
      const nameStart = j;
      j++;
      while (j < length && isNameChar(text.charCodeAt(j))) j++;
      const attributeName = text.slice(nameStart, j);
      while (j < length && isSpace(text.charCodeAt(j))) j++;
      if (text.charCodeAt(j) !== EQUALS) fail(j, 'an attribute without a value');
      j++;
      while (j < length && isSpace(text.charCodeAt(j))) j++;
      const quote = text.charCodeAt(j);
      if (quote !== DOUBLE_QUOTE && quote !== SINGLE_QUOTE) fail(j, 'an attribute value without quotes');
      const valueEnd = text.indexOf(quote === DOUBLE_QUOTE ? '"' : "'", j + 1);
      if (valueEnd === -1) fail(j, 'the document ends inside an attribute value');
      const raw = text.slice(j + 1, valueEnd);
      if (raw.includes('<')) fail(j, "a '<' inside an attribute value");
      if (attributeNames?.has(attributeName)) fail(nameStart, 'an attribute given twice');
      (attributeNames ??= new Set()).add(attributeName);
      element.hasAttributes = true;
      if (attributeName === 'type') element.type = decodeEntities(raw);
      else if (attributeName === 'nil') element.nil = decodeEntities(raw) === 'true';
      j = valueEnd + 1;
    }
    i = j;
    if (selfClosing) close(element);
    else open.push(element);
  }

  if (open.length > 0) fail(length, 'the document ends inside an element');
  if (rootName === undefined) throw new XmlSyntaxError('no XML element found');
  return objectOf([rootName], [rootValue]);
}

/** The plain value of an element whose end tag has just been read. */
function settle(element: OpenElement): PlainValue {
  if (element.nil) return null;
  const names = element.childNames;
  const isList = element.type === 'array' || KNOWN_LIST_ELEMENTS.has(element.name);
  if (names === undefined) {
    const text = element.text;
    // A list root without attributes that holds only text keeps the text: it is an answer, just not a list.
    if (isList) return element.hasAttributes || text === '' ? [] : text;
    return typedText(text, element.type);
  }
  const values = element.childValues as PlainValue[];
  // `<errors>` children are named after what they describe unless they are all `error`.
  if (isList && !(element.name === 'errors' && names.some((name) => name !== 'error'))) return listItems(names, values);
  return objectOf(names, values);
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x09 || code === 0x0d;
}

function isBlank(text: string, from: number, to: number): boolean {
  for (let k = from; k < to; k++) if (!isSpace(text.charCodeAt(k))) return false;
  return true;
}

/** Letters, `_`, `:` and anything beyond ASCII (XML allows most of it in names). */
function isNameStart(code: number): boolean {
  return (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) || code === 0x5f || code === 0x3a || code >= 0x80;
}

function isNameChar(code: number): boolean {
  return isNameStart(code) || (code >= 0x30 && code <= 0x39) || code === 0x2d || code === 0x2e;
}

function lineAt(text: string, at: number): number {
  let line = 1;
  for (let k = text.indexOf('\n'); k !== -1 && k < at; k = text.indexOf('\n', k + 1)) line++;
  return line;
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
    // Values are never undefined, so only a defined one can be a repeat (or an inherited name like `constructor`).
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

/** `out[name] = value`, also for an element named `__proto__` (an own field, as JSON.parse makes it). */
function setOwn(out: PlainObject, name: string, value: PlainValue): void {
  if (name === '__proto__') Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
  else out[name] = value;
}

/** Text of an element with Rails' `type` attribute applied. */
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
