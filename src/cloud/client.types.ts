import type { ChangeAnswers, ChangeOperation, PreparedRequest } from './prepared';
import type { ReadMethods } from './reads';
import type { AddDiskParams, Backup, Disk } from './schemas';

/**
 * The cloud API (docs/cloud-api.md): a method per read of reads.ts
 * (`listFirewallRules(vsId)`, `getServer(vsId)`, `listTransactions(vsId, { page })`…,
 * single-flight and frozen: overlapping callers share them), and the changes.
 * Every failure is a CloudError.
 */
export interface CloudClient extends ReadMethods {
  /** The request POST /virtual_machines/:id/disks would be, in the configured format; sends nothing. */
  prepareAddDisk(vsId: number, params: AddDiskParams): PreparedRequest<'add_disk'>;
  /** The request POST /backups/:id/restore would be; sends nothing. */
  prepareRestoreBackup(backupId: number): PreparedRequest<'restore_backup'>;
  /** Sends a prepared change exactly as prepared (method, path, body). Never retried. */
  send<O extends ChangeOperation>(request: PreparedRequest<O>): Promise<ChangeAnswers[O]>;
  /** POST /virtual_machines/:id/disks: prepared and sent. Never retried. */
  addDisk(vsId: number, params: AddDiskParams): Promise<Disk>;
  /** POST /backups/:id/restore: prepared and sent. Never retried. */
  restoreBackup(backupId: number): Promise<Backup>;
  /**
   * The same reads on the connections kept for changes (VS_API_CHANGE_CONNECTIONS), never on those of reads: what a
   * change reads of the cloud for itself (the newest transaction before it is sent, its transactions while it is
   * followed), so that following many changes never makes a person's read wait. Single-flight among themselves.
   */
  readonly changeReads: ReadMethods;
  /** Closes the connection pool. */
  close(): Promise<void>;
}
