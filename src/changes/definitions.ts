import type { CloudClient } from '../cloud/client.types';
import type { AddDiskParams, Backup, Disk } from '../cloud/schemas';
import type { ChangeAction } from '../store';
import { DISK_FORM_FIELDS, validateDiskForm, type FormValidation, type FormValues } from './disk-form';
import { validateRestoreForm, type RestoreParams } from './restore-form';

// What each change is, as data the door runs: what it changes, how its form
// is validated, which API call makes it and how the audit describes it. To add
// a change: add a definition here and a row to the Slack table of change
// forms (src/slack/change-forms.ts).

export type TargetKind = 'vs' | 'backup';

/** What a change is about: a server or a backup, by id. */
export interface Target {
  kind: TargetKind;
  id: number;
}

export type ChangeCloud = Pick<CloudClient, 'addDisk' | 'restoreBackup'>;

export interface ChangeDefinition<P = unknown, T = unknown> {
  action: ChangeAction;
  targetKind: TargetKind;
  /** The form input that carries the target id when the form is opened from a shortcut. */
  targetField: 'vs_id' | 'backup_id';
  /** Form fields kept (bounded) in records of attempts that did not run, and that an API field message may land on. */
  fields: readonly string[];
  /** Form fields an API field message may land on. */
  apiFields: readonly string[];
  validate(targetId: number, values: FormValues): FormValidation<P>;
  /** What the audit keeps of valid parameters. */
  audited(params: P): Record<string, unknown>;
  call(cloud: ChangeCloud, targetId: number, params: P): Promise<T>;
  /** The status the client saw on success (it returns the body only). */
  successStatus: number;
  /** The audit's words for what was done. */
  describe(targetId: number, value: T): string;
}

/** The audit's name of a target: `vs:42`, `backup:9`. */
export const targetKey = (target: Target): string => `${target.kind}:${target.id}`;

/** The words for a target in audit details: "VS 42", "backup 9". */
export const targetName = (target: Target): string => (target.kind === 'vs' ? `VS ${target.id}` : `backup ${target.id}`);

export const DISK_ADD: ChangeDefinition<AddDiskParams, Disk> = {
  action: 'disk_add',
  targetKind: 'vs',
  targetField: 'vs_id',
  fields: DISK_FORM_FIELDS,
  apiFields: DISK_FORM_FIELDS,
  validate: (_vsId, values) => validateDiskForm(values),
  audited: (params) => ({ ...params }),
  call: (cloud, vsId, params) => cloud.addDisk(vsId, params),
  successStatus: 201,
  describe: (vsId, disk) => `disk ${disk.id} (${disk.disk_size} GB) scheduled on VS ${vsId}`,
};

export const BACKUP_RESTORE: ChangeDefinition<RestoreParams, Backup> = {
  action: 'backup_restore',
  targetKind: 'backup',
  targetField: 'backup_id',
  fields: ['confirm', 'reason'],
  apiFields: [],
  validate: (backupId, values) => validateRestoreForm(backupId, { confirm: text(values.confirm), reason: text(values.reason) }),
  audited: (params) => ({ ...params }),
  call: (cloud, backupId) => cloud.restoreBackup(backupId),
  successStatus: 200,
  describe: (_backupId, backup) =>
    `backup ${backup.id} restored${backup.target_id != null ? ` onto ${backup.target_type === 'VirtualMachine' ? 'VS' : (backup.target_type ?? 'target')} ${backup.target_id}` : ''}${backup.disk_id != null ? `, disk ${backup.disk_id}` : ''}`,
};

export const CHANGE_DEFINITIONS: { readonly [A in ChangeAction]: ChangeDefinition<never, unknown> } = {
  disk_add: DISK_ADD as ChangeDefinition<never, unknown>,
  backup_restore: BACKUP_RESTORE as ChangeDefinition<never, unknown>,
};

function text(value: string | boolean | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** The form error for a missing or malformed target id (a shortcut's form asks for it). */
export const TARGET_ID_ERROR: Record<TargetKind, string> = {
  vs: 'Enter the server id: a positive whole number, e.g. 42',
  backup: 'Enter the backup id: a positive whole number, e.g. 9',
};

export const isTargetId = (n: number): boolean => Number.isSafeInteger(n) && n > 0;
