import { NAMES_PER_PAGE, readAllServers, type ListServers } from '../cloud/names';
import type { Frozen } from '../cloud/reads';
import type { ListedServer } from '../cloud/schemas';
import type { Logger } from '../log';
import type { Leases, Watches } from '../store';
import type { ServerSeen } from '../store/watches';
import { diffBlind, diffServers, diffTransactions, serverOfTransaction, type Notice, type ServerReading, type TransactionReading } from './diff';
import { heldByQuietHours, heldNewsOf, isQuiet, summarizeHeld, type QuietSummaryLine } from './quiet';

// The watch's poll (docs/product.md, Watches: the bot speaks first): one instance at a time, the one holding the
// lease, reads the account's server list (every page, whatever the number of watches), works out what changed
// (diff.ts) and tells the Slack side through a port (WatchTeller: no Slack here). Each notification's key is claimed
// in the store before it is told and marked told after, so that an instance taking over from one that died mid-poll
// never tells a told one twice, and tells one that was claimed but never told;
// what was seen is saved after the telling, so that such an instance works the same change out again.

/** The server list as the cloud client reads it (cloud.listServers, the name index's read), one page at a time. */
export interface WatchReads {
  listServers: ListServers;
  /** The account's transactions, newest first (cloud.listAccountTransactions). */
  listAccountTransactions(page: { page: number; perPage: number }): Promise<readonly TransactionReading[]>;
}

/** What the Slack side does with a notification: given by the composition root. */
export interface WatchTeller {
  /** Posts the notice in its channel: false when Slack would not (it is given back, and tried again never: it is logged). */
  tell(notice: Notice): Promise<boolean>;
  /** Posts the summary of the news quiet hours held, once they ended: false when Slack would not (the news is kept). */
  summarize(channelId: string, lines: QuietSummaryLine[]): Promise<boolean>;
}

export interface WatchPollDeps {
  reads: WatchReads;
  store: { watches: Watches; leases: Pick<Leases, 'take'> };
  teller: WatchTeller;
  settings: {
    /** VS_WATCH_LOCK_MIN in ms. */
    lockMs: number;
    /** VS_WATCH_BLIND_MIN in ms. */
    blindMs: number;
    /** VS_TIMEZONE: the zone of quiet hours. */
    timeZone: string;
    /** How long this instance's lease lasts past a round: a dead poller is replaced after that. */
    leaseMs: number;
    /**
     * A change the bot followed in a channel, ended this long ago or less, is still that channel's news of its server
     * (its follow message told it): the watch does not tell it twice. About two intervals of the poll.
     */
    followedGraceMs: number;
  };
  /** Names this instance in the lease. */
  owner: string;
  now: () => number;
  logger: Logger;
  /** Hears of each notice told (the metric vs_chatops_watch_notifications_total{event}) and of each round's length. */
  onTold?: (notice: Notice) => void;
  onPolled?: (seconds: number) => void;
  /** Hears of each whole server list read (the name index takes it: one list read for both). */
  onList?: (servers: readonly Frozen<ListedServer>[]) => void;
}

export interface WatchPoll {
  /**
   * One round: nothing unless this instance holds the lease (`not_leading`); nothing read while no channel watches
   * anything (`no_watches`: what was seen is forgotten, so that the next watch starts from a baseline); else the list
   * read, the diff told, what was seen saved (`polled`).
   */
  round(): Promise<'polled' | 'not_leading' | 'no_watches'>;
}

/** The lease's name in the store's leases. */
export const WATCH_LEASE = 'watch_poll';
/** Servers (and transactions) per page of a list (the API's most). */
export const SERVERS_PER_PAGE = 100;
/** Pages of transactions read at most in one round: older ones beyond them (more than 1,000 in one interval) are not looked at. */
export const MAX_TRANSACTION_PAGES = 10;

function stampOf(value: Date | string | null | undefined): number | null {
  if (value === null || value === undefined) return null;
  const ms = value instanceof Date ? value.getTime() : Date.parse(value);
  return Number.isFinite(ms) ? ms : null;
}

export function createWatchPoll(deps: WatchPollDeps): WatchPoll {
  const { reads, store, teller, settings, owner, now, onTold, onPolled, onList } = deps;
  const log = deps.logger.child({ component: 'watch' });
  /**
   * Each listed record's reading, made once: the cloud client gives back the same records for a page whose text did
   * not change, so a quiet round makes no new reading (nor parses a date) for them.
   */
  const readingsOf = new WeakMap<Frozen<ListedServer>, ServerReading>();
  /**
   * What this instance last saw of every server, as saved in the store, while it has kept the lease since: no other
   * instance can have polled (and saved) meanwhile, so a round does not read the account's thousands of rows of
   * seen servers back from the store. Forgotten at the start of each round, kept again at its end: a round that
   * fails midway, or a lease that lapsed (someone else may have polled), reads the store again.
   */
  let kept: { seen: Map<number, ServerSeen>; leaseUntilMs: number } | null = null;

  /** Every page of the list, as the name index reads it (an older cloud's whole list at once ends it). */
  async function readAll(): Promise<ServerReading[]> {
    const listed = await readAllServers(reads.listServers, NAMES_PER_PAGE);
    onList?.(listed);
    return listed.map((item) => {
      let reading = readingsOf.get(item);
      if (reading === undefined) {
        reading = {
          id: item.id,
          label: item.label ?? null,
          booted: item.booted ?? null,
          suspended: item.suspended ?? null,
          recovery_mode: item.recovery_mode ?? null,
          locked: item.locked ?? null,
          updatedAtMs: stampOf(item.updated_at),
        };
        readingsOf.set(item, reading);
      }
      return reading;
    });
  }

  /** What was last seen of every server: what this instance kept, if it has held the lease since, else the store's. */
  async function seenBefore(held: typeof kept, startedMs: number): Promise<Map<number, ServerSeen>> {
    if (held !== null && startedMs < held.leaseUntilMs) return held.seen;
    return new Map((await store.watches.servers()).map((seen) => [seen.serverId, seen]));
  }

  /** The transactions newer than the cursor, newest first; the baseline reads the newest page only. */
  async function readTransactions(cursor: number | null): Promise<TransactionReading[]> {
    const read: TransactionReading[] = [];
    for (let page = 1; page <= MAX_TRANSACTION_PAGES; page += 1) {
      const items = await reads.listAccountTransactions({ page, perPage: SERVERS_PER_PAGE });
      read.push(...items);
      if (cursor === null || items.length < SERVERS_PER_PAGE || items.some((t) => t.id <= cursor)) break;
    }
    return read;
  }

  /** The channels whose quiet hours are on now. */
  async function quietChannels(): Promise<Set<string>> {
    const nowMs = now();
    return new Set((await store.watches.quiet()).filter((hours) => isQuiet(hours, nowMs, settings.timeZone)).map((hours) => hours.channelId));
  }

  /** Posts the summary of each channel whose quiet hours ended with news held; kept for the next round if it fails. */
  async function summarizeEnded(quiet: ReadonlySet<string>): Promise<void> {
    for (const channelId of await store.watches.holding()) {
      if (quiet.has(channelId)) continue;
      const held = await store.watches.takeHeld(channelId);
      if (held.length === 0) continue;
      let told = false;
      try {
        told = await teller.summarize(channelId, summarizeHeld(held));
      } catch (error) {
        log.warn('a quiet hours summary could not be posted', { channel: channelId, error });
      }
      if (!told) for (const news of held) await store.watches.hold(news);
    }
  }

  /** The notices a change the bot follows in that channel already tells (its message is the news): left out. */
  async function notFollowed(notices: readonly Notice[]): Promise<Notice[]> {
    const told = notices.filter((n) => n.event !== 'always');
    if (told.length === 0) return [...notices];
    const following = new Set((await store.watches.following(now() - settings.followedGraceMs)).map((f) => `${f.channelId}:${f.serverId}`));
    return notices.filter((n) => n.event === 'always' || !following.has(`${n.channelId}:${n.serverId}`));
  }

  async function tellAll(all: readonly Notice[], quiet: ReadonlySet<string>): Promise<void> {
    const notices = await notFollowed(all);
    for (const notice of notices) {
      // A claim never told and older than half a lease was a dead poller's: this one holds the lease now, so it could
      // only take over once that poller's lease ran out, and a live poller tells its claims within its round.
      if (!(await store.watches.claimNotice(notice.key, now(), settings.leaseMs / 2))) continue;
      if (quiet.has(notice.channelId) && heldByQuietHours(notice)) {
        await store.watches.hold(heldNewsOf(notice, now()));
        await store.watches.noticeTold(notice.key, now());
        continue;
      }
      let told = false;
      try {
        told = await teller.tell(notice);
      } catch (error) {
        log.warn('a watch notification could not be posted', { channel: notice.channelId, vs_id: notice.serverId, kind: notice.kind, error });
      }
      if (told) {
        await store.watches.noticeTold(notice.key, now());
        onTold?.(notice);
      } else await store.watches.releaseNotice(notice.key);
    }
  }

  return {
    async round() {
      const startedMs = now();
      const held = kept;
      kept = null;
      if (!(await store.leases.take(WATCH_LEASE, owner, startedMs, settings.leaseMs))) return 'not_leading';
      const leaseUntilMs = startedMs + settings.leaseMs;
      const watches = await store.watches.all();
      const before = await seenBefore(held, startedMs);
      const pollBefore = await store.watches.poll();
      if (watches.length === 0) {
        // Nobody to tell: the cloud is not read. What was seen goes stale meanwhile: forgotten, the next read a baseline.
        if (before.size > 0) await store.watches.saveServers([], [...before.keys()]);
        if (pollBefore.txCursor !== null || pollBefore.blindSinceMs !== null)
          await store.watches.savePoll({ txCursor: null, txMax: null, txOpen: [], blindSinceMs: null, blindTold: false });
        return 'no_watches';
      }
      const quiet = await quietChannels();
      await summarizeEnded(quiet);
      let servers: ServerReading[];
      let transactions: TransactionReading[];
      try {
        servers = await readAll();
        transactions = await readTransactions(pollBefore.txCursor);
      } catch (error) {
        // The cloud could not be read: nothing is known of the servers; blindness is told once it lasts.
        log.warn('the watch could not read the cloud', { error });
        const blind = diffBlind({ before: pollBefore, readable: false, watches, nowMs: now(), blindMs: settings.blindMs });
        await tellAll(blind.notices, quiet);
        await store.watches.savePoll(blind.seen);
        kept = { seen: before, leaseUntilMs };
        onPolled?.((now() - startedMs) / 1000);
        return 'polled';
      }
      const sight = diffBlind({ before: pollBefore, readable: true, watches, nowMs: now(), blindMs: settings.blindMs });
      const diff = diffServers({ before, now: servers, watches, baseline: before.size === 0, nowMs: now(), lockMs: settings.lockMs });
      // The labels of the servers the transactions name (for a failure's words), not of the whole account.
      const named = new Set(transactions.map(serverOfTransaction));
      const labels = new Map(servers.filter((server) => named.has(server.id)).map((server) => [server.id, server.label ?? null]));
      const failures = diffTransactions({ before: sight.seen, now: transactions, watches, labels, nowMs: now() });
      await tellAll([...sight.notices, ...diff.notices, ...failures.notices], quiet);
      await store.watches.saveServers(diff.seen, diff.gone);
      await store.watches.savePoll(failures.seen);
      // As the store keeps them now (whole milliseconds): the next round's `before`, while this instance keeps the lease.
      for (const seen of diff.seen)
        before.set(seen.serverId, { ...seen, lockedSinceMs: seen.lockedSinceMs === null ? null : Math.max(0, Math.round(seen.lockedSinceMs)) });
      for (const id of diff.gone) before.delete(id);
      kept = { seen: before, leaseUntilMs };
      onPolled?.((now() - startedMs) / 1000);
      return 'polled';
    },
  };
}
