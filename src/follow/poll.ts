import { CHANGES, isChangeAction, type ChangeReads, type EndState } from '../changes';
import { isFinalStatus, type Transaction } from '../cloud/schemas';
import { isCloudOutcome, type CloudOutcome, type FollowedChange, type FollowProgress, type FollowStatus, type FollowSubject } from '../store';

// One poll of a followed change: what the cloud says now, as its next
// progress (docs/cloud-api.md, Finding a change's transaction):
//   1. until its transaction is found: the newest transaction newer than the
//      one remembered before the change was sent, whose parent and action
//      belong to the change (its row of changes says which);
//   2. then that transaction, until its status is final; once complete, the
//      target read again: settled (unlocked, built) is done; not yet, and a
//      transaction of the same parent that follows it (a format after a build)
//      is followed next; once failed or cancelled, the target read again too,
//      so that its message says what state the server is in now and what the
//      change left behind (docs/product.md, One outcome: why, what now, what
//      was left);
//   3. on a cloud that names them otherwise, after FALLBACK_AFTER_MS without a
//      match: the server's own transactions newer than the remembered one, and
//      its `locked` flag going back to false;
//   4. past VS_FOLLOW_MAX_MIN: no longer followed, its outcome `unknown` (the
//      target read again all the same).
// Nothing is kept of a transaction but its id, status and action: never its
// log_output (the client's schema does not even read it) nor its params.

export interface PollSettings {
  /** VS_FOLLOW_INTERVAL_S: the spacing of polls while things move. */
  intervalMs: number;
  /** The spacing they back off to while nothing moves. */
  backoffMaxMs: number;
  /** VS_FOLLOW_MAX_MIN: from acceptance to giving up. */
  maxMs: number;
}

/** How long a change may go without a transaction of its own before its server's transactions tell instead. */
export const FALLBACK_AFTER_MS = 60_000;
/** Transactions read per page of a list, and pages at most: a change's own is among the newest, unless many changes share a server. */
const PER_PAGE = 20;
const MAX_PAGES = 5;
/** Each poll with nothing new spaces the next one out by this much, up to backoffMaxMs. */
const BACKOFF_FACTOR = 1.5;
/** Without a remembered id, a transaction older than this before acceptance is not taken for the change's. */
const UNREMEMBERED_SLACK_MS = 5 * 60_000;

/** What a poll found: the change's next progress, and what the cloud would not answer (logged by the caller; never its raw log). */
export interface Polled {
  progress: FollowProgress;
  /** Set when the cloud could not be read this time: the poll is tried again later. */
  unread?: unknown;
}

export function progressOf(change: FollowedChange): FollowProgress {
  const { status, transactionIds, step, finalState, polls, intervalMs, nextPollAtMs, endedAtMs, told, repliedAtMs, tellAttempts } = change;
  return { status, transactionIds, step, finalState, polls, intervalMs, nextPollAtMs, endedAtMs, told, repliedAtMs, tellAttempts };
}

/** Where a poll got to before the spacing of the next one is worked out. */
interface Found {
  status: FollowStatus;
  transactionIds: readonly number[];
  step: string | null;
  finalState?: FollowProgress['finalState'];
}

export async function poll(change: FollowedChange, reads: ChangeReads, settings: PollSettings, nowMs: number): Promise<Polled> {
  const before = progressOf(change);
  const next = (found: Found, unread?: unknown): Polled => {
    const ended = isCloudOutcome(found.status);
    const moved = found.status !== before.status || found.transactionIds.length !== before.transactionIds.length || found.step !== before.step;
    const intervalMs = moved ? settings.intervalMs : Math.min(settings.backoffMaxMs, Math.round(before.intervalMs * BACKOFF_FACTOR));
    return {
      progress: {
        ...before,
        ...found,
        finalState: found.finalState ?? before.finalState,
        polls: before.polls + 1,
        intervalMs,
        // An ended change is told at once (its message, then its thread).
        nextPollAtMs: ended ? nowMs : nowMs + intervalMs,
        endedAtMs: ended ? nowMs : null,
      },
      ...(unread === undefined ? {} : { unread }),
    };
  };
  if (!isChangeAction(change.action)) return next({ status: 'unknown', transactionIds: before.transactionIds, step: before.step });
  const readState = (subject: FollowSubject) => CHANGES[change.action as keyof typeof CHANGES].follow.readState(reads, subject);
  if (nowMs - change.acceptedAtMs >= settings.maxMs) {
    const read = await readState(change.subject).catch(() => null);
    return next({ status: 'unknown', transactionIds: before.transactionIds, step: before.step, finalState: read?.state ?? {} });
  }
  try {
    return next(await look(change, reads, readState, nowMs));
  } catch (error) {
    return next({ status: before.status, transactionIds: before.transactionIds, step: before.step }, error);
  }
}

type ReadState = (subject: FollowSubject) => Promise<EndState>;

async function look(change: FollowedChange, reads: ChangeReads, readState: ReadState, nowMs: number): Promise<Found> {
  const { subject } = change;
  const current = change.transactionIds.at(-1);
  if (current === undefined) return find(change, reads, readState, nowMs);
  const transaction = await reads.getTransaction(current);
  return fromTransaction(change, transaction, change.transactionIds, reads, readState, subject);
}

/** Its transaction not found yet: the newest of its own newer than the remembered id, or (late) the fallback. */
async function find(change: FollowedChange, reads: ChangeReads, readState: ReadState, nowMs: number): Promise<Found> {
  const { subject } = change;
  const listed = await listNewer(reads, subject.serverId, change.baselineId);
  const newer = listed.filter((t) => isNewer(t, change.baselineId, change.acceptedAtMs));
  // The one that makes it (the first action its row names: a build, not the format that waits for it), newest first.
  const rank = (t: Transaction) => subject.actions.indexOf(t.action);
  const own = newer.filter((t) => belongs(t, subject)).sort((a, b) => rank(a) - rank(b) || b.id - a.id)[0];
  if (own) return fromTransaction(change, own, [own.id], reads, readState, subject);
  if (subject.serverId !== null && nowMs - change.acceptedAtMs >= FALLBACK_AFTER_MS) return fallback(change, newer, reads, readState, subject.serverId);
  return { status: 'scheduled', transactionIds: [], step: null };
}

/** Where a transaction of the change leaves it: still going, failed or cancelled, or complete (and then the target read again). */
async function fromTransaction(
  change: FollowedChange,
  transaction: Transaction,
  ids: readonly number[],
  reads: ChangeReads,
  readState: ReadState,
  subject: FollowSubject,
): Promise<Found> {
  const step = transaction.action;
  if (transaction.status === 'failed' || transaction.status === 'cancelled')
    return { status: transaction.status, transactionIds: ids, step, finalState: await stateAfterFailure(readState, subject) };
  if (transaction.status !== 'complete') return { status: transaction.status === 'pending' ? 'pending' : 'running', transactionIds: ids, step };
  const read = await readState(subject);
  if (read.settled) return { status: 'complete', transactionIds: ids, step, finalState: read.state };
  // Complete, but the target is still locked: what comes after it on the same parent (a format after a build).
  const after = (await listNewer(reads, subject.serverId, transaction.id))
    .filter((t) => t.id > transaction.id && belongs(t, subject))
    .sort((a, b) => a.id - b.id);
  const failed = after.find((t) => t.status === 'failed' || t.status === 'cancelled');
  const allIds = [...ids, ...after.map((t) => t.id).filter((id) => !ids.includes(id))];
  if (failed)
    return { status: failed.status as CloudOutcome, transactionIds: allIds, step: failed.action, finalState: await stateAfterFailure(readState, subject) };
  const going = after.find((t) => !isFinalStatus(t.status));
  if (going)
    return {
      status: going.status === 'pending' ? 'pending' : 'running',
      transactionIds: [...ids, ...after.filter((t) => t.id <= going.id).map((t) => t.id)],
      step: going.action,
      finalState: read.state,
    };
  // Nothing more to follow, yet not settled: read again next time (what locks it may not be listed as ours).
  return { status: 'running', transactionIds: allIds, step, finalState: read.state };
}

/**
 * The target read again once the change failed or was cancelled: what it shows now (the server's power and lock, what
 * the change left); an empty state, never a failure of the poll, when it cannot be read (the message then says so).
 */
async function stateAfterFailure(readState: ReadState, subject: FollowSubject): Promise<FollowProgress['finalState']> {
  try {
    return (await readState(subject)).state;
  } catch {
    return {};
  }
}

/**
 * A cloud that names its transactions otherwise (docs/cloud-api.md, Finding a change's transaction): the server's
 * transactions newer than the remembered id, and its `locked` flag back to false.
 */
async function fallback(change: FollowedChange, newer: readonly Transaction[], reads: ChangeReads, readState: ReadState, serverId: number): Promise<Found> {
  // Listed under this server, yet run for another one: not its own.
  const own = newer.filter((t) => t.associated_object_id == null || t.associated_object_id === serverId);
  const ids = own.map((t) => t.id).sort((a, b) => a - b);
  const ended = own.find((t) => t.status === 'failed' || t.status === 'cancelled');
  if (ended)
    return { status: ended.status as CloudOutcome, transactionIds: ids, step: ended.action, finalState: await stateAfterFailure(readState, change.subject) };
  const server = await reads.getServerStatus(serverId);
  const going = own.filter((t) => !isFinalStatus(t.status)).sort((a, b) => a.id - b.id)[0];
  if (server.locked === true || going) return { status: 'running', transactionIds: [], step: going?.action ?? null };
  const read = await readState(change.subject);
  // The step it ended on: the newest of them, whatever order the cloud lists them in.
  const last = own.reduce<Transaction | null>((newest, t) => (newest === null || t.id > newest.id ? t : newest), null);
  return { status: 'complete', transactionIds: ids, step: last?.action ?? null, finalState: read.state };
}

/**
 * The transactions newer than `afterId` where the change's are listed (newest first): page after page until one holds
 * an older transaction or is empty, at most MAX_PAGES (the first page alone without `afterId`). Not until a page is
 * short: an older cloud ignores `per_page` and sends 10. Identical pages asked for by several changes of one server at
 * once are one request (the client's single flight).
 */
async function listNewer(reads: ChangeReads, serverId: number | null, afterId: number | null): Promise<Transaction[]> {
  const listed: Transaction[] = [];
  for (let page = 1; page <= MAX_PAGES; page++) {
    const at = { page, perPage: PER_PAGE };
    const list = serverId === null ? await reads.listAccountTransactions(at) : await reads.listTransactions(serverId, at);
    listed.push(...list);
    if (afterId === null || list.length === 0 || list.some((t) => t.id <= afterId)) break;
  }
  return listed;
}

/** Newer than the id remembered before the change was sent; without one, not from well before it was accepted. */
function isNewer(t: Transaction, baselineId: number | null, acceptedAtMs: number): boolean {
  if (baselineId !== null) return t.id > baselineId;
  const created = t.created_at ? Date.parse(t.created_at) : Number.NaN;
  return !Number.isFinite(created) || created >= acceptedAtMs - UNREMEMBERED_SLACK_MS;
}

/** Whether a transaction is one of the change's: its parent, and an action its row names. */
export function belongs(t: Pick<Transaction, 'parent_type' | 'parent_id' | 'action'>, subject: FollowSubject): boolean {
  return t.parent_type === subject.parentType && t.parent_id === subject.parentId && subject.actions.includes(t.action);
}
