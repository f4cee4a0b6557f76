import type { ChangeReads } from '../changes';
import { CodedError } from '../errors';
import type { Logger } from '../log';
import type { Tracing } from '../tracing';
import { isCloudOutcome, type AuditRecord, type CloudOutcome, type FollowedChange, type FollowProgress, type Store } from '../store';
import { poll, progressOf, type PollSettings } from './poll';

// The followers' round (docs/product.md, Following a change to its end), run
// by every instance as part of the ops' periodic work: it takes the followed
// changes that are due and that no other live instance holds (a lease per
// change, naming this instance, renewed by each save and while it polls and
// tells, and expiring when it dies), polls each (poll.ts) on the connections kept for changes, at most
// `concurrency` at a time, saves where each got, and tells the Slack side
// through a port (FollowReporter: no Slack here) so that the change's message
// shows it; when a change ends, its record gets the cloud's outcome and its
// message's thread a reply, once. A stopping instance gives its changes back.

/** What the Slack side does for a followed change: given by the composition root (src/slack/follow-messages.ts). */
export interface FollowReporter {
  /** Shows where the change stands in its message (updated in place); false when Slack would not. */
  show(change: FollowedChange): Promise<boolean>;
  /** Posts its message anew where it was asked for (its first post never came): the new message's ts, or null. */
  post(change: FollowedChange): Promise<string | null>;
  /** Replies in its message's thread that it ended, mentioning who asked and who approved; false when Slack would not. */
  reply(change: FollowedChange): Promise<boolean>;
}

export interface FollowerDeps {
  /** The reads on the connections kept for changes (cloud.changeReads). */
  reads: ChangeReads;
  store: Pick<Store, 'follows'>;
  reporter: FollowReporter;
  settings: PollSettings & {
    /** Polls at once, at most: a share of VS_API_CHANGE_CONNECTIONS, so that changes keep the rest. */
    concurrency: number;
  };
  /** Names this instance in leases. */
  owner: string;
  now: () => number;
  logger: Logger;
  /** Hears of each change that ended, with its settled record (metrics, the audit outbox). */
  onEnded?: (record: AuditRecord, outcome: CloudOutcome) => void;
  /** Traces (OTEL_EXPORTER_OTLP_ENDPOINT): each followed poll is the root span of a trace of its own. */
  tracing?: Tracing;
}

export interface Follower {
  /** One round: every due change this instance may take, polled and told. */
  round(): Promise<void>;
  /** Remembers the message that shows a change, so that any instance updates it in place. */
  setMessage(recordId: number, channelId: string, messageTs: string): Promise<void>;
  /** Gives this instance's changes back (it is stopping): another instance takes them at once. */
  release(): Promise<void>;
}

/** How often each instance looks for followed changes that are due (each is polled at most once per its interval). */
export const FOLLOW_ROUND_MS = 1000;
/** How long a change stays this instance's past its next poll: if the instance dies, another takes over after that. */
export const FOLLOW_LEASE_MS = 60_000;
/** An ended change whose message was never posted waits this long for the Slack side before it is posted anew. */
export const MESSAGE_GRACE_MS = 60_000;
/** Attempts to update a message or reply in its thread before giving up (Slack refuses for good: a deleted channel). */
export const MAX_TELL_ATTEMPTS = 5;

export function createFollower(deps: FollowerDeps): Follower {
  const { store, reporter, settings, owner, now, logger } = deps;
  const log = logger.child({ component: 'follow' });
  const concurrency = Math.max(1, Math.floor(settings.concurrency));
  let running: Promise<void> = Promise.resolve();

  /**
   * This instance's lease on one change while it works on it: renewed before each cloud read and each message to Slack
   * once a third of it has passed (a poll of several slow reads can outlast one lease), and every third of it by a
   * timer besides (a single read slower than that); once another instance has taken it over, `lost`, and nothing more
   * is read, saved or told from here.
   */
  function leaseOn(change: FollowedChange, clog: Logger) {
    let renewedAtMs = now();
    let lost = false;
    const keep = async (force = false): Promise<boolean> => {
      if (lost) return false;
      const at = now();
      if (!force && at - renewedAtMs < FOLLOW_LEASE_MS / 3) return true;
      renewedAtMs = at;
      if (await store.follows.renew(change.recordId, owner, at + FOLLOW_LEASE_MS)) return true;
      lost = true;
      clog.info('another instance took a followed change over; this one leaves it');
      return false;
    };
    const timer = setInterval(() => void keep(true).catch(() => undefined), FOLLOW_LEASE_MS / 3);
    timer.unref();
    return { keep, isLost: () => lost, done: () => clearInterval(timer) };
  }

  /** The change reads, each after the lease is kept; a lost lease ends the poll (as a read that failed). */
  function keptReads(lease: { keep(): Promise<boolean> }): ChangeReads {
    const reads: Record<string, unknown> = {};
    for (const [name, read] of Object.entries(deps.reads as unknown as Record<string, unknown>)) {
      reads[name] =
        typeof read === 'function'
          ? async (...args: unknown[]) => {
              if (!(await lease.keep())) throw new LeaseLostError();
              return (read as (...a: unknown[]) => unknown).apply(deps.reads, args);
            }
          : read;
    }
    return reads as unknown as ChangeReads;
  }

  /** One change taken for this round: polled (unless it has ended), saved, told; all under its lease, kept meanwhile. */
  async function advance(change: FollowedChange): Promise<void> {
    const clog = log.child({ record: change.recordId, action: change.action, target: change.target });
    const lease = leaseOn(change, clog);
    try {
      await advanceUnder(change, lease, clog);
    } finally {
      lease.done();
    }
  }

  async function advanceUnder(change: FollowedChange, lease: ReturnType<typeof leaseOn>, clog: Logger): Promise<void> {
    let progress = progressOf(change);
    if (change.endedAtMs === null) {
      const polled = await poll(change, keptReads(lease), settings, now());
      // Taken over during the poll: the instance that holds it now saves and tells.
      if (lease.isLost()) return;
      progress = polled.progress;
      if (polled.unread !== undefined) clog.info('the cloud could not be read for a followed change; trying again later', { error: describe(polled.unread) });
      if (isCloudOutcome(progress.status)) {
        const record = await store.follows.end(change.recordId, owner, { ...progress, status: progress.status }, FOLLOW_LEASE_MS);
        if (!record) return; // Another instance took it over meanwhile: it tells.
        clog.info('followed change ended', { outcome: progress.status, transactions: progress.transactionIds, polls: progress.polls });
        deps.onEnded?.(record, progress.status);
      } else if (!(await store.follows.save(change.recordId, owner, progress, FOLLOW_LEASE_MS))) return;
    }
    const told = await tell({ ...change, ...progress }, lease, clog);
    if (lease.isLost()) return;
    const changed = (['told', 'repliedAtMs', 'tellAttempts', 'nextPollAtMs'] as const).some((k) => told[k] !== progress[k]);
    if (changed) await store.follows.save(change.recordId, owner, told, FOLLOW_LEASE_MS);
  }

  /**
   * Its message brought up to date, and once it has ended the reply in its thread; returns the progress with what was
   * told. The reply is marked in the store before it is posted (markReplied: this owner's, once), so that however slow
   * Slack is and whichever instance takes the change over meanwhile, it is never posted twice.
   */
  async function tell(change: FollowedChange, lease: ReturnType<typeof leaseOn>, clog: Logger): Promise<FollowProgress> {
    const progress = progressOf(change);
    const ended = change.endedAtMs !== null;
    const nowMs = now();
    if (change.channelId === null) {
      // Asked from nowhere a message could go (nothing in the product does this today): the record says it all.
      return ended ? { ...progress, repliedAtMs: nowMs } : progress;
    }
    let current = change;
    let failed = false;
    if (!(await lease.keep())) return progress;
    if (current.messageTs === null) {
      if (!ended) return progress; // The Slack side posts it once the submission is answered.
      if (nowMs - change.acceptedAtMs < MESSAGE_GRACE_MS) return { ...progress, nextPollAtMs: nowMs + settings.intervalMs };
      const ts = await reporter.post(current).catch(() => null);
      if (ts === null) failed = true;
      else {
        await store.follows.setMessage(change.recordId, change.channelId, ts);
        current = { ...current, messageTs: ts, told: shown(current) };
      }
    } else if (current.told !== shown(current)) {
      if (await reporter.show(current).catch(() => false)) current = { ...current, told: shown(current) };
      else failed = true;
    }
    if (!failed && ended && current.told === shown(current) && current.repliedAtMs === null) {
      // Marked first, by this owner only: another instance (or this one, late) that finds it marked does not post it.
      if (!(await lease.keep(true)) || !(await store.follows.markReplied(change.recordId, owner, nowMs))) {
        clog.info('the end of a followed change is told by another instance; not replying here');
        return progress;
      }
      // Posted: kept. Refused: the next save clears the mark (repliedAtMs null), and it is tried again.
      if (await reporter.reply(current).catch(() => false)) current = { ...current, repliedAtMs: nowMs };
      else failed = true;
    }
    const told = { ...progressOf(current), tellAttempts: current.tellAttempts + (failed ? 1 : 0) };
    if (!failed) return told;
    if (told.tellAttempts >= MAX_TELL_ATTEMPTS && ended) {
      clog.warn('could not tell the end of a followed change in Slack; giving up (its audit record has the outcome)', { attempts: told.tellAttempts });
      return { ...told, repliedAtMs: nowMs };
    }
    return { ...told, nextPollAtMs: Math.min(told.nextPollAtMs, nowMs + settings.intervalMs) };
  }

  /** Takes the due changes it may, and advances each, at most `concurrency` at a time. */
  async function oneRound(): Promise<void> {
    const startedMs = now();
    const due = await store.follows.claimDue(owner, startedMs, FOLLOW_LEASE_MS, concurrency * 4);
    let next = 0;
    const worker = async () => {
      while (next < due.length) {
        const change = due[next++]!;
        // Taken for FOLLOW_LEASE_MS: a round slowed by the cloud leaves the rest for the next one rather than outlive the lease.
        if (now() - startedMs > FOLLOW_LEASE_MS / 2) return;
        try {
          if (deps.tracing?.on) await deps.tracing.root('follow poll', { attributes: followAttributes(change) }, () => advance(change));
          else await advance(change);
        } catch (error) {
          log.warn('a followed change could not be advanced this round', { record: change.recordId, error: describe(error) });
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, due.length) }, worker));
  }

  return {
    round() {
      // One round at a time on an instance (a test's round and the timer's), else both would take the same changes.
      const run = running.then(oneRound);
      running = run.catch(() => undefined);
      return run;
    },
    setMessage: (recordId, channelId, messageTs) => store.follows.setMessage(recordId, channelId, messageTs),
    async release() {
      await running;
      await store.follows.release(owner);
    },
  };
}

/** A poll stopped because another instance took the change over: nothing of it is saved. */
class LeaseLostError extends CodedError {
  override readonly name = 'LeaseLostError';
  readonly code = 'CHANGE_FOLLOW_LEASE_LOST';
  constructor() {
    super('another instance took the followed change over');
  }
}

/** What a message shows of a change, as a key: its status, the step and the transactions (`scheduled` alone as first posted). */
export function shown(change: Pick<FollowProgress, 'status' | 'step' | 'transactionIds'>): string {
  return [change.status, change.step ?? '', change.transactionIds.join(',')].filter((part) => part !== '').join(' ');
}

/** A followed poll's span: which record, change and target, by id. */
function followAttributes(change: FollowedChange): Record<string, string | number> {
  return { 'vs.record_id': change.recordId, 'vs.action': change.action, 'vs.target': change.target };
}

/** An error as a log line may hold it: its name, code and message (a CloudError's never holds the API key or a raw log). */
function describe(error: unknown): { name: string; message: string; code?: string } {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return { name: error.name, message: error.message, ...(typeof code === 'string' ? { code } : {}) };
  }
  return { name: 'Error', message: String(error) };
}
