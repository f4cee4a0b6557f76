import { identifier, isoTimestamp, type Random } from './random';
import type { SandboxTransaction, TransactionEffect, TransactionLocks, TransactionStatus } from './types';

// How the cloud runs a change (docs/cloud-api.md, Transactions): the change's
// POST is answered at once, and its transactions then go pending → running →
// complete (or failed) on the sandbox's clock, holding their objects locked
// while they run. Nothing runs on a timer: every request first brings the
// transactions up to the clock's time, so a test that moves its clock sees the
// next step on its next request, without sleeping.

const FINAL: ReadonlySet<TransactionStatus> = new Set(['complete', 'failed', 'cancelled']);

const isFinal = (t: SandboxTransaction): boolean => FINAL.has(t.status);

/** What a raw log of a failed transaction looks like: internals nobody outside the cloud should read. */
export function failureLog(action: string, id: number, serverId: number): string {
  return [
    `Fatal: OnApp::Actions::Fail (${action} #${id}): ssh root@10.0.3.14 exited with status 255`,
    `Executing: /usr/bin/ssh -i /onapp/interface/config/keys/private -o StrictHostKeyChecking=no root@10.0.3.14 \\`,
    `  'lvcreate -L 20480M -n vm${serverId}_disk onapp-vg'`,
    `  /onapp/interface/lib/transactions/${action}.rb:87:in 'execute'`,
    `  /onapp/interface/lib/transactions/base.rb:35:in 'run!'`,
    `  /onapp/interface/app/models/transaction.rb:131:in 'run'`,
    `  /usr/lib/ruby/gems/2.7.0/gems/activerecord-6.1.7/lib/active_record/relation.rb:13:in 'each'`,
    `  DATABASE_URL=mysql2://onapp:s3cr3t-db-pw@10.0.3.2/onapp`,
  ].join('\n');
}

export interface NewTransaction {
  action: string;
  parent: { type: SandboxTransaction['parent_type']; id: number };
  /** The server it concerns (associated_object_id). */
  serverId: number;
  locks: TransactionLocks;
  effect: TransactionEffect;
  params?: SandboxTransaction['params'];
  fails: boolean;
  /** Starts when this one ends; cancelled if it fails. */
  after?: SandboxTransaction;
  /** How long it stays pending and running, when not the sandbox's timing (the control panel's acts). */
  pendingMs?: number;
  runMs?: number;
}

export class Transactions {
  private nextId: number;

  /** `list`: the seed's transactions (a copy: they change as they run), oldest first. */
  constructor(
    private readonly list: SandboxTransaction[],
    private readonly random: Random,
    private readonly timing: { pending: number; running: number },
  ) {
    this.nextId = Math.max(0, ...list.map((t) => t.id)) + 1;
  }

  /** Schedules a transaction from `nowMs`: pending for the pending time (or until the one it waits for ends), then running. */
  start(t: NewTransaction, nowMs: number): SandboxTransaction {
    const startsAt = t.after ? t.after.endsAt : nowMs + (t.pendingMs ?? this.timing.pending);
    const id = this.nextId++;
    const transaction: SandboxTransaction = {
      id,
      identifier: identifier(this.random),
      action: t.action,
      status: 'pending',
      parent_type: t.parent.type,
      parent_id: t.parent.id,
      associated_object_type: 'VirtualMachine',
      associated_object_id: t.serverId,
      dependent_transaction_id: t.after?.id ?? null,
      allowed_cancel: true,
      params: t.params ?? {},
      log_output: '',
      created_at: isoTimestamp(new Date(nowMs)),
      started_at: null,
      updated_at: isoTimestamp(new Date(nowMs)),
      startsAt,
      endsAt: startsAt + (t.runMs ?? this.timing.running),
      outcome: t.fails ? 'failed' : 'complete',
      locks: t.locks,
      effect: t.effect,
    };
    this.list.push(transaction);
    return transaction;
  }

  /** Brings every transaction up to `nowMs`, oldest first; returns the effects of those that completed just now. */
  advance(nowMs: number): TransactionEffect[] {
    const effects: TransactionEffect[] = [];
    for (const t of this.list) {
      if (isFinal(t)) continue;
      const waitedFor = t.dependent_transaction_id === null ? undefined : this.byId(t.dependent_transaction_id);
      if (waitedFor && (waitedFor.status === 'failed' || waitedFor.status === 'cancelled')) {
        this.settle(t, 'cancelled', waitedFor.endsAt);
        continue;
      }
      if (t.status === 'pending' && nowMs >= t.startsAt) {
        t.status = 'running';
        t.started_at = isoTimestamp(new Date(t.startsAt));
        t.updated_at = t.started_at;
      }
      if (t.status === 'running' && nowMs >= t.endsAt) {
        this.settle(t, t.outcome, t.endsAt);
        if (t.outcome === 'complete') effects.push(t.effect);
      }
    }
    return effects;
  }

  /** Cancels a transaction that has not ended (the panel's Cancel button): false when there is none. */
  cancel(id: number, nowMs: number): boolean {
    const t = this.byId(id);
    if (!t || isFinal(t)) return false;
    this.settle(t, 'cancelled', nowMs);
    return true;
  }

  private settle(t: SandboxTransaction, status: TransactionStatus, atMs: number): void {
    t.status = status;
    // It ended now (a cancel ends it early): what waits for it is settled from here, not from its planned end.
    t.endsAt = atMs;
    t.updated_at = isoTimestamp(new Date(atMs));
    if (status === 'failed') t.log_output = failureLog(t.action, t.id, t.associated_object_id);
  }

  byId(id: number): SandboxTransaction | undefined {
    return this.list.find((t) => t.id === id);
  }

  /** The transaction still running (or waiting to) that holds this object, if any. */
  holding(kind: keyof TransactionLocks, id: number): SandboxTransaction | undefined {
    return this.list.find((t) => !isFinal(t) && t.locks[kind].includes(id));
  }

  /** A server's transactions, newest first. */
  ofServer(serverId: number): SandboxTransaction[] {
    return this.list.filter((t) => t.associated_object_id === serverId).reverse();
  }

  /** Every transaction of the account, newest first. */
  all(): SandboxTransaction[] {
    return [...this.list].reverse();
  }
}
