import type { z } from 'zod';
import { CloudError } from './errors';
import { unwrap, type AddDiskParams } from './schemas';
import type { Decoded, ResponseShape } from './shapes';
import { parseXml, writeXmlDocument, writeXmlElement, XmlSyntaxError, type PlainObject, type PlainValue } from './xml';

// One decoding path for both wire formats: body text → plain objects (JSON.parse
// or the XML reader of xml.ts) → unwrap the wrappers of docs/cloud-api.md → the
// zod schemas of schemas.ts. JSON and XML carrying the same data decode to equal objects.

export type WireFormat = 'json' | 'xml';

/** Where an answer came from, carried on the errors for logs. */
export interface ResponseContext {
  status?: number;
  /** e.g. `GET /virtual_machines/42/firewall_rules.json` */
  request?: string;
}

/** Decodes a successful answer. Unreadable text or a shape other than docs/cloud-api.md's → CloudError('bad_response'). */
export function decodeResponse<S extends ResponseShape>(format: WireFormat, text: string, shape: S, context: ResponseContext = {}): Decoded<S> {
  try {
    return decodeOrThrow(format, text, shape);
  } catch (error) {
    if (error instanceof CloudError && (context.status !== undefined || context.request !== undefined)) {
      throw new CloudError(error.kind, error.message, { status: context.status, request: context.request });
    }
    throw error;
  }
}

function decodeOrThrow<S extends ResponseShape>(format: WireFormat, text: string, shape: S): Decoded<S> {
  if (shape.kind === 'none') return null as Decoded<S>;
  const document = parseDocument(format, text);
  if (shape.kind === 'list') {
    const items = listItems(document, shape.listName);
    if (items === undefined) throw shapeError(`expected a list of ${shape.itemName}`);
    const out: unknown[] = new Array(items.length);
    for (let i = 0; i < items.length; i++) {
      const parsed = shape.schema.safeParse(unwrap(items[i], shape.itemName));
      if (!parsed.success) throw shapeError(describeIssues(`${shape.itemName}[${i}]`, parsed.error));
      out[i] = parsed.data;
    }
    return out as Decoded<S>;
  }
  const parsed = shape.schema.safeParse(unwrap(document, shape.name));
  if (!parsed.success) throw shapeError(describeIssues(shape.name, parsed.error));
  return parsed.data as Decoded<S>;
}

function parseDocument(format: WireFormat, text: string): PlainValue {
  if (text.trim() === '') throw new CloudError('bad_response', 'the cloud API sent an empty answer');
  if (format === 'json') {
    try {
      return JSON.parse(text) as PlainValue;
    } catch {
      throw new CloudError('bad_response', 'the cloud API sent an answer that is not valid JSON');
    }
  }
  try {
    return parseXml(text);
  } catch (error) {
    const detail = error instanceof XmlSyntaxError ? ` (${error.message})` : '';
    throw new CloudError('bad_response', `the cloud API sent an answer that is not valid XML${detail}`);
  }
}

/**
 * The elements of a list answer. JSON: a top-level array (or, tolerated, an
 * object holding it under the list name). XML: the root element of that name.
 */
function listItems(document: PlainValue, listName: string): PlainValue[] | undefined {
  if (Array.isArray(document)) return document;
  if (isObject(document)) {
    const inner = document[listName];
    if (Array.isArray(inner)) return inner;
  }
  return undefined;
}

function isObject(value: PlainValue | undefined): value is PlainObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function shapeError(detail: string): CloudError {
  return new CloudError('bad_response', `the cloud API answered in a shape this bot does not understand: ${detail}`);
}

/** "firewall_rule[3].id: expected an integer"; zod's messages carry no input values. */
function describeIssues(where: string, error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${[where, ...issue.path.map(String)].join('.')}: ${issue.message}`)
    .join('; ');
}

// ---------------------------------------------------------------------------
// Error bodies

export interface ErrorDetails {
  messages: string[];
  fieldErrors: Record<string, string[]>;
}

const MAX_MESSAGES = 20;
const MAX_MESSAGE_LENGTH = 300;
/** Rails puts errors that belong to no field under `base`. */
const NON_FIELD_KEYS: ReadonlySet<string> = new Set(['base', 'error', 'errors', 'message']);

/**
 * What an error answer says, in whatever shape it came: `{"errors": {"f": ["m"]}}`,
 * `{"errors": ["m"]}`, `{"error": "m"}`, a bare `{"f": ["m"]}` (older OnApp),
 * `<errors><error>m</error></errors>`, `<hash><f>m</f></hash>`,
 * `<errors><f>m</f></errors>`, an HTML page (its title only) or nothing.
 * Never throws: an unreadable error body just says nothing.
 */
export function parseErrorBody(text: string): ErrorDetails {
  const details: ErrorDetails = { messages: [], fieldErrors: {} };
  const trimmed = text.trim();
  if (trimmed === '') return details;
  if (/^<(!doctype\s+html|html)[\s>]/i.test(trimmed)) {
    const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(trimmed)?.[1];
    if (title) addMessage(details, decodeHtmlText(title));
    return details;
  }
  let document: PlainValue;
  try {
    document = trimmed.startsWith('<') ? parseXml(trimmed) : (JSON.parse(trimmed) as PlainValue);
  } catch {
    return details;
  }
  const wrapped = isObject(document) ? (document.errors ?? document.error ?? document.message) : document;
  const bare = wrapped === undefined ? bareFieldHash(document) : undefined;
  collectErrors(details, bare ?? wrapped);
  return details;
}

/** Real error bodies nest two or three levels; deeper than this is not read (and cannot exhaust the stack). */
const MAX_ERROR_DEPTH = 16;

/**
 * Older OnApp versions answer 422 with the model's errors and no wrapper:
 * `{"label": ["has already been taken"]}`, or in XML Rails' `<hash>` of the
 * same (`<hash><label type="array"><label>…</label></label></hash>`). Such a
 * body is read as field errors when every value is a message or a list of
 * messages, so unrelated JSON is not mistaken for one.
 */
function bareFieldHash(document: PlainValue): PlainObject | undefined {
  if (!isObject(document)) return undefined;
  const keys = Object.keys(document);
  const inner = keys.length === 1 && keys[0] === 'hash' ? document.hash : document;
  if (!isObject(inner) || Object.keys(inner).length === 0) return undefined;
  // Bounded like collectErrors: a body nested 100,000 deep is not a field hash, and must not exhaust the stack.
  const messages = (v: PlainValue | undefined, depth: number): boolean =>
    typeof v === 'string' ||
    (Array.isArray(v) && v.every((m) => typeof m === 'string')) ||
    (isObject(v) && depth < MAX_ERROR_DEPTH && Object.values(v).every((w) => messages(w, depth + 1)));
  return Object.values(inner).every((v) => messages(v, 1)) ? inner : undefined;
}

function collectErrors(details: ErrorDetails, value: PlainValue | undefined, field?: string, depth = 0): void {
  if (value === undefined || value === null || depth > MAX_ERROR_DEPTH) return;
  if (Array.isArray(value)) {
    for (const v of value) collectErrors(details, v, field, depth + 1);
    return;
  }
  if (isObject(value)) {
    for (const [key, v] of Object.entries(value)) collectErrors(details, v, NON_FIELD_KEYS.has(key) ? field : key, depth + 1);
    return;
  }
  const message = String(value);
  if (field === undefined) addMessage(details, message);
  else addFieldError(details, field, message);
}

function addMessage(details: ErrorDetails, message: string): void {
  const clean = cleanMessage(message);
  if (clean && details.messages.length < MAX_MESSAGES) details.messages.push(clean);
}

function addFieldError(details: ErrorDetails, field: string, message: string): void {
  const clean = cleanMessage(message);
  if (!clean) return;
  // Field names come from the API: "toString" is a field like any other, not Object's method, and
  // "__proto__" cannot be an own key of a plain object, so its message is kept as a general one.
  if (field === '__proto__') return addMessage(details, `${field}: ${message}`);
  const fields = details.fieldErrors;
  const list = Object.hasOwn(fields, field) ? fields[field]! : (fields[field] = []);
  if (list.length < MAX_MESSAGES) list.push(clean);
}

// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const CONTROL_CHARACTERS = /[\u0000-\u001F\u007F]+/g;

function cleanMessage(message: string): string {
  const oneLine = message.replace(CONTROL_CHARACTERS, ' ').replace(/\s+/g, ' ').trim();
  return oneLine.length > MAX_MESSAGE_LENGTH ? `${oneLine.slice(0, MAX_MESSAGE_LENGTH - 1)}…` : oneLine;
}

function decodeHtmlText(html: string): string {
  return html
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&apos;/g, "'")
    .replace(/&amp;/g, '&');
}

// ---------------------------------------------------------------------------
// The add-disk body (docs/cloud-api.md, Add a disk)

/** Flags the API writes as 1/0; the others are written true/false. */
const ONE_ZERO_FLAGS: ReadonlySet<keyof AddDiskParams> = new Set(['primary', 'hot_attach', 'require_format_disk']);

/** Wire order: the parameter table of docs/cloud-api.md, Add a disk. */
const ADD_DISK_FIELDS: readonly (keyof AddDiskParams)[] = [
  'disk_type',
  'disk_size',
  'label',
  'primary',
  'is_swap',
  'mount_point',
  'hot_attach',
  'min_iops',
  'add_to_linux_fstab',
  'add_to_freebsd_fstab',
  'require_format_disk',
  'file_system',
];

/** The parameters as the strings the API's JSON example sends; undefined parameters are left out. */
export function addDiskWireFields(params: AddDiskParams): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const name of ADD_DISK_FIELDS) {
    const value = params[name];
    if (value === undefined) continue;
    if (typeof value === 'boolean') fields[name] = ONE_ZERO_FLAGS.has(name) ? (value ? '1' : '0') : String(value);
    else fields[name] = String(value);
  }
  return fields;
}

/**
 * How a change's body is written: none; one object under a root (`{"disk": {...}}`, `<disk>…</disk>`); or one field
 * alone (`{"mode": "recovery"}`, `<mode>recovery</mode>`). Values are strings, as the spec's JSON examples send them.
 */
export type WireBody = null | { root: string; fields: Readonly<Record<string, string>> } | { field: string; value: string };

/** A change's body in the configured format; null when it has none. */
export function encodeBody(format: WireFormat, body: WireBody): string | null {
  if (body === null) return null;
  if ('root' in body) return format === 'json' ? JSON.stringify({ [body.root]: body.fields }) : writeXmlDocument(body.root, body.fields);
  return format === 'json' ? JSON.stringify({ [body.field]: body.value }) : writeXmlElement(body.field, body.value);
}
