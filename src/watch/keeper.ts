import type { AuditEntry, AuditRecord, Power, Store, Watch, WatchEvent } from '../store';
import { EVERY_SERVER } from '../store/watches';

// What `/vs watch`, `/vs unwatch`, `/vs watches`, `/vs watch quiet` and a notification's buttons do to the store
// (docs/product.md, Watches: the bot speaks first), as data: watches made, removed and snoozed are written to the audit
// trail (and so posted to the audit channel); the Slack side checks roles and words the answers. No Slack here.

// The audit trail's vocabulary of actions (src/store/audit.ts, RecordedActions) gains the watch's three.
declare module '../store/audit' {
  interface RecordedActions {
    watch: true;
    unwatch: true;
    watch_snooze: true;
  }
}

/** The audit target of the watch of every server (`/vs watch all`). */
export const EVERY_SERVER_TARGET = 'watch:all';

/** Who did it, and where. */
export interface WatchActor {
  userId: string;
  channelId: string;
}

/** A server as the answer names it: its id and label (null: unknown); EVERY_SERVER for `all`. */
export interface WatchedServer {
  serverId: number;
  label: string | null;
}

export type WatchMade = { outcome: 'added' | 'updated'; count: number } | { outcome: 'full'; count: number; max: number };

export type SnoozeResult =
  /** `watch`: the watch held (the server's own, or the channel's watch of every server). */
  { outcome: 'snoozed'; untilMs: number; watch: Watch } | { outcome: 'not_watched' };

/** The server as the command read it when its watch was made: the state the answer names. */
export interface StartingSeen {
  power: Power;
  locked: boolean | null;
}

export interface WatchKeeper {
  /**
   * Watches the server from the channel. A new watch of a server the poll has not seen yet starts from `start` (what
   * the command read, and its answer names): a change right after the answer, before the poll's first read, is news.
   */
  watch(actor: WatchActor, server: WatchedServer, events: readonly WatchEvent[], start?: StartingSeen | null): Promise<WatchMade>;
  /** Ends the channel's watch of the server (EVERY_SERVER: its watch of every server): false when there was none. */
  unwatch(actor: WatchActor, server: WatchedServer): Promise<boolean>;
  /** The channel's watch that tells this server's news, if any: its own, else the channel's watch of every server. */
  watchOf(channelId: string, serverId: number): Promise<Watch | null>;
  /** Holds the channel's news of the server for `hours` (its own watch, else the watch of every server). */
  snooze(actor: WatchActor, server: WatchedServer, hours: number): Promise<SnoozeResult>;
  /** The channel's watches (every server's first, then by id) and quiet hours. */
  list(channelId: string): Promise<{ watches: Watch[]; quiet: { startMin: number; endMin: number } | null }>;
  /** Sets (null: ends) the channel's quiet hours. */
  setQuiet(channelId: string, hours: { startMin: number; endMin: number } | null): Promise<void>;
}

export interface WatchKeeperDeps {
  store: Pick<Store, 'watches' | 'audit'>;
  now: () => number;
  /** VS_WATCH_MAX_PER_CHANNEL. */
  maxPerChannel: number;
  /** Hears of each record written (ops: metrics, the audit outbox woken). */
  onRecorded?: (record: AuditRecord) => void;
}

const targetOf = (serverId: number) => (serverId === EVERY_SERVER ? EVERY_SERVER_TARGET : `vs:${serverId}`);

export function createWatchKeeper(deps: WatchKeeperDeps): WatchKeeper {
  const { store, now, maxPerChannel, onRecorded } = deps;

  async function record(
    actor: WatchActor,
    action: 'watch' | 'unwatch' | 'watch_snooze',
    server: WatchedServer,
    params: Record<string, unknown>,
    detail: string,
  ) {
    const entry: AuditEntry = {
      at: new Date(now()).toISOString(),
      userId: actor.userId,
      channelId: actor.channelId,
      action,
      target: targetOf(server.serverId),
      params,
      outcome: 'done',
      apiStatus: null,
      durationMs: 0,
      detail,
      ...(server.serverId === EVERY_SERVER ? {} : { serverLabel: server.label }),
    };
    onRecorded?.(await store.audit.record(entry));
  }

  async function watchOf(channelId: string, serverId: number): Promise<Watch | null> {
    const watches = await store.watches.ofChannel(channelId);
    return watches.find((w) => w.serverId === serverId) ?? watches.find((w) => w.serverId === EVERY_SERVER) ?? null;
  }

  return {
    async watch(actor, server, events, start) {
      const made = await store.watches.add(
        { channelId: actor.channelId, serverId: server.serverId, events, createdBy: actor.userId, createdAtMs: now(), snoozedUntilMs: null },
        maxPerChannel,
      );
      if (made.outcome === 'full') return { outcome: 'full', count: made.count, max: maxPerChannel };
      // What the poll saw last is where news starts; only a server it has not seen starts from the command's read.
      if (made.outcome === 'added' && start && server.serverId !== EVERY_SERVER) {
        const seen = await store.watches.servers();
        if (!seen.some((s) => s.serverId === server.serverId))
          await store.watches.saveServers(
            [{ serverId: server.serverId, label: server.label, power: start.power, lockedSinceMs: start.locked === true ? now() : null, lockTold: false }],
            [],
          );
      }
      await record(actor, 'watch', server, { events: [...events] }, `${made.outcome === 'added' ? 'watch made' : 'watch changed'}: ${events.join(', ')}`);
      return { outcome: made.outcome, count: made.count };
    },
    async unwatch(actor, server) {
      const removed = await store.watches.remove(actor.channelId, server.serverId);
      if (removed) await record(actor, 'unwatch', server, {}, 'watch removed');
      return removed;
    },
    watchOf,
    async snooze(actor, server, hours) {
      const watch = await watchOf(actor.channelId, server.serverId);
      if (watch === null) return { outcome: 'not_watched' };
      const untilMs = now() + hours * 3_600_000;
      if (!(await store.watches.snooze(actor.channelId, watch.serverId, untilMs))) return { outcome: 'not_watched' };
      const held = watch.serverId === server.serverId ? server : { serverId: EVERY_SERVER, label: null };
      await record(actor, 'watch_snooze', held, { hours, until: new Date(untilMs).toISOString() }, `watch snoozed for ${hours} h`);
      return { outcome: 'snoozed', untilMs, watch: { ...watch, snoozedUntilMs: untilMs } };
    },
    async list(channelId) {
      const [watches, quiet] = await Promise.all([store.watches.ofChannel(channelId), store.watches.quiet()]);
      const hours = quiet.find((q) => q.channelId === channelId);
      return {
        watches: [...watches].sort((a, b) => a.serverId - b.serverId),
        quiet: hours === undefined ? null : { startMin: hours.startMin, endMin: hours.endMin },
      };
    },
    setQuiet: (channelId, hours) => store.watches.setQuiet(channelId, hours),
  };
}
