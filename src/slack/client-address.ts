import { formatIp, parseAddressForm, parseIp, unmapIpv4, type IpAddress } from '../firewall/address';

// Who sent a request, as the request guard counts bodies per client
// (src/slack/request-guard.ts). The connection's own address, unless it is a
// proxy named in VS_TRUSTED_PROXIES: then X-Forwarded-For is read from its
// right end, each hop believed only while the one that reported it is itself
// trusted, so a client cannot name itself someone else by writing the header
// (a proxy appends the address it saw; what the client wrote stays on the
// left). An IPv6 client counts by its /64, the block one subscriber gets:
// counted by whole address, one client would be 2^64 clients.

/** Whether an address is one of the trusted proxies. */
export type TrustedProxies = (ip: IpAddress) => boolean;

/** The proxies of VS_TRUSTED_PROXIES (addresses or CIDR blocks), as one test; null when there are none. */
export function trustedProxies(forms: readonly string[]): TrustedProxies | null {
  const intervals = forms.map((form) => parseAddressForm(form)).filter((f) => f.kind === 'interval');
  if (intervals.length === 0) return null;
  return (ip) => intervals.some((i) => i.family === ip.family && ip.value >= i.first && ip.value <= i.last);
}

/** `::ffff:192.0.2.1`, as a dual-stack server reports an IPv4 peer. */
const MAPPED_V4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/** The key a client's bodies are counted under: its address (IPv4), its /64 (IPv6). */
export function clientKey(remoteAddress: string | undefined, forwardedFor: string | string[] | undefined, trusted: TrustedProxies | null): string {
  const remote = remoteAddress ?? '';
  // The usual case, and the cheap one: no proxy to believe, an IPv4 peer.
  if (trusted === null) {
    if (!remote.includes(':')) return remote;
    const mapped = MAPPED_V4.exec(remote);
    if (mapped) return mapped[1]!;
  }
  let client = readIp(remote);
  if (client === null) return remote;
  if (trusted !== null && forwardedFor !== undefined) {
    const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor).split(',');
    for (let i = hops.length - 1; i >= 0 && trusted(client); i--) {
      const hop = readIp(hops[i]!.trim());
      // What a trusted proxy could not read is not believed further: the proxy itself is the client.
      if (hop === null) break;
      client = hop;
    }
  }
  return keyOf(client);
}

function readIp(text: string): IpAddress | null {
  const ip = parseIp(text);
  return ip === null ? null : unmapIpv4(ip);
}

function keyOf(ip: IpAddress): string {
  if (ip.family === 4) return formatIp(ip);
  return `${formatIp({ family: 6, value: (ip.value >> 64n) << 64n })}/64`;
}
