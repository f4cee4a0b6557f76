// A small writer of Rails-style XML (what OnApp answers): typed attributes on
// integers, booleans and timestamps, nil="true" for null, type="array" on
// lists, nested records as elements. Only what the sandbox needs; the client
// has its own reader.

export type XmlScalar = string | number | boolean | null;
/** A field's value: a scalar, a record (a transaction's params), or a list (a server's `ip_addresses`). */
export type XmlValue = XmlScalar | readonly XmlValue[] | { readonly [key: string]: XmlValue };
/** Any record whose fields are all XML values (interfaces included, unlike Record<string, …>). */
export type XmlRecord<T> = { readonly [K in keyof T]: XmlValue };

const DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n';

/** Fields written with type="datetime". */
const isTimestampField = (name: string) => name.endsWith('_at');

// Characters XML 1.0 cannot carry at all, even escaped.
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const INVALID_XML_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

export function escapeXml(text: string): string {
  return text.replace(INVALID_XML_CHARS, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

function field(name: string, value: XmlValue): string {
  if (value === null) return `<${name} nil="true"/>`;
  if (typeof value === 'boolean') return `<${name} type="boolean">${value}</${name}>`;
  if (typeof value === 'number') {
    return Number.isInteger(value) ? `<${name} type="integer">${value}</${name}>` : `<${name} type="float">${value}</${name}>`;
  }
  if (typeof value === 'string') {
    if (isTimestampField(name) && value !== '') return `<${name} type="datetime">${escapeXml(value)}</${name}>`;
    return `<${name}>${escapeXml(value)}</${name}>`;
  }
  if (isList(value)) {
    if (value.length === 0) return `<${name} type="array"/>`;
    return `<${name} type="array">${value.map((item) => listItem(name, item)).join('')}</${name}>`;
  }
  return xmlElement(name, value);
}

const isList = (value: XmlValue): value is readonly XmlValue[] => Array.isArray(value);

/** A list's item: a wrapped record (`{ip_address: {…}}`, as JSON sends it) under its wrapper's name, a scalar under the list's name in the singular. */
function listItem(listName: string, item: XmlValue): string {
  if (item !== null && typeof item === 'object' && !isList(item)) {
    const keys = Object.keys(item);
    const [wrapper] = keys;
    if (keys.length === 1 && wrapper !== undefined) return field(wrapper, item[wrapper] ?? null);
  }
  return field(listName.replace(/s$/, ''), item);
}

/** `<name>` with one child element per field, in the order given. */
export function xmlElement<T extends XmlRecord<T>>(name: string, record: T, fields?: ReadonlyArray<keyof T & string>): string {
  const names = fields ?? (Object.keys(record) as Array<keyof T & string>);
  return `<${name}>${names.map((f) => field(f, record[f] ?? null)).join('')}</${name}>`;
}

/** A document holding one record: `<disk>…</disk>`. */
export function xmlDocument<T extends XmlRecord<T>>(name: string, record: T, fields?: ReadonlyArray<keyof T & string>): string {
  return DECLARATION + xmlElement(name, record, fields);
}

/** A document holding a list: `<firewall_rules type="array"><firewall_rule>…` (self-closing when empty). */
export function xmlList<T extends XmlRecord<T>>(listName: string, itemName: string, records: readonly T[], fields?: ReadonlyArray<keyof T & string>): string {
  if (records.length === 0) return `${DECLARATION}<${listName} type="array"/>`;
  return `${DECLARATION}<${listName} type="array">${records.map((r) => xmlElement(itemName, r, fields)).join('')}</${listName}>`;
}

/** `<errors><error>message</error>…</errors>`. */
export function xmlErrors(messages: readonly string[]): string {
  return `${DECLARATION}<errors>${messages.map((m) => `<error>${escapeXml(m)}</error>`).join('')}</errors>`;
}
