// Watches (docs/product.md, Watches: the bot speaks first): a channel subscribed to a server (or to every server of
// the account), what the poll last saw of each server and of the account's transactions, quiet hours per channel
// with the news they hold, and the notification keys that make each notification posted once across instances. One
// instance at a time polls (a lease of the store's leases); every instance answers `/vs watch` from here.

/** What a watch tells: power, lock, failures (disappearances and blindness are always told). */
export type WatchEvent = 'power' | 'lock' | 'failures';

export const WATCH_EVENTS: readonly WatchEvent[] = ['power', 'lock', 'failures'];

/** The account-wide watch (`/vs watch all`) is stored with this server id. */
export const EVERY_SERVER = 0;

export interface Watch {
  channelId: string;
  /** A server id, or EVERY_SERVER. */
  serverId: number;
  events: readonly WatchEvent[];
  createdBy: string;
  createdAtMs: number;
  /** Held until then (epoch ms) by a snooze; null: not snoozed. */
  snoozedUntilMs: number | null;
}

/** A server's power, as the watch tells it. */
export type Power = 'on' | 'off' | 'suspended' | 'recovery';

/** What the poll last saw of one server. */
export interface ServerSeen {
  serverId: number;
  label: string | null;
  power: Power;
  /** Locked since (epoch ms, as first seen locked); null: not locked. */
  lockedSinceMs: number | null;
  /** The lock was told (it outlasted VS_WATCH_LOCK_MIN): its end is told too. */
  lockTold: boolean;
}

/** What the poll last saw of the account as a whole. */
export interface PollSeen {
  /** Every transaction up to this id had ended when seen; null: never read (the next read is the baseline). */
  txCursor: number | null;
  /** The newest transaction id read. */
  txMax: number | null;
  /** Transactions above the cursor that had not ended when last read: their failure is still news. */
  txOpen: readonly number[];
  /** Since when the cloud could not be read (epoch ms); null: it could at the last poll. */
  blindSinceMs: number | null;
  /** Blindness was told: its end is told too. */
  blindTold: boolean;
}

/** Quiet hours of a channel, in minutes of the day in VS_TIMEZONE: from `startMin` to `endMin` (past midnight when end < start). */
export interface QuietHours {
  channelId: string;
  startMin: number;
  endMin: number;
}

/** News held by quiet hours, for the summary posted when they end. */
export interface HeldNews {
  channelId: string;
  serverId: number;
  label: string | null;
  /** What happened, as the notification's kind (`power_off`, `lock_long`…). */
  kind: string;
  /** The state it left the server in (`on`, `off`…), for the summary's last word. */
  state: string;
  atMs: number;
}

export interface Watches {
  /**
   * Watches a server (or every server) from a channel, or changes what an existing watch tells: true when it is new.
   * A new watch beyond `maxPerChannel` of the channel is refused (`full`), nothing written.
   */
  add(watch: Watch, maxPerChannel: number): Promise<{ outcome: 'added' | 'updated' | 'full'; count: number }>;
  /** Ends a channel's watch of a server (or of every server): false when there was none. */
  remove(channelId: string, serverId: number): Promise<boolean>;
  /** A channel's watches, by server id. */
  ofChannel(channelId: string): Promise<Watch[]>;
  /** Every watch (the poll's read). */
  all(): Promise<Watch[]>;
  /** Holds a channel's news of a server until `untilMs`: false when it does not watch it. */
  snooze(channelId: string, serverId: number, untilMs: number): Promise<boolean>;

  /** What the poll last saw of every server. */
  servers(): Promise<ServerSeen[]>;
  /** Saves what the poll saw of the servers that changed, and forgets those gone. */
  saveServers(seen: readonly ServerSeen[], gone: readonly number[]): Promise<void>;
  /** What the poll last saw of the account (txCursor null: nothing yet). */
  poll(): Promise<PollSeen>;
  savePoll(seen: PollSeen): Promise<void>;

  /** Sets (or, with null, clears) a channel's quiet hours. */
  setQuiet(channelId: string, hours: Omit<QuietHours, 'channelId'> | null): Promise<void>;
  /** Every channel's quiet hours. */
  quiet(): Promise<QuietHours[]>;
  /** Keeps news for a channel's summary. */
  hold(news: HeldNews): Promise<void>;
  /** Takes (and deletes) a channel's held news, oldest first: one caller gets them. */
  takeHeld(channelId: string): Promise<HeldNews[]>;
  /** Channels that have held news. */
  holding(): Promise<string[]>;

  /**
   * Claims a notification before it is posted: true for the first caller of a key, across instances, and for a caller
   * that finds a claim older than `staleAfterMs` never told (its instance died between the claim and the post).
   */
  claimNotice(key: string, nowMs: number, staleAfterMs: number): Promise<boolean>;
  /** A claimed notification was told (posted, or held for quiet hours): never claimed again. */
  noticeTold(key: string, nowMs: number): Promise<void>;
  /** Gives a notice key back (its post failed), so that it is tried again. */
  releaseNotice(key: string): Promise<void>;

  /**
   * The servers a change the bot follows is about, by the channel its message is in: changes still followed, and those
   * ended at or after `sinceMs` (their news is the follow message's, not the watch's).
   */
  following(sinceMs: number): Promise<FollowedServer[]>;
}

/** A server a change the bot follows (or followed lately) is about, and the channel its message is in. */
export interface FollowedServer {
  channelId: string;
  serverId: number;
}
