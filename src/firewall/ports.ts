// The port forms rules carry in real deployments: empty (every port), one
// port, a list `80,443,21`, a range `1024:1028` (iptables) or `1024-1028`,
// and lists of those. Anything else is unreadable and is quoted, never guessed.

export const PORT_MAX = 65535;

export type PortForm = { kind: 'all' } | { kind: 'ports'; ranges: ReadonlyArray<readonly [number, number]> } | { kind: 'unreadable'; text: string };

export function parsePortForm(raw: string | null | undefined): PortForm {
  const text = raw?.trim();
  if (!text) return { kind: 'all' };
  const ranges: Array<readonly [number, number]> = [];
  for (const item of text.split(',')) {
    const range = parseRange(item.trim());
    if (range === null) return { kind: 'unreadable', text: raw! };
    ranges.push(range);
  }
  return { kind: 'ports', ranges };
}

function parseRange(item: string): readonly [number, number] | null {
  const m = /^([0-9]{1,5})(?:\s*[:-]\s*([0-9]{1,5}))?$/.exec(item);
  if (!m) return null;
  const first = Number(m[1]);
  const last = m[2] === undefined ? first : Number(m[2]);
  // `first <= last <= PORT_MAX` bounds both.
  if (last > PORT_MAX || first > last) return null;
  return [first, last];
}

export function portFormIncludes(form: Exclude<PortForm, { kind: 'unreadable' }>, port: number): boolean {
  if (form.kind === 'all') return true;
  // An indexed loop, no iterator: asked of every rule on every walk.
  const ranges = form.ranges;
  for (let i = 0; i < ranges.length; i++) {
    const range = ranges[i]!;
    if (range[0] <= port && port <= range[1]) return true;
  }
  return false;
}
