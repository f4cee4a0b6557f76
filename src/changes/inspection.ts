import type { BackupState, RestoreInspection } from './backups';
import type { PowerInspection, ServerState } from './power';

// What a change's row reads of its target before its form opens and before it
// is sent or asked for (definitions.ts, `inspect`): a server for the power
// actions, a backup for a restore. Data only: src/slack/blocks words it.

/** A target as it stands: a server's power and lock, or a backup and whether it can be used. */
export type TargetState = ServerState | BackupState;

/** Whether a change may be made to its target as it stands: fit, busy (a locked server), or unfit (its state does not allow it). */
export type Inspection = PowerInspection | RestoreInspection;

/** Whether a state is a backup's. */
export const isBackupState = (state: TargetState): state is BackupState => 'backup' in state;
