// The one door for changes: who may (policy), what is valid (forms), and the
// execution that claims, locks, calls and records (changes).
export { createChanges, mapApiErrors, DEFAULT_LOCK_TTL_MS, type Changes, type ChangesDeps, type ChangeContext, type ChangeResult, type SubmissionContext } from './changes';
export { createPolicy, atLeast, ACTION_WORDS, NEEDED, channelMention, type Action, type Decision, type GroupDirectory, type Policy, type PolicyDeps, type Role } from './policy';
export { DiskAddForm, DISK_FORM_FIELDS, validateDiskForm, type DiskFormField, type FormValidation, type FormValues } from './disk-form';
export { BackupRestoreForm, validateRestoreForm, MAX_REASON_LENGTH, type RestoreFormValues, type RestoreParams } from './restore-form';
