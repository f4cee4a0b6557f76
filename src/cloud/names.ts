import type { Logger } from '../log';
import type { Frozen, ReadPage } from './reads';
import type { ListedServer } from './schemas';

// The name index (docs/product.md, Servers by name): a server's label,
// hostname and addresses → its id, from the account's server list
// (`GET /virtual_machines`, READS.listServers), kept VS_NAME_INDEX_TTL_S
// seconds. Loading it is single-flight: fifty people typing names on a cold
// index cost the API one list read (one per page). A name it does not know
// refreshes it, at most once per REFRESH_GAP_MS, so a server made a minute ago
// is found without a list read per typo. An id (`42`, `#42`) is never looked
// up: it is an id.

/** What the index keeps of a server: its id and what people call it. */
export interface NamedServer {
  readonly id: number;
  readonly label: string | null;
  readonly hostname: string | null;
  readonly addresses: readonly string[];
}

/** What a name resolves to: one server, several (never guessed between), or none, with the closest names. */
export type Resolution =
  | { readonly kind: 'one'; readonly server: NamedServer }
  | { readonly kind: 'several'; readonly name: string; readonly servers: readonly NamedServer[] }
  | { readonly kind: 'none'; readonly name: string; readonly closest: readonly NamedServer[] };

export interface NameIndex {
  /** Resolves what someone typed for a server: an id, a label or hostname (or a unique prefix of one), an address. */
  resolve(text: string): Promise<Resolution>;
  /** The label the index knows for an id, without reading anything; null when it knows none. */
  labelOf(id: number): string | null;
  /**
   * Reads the list when none was ever read (a kept one, even stale, is enough for labels); resolves once read, or after
   * `waitMs` if given (the read goes on). Never rejects: a failure is logged.
   */
  warm(waitMs?: number): Promise<void>;
  /**
   * Takes a whole list someone else just read (the watch poll reads it each interval): kept as a fresh index, so that
   * the account's server list is read once for both. Rebuilt only when a name changed (a server's id, label, hostname
   * or addresses, or a server came or went): otherwise the index kept is used, fresh from now. True when rebuilt.
   */
  offer(servers: readonly Frozen<ListedServer>[]): boolean;
}

/** A server's list reader: one page of the account's servers (the client's listServers). */
export type ListServers = (page: ReadPage) => Promise<readonly Frozen<ListedServer>[]>;

export interface NameIndexOptions {
  list: ListServers;
  /** How long a loaded index is used before the next name reloads it (VS_NAME_INDEX_TTL_S). */
  ttlMs: number;
  now: () => number;
  /** Least time between two reloads for a name the index does not know. */
  refreshGapMs?: number;
  /** Servers asked for a page. */
  perPage?: number;
  logger?: Logger;
}

export const REFRESH_GAP_MS = 10_000;
export const NAMES_PER_PAGE = 100;
/** Pages read at most (100 000 servers at 100 a page): a cloud that pages forever is not followed forever. */
const MAX_PAGES = 1000;
/** Closest names offered for a name that matches none. */
const CLOSEST = 3;

/** `42` or `#42`: an id, never a name. Null for anything else (`0`, `-1`, `web-1`). */
export function parseServerId(text: string): number | null {
  const match = /^#?0*([1-9][0-9]{0,14})$/.exec(text.trim());
  return match?.[1] === undefined ? null : Number(match[1]);
}

interface Entry extends NamedServer {
  readonly lowerLabel: string | null;
  readonly lowerHostname: string | null;
  /** The hostname's first part, `web-1` of `web-1.prod.example.com`. */
  readonly hostFirst: string | null;
}

interface Loaded {
  readonly entries: readonly Entry[];
  readonly byId: ReadonlyMap<number, Entry>;
  /** Lower-case label or hostname → the servers of that exact name. */
  readonly byExact: ReadonlyMap<string, readonly Entry[]>;
  readonly byAddress: ReadonlyMap<string, readonly Entry[]>;
  /** The list it was built from (or last found to name the same servers the same way): entries[i] is source[i]'s. */
  readonly source: readonly Frozen<ListedServer>[];
  readonly loadedAt: number;
}

export function createNameIndex(options: NameIndexOptions): NameIndex {
  const { list, ttlMs, now, logger } = options;
  const refreshGapMs = options.refreshGapMs ?? REFRESH_GAP_MS;
  const perPage = options.perPage ?? NAMES_PER_PAGE;
  let loaded: Loaded | null = null;
  let loading: Promise<Loaded> | null = null;
  /** When the last load started: an unknown name reloads only REFRESH_GAP_MS after it. */
  let lastLoadAt = Number.NEGATIVE_INFINITY;

  function load(): Promise<Loaded> {
    if (loading) return loading;
    lastLoadAt = now();
    loading = readAllServers(list, perPage)
      .then((servers) => {
        loaded = build(servers, now());
        return loaded;
      })
      .finally(() => {
        loading = null;
      });
    return loading;
  }

  /** The index to resolve against: the one kept while fresh, else a new one (a stale one if the list cannot be read). */
  async function current(): Promise<Loaded> {
    if (loaded && now() - loaded.loadedAt < ttlMs) return loaded;
    const stale = loaded;
    try {
      return await load();
    } catch (error) {
      if (stale === null) throw error;
      logger?.warn('the account’s server list could not be read: names are resolved from the last one read', { error });
      return stale;
    }
  }

  return {
    async resolve(text) {
      const id = parseServerId(text);
      if (id !== null) return { kind: 'one', server: loaded?.byId.get(id) ?? { id, label: null, hostname: null, addresses: [] } };
      const name = text.trim();
      const index = await current();
      const found = match(index, name);
      if (found.kind !== 'none') return found;
      // Not known: perhaps made since the list was read. One reload, at most one per REFRESH_GAP_MS for everyone.
      if (loading === null && now() - lastLoadAt < refreshGapMs) return found;
      try {
        return match(await load(), name);
      } catch (error) {
        logger?.warn('the account’s server list could not be read again for an unknown name', { error });
        return found;
      }
    },
    async warm(waitMs) {
      if (loaded !== null) return;
      const read = load().then(
        () => undefined,
        (error: unknown) => logger?.warn('the account’s server list could not be read: servers are named by id until it can', { error }),
      );
      if (waitMs === undefined) return read;
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, waitMs);
        timer.unref();
      });
      return Promise.race([read, waited]).finally(() => clearTimeout(timer));
    },
    labelOf(id) {
      return loaded?.byId.get(id)?.label ?? null;
    },
    offer(servers) {
      if (loaded !== null && namesAlike(loaded, servers)) {
        loaded = { ...loaded, source: servers, loadedAt: now() };
        return false;
      }
      loaded = build(servers, now());
      return true;
    },
  };
}

/** Every page of the account's servers; an older cloud answers the whole list whatever the page, which ends it. */
export async function readAllServers(list: ListServers, perPage: number): Promise<readonly Frozen<ListedServer>[]> {
  const servers: Frozen<ListedServer>[] = [];
  const seen = new Set<number>();
  for (let page = 1; page <= MAX_PAGES; page++) {
    const answer = await list(page === 1 ? { perPage } : { page, perPage });
    const fresh = answer.filter((server) => !seen.has(server.id));
    for (const server of fresh) {
      seen.add(server.id);
      servers.push(server);
    }
    // A short page is the last; a long one, or one holding nothing new, is an older cloud's whole list.
    if (answer.length !== perPage || fresh.length < answer.length) break;
  }
  return servers;
}

/**
 * Whether a list names the same servers the same way, in the same order, as the one an index was built from: the
 * index built from it would be the same. The same record (the cloud client gives back the same records for a page
 * whose text did not change) is alike at once; another is compared by what the index keeps of it.
 */
function namesAlike(index: Loaded, servers: readonly Frozen<ListedServer>[]): boolean {
  const { source, entries } = index;
  if (servers.length !== source.length) return false;
  for (let i = 0; i < servers.length; i++) {
    const server = servers[i]!;
    if (server === source[i]) continue;
    const entry = entries[i]!;
    if (server.id !== entry.id || nonEmpty(server.label) !== entry.label || nonEmpty(server.hostname) !== entry.hostname) return false;
    const addresses = server.ip_addresses;
    if (addresses.length !== entry.addresses.length) return false;
    for (let j = 0; j < addresses.length; j++) if (addresses[j]!.address !== entry.addresses[j]) return false;
  }
  return true;
}

function build(servers: readonly Frozen<ListedServer>[], loadedAt: number): Loaded {
  const entries: Entry[] = servers.map((server) => {
    const label = nonEmpty(server.label);
    const hostname = nonEmpty(server.hostname);
    const lowerHostname = hostname?.toLowerCase() ?? null;
    return {
      id: server.id,
      label,
      hostname,
      addresses: server.ip_addresses.map((ip) => ip.address),
      lowerLabel: label?.toLowerCase() ?? null,
      lowerHostname,
      hostFirst: lowerHostname?.split('.')[0] ?? null,
    };
  });
  const byExact = new Map<string, Entry[]>();
  const byAddress = new Map<string, Entry[]>();
  const add = (map: Map<string, Entry[]>, key: string, entry: Entry) => {
    const list = map.get(key);
    if (list === undefined) map.set(key, [entry]);
    else if (!list.includes(entry)) list.push(entry);
  };
  for (const entry of entries) {
    if (entry.lowerLabel !== null) add(byExact, entry.lowerLabel, entry);
    if (entry.lowerHostname !== null) add(byExact, entry.lowerHostname, entry);
    for (const address of entry.addresses) add(byAddress, address.toLowerCase(), entry);
  }
  return { entries, byId: new Map(entries.map((e) => [e.id, e])), byExact, byAddress, source: servers, loadedAt };
}

/** Exact label or hostname, else a unique prefix of a label or of a hostname's first part, else an address. */
function match(index: Loaded, name: string): Resolution {
  const lower = name.toLowerCase();
  if (lower !== '') {
    const exact = index.byExact.get(lower);
    if (exact !== undefined) return found(name, exact);
    const prefixed = index.entries.filter((e) => e.lowerLabel?.startsWith(lower) === true || e.hostFirst?.startsWith(lower) === true);
    if (prefixed.length > 0) return found(name, prefixed);
    const addressed = index.byAddress.get(lower);
    if (addressed !== undefined) return found(name, addressed);
  }
  return { kind: 'none', name, closest: closest(index.entries, lower) };
}

function found(name: string, servers: readonly Entry[]): Resolution {
  const [only] = servers;
  if (servers.length === 1 && only !== undefined) return { kind: 'one', server: named(only) };
  return { kind: 'several', name, servers: [...servers].sort(byName).map(named) };
}

const named = ({ id, label, hostname, addresses }: Entry): NamedServer => ({ id, label, hostname, addresses });

const byName = (a: NamedServer, b: NamedServer) => (a.label ?? a.hostname ?? '').localeCompare(b.label ?? b.hostname ?? '') || a.id - b.id;

/** The servers whose label or hostname's first part is closest to the name (edit distance), near enough to be a typo. */
function closest(entries: readonly Entry[], lower: string): NamedServer[] {
  if (lower === '') return [];
  const limit = Math.max(2, Math.floor(lower.length / 3));
  const scored: { entry: Entry; distance: number }[] = [];
  for (const entry of entries) {
    const distance = Math.min(
      entry.lowerLabel === null ? Infinity : editDistance(lower, entry.lowerLabel, limit),
      entry.hostFirst === null ? Infinity : editDistance(lower, entry.hostFirst, limit),
    );
    if (distance <= limit) scored.push({ entry, distance });
  }
  return scored
    .sort((a, b) => a.distance - b.distance || byName(a.entry, b.entry))
    .slice(0, CLOSEST)
    .map(({ entry }) => named(entry));
}

/** Levenshtein distance, or more than `limit` as soon as it must be (names far apart cost little). */
export function editDistance(a: string, b: string, limit = Infinity): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min((previous[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      row.push(value);
      if (value < best) best = value;
    }
    if (best > limit) return limit + 1;
    previous = row;
  }
  return previous[b.length] ?? 0;
}

function nonEmpty(text: string | null | undefined): string | null {
  const trimmed = text?.trim() ?? '';
  return trimmed === '' ? null : trimmed;
}
