import { z } from 'zod';
import { firstMessages, type FormValidation } from './disk-form';
import { typedAgain } from './typed-again';

// The restore modal: restoring overwrites a disk, so the user types the
// backup id again, and says why (docs/product.md, Modals): the reason goes
// into the audit record and the approval request.

export const MAX_REASON_LENGTH = 500;
const REASON_NEEDED = 'Say why the disk is restored: the reason is kept in the audit trail and shown to whoever approves';

export interface RestoreFormValues {
  confirm?: string;
  reason?: string;
}

/**
 * What the audit keeps of a restore; the API call itself takes only the backup id. The form asks for a reason;
 * requests stored before it did may have none.
 */
export interface RestoreParams {
  backup_id: number;
  reason?: string;
}

/** The restore form for one backup: `confirm` must be that backup's id. */
export const BackupRestoreForm = (backupId: number) => {
  const mismatch = `Type the backup id (${backupId}) to confirm that its disk will be overwritten`;
  return z
    .object({
      confirm: typedAgain(backupId, mismatch),
      reason: z
        .string({ error: REASON_NEEDED })
        .optional()
        .transform((s) => (s === undefined ? '' : s.trim()))
        .pipe(z.string().min(1, REASON_NEEDED).max(MAX_REASON_LENGTH, `At most ${MAX_REASON_LENGTH} characters`)),
    })
    .transform(({ reason }): RestoreParams => ({ backup_id: backupId, reason }));
};

export function validateRestoreForm(backupId: number, values: RestoreFormValues): FormValidation<RestoreParams> {
  const parsed = BackupRestoreForm(backupId).safeParse(values);
  if (parsed.success) return { ok: true, params: parsed.data };
  return { ok: false, fieldErrors: firstMessages(parsed.error) };
}
