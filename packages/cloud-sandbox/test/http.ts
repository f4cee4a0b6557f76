import { XMLParser } from 'fast-xml-parser';
import { request } from 'undici';
import type { Sandbox } from '../src';

// Real HTTP against a real sandbox, and a plain XML reader that keeps the
// attributes, so the tests see exactly what a client would.

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export interface CallOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** `null` sends no Authorization header; a string is sent as `user:password`. */
  auth?: string | null;
  body?: string;
  headers?: Record<string, string>;
}

export async function call(sandbox: Sandbox, path: string, options: CallOptions = {}): Promise<Reply> {
  const auth = options.auth === undefined ? `${sandbox.accountId}:${sandbox.apiKey}` : options.auth;
  const headers: Record<string, string> = { ...options.headers };
  if (auth !== null) headers.authorization = `Basic ${Buffer.from(auth).toString('base64')}`;
  const res = await request(sandbox.url + path, { method: options.method ?? 'GET', headers, body: options.body });
  return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
}

export const postJson = (sandbox: Sandbox, path: string, value: unknown) =>
  call(sandbox, path, { method: 'POST', body: JSON.stringify(value), headers: { 'content-type': 'application/json' } });

export const postXml = (sandbox: Sandbox, path: string, xml: string) =>
  call(sandbox, path, { method: 'POST', body: xml, headers: { 'content-type': 'application/xml' } });

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  parseTagValue: false,
  parseAttributeValue: false,
  // Lists of one element must still be lists.
  isArray: (name) => ['firewall_rule', 'auto_scaling_configuration', 'error'].includes(name),
});

export type XmlNode = Record<string, unknown>;

export function parseXml(text: string): XmlNode {
  return parser.parse(text) as XmlNode;
}

/** The children of `root > item` as an array (empty for `<root type="array"/>`). */
export function xmlItems(doc: XmlNode, root: string, item: string): XmlNode[] {
  const list = doc[root];
  if (list === '' || list === undefined) return [];
  return ((list as XmlNode)[item] as XmlNode[] | undefined) ?? [];
}

/** A JSON or XML leaf (a string, a number, a boolean) as its text. */
export const leafText = (leaf: unknown): string => (typeof leaf === 'string' ? leaf : JSON.stringify(leaf));

/** A typed text element `{ '#text': '12', '@_type': 'integer' }` or a nil one. */
export function typed(node: unknown): { text: string | undefined; type: string | undefined; nil: boolean } {
  if (typeof node === 'string') return { text: node, type: undefined, nil: false };
  const n = (node ?? {}) as XmlNode;
  return {
    text: n['#text'] === undefined ? undefined : leafText(n['#text']),
    type: n['@_type'] as string | undefined,
    nil: n['@_nil'] === 'true',
  };
}

/** JSON list items unwrapped from their resource key: `[{firewall_rule: {...}}]` → `[{...}]`. */
export function unwrap(text: string, key: string): unknown[] {
  const list = JSON.parse(text) as Array<Record<string, unknown>>;
  return list.map((item) => {
    expect(Object.keys(item)).toEqual([key]);
    return item[key];
  });
}
