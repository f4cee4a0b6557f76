import type { CloudClient } from '../cloud/client.types';
import type { FollowSubject } from '../store';

// What a row of changes says about following the change once the cloud has
// accepted it (docs/cloud-api.md, Finding a change's transaction): where its
// transactions are listed, which of them are its own, and how its target is
// read again at the end. src/follow does the polling from these facts; it
// holds no list of changes of its own.

/** The reads a change makes for itself, on the connections kept for changes (cloud.changeReads). */
export type ChangeReads = CloudClient['changeReads'];

/** A plain value of a fact or a state: what a row keeps and a message shows, never a secret. */
export type Fact = string | number | boolean | null;

/** The target as read again once its transactions ended: whether it is settled (unlocked, built), and what it shows. */
export interface EndState {
  settled: boolean;
  state: Readonly<Record<string, Fact>>;
}

export interface ChangeFollow<P, V> {
  /** Whose transactions to look at before it is sent (the newest id is remembered): a server's, or null for the account's. */
  listedUnder(targetId: number): number | null;
  /** What its transactions are, from its parameters and the cloud's answer: their parent, their actions, the facts its message shows. */
  subject(targetId: number, params: P, value: V): FollowSubject;
  /** Reads its target again (once its transactions ended): settled or not, and what it shows. */
  readState(reads: ChangeReads, subject: FollowSubject): Promise<EndState>;
}

/**
 * A server as read again at the end of a change (docs/product.md, One outcome: what state it is in now), as facts its
 * message words: its power and its lock; `serverUnread` when the cloud would not answer (the change's own read goes on).
 */
export async function serverNow(reads: ChangeReads, vsId: number | null): Promise<Record<string, Fact>> {
  if (vsId === null) return {};
  try {
    const server = await reads.getServer(vsId);
    return { serverBooted: server.booted ?? null, serverRecovery: server.recovery_mode ?? null, serverLocked: server.locked ?? null };
  } catch {
    return { serverUnread: true };
  }
}

/** A fact as a number, or null. */
export const factNumber = (value: Fact | undefined): number | null => (typeof value === 'number' && Number.isSafeInteger(value) ? value : null);

/** A value kept as a fact: plain values as they are, anything else as nothing. */
export const asFact = (value: unknown): Fact =>
  value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : null;

/**
 * The newest transaction id seen where a change's transactions are listed, before it is sent: what "newer" means once
 * it was (docs/cloud-api.md, Finding a change's transaction). Null when it could not be read: the change is sent
 * all the same, and its transaction is then told by its parent and actions alone.
 */
export async function newestTransactionId(reads: ChangeReads, serverId: number | null): Promise<number | null> {
  try {
    const page = { perPage: 1 };
    const newest = serverId === null ? await reads.listAccountTransactions(page) : await reads.listTransactions(serverId, page);
    return newest.reduce((max, t) => Math.max(max, t.id), 0);
  } catch {
    return null;
  }
}
