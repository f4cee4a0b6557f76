import type { ChangeAnswers, ChangeOperation, PreparedRequest } from './prepared';
import type { AddDiskParams, AutoscalingSlot, Backup, Disk, FirewallRule } from './schemas';

/** The four operations of docs/cloud-api.md (Firewall rules, Autoscaling rules, Add a disk, Restore a backup). Every failure is a CloudError. */
export interface CloudClient {
  /** GET /virtual_machines/:id/firewall_rules (docs/cloud-api.md, Firewall rules). Frozen: overlapping callers share it. */
  listFirewallRules(vsId: number): Promise<ReadonlyArray<Readonly<FirewallRule>>>;
  /** GET /virtual_machines/:id/auto_scaling (docs/cloud-api.md, Autoscaling rules): six slots, placeholders kept. Frozen, shared likewise. */
  listAutoscaling(vsId: number): Promise<ReadonlyArray<Readonly<AutoscalingSlot>>>;
  /** The request POST /virtual_machines/:id/disks (docs/cloud-api.md, Add a disk) would be, in the configured format; sends nothing. */
  prepareAddDisk(vsId: number, params: AddDiskParams): PreparedRequest<'add_disk'>;
  /** The request POST /backups/:id/restore (docs/cloud-api.md, Restore a backup) would be; sends nothing. */
  prepareRestoreBackup(backupId: number): PreparedRequest<'restore_backup'>;
  /** Sends a prepared change exactly as prepared (method, path, body). Never retried. */
  send<O extends ChangeOperation>(request: PreparedRequest<O>): Promise<ChangeAnswers[O]>;
  /** POST /virtual_machines/:id/disks (docs/cloud-api.md, Add a disk): prepared and sent. Never retried. */
  addDisk(vsId: number, params: AddDiskParams): Promise<Disk>;
  /** POST /backups/:id/restore (docs/cloud-api.md, Restore a backup): prepared and sent. Never retried. */
  restoreBackup(backupId: number): Promise<Backup>;
  /** Closes the connection pool. */
  close(): Promise<void>;
}
