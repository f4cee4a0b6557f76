import { XMLParser, XMLValidator } from 'fast-xml-parser';

// Request bodies as the real API takes them: JSON, XML (root element named
// after the resource) or a Rails-style form (`disk[disk_size]=20`, what
// `curl -d` sends). All three turn into the same plain object, scalars as sent.

export type ParsedBody = { ok: true; value: unknown } | { ok: false; message: string };

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  // Keep "20" and "true" as text: the validator decides, as it does for JSON.
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  processEntities: true,
});

/** `{ "#text": "20", "@_type": "integer" }` → "20"; `nil="true"` → null; attributes dropped. */
function plainXml(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(plainXml);
  if (node === null || typeof node !== 'object') return node;
  const entries = Object.entries(node as Record<string, unknown>);
  if (entries.some(([k, v]) => k === '@_nil' && v === 'true')) return null;
  const text = entries.find(([k]) => k === '#text');
  const children = entries.filter(([k]) => k !== '#text' && !k.startsWith('@_'));
  if (children.length === 0) return text === undefined ? '' : String(text[1]);
  return Object.fromEntries(children.map(([k, v]) => [k, plainXml(v)]));
}

function parseForm(text: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const nested = /^([^[\]]+)\[([^[\]]+)\]$/.exec(key);
    if (nested) {
      const [, outer = '', inner = ''] = nested;
      const current = out[outer];
      const target = current !== null && typeof current === 'object' ? (current as Record<string, unknown>) : {};
      target[inner] = value;
      out[outer] = target;
    } else {
      out[key] = value;
    }
  }
  return out;
}

/** Parses by Content-Type; without one, guesses from the first character. Empty → null. */
export function parseBody(text: string, contentType: string | undefined): ParsedBody {
  if (text.trim() === '') return { ok: true, value: null };
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const kind =
    type.endsWith('/xml') || type.endsWith('+xml')
      ? 'xml'
      : type === 'application/x-www-form-urlencoded'
        ? 'form'
        : type.endsWith('/json') || type.endsWith('+json')
          ? 'json'
          : text.trimStart().startsWith('<')
            ? 'xml'
            : 'json';
  if (kind === 'form') return { ok: true, value: parseForm(text) };
  if (kind === 'xml') {
    const valid = XMLValidator.validate(text);
    if (valid !== true) return { ok: false, message: `the request body is not well-formed XML (${valid.err.msg})` };
    try {
      const parsed = parser.parse(text) as Record<string, unknown>;
      delete parsed['?xml'];
      return { ok: true, value: plainXml(parsed) };
    } catch (e) {
      return { ok: false, message: `the request body is not well-formed XML (${e instanceof Error ? e.message : 'parse error'})` };
    }
  }
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false, message: 'the request body is not valid JSON' };
  }
}
