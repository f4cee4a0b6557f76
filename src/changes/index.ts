// The one door for changes: who may (policy), what each change is (the table
// of definitions), what is valid (forms), the execution that claims, locks,
// calls and records (door, changes), the second person (approvals), the
// switch that stops every change (freeze) and the window without a second
// person (break glass); and the one vocabulary of their outcomes (outcome).
export {
  createChanges,
  type AgentAskContext,
  type AgentAskResult,
  type AgentChangeStatus,
  type Changes,
  type ChangesDeps,
  type AuthorizeOptions,
  type ChangeContext,
  type ChangeResult,
  type SubmissionContext,
  type UnderBreakGlass,
  type WorkflowRequestResult,
  type WorkflowStepContext,
} from './changes';
export {
  deciders,
  DEFAULT_APPROVAL_TTL_MS,
  MAX_MENTIONED_DECIDERS,
  MAX_SHOWN_REQUEST,
  type ApprovalResult,
  type ApprovedRun,
  type ClaimResult,
  type Deciders,
  type DecisionCheck,
  type ExpiredApproval,
  type NotSent,
  type Verdict,
  type WaitingApprovals,
  type WithdrawResult,
} from './approvals';
export { FREEZE_TARGET, type FreezeResult, type UnfreezeResult } from './freeze';
export {
  BREAK_GLASS_REASON_MAX_LENGTH,
  BREAK_GLASS_TARGET,
  type AcknowledgeResult,
  type BreakGlassEndResult,
  type BreakGlassResult,
  type BreakGlassSettings,
} from './break-glass';
export { mapApiErrors } from './api-errors';
export { readFrozenDetail } from './audit-text';
export {
  approvalActions,
  CHANGE_ACTIONS,
  CHANGES,
  choiceNeeds,
  isChangeAction,
  targetFieldOf,
  type ChangeAction,
  type ChangeCloud,
  type ChangeDefinition,
  type ChangeAnswerOf,
  type ChangeParams,
  type ChangeValue,
} from './definitions';
export { NAMED_THING_MISSING, type FormReading, type FormReads, type FormUnfit } from './form-reads';
export { factNumber, type ChangeFollow, type ChangeReads, type Fact, type EndState } from './followed';
export { FINAL_OUTCOMES, FOLLOWED_AS, isFinal, isOutcome, keptAs, OUTCOME_MEANINGS, OUTCOME_SIGNS, outcomeOf, OUTCOMES, signed, type Outcome } from './outcome';
export { isOutcomeNotRecorded, OutcomeNotRecordedError } from './errors';
export { isTargetId, TARGET_KINDS, targetIdIn, targetKey, targetTitle, recordTargetTitle, type Target, type TargetKind } from './targets';
export {
  createPolicy,
  atLeast,
  ACTIONS,
  neededRole,
  type Action,
  type ChannelDirectory,
  type ControlAction,
  type Decision,
  type Denial,
  type ReadAction,
  type WhereFrom,
  type GroupDirectory,
  type OnCallNote,
  type OnCallRoles,
  type Policy,
  type Standing,
  type PolicyDeps,
  type Role,
  type RoleHolders,
} from './policy';
export { DiskAddForm, DISK_FORM_FIELDS, validateDiskForm, type DiskFormField, type FormLimits, type FormValidation, type FormValues } from './disk-form';
export {
  fits,
  isPowerAction,
  POWER_CHOICE_NAMES,
  POWER_CHOICES,
  powerActionOf,
  runningTransaction,
  serverState,
  type PowerAction,
  type PowerChoice,
  type PowerParams,
  type PowerState,
  type RunningTransaction,
  type ServerState,
} from './power';
export { neededFor, onCallGrant } from './door';
export { isBackupState, type Inspection, type TargetState } from './inspection';
export {
  newestFirst,
  restoreFactsIn,
  restoreTargetOf,
  takenAt,
  usabilityOf,
  usableBackups,
  type BackupState,
  RestoreFacts,
  type RestoreTarget,
  type UnusableBackup,
  type Usability,
} from './backups';
export { BackupRestoreForm, validateRestoreForm, MAX_REASON_LENGTH, type RestoreFormValues, type RestoreParams } from './restore-form';
