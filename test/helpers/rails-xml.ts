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

function xmlField(name: string, value: unknown): string {
  if (value === null) return `<${name} nil="true"/>`;
  if (typeof value === 'boolean') return `<${name} type="boolean">${value}</${name}>`;
  if (typeof value === 'number') return `<${name} type="integer">${value}</${name}>`;
  const text = escapeText(typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));
  return name.endsWith('_at') ? `<${name} type="datetime">${text}</${name}>` : `<${name}>${text}</${name}>`;
}

function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
