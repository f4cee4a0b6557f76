import { EVERY_SERVER, type Power, type ServerSeen, type Watch, type WatchEvent } from '../store/watches';

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
export type NoticeKind = 'power_on' | 'power_off' | 'power_suspended' | 'power_recovery' | 'lock_long' | 'lock_end' | 'gone';

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
  /** What the poll last saw of each server. */
  before: readonly ServerSeen[];
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
  const before = new Map(input.before.map((seen) => [seen.serverId, seen]));
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
  for (const prior of input.before) {
    if (present.has(prior.serverId)) continue;
    gone.push(prior.serverId);
    // A server's id is never given to another: its disappearance is told once, whichever instance sees it.
    tell(prior, 'gone', 'always', 'gone', null);
  }

  return { seen, gone, notices };
}
