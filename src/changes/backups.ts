import type { z } from 'zod';
import type { CloudClient } from '../cloud/client.types';
import type { Frozen } from '../cloud/reads';
import { Backup } from '../cloud/schemas';

// What a restore needs to know of a backup (docs/cloud-api.md, Backups;
// docs/product.md, Restore with eyes open): whether it can be used and why
// not, what it overwrites, when it was taken, and which backups are newest.
// Data only: src/slack/blocks words it.

/** Why a backup cannot be restored now. */
export type UnusableBackup = 'marked_for_delete' | 'not_built' | 'locked';

export type Usability = { usable: true } | { usable: false; why: UnusableBackup };

type BackupRecord = Frozen<Backup> | Backup;

/**
 * Usable when built, not locked and not marked for deletion. Of several reasons, the one that lasts is named first: a
 * backup marked for deletion will never be usable, one not built yet may be, a locked one will be once its transaction ends.
 */
export function usabilityOf(backup: Pick<BackupRecord, 'built' | 'locked' | 'marked_for_delete'>): Usability {
  if (backup.marked_for_delete === true) return { usable: false, why: 'marked_for_delete' };
  if (backup.built !== true) return { usable: false, why: 'not_built' };
  if (backup.locked === true) return { usable: false, why: 'locked' };
  return { usable: true };
}

/**
 * What restoring a backup overwrites, as far as its record says: its disk, and its server (an incremental backup
 * names it; a normal one names only its disk).
 */
export interface RestoreTarget {
  diskId: number | null;
  vsId: number | null;
}

export function restoreTargetOf(backup: Pick<BackupRecord, 'disk_id' | 'target_id' | 'target_type'>): RestoreTarget {
  const diskId = backup.disk_id ?? (backup.target_type === 'Disk' ? (backup.target_id ?? null) : null);
  const vsId = backup.target_type === 'VirtualMachine' ? (backup.target_id ?? null) : null;
  return { diskId, vsId };
}

/** When it was taken, epoch milliseconds: built_at, or created_at for one not built; null when neither reads as a time. */
export function takenAt(backup: Pick<BackupRecord, 'built_at' | 'created_at'>): number | null {
  for (const at of [backup.built_at, backup.created_at]) {
    const ms = at == null ? NaN : Date.parse(at);
    if (Number.isFinite(ms)) return ms;
  }
  return null;
}

/** Newest first (docs/cloud-api.md, Backups: the cloud's order is not documented); a backup with no time last, then by id, highest first. */
export function newestFirst<B extends Pick<BackupRecord, 'id' | 'built_at' | 'created_at'>>(backups: readonly B[]): B[] {
  const at = new Map(backups.map((b) => [b, takenAt(b) ?? -Infinity]));
  return [...backups].sort((a, b) => at.get(b)! - at.get(a)! || b.id - a.id);
}

/** The backups a restore may be made from, newest first. */
export function usableBackups<B extends BackupRecord>(backups: readonly B[]): B[] {
  return newestFirst(backups).filter((b) => usabilityOf(b).usable);
}

/** A backup as a restore sees it before it is sent: its record (read from an allow-list), and whether it can be used. */
export interface BackupState {
  backup: Frozen<Backup>;
  usability: Usability;
}

/** Whether a backup may be restored as it stands: fit, or unfit with why. */
export type RestoreInspection = { outcome: 'fit'; state: BackupState } | { outcome: 'unfit'; state: BackupState };

/** The read a restore makes before its form opens and before it is sent or asked for (docs/cloud-api.md, One backup). */
export type RestoreReads = Pick<CloudClient, 'getBackup'>;

/** Reads the backup (a 404 is thrown: "Backup 999 was not found") and tells whether it may be restored now. */
export async function inspectRestore(cloud: RestoreReads, backupId: number): Promise<RestoreInspection> {
  const backup = await cloud.getBackup(backupId);
  const state = { backup, usability: usabilityOf(backup) };
  return state.usability.usable ? { outcome: 'fit', state } : { outcome: 'unfit', state };
}

/**
 * What a restore keeps of its backup as read before it was asked for or sent (definitions.ts, `noted`), under
 * `restores` in its approval request's and records' parameters: the fields that say what it overwrites, when the backup
 * was taken, its size and type. Read back by the same schema, so an approval request shows them as they were.
 */
export const RestoreFacts = Backup.pick({
  id: true,
  disk_id: true,
  target_id: true,
  target_type: true,
  built_at: true,
  created_at: true,
  backup_size: true,
  backup_type: true,
});
export type RestoreFacts = z.infer<typeof RestoreFacts>;

export function restoreFactsOf(backup: BackupRecord): RestoreFacts {
  const { id, disk_id, target_id, target_type, built_at, created_at, backup_size, backup_type } = backup;
  return { id, disk_id, target_id, target_type, built_at, created_at, backup_size, backup_type };
}

/** The restore's facts kept in a request's or record's parameters; null when there are none (another change, or one asked before they were kept). */
export function restoreFactsIn(params: Record<string, unknown>): RestoreFacts | null {
  const read = RestoreFacts.safeParse(params.restores);
  return read.success ? read.data : null;
}
