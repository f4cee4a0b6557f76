import { EVERY_SERVER, type PollSeen, type Power, type ServerSeen, type Watch, type WatchEvent } from '../store/watches';

// What the watch tells (docs/product.md, Watches: the bot speaks first), worked out from what the poll last saw, what
// it sees now and the channels' watches, with no I/O: the poll (one instance at a time, under a lease) reads the
// cloud and the store, calls diffServers and saves what it answers before it tells anything. Change only: the first
// read is the baseline, never told; an unchanged state is never told again (it is saved as seen whether anyone was
// told or not: a snoozed watch, a restart or quiet hours do not make it news later).

/** One server as the account's server list gives it: only the fields a watch looks at. */
export interface ServerReading {
  id: number;
  label?: string | null;
  booted?: boolean | null;
  suspended?: boolean | null;
  recovery_mode?: boolean | null;
  locked?: boolean | null;
  /** The cloud's last change of the record (epoch ms), when it says: the same change read by two instances has the same key. */
  updatedAtMs?: number | null;
}

/** What happened to a server, as told (and as held by quiet hours). */
export type NoticeKind =
  | 'power_on'
  | 'power_off'
  | 'power_suspended'
  | 'power_recovery'
  | 'lock_long'
  | 'lock_end'
  | 'gone'
  | 'failed'
  /** The account could not be read for VS_WATCH_BLIND_MIN minutes (serverId EVERY_SERVER), and then could again. */
  | 'blind'
  | 'sees_again';

/** One notification for one channel. */
export interface Notice {
  channelId: string;
  serverId: number;
  label: string | null;
  kind: NoticeKind;
  /** Which watch event it belongs to; 'always' is told to every watch of the server, whatever its events. */
  event: WatchEvent | 'always';
  /** The state it leaves the server in (`on`, `off`, `locked`, `unlocked`, `gone`). */
  state: string;
  /** From which power state (power notices only): `off → on`. */
  from?: Power;
  /** Locked since (lock notices only), epoch ms. */
  sinceMs?: number;
  /** The failed transaction (failure notices only): its id and action, for the words. */
  transaction?: { id: number; action: string };
  /** Posted once across instances: the same change gives the same key, whoever reads it. */
  key: string;
}

export interface ServerDiff {
  /** What to save as seen: the servers whose seen state changed (new ones included). */
  seen: ServerSeen[];
  /** Servers seen before and absent now: forgotten once told. */
  gone: number[];
  notices: Notice[];
}

export interface DiffInput {
  /** What the poll last saw of each server, by id. */
  before: ReadonlyMap<number, ServerSeen>;
  /** The account's server list as read now (every page). */
  now: readonly ServerReading[];
  watches: readonly Watch[];
  /** True for the first read: everything is saved, nothing told. */
  baseline: boolean;
  nowMs: number;
  /** VS_WATCH_LOCK_MIN in ms: a lock is told once it has lasted this long. */
  lockMs: number;
}

/** A server's power from its record: recovery and suspension come before booted. */
export function powerOf(server: ServerReading): Power {
  if (server.recovery_mode === true) return 'recovery';
  if (server.suspended === true) return 'suspended';
  return server.booted === true ? 'on' : 'off';
}

const POWER_KIND: Record<Power, NoticeKind> = {
  on: 'power_on',
  off: 'power_off',
  suspended: 'power_suspended',
  recovery: 'power_recovery',
};

/** The channels told of a server's event: one per channel (a server watch and `all` in the same channel tell once), none snoozed. */
function channelsFor(watches: readonly Watch[], serverId: number, event: WatchEvent | 'always', nowMs: number): string[] {
  const channels = new Set<string>();
  for (const watch of watches) {
    if (watch.serverId !== serverId && watch.serverId !== EVERY_SERVER) continue;
    if (watch.snoozedUntilMs !== null && watch.snoozedUntilMs > nowMs) continue;
    if (event !== 'always' && !watch.events.includes(event)) continue;
    channels.add(watch.channelId);
  }
  return [...channels].sort();
}

function sameSeen(a: ServerSeen, b: ServerSeen): boolean {
  return a.label === b.label && a.power === b.power && a.lockedSinceMs === b.lockedSinceMs && a.lockTold === b.lockTold;
}

export function diffServers(input: DiffInput): ServerDiff {
  const { watches, baseline, nowMs, lockMs } = input;
  const { before } = input;
  const seen: ServerSeen[] = [];
  const notices: Notice[] = [];

  const tell = (
    server: { serverId: number; label: string | null },
    kind: NoticeKind,
    event: WatchEvent | 'always',
    state: string,
    stamp: number | null,
    from?: Power,
  ): void => {
    if (baseline) return;
    for (const channelId of channelsFor(watches, server.serverId, event, nowMs)) {
      notices.push({
        channelId,
        serverId: server.serverId,
        label: server.label,
        kind,
        event,
        state,
        ...(from === undefined ? {} : { from }),
        ...(kind === 'lock_long' || kind === 'lock_end' ? { sinceMs: stamp ?? nowMs } : {}),
        key: stamp === null ? `watch:${channelId}:${server.serverId}:${kind}` : `watch:${channelId}:${server.serverId}:${kind}:${stamp}`,
      });
    }
  };

  const present = new Set<number>();
  for (const reading of input.now) {
    present.add(reading.id);
    const prior = before.get(reading.id);
    const power = powerOf(reading);
    const label = reading.label ?? null;
    const stamp = reading.updatedAtMs ?? nowMs;
    const subject = { serverId: reading.id, label };

    let lockedSinceMs: number | null = null;
    let lockTold = false;
    if (reading.locked === true) {
      lockedSinceMs = prior?.lockedSinceMs ?? nowMs;
      lockTold = prior?.lockedSinceMs != null && prior.lockTold;
      if (!lockTold && prior !== undefined && nowMs - lockedSinceMs >= lockMs) {
        lockTold = true;
        tell(subject, 'lock_long', 'lock', 'locked', lockedSinceMs);
      }
    } else if (prior?.lockTold === true && prior.lockedSinceMs !== null) {
      tell(subject, 'lock_end', 'lock', 'unlocked', prior.lockedSinceMs);
    }

    if (prior !== undefined && prior.power !== power) {
      tell(subject, POWER_KIND[power], 'power', power, stamp, prior.power);
    }

    const next: ServerSeen = { serverId: reading.id, label, power, lockedSinceMs, lockTold };
    if (prior === undefined || !sameSeen(prior, next)) seen.push(next);
  }

  const gone: number[] = [];
  for (const prior of before.values()) {
    if (present.has(prior.serverId)) continue;
    gone.push(prior.serverId);
    // A server's id is never given to another: its disappearance is told once, whichever instance sees it.
    tell(prior, 'gone', 'always', 'gone', null);
  }

  return { seen, gone, notices };
}

/** One transaction of the account's list: the fields a watch looks at. */
export interface TransactionReading {
  id: number;
  action: string;
  status: string;
  parent_type?: string | null;
  parent_id?: number | null;
  associated_object_type?: string | null;
  associated_object_id?: number | null;
}

const ENDED: ReadonlySet<string> = new Set(['complete', 'failed', 'cancelled']);

/** The server a transaction runs on or concerns (newer clouds name it for a disk's transactions too); null: none. */
export function serverOfTransaction(t: TransactionReading): number | null {
  if (t.parent_type === 'VirtualMachine' && typeof t.parent_id === 'number') return t.parent_id;
  if (t.associated_object_type === 'VirtualMachine' && typeof t.associated_object_id === 'number') return t.associated_object_id;
  return null;
}

export interface TransactionsInput {
  /** What the poll last saw of the account (txCursor null: this read is the baseline). */
  before: PollSeen;
  /** The account's transactions read now, newer than the cursor (any order; older ones are ignored). */
  now: readonly TransactionReading[];
  watches: readonly Watch[];
  /** Servers' labels, by id, for the words. */
  labels: ReadonlyMap<number, string | null>;
  nowMs: number;
}

/**
 * Failed transactions, whoever started them, each told once: one that had ended when first seen is never looked at
 * again; one still running is kept open, and told if it fails. The baseline tells nothing (what failed before the
 * watch is not news) but keeps the running ones open.
 */
export function diffTransactions(input: TransactionsInput): { seen: PollSeen; notices: Notice[] } {
  const { before, watches, labels, nowMs } = input;
  const baseline = before.txCursor === null;
  const cursor = before.txCursor ?? 0;
  const open = new Set(before.txOpen);
  const notices: Notice[] = [];
  let max = before.txMax ?? cursor;
  const stillOpen = new Set<number>();
  for (const t of input.now) {
    if (t.id <= cursor) continue;
    const fresh = t.id > (before.txMax ?? cursor) || open.has(t.id);
    if (t.id > max) max = t.id;
    if (!fresh) continue;
    if (!ENDED.has(t.status)) {
      stillOpen.add(t.id);
      continue;
    }
    if (baseline || t.status !== 'failed') continue;
    const serverId = serverOfTransaction(t);
    if (serverId === null) continue;
    for (const channelId of channelsFor(watches, serverId, 'failures', nowMs)) {
      notices.push({
        channelId,
        serverId,
        label: labels.get(serverId) ?? null,
        kind: 'failed',
        event: 'failures',
        state: 'failed',
        transaction: { id: t.id, action: t.action },
        key: `watch:${channelId}:${serverId}:failed:${t.id}`,
      });
    }
  }
  // Open ones not read this time (beyond the pages read) stay open.
  for (const id of open) if (!input.now.some((t) => t.id === id)) stillOpen.add(id);
  const txOpen = [...stillOpen].sort((a, b) => a - b);
  const first = txOpen[0];
  const txCursor = first === undefined ? max : Math.min(max, first - 1);
  return { seen: { ...before, txCursor, txMax: max, txOpen }, notices };
}

/**
 * Blindness: the account could not be read (`readable` false) for `blindMs` → one notice to each watching channel;
 * readable again after that → one more. Shorter blindness is never told.
 */
export function diffBlind(input: { before: PollSeen; readable: boolean; watches: readonly Watch[]; nowMs: number; blindMs: number }): {
  seen: PollSeen;
  notices: Notice[];
} {
  const { before, readable, watches, nowMs, blindMs } = input;
  const channels = [...new Set(watches.map((w) => w.channelId))].sort();
  const noticesOf = (kind: 'blind' | 'sees_again', since: number): Notice[] =>
    channels.map((channelId) => ({
      channelId,
      serverId: EVERY_SERVER,
      label: null,
      kind,
      event: 'always',
      state: kind === 'blind' ? 'unreadable' : 'readable',
      key: `watch:${channelId}:${kind}:${since}`,
    }));
  if (readable) {
    if (before.blindSinceMs === null) return { seen: before, notices: [] };
    const notices = before.blindTold ? noticesOf('sees_again', before.blindSinceMs) : [];
    return { seen: { ...before, blindSinceMs: null, blindTold: false }, notices };
  }
  const since = before.blindSinceMs ?? nowMs;
  if (!before.blindTold && nowMs - since >= blindMs) return { seen: { ...before, blindSinceMs: since, blindTold: true }, notices: noticesOf('blind', since) };
  return { seen: { ...before, blindSinceMs: since }, notices: [] };
}
