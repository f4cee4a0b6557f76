import { z } from 'zod';
import type { CloudClient } from '../cloud/client.types';
import type { ChangeAnswers, ChangeOperation, PreparedRequest } from '../cloud/prepared';
import { AddDiskParams } from '../cloud/schemas';
import { DISK_FORM_FIELDS, validateDiskForm, type FormValidation, type FormValues } from './disk-form';
import { MAX_REASON_LENGTH, validateRestoreForm, type RestoreParams } from './restore-form';
import { asFact, factNumber, type ChangeFollow, type TargetState } from './followed';
import type { FollowSubject } from '../store';
import type { Role } from './roles';
import { TARGET_KINDS, type TargetKind } from './targets';

// The one table of changes: what each is about, who may make it, how its form
// is validated, which API call makes it and how the audit describes it. The
// door runs a row (changes.ts); the policy reads what each needs; ChangeAction
// is the table's keys. To add a change: a row here, and its Slack form (a row
// of CHANGE_FORMS, src/slack/blocks/change-forms.ts), which the compiler asks for.

export type ChangeCloud = Pick<CloudClient, 'prepareAddDisk' | 'prepareRestoreBackup' | 'send'>;

/** One change. `P`: its validated parameters; `O`: the cloud operation that makes it (what it returns: ChangeAnswers[O]). */
export interface ChangeDefinition<A extends string, P, O extends ChangeOperation> {
  /** Its name in records, metrics and callback ids; the key of its row. */
  action: A;
  targetKind: TargetKind;
  /** The role it needs. */
  needed: Role;
  /** Form fields kept (bounded) in records of attempts that did not run. */
  fields: readonly string[];
  /** Form fields an API field message may land on. */
  apiFields: readonly string[];
  validate(targetId: number, values: FormValues): FormValidation<P>;
  /** What the audit (and an approval request) keeps of valid parameters. */
  audited(params: P): Record<string, unknown>;
  /** Reads back what `audited` kept, for a change approved later: its parameters again, or a failure if they are not. */
  stored: z.ZodType<P>;
  /** The request the cloud client will send for it, exactly: shown to approvers, sent as it is, kept in the audit. */
  prepare(cloud: ChangeCloud, targetId: number, params: P): PreparedRequest<O>;
  /** The status the client saw on success (it returns the body only). */
  successStatus: number;
  /** The audit's words for what was done. */
  describe(targetId: number, value: ChangeAnswers[O]): string;
  /** How it is followed to its end once the cloud accepted it (followed.ts): its transactions, its target read again. */
  follow: ChangeFollow<P, ChangeAnswers[O]>;
}

/** Checks one row and keeps its own types: what its form validates to, which operation makes it. */
const defineChange = <A extends string, P, O extends ChangeOperation>(definition: ChangeDefinition<A, P, O>): ChangeDefinition<A, P, O> => definition;

/** What a restore keeps: the backup, and why. */
const StoredRestore = z.object({ backup_id: z.number().int().positive(), reason: z.string().max(MAX_REASON_LENGTH).optional() });

const DEFINITIONS = {
  disk_add: defineChange({
    action: 'disk_add',
    targetKind: 'vs',
    needed: 'operator',
    fields: DISK_FORM_FIELDS,
    apiFields: DISK_FORM_FIELDS,
    validate: (_vsId, values) => validateDiskForm(values),
    audited: (params: AddDiskParams) => ({ ...params }),
    stored: AddDiskParams,
    prepare: (cloud, vsId, params) => cloud.prepareAddDisk(vsId, params),
    successStatus: 201,
    describe: (vsId, disk) => `disk ${disk.id} (${disk.disk_size} GB) scheduled on VS ${vsId}`,
    // docs/cloud-api.md, Finding a change's transaction: the new disk's build, then its format and fstab when asked for.
    follow: {
      listedUnder: (vsId) => vsId,
      subject: (vsId, _params, disk): FollowSubject => ({
        serverId: vsId,
        parentType: 'Disk',
        parentId: disk.id,
        actions: ['build_disk', 'format_disk', 'update_fstab'],
        facts: {
          vsId,
          diskId: disk.id,
          diskSize: disk.disk_size,
          diskType: asFact(disk.disk_type),
          label: asFact(disk.label),
          mountPoint: asFact(disk.mount_point),
          isSwap: asFact(disk.is_swap),
        },
      }),
      // Done when the disk is built and unlocked; one the server no longer lists is done too (nothing is left to wait for).
      readState: async (reads, { serverId, parentId }): Promise<TargetState> => {
        const disk = (await reads.listDisks(serverId ?? 0)).find((d) => d.id === parentId);
        if (!disk) return { settled: true, state: { missing: true } };
        return { settled: disk.built === true && disk.locked !== true, state: { built: disk.built ?? null, locked: disk.locked ?? null } };
      },
    },
  }),
  backup_restore: defineChange({
    action: 'backup_restore',
    targetKind: 'backup',
    needed: 'admin',
    fields: ['confirm', 'reason'],
    apiFields: [],
    validate: (backupId, values) => validateRestoreForm(backupId, { confirm: text(values.confirm), reason: text(values.reason) }),
    audited: (params: RestoreParams) => ({ ...params }),
    stored: StoredRestore,
    prepare: (cloud, backupId) => cloud.prepareRestoreBackup(backupId),
    successStatus: 200,
    describe: (_backupId, backup) =>
      `backup ${backup.id} restored` +
      (backup.target_id != null ? ` onto ${backup.target_type === 'VirtualMachine' ? 'VS' : (backup.target_type ?? 'target')} ${backup.target_id}` : '') +
      (backup.disk_id != null ? `, disk ${backup.disk_id}` : ''),
    // docs/cloud-api.md, Finding a change's transaction: a restore runs on the backup. Its server is known before it is
    // sent only by reading the backup first, so the newest id is the account's (ids are the account's, whatever lists them).
    follow: {
      listedUnder: () => null,
      subject: (backupId, params, backup): FollowSubject => {
        const vsId = backup.target_type === 'VirtualMachine' ? (backup.target_id ?? null) : null;
        return {
          serverId: vsId,
          parentType: 'Backup',
          parentId: backupId,
          actions:
            backup.target_type === 'VirtualMachine' ? ['restore_incremental_backup', 'restore_backup'] : ['restore_backup', 'restore_incremental_backup'],
          facts: {
            backupId,
            vsId,
            diskId: backup.disk_id ?? null,
            backupSize: backup.backup_size ?? null,
            operatingSystem: asFact([backup.operating_system, backup.operating_system_distro].filter(Boolean).join(' / ') || null),
            builtAt: asFact(backup.built_at),
            reason: asFact(params.reason?.trim() || null),
          },
        };
      },
      // Done when the backup is unlocked, and its disk too where the server is known.
      readState: async (reads, { parentId, facts }): Promise<TargetState> => {
        const backup = await reads.getBackup(parentId);
        const vsId = factNumber(facts.vsId);
        const diskId = factNumber(facts.diskId) ?? backup.disk_id ?? null;
        const disk = vsId !== null && diskId !== null ? (await reads.listDisks(vsId)).find((d) => d.id === diskId) : undefined;
        const state = { backupLocked: backup.locked ?? null, diskLocked: disk ? (disk.locked ?? null) : null };
        return { settled: backup.locked !== true && disk?.locked !== true, state };
      },
    },
  }),
};

type Definitions = typeof DEFINITIONS;

/** Every change there is: the keys of the table. */
export type ChangeAction = keyof Definitions;
/** What a change's form validates to. */
export type ChangeParams<A extends ChangeAction> = Definitions[A] extends ChangeDefinition<A, infer P, infer _O> ? P : never;
/** The cloud operation that makes a change. */
export type ChangeOperationOf<A extends ChangeAction> = Definitions[A] extends ChangeDefinition<A, infer _P, infer O> ? O : never;
/** What a change's cloud API call returns (its result renderer's input). */
export type ChangeValue<A extends ChangeAction> = ChangeAnswers[ChangeOperationOf<A>];

/**
 * The table, typed so that a row looked up by a generic action keeps its own
 * parameter and value types (TypeScript's "correlated unions", #47109): the
 * door runs any row without a cast. A row filed under another action's key
 * does not compile.
 */
export const CHANGES: { readonly [A in ChangeAction]: ChangeDefinition<A, ChangeParams<A>, ChangeOperationOf<A>> } = DEFINITIONS;

export const CHANGE_ACTIONS: readonly ChangeAction[] = Object.values(CHANGES).map((change) => change.action);

export function isChangeAction(action: string): action is ChangeAction {
  return CHANGE_ACTIONS.some((a) => a === action);
}

/** The form input that carries a change's target id when its form is opened from a shortcut. */
export const targetFieldOf = (action: ChangeAction): string => TARGET_KINDS[CHANGES[action].targetKind].field;

function text(value: string | boolean | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
