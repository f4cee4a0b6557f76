// The one door for changes: who may (policy), what each change is
// (definitions), what is valid (forms), and the execution that claims,
// locks, calls and records (changes).
export { createChanges, type Changes, type ChangesDeps, type AuthorizeOptions, type ChangeContext, type ChangeResult, type SubmissionContext } from './changes';
export { mapApiErrors } from './api-errors';
export { BACKUP_RESTORE, CHANGE_DEFINITIONS, DISK_ADD, TARGET_ID_ERROR, targetKey, type ChangeDefinition, type Target, type TargetKind } from './definitions';
export {
  createPolicy,
  atLeast,
  NEEDED,
  type Action,
  type ChannelDirectory,
  type Decision,
  type Denial,
  type WhereFrom,
  type GroupDirectory,
  type Policy,
  type PolicyDeps,
  type Role,
} from './policy';
export { DiskAddForm, DISK_FORM_FIELDS, validateDiskForm, type DiskFormField, type FormValidation, type FormValues } from './disk-form';
export { BackupRestoreForm, validateRestoreForm, MAX_REASON_LENGTH, type RestoreFormValues, type RestoreParams } from './restore-form';
