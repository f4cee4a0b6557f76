// Rails-style XML for the codec tests: a test-side writer, independent of the client's reader.

/** A list with typed attributes, as Rails writes it. */
export function xmlList(listName: string, itemName: string, records: readonly Record<string, unknown>[]): string {
  const declaration = '<?xml version="1.0" encoding="UTF-8"?>\n';
  if (records.length === 0) return `${declaration}<${listName} type="array"/>`;
  return `${declaration}<${listName} type="array">${records.map((r) => xmlRecord(itemName, r)).join('')}</${listName}>`;
}

export function xmlRecord(name: string, record: Record<string, unknown>): string {
  const fields = Object.entries(record)
    .filter(([, value]) => value !== undefined)
    .map(([field, value]) => xmlField(field, value))
    .join('');
  return `<${name}>${fields}</${name}>`;
}

/**
 * A JSON answer as Rails would have written it in XML: `[{"disk": {…}}]` under
 * `listName`, `{"virtual_machine": {…}}` as its record. Nested lists of wrapped
 * records (`ip_addresses: [{ip_address: {…}}]`) become `type="array"` elements.
 */
export function xmlFromJson(json: unknown, listName?: string): string {
  const declaration = '<?xml version="1.0" encoding="UTF-8"?>\n';
  if (Array.isArray(json)) {
    if (listName === undefined) throw new Error('a JSON list needs the name of its XML root');
    return declaration + xmlField(listName, json);
  }
  const [name, record] = Object.entries(json as Record<string, unknown>)[0] ?? [];
  if (name === undefined) throw new Error('a JSON record needs its wrapper');
  return declaration + xmlRecord(name, record as Record<string, unknown>);
}

function xmlField(name: string, value: unknown): string {
  if (value === null) return `<${name} nil="true"/>`;
  if (typeof value === 'boolean') return `<${name} type="boolean">${value}</${name}>`;
  if (typeof value === 'number') return `<${name} type="${Number.isInteger(value) ? 'integer' : 'float'}">${value}</${name}>`;
  if (Array.isArray(value)) {
    if (value.length === 0) return `<${name} type="array"/>`;
    const items = value.map((item) => {
      const [wrapper, inner] = Object.entries(item as Record<string, unknown>)[0] ?? [];
      if (wrapper === undefined || Object.keys(item as object).length !== 1) return xmlField(name.replace(/s$/, ''), item);
      return xmlField(wrapper, inner);
    });
    return `<${name} type="array">${items.join('')}</${name}>`;
  }
  if (typeof value === 'object') return xmlRecord(name, value as Record<string, unknown>);
  const text = escapeText(typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));
  return name.endsWith('_at') ? `<${name} type="datetime">${text}</${name}>` : `<${name}>${text}</${name}>`;
}

function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
