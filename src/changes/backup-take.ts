import { z } from 'zod';
import type { CloudClient } from '../cloud/client.types';
import type { Disk } from '../cloud/schemas';
import type { FormValidation, FormValues } from './disk-form';
import { MAX_REASON_LENGTH } from './restore-form';

// Taking a backup of one disk now (docs/product.md, More of the control
// panel): the form picks one of the server's built disks (`disk_id`), an
// optional note (`note`) and a reason (`reason`). Data only: the words are
// src/slack/blocks'.

export const MAX_NOTE_LENGTH = 200;
const REASON_NEEDED = 'Say why: the reason is kept in the audit trail and shown to whoever approves';

export interface BackupTakeParams {
  disk_id: number;
  note: string;
  reason: string;
}

/** What the audit keeps of a backup taken, read back for a change approved later. */
export const StoredBackupTake = z.object({
  disk_id: z.number().int().positive(),
  note: z.string().max(MAX_NOTE_LENGTH),
  reason: z.string().max(MAX_REASON_LENGTH),
});

/** The disks a backup may be taken of: built ones, as the server lists them. */
export const backupableDisks = (disks: readonly Disk[]): Disk[] => disks.filter((d) => d.built === true);

export type DiskReads = Pick<CloudClient, 'listDisks'>;

const text = (value: string | boolean | undefined): string => (typeof value === 'string' ? value.trim() : '');

export function validateBackupTakeForm(values: FormValues): FormValidation<BackupTakeParams> {
  const errors: Record<string, string> = {};
  const raw = text(values.disk_id).replace(/^#/, '');
  const diskId = /^[0-9]{1,15}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(diskId) || diskId <= 0) errors.disk_id = 'Pick the disk to back up';
  const note = text(values.note);
  if (note.length > MAX_NOTE_LENGTH) errors.note = `At most ${MAX_NOTE_LENGTH} characters`;
  const reason = text(values.reason);
  if (reason === '') errors.reason = REASON_NEEDED;
  else if (reason.length > MAX_REASON_LENGTH) errors.reason = `At most ${MAX_REASON_LENGTH} characters`;
  if (Object.keys(errors).length > 0) return { ok: false, fieldErrors: errors };
  return { ok: true, params: { disk_id: diskId, note, reason } };
}
