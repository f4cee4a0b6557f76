// IPv4 and IPv6 addresses as numbers, and the address forms a firewall rule
// carries: empty (every source), one address, a CIDR block, or a range
// `first-last`. Every form is one interval of one family, so matching and
// "which sources are left" are interval arithmetic (see sources.ts).
//
// Parsing is strict on purpose: a form read wrongly would answer "accepted"
// for traffic that is dropped. IPv4 octets with leading zeros (`010.0.0.1`,
// octal to inet_aton, decimal to others) and IPv6 zone ids are not read.

export type Family = 4 | 6;

export interface IpAddress {
  family: Family;
  value: bigint;
}

/** An address form a rule may carry; `unreadable` keeps what was sent, to quote it. */
export type AddressForm = { kind: 'all' } | { kind: 'interval'; family: Family; first: bigint; last: bigint } | { kind: 'unreadable'; text: string };

const BITS: Record<Family, number> = { 4: 32, 6: 128 };

export function familyMax(family: Family): bigint {
  return (1n << BigInt(BITS[family])) - 1n;
}

/** One IPv4 or IPv6 address, or null. No prefix, no zone, no brackets, no surrounding space. */
export function parseIp(text: string): IpAddress | null {
  if (text.includes(':')) {
    const value = parseIpv6(text);
    return value === null ? null : { family: 6, value };
  }
  const value = parseIpv4(text);
  return value === null ? null : { family: 4, value };
}

function parseIpv4(text: string): bigint | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  let value = 0n;
  for (const part of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(part)) return null;
    const octet = Number(part);
    if (octet > 255) return null;
    value = (value << 8n) | BigInt(octet);
  }
  return value;
}

function parseIpv6(text: string): bigint | null {
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const groupsOf = (half: string): bigint[] | null => {
    if (half === '') return [];
    const parts = half.split(':');
    const groups: bigint[] = [];
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i]!;
      if (i === parts.length - 1 && part.includes('.')) {
        // An embedded IPv4 address (::ffff:192.0.2.1) fills the last two groups.
        const v4 = parseIpv4(part);
        if (v4 === null) return null;
        groups.push(v4 >> 16n, v4 & 0xffffn);
      } else {
        if (!/^[0-9a-fA-F]{1,4}$/.test(part)) return null;
        groups.push(BigInt(`0x${part}`));
      }
    }
    return groups;
  };
  const head = groupsOf(halves[0]!);
  const tail = halves.length === 2 ? groupsOf(halves[1]!) : [];
  if (head === null || tail === null) return null;
  // An embedded IPv4 address may only end the address, never the head before `::`.
  if (halves.length === 2 && halves[0]!.includes('.')) return null;
  const count = head.length + tail.length;
  if (halves.length === 1 ? count !== 8 : count > 7) return null;
  const groups = [...head, ...Array<bigint>(8 - count).fill(0n), ...tail];
  return groups.reduce((value, group) => (value << 16n) | group, 0n);
}

/**
 * An IPv4-mapped IPv6 address (::ffff:192.0.2.1) as the IPv4 address it
 * stands for: such traffic reaches a server as IPv4, so IPv4 rules decide it.
 */
export function unmapIpv4(ip: IpAddress): IpAddress {
  return ip.family === 6 && ip.value >> 32n === 0xffffn ? { family: 4, value: ip.value & 0xffffffffn } : ip;
}

/** Canonical text: dotted quad, or RFC 5952 (lower case, longest run of zero groups as `::`). */
export function formatIp({ family, value }: IpAddress): string {
  if (family === 4) return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.');
  const groups = Array.from({ length: 8 }, (_, i) => Number((value >> BigInt(112 - 16 * i)) & 0xffffn));
  let best = { start: -1, length: 0 };
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > best.length) best = { start: i, length: j - i };
    i = j;
  }
  const hex = (gs: number[]) => gs.map((g) => g.toString(16)).join(':');
  if (best.length < 2) return hex(groups);
  return `${hex(groups.slice(0, best.start))}::${hex(groups.slice(best.start + best.length))}`;
}

/** A rule's address: empty or null is every source; otherwise one address, a CIDR block or a range. */
export function parseAddressForm(raw: string | null | undefined): AddressForm {
  const text = raw?.trim();
  if (!text) return { kind: 'all' };
  const unreadable: AddressForm = { kind: 'unreadable', text: raw! };

  const slash = text.split('/');
  if (slash.length === 2) {
    const ip = parseIp(slash[0]!.trim());
    const prefixText = slash[1]!.trim();
    if (ip === null || !/^[0-9]{1,3}$/.test(prefixText)) return unreadable;
    const prefix = Number(prefixText);
    const bits = BITS[ip.family];
    if (prefix > bits) return unreadable;
    // Host bits set (10.1.2.3/8) are ignored, as iptables does: the block is 10.0.0.0/8.
    const hostMask = (1n << BigInt(bits - prefix)) - 1n;
    const first = ip.value & ~hostMask & familyMax(ip.family);
    return { kind: 'interval', family: ip.family, first, last: first | hostMask };
  }

  // More than one `/` or `-` falls through to parseIp, which reads neither.
  const dash = text.split('-');
  if (dash.length === 2) {
    const first = parseIp(dash[0]!.trim());
    const last = parseIp(dash[1]!.trim());
    if (first === null || last === null || first.family !== last.family || first.value > last.value) return unreadable;
    return { kind: 'interval', family: first.family, first: first.value, last: last.value };
  }

  const ip = parseIp(text);
  return ip === null ? unreadable : { kind: 'interval', family: ip.family, first: ip.value, last: ip.value };
}
