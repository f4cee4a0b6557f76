import { z } from 'zod';
import type { CloudClient } from '../cloud/client.types';
import { addDiskWireFields } from '../cloud/codec';
import { changeRequest, noBody, type ChangeRequest } from '../cloud/prepared';
import { AddDiskParams } from '../cloud/schemas';
import { Responses, type Decoded, type ResponseShape } from '../cloud/shapes';
import { ConfigError } from '../errors';
import { DISK_FORM_FIELDS, validateDiskForm, type FormLimits, type FormValidation, type FormValues } from './disk-form';
import {
  inspectPower,
  inspectServerLock,
  POWER_CHOICES,
  StoredPower,
  validatePowerForm,
  type PowerAction,
  type PowerChoice,
  type PowerParams,
  type PowerReads,
} from './power';
import { inspectRestore, restoreFactsOf, restoreTargetOf, type RestoreReads } from './backups';
import { isBackupState, type Inspection, type TargetState } from './inspection';
import { MAX_REASON_LENGTH, validateRestoreForm, type RestoreParams } from './restore-form';
import { asFact, factNumber, serverNow, type ChangeFollow, type EndState } from './followed';
import type { FollowSubject } from '../store';
import type { Role } from './roles';
import { TARGET_KINDS, type Target, type TargetKind } from './targets';
import { backupableDisks, StoredBackupTake, validateBackupTakeForm, type BackupTakeParams } from './backup-take';
import {
  StoredFirewallAdd,
  StoredFirewallRemove,
  interfacesOf,
  validateFirewallAddForm,
  validateFirewallRemoveForm,
  type FirewallAddParams,
  type FirewallRemoveParams,
} from './firewall-changes';
import { answerPortQuestion } from '../firewall/port-question';
import { portVerdict } from '../firewall/verdict';
import { parseIp } from '../firewall/address';
import { parsePortForm } from '../firewall/ports';
import type { FormReading } from './form-reads';

// The one table of changes: what each is about, who may make it, how its form
// is validated, the exact request that makes it and how the audit describes
// it. The door runs a row (door.ts, changes.ts); the policy reads what each
// needs; every other list of changes follows from the table's keys
// (ChangeAction): the store's recorded actions, what VS_APPROVALS accepts,
// the Slack forms, shortcuts and Home tab buttons. To add a change: a row
// here, and its Slack form (a row of CHANGE_FORMS,
// src/slack/blocks/change-forms.ts), which the compiler asks for
// (docs/architecture.md, "Where to add things").

/** What the door needs of the cloud client: the format to prepare a request in, the sending of it, and the reads a change's inspection makes. */
export type ChangeCloud = Pick<CloudClient, 'format' | 'send'> & PowerReads & RestoreReads;

/** What a form's reads may ask of the cloud before it opens (definitions' `formReads`). */
export type FormCloud = Pick<CloudClient, 'listDisks' | 'listFirewallRules'>;

/** One change. `P`: its validated parameters; `S`: the shape of its answer (what its result renderer gets: Decoded<S>). */
export interface ChangeDefinition<A extends string, P, S extends ResponseShape> {
  /** Its name in records, metrics, VS_APPROVALS and the Slack forms; the key of its row. */
  action: A;
  /** The target it is about (and locked while it runs): a server or a backup. */
  targetKind: TargetKind;
  /** The target a 404 of its request names, from its parameters (a backup of a missing disk: the disk); its target otherwise. */
  notFound?(targetId: number, params: P): Target;
  /** The role it needs. */
  needed: Role;
  /** The role its parameters need, when more than `needed` (a reboot into the recovery image: admin). */
  neededFor?(params: P): Role;
  /** Form fields kept (bounded) in records of attempts that did not run. */
  fields: readonly string[];
  /** Form fields an API field message may land on. */
  apiFields: readonly string[];
  /** Fields typed as free text that go into the request: what a request too long to be shown for approval asks to shorten. */
  textFields?: readonly string[];
  /** Its form's values checked, under what the deployment's forms accept (`limits`, e.g. VS_MAX_DISK_GB). */
  validate(targetId: number, values: FormValues, limits: FormLimits): FormValidation<P>;
  /** What the audit (and an approval request) keeps of valid parameters. */
  audited(params: P): Record<string, unknown>;
  /** Reads back what `audited` kept, for a change approved later: its parameters again, or a failure if they are not. */
  stored: z.ZodType<P>;
  /**
   * The request that makes it (method, path, body, the statuses that mean success, the answer's shape): prepared in
   * the client's format, shown to approvers, sent as it is, kept in the audit.
   */
  request: ChangeRequest<P, S>;
  /** The audit's words for what was done. */
  describe(targetId: number, value: Decoded<S>, params: P): string;
  /** The change in a few words, as an incident's timeline reads it (the change event's summary: "web-1 (VS 42): reboot done"). */
  inShort: string;
  /**
   * What its form reads before it opens, given what the command named (form values such as `rule_id`): the server's
   * disks to pick from, its firewall rules, the values chosen for the person (`fixed`); or why the form cannot open.
   * Absent: its form reads nothing first. The one opener runs it (src/slack/listeners/commands/open-change-form.ts);
   * its form (CHANGE_FORMS) shows what it read.
   */
  formReads?(cloud: FormCloud, targetId: number, given: FormValues): Promise<FormReading>;
  /**
   * Reads the target as it stands, before the form opens and before the change is sent or asked for: whether the
   * change may be made now (the power actions: a locked server is busy, one in the wrong state is refused). Absent:
   * nothing to read first.
   */
  inspect?(cloud: ChangeCloud, targetId: number): Promise<Inspection>;
  /**
   * What the change keeps, with its approval request and its records, of its target as `inspect` read it (a restore:
   * the disk it overwrites, when the backup was taken, its size and type), so that whoever approves it sees it.
   */
  noted?(state: TargetState): Record<string, unknown>;
  /** How it is followed to its end once the cloud accepted it (followed.ts): its transactions, its target read again. */
  follow: ChangeFollow<P, Decoded<S>>;
  /** How an agent asks for it (src/agents: one MCP tool per name, its arguments the fields of `stored`). */
  agent: AgentAsk;
}

/**
 * How an agent asks for a change (docs/product.md, Agents ask, people decide): the MCP tool that asks for it (rows that
 * share a tool share their `stored` fields: the form's choice picks the row), whether it overwrites or cuts (the tool's
 * destructive hint), and what the form's confirmations are when there is no form: the person who approves confirms.
 */
export interface AgentAsk {
  tool: `request_${string}`;
  destructive: boolean;
  /** The form values its confirmations take, from the target and the agent's arguments (the id typed again, a risk ticked). */
  confirmations?(targetId: number, args: Readonly<Record<string, unknown>>): FormValues;
}

/** Checks one row and keeps its own types: what its form validates to, what its answer is. */
const defineChange = <A extends string, P, S extends ResponseShape>(definition: ChangeDefinition<A, P, S>): ChangeDefinition<A, P, S> => definition;

/** A power action (power.ts): its choices of the form, its path, who may, and what the audit says it did. */
function powerChange<A extends PowerAction>(
  action: A,
  o: { path: `/${string}`; needed: Role; neededFor?: (params: PowerParams) => Role; did: string; inShort: string; transactions: readonly string[] },
) {
  return defineChange({
    action,
    targetKind: 'vs',
    needed: o.needed,
    ...(o.neededFor ? { neededFor: o.neededFor } : {}),
    fields: ['power_action', 'confirm', 'reason'],
    apiFields: [],
    validate: (vsId, values) => validatePowerForm(action, vsId, values),
    audited: (params: PowerParams) => ({ ...params }),
    stored: StoredPower,
    // docs/cloud-api.md, Power actions: 201 with the server, now locked; the action runs as a transaction.
    request: changeRequest({
      operation: action,
      method: 'POST',
      path: o.path,
      body: (params: PowerParams) => (params.power_action === 'reboot_recovery' ? { field: 'mode', value: 'recovery' } : null),
      expectedStatuses: [201, 200],
      answer: Responses.server,
    }),
    describe: (vsId) => `${o.did} of VS ${vsId}`,
    inShort: o.inShort,
    inspect: (cloud, vsId) => inspectPower(cloud, action, vsId),
    // One tool for the four: `power_action` picks the change. Each stops or interrupts what runs on the server.
    agent: { tool: 'request_power', destructive: true, confirmations: (vsId) => ({ confirm: String(vsId) }) },
    // docs/cloud-api.md, Finding a change's transaction: a power action runs on the server.
    follow: {
      listedUnder: (vsId) => vsId,
      subject: (vsId, params, server): FollowSubject => ({
        serverId: vsId,
        parentType: 'VirtualMachine',
        parentId: vsId,
        actions: o.transactions,
        facts: { vsId, powerAction: params.power_action, label: asFact(server.label), reason: asFact(params.reason.trim() || null) },
      }),
      // Done when the server is unlocked: on or off as it is then, in the recovery image or not.
      readState: async (reads, { parentId }): Promise<EndState> => {
        const server = await reads.getServer(parentId);
        return {
          settled: server.locked !== true,
          state: { serverBooted: server.booted ?? null, serverRecovery: server.recovery_mode ?? null, serverLocked: server.locked ?? null },
        };
      },
    },
  });
}

/** What a restore keeps: the backup, and why. */
const StoredRestore = z.object({ backup_id: z.number().int().positive(), reason: z.string().max(MAX_REASON_LENGTH).optional() });

const DEFINITIONS = {
  disk_add: defineChange({
    action: 'disk_add',
    targetKind: 'vs',
    needed: 'operator',
    fields: DISK_FORM_FIELDS,
    apiFields: DISK_FORM_FIELDS,
    textFields: ['label', 'mount_point'],
    validate: (_vsId, values, limits) => validateDiskForm(values, limits),
    audited: (params: AddDiskParams) => ({ ...params }),
    stored: AddDiskParams,
    // docs/cloud-api.md: 201 with the new disk; 200 is what some deployments send for the same thing.
    request: changeRequest({
      operation: 'add_disk',
      method: 'POST',
      path: '/virtual_machines/:id/disks',
      body: (params: AddDiskParams) => ({ root: 'disk', fields: addDiskWireFields(params) }),
      expectedStatuses: [201, 200],
      answer: Responses.disk,
    }),
    describe: (vsId, disk) => `disk ${disk.id} (${disk.disk_size} GB) on VS ${vsId}`,
    inShort: 'add disk',
    agent: { tool: 'request_disk_add', destructive: false },
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
      // The server is read too: what state it is in once the change ended, either way.
      readState: async (reads, { serverId, parentId }): Promise<EndState> => {
        const [disks, server] = await Promise.all([reads.listDisks(serverId ?? 0), serverNow(reads, serverId)]);
        const disk = disks.find((d) => d.id === parentId);
        if (!disk) return { settled: true, state: { ...server, missing: true } };
        return { settled: disk.built === true && disk.locked !== true, state: { ...server, built: disk.built ?? null, locked: disk.locked ?? null } };
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
    // No status is documented: any 2xx with the backup in the body is success.
    request: changeRequest({
      operation: 'restore_backup',
      method: 'POST',
      path: '/backups/:id/restore',
      body: noBody,
      expectedStatuses: [200, 201, 202],
      answer: Responses.backup,
    }),
    // docs/product.md, Restore with eyes open: the backup is read before the form opens, and again before it is sent or asked for.
    inspect: (cloud, backupId) => inspectRestore(cloud, backupId),
    // It overwrites the disk.
    agent: { tool: 'request_backup_restore', destructive: true, confirmations: (backupId) => ({ confirm: String(backupId) }) },
    noted: (state) => (isBackupState(state) ? { restores: restoreFactsOf(state.backup) } : {}),
    describe: (_backupId, backup) => {
      const { diskId, vsId } = restoreTargetOf(backup);
      const onto = diskId === null ? (vsId === null ? '' : ` onto VS ${vsId}`) : ` onto disk ${diskId}${vsId === null ? '' : ` of VS ${vsId}`}`;
      // What was asked, not what happened: the record's outcome says that ("scheduled", "done").
      return `restore of backup ${backup.id}${onto}`;
    },
    inShort: 'restore backup',
    // docs/cloud-api.md, Finding a change's transaction: a restore runs on the backup. Its server is known before it is
    // sent only by reading the backup first, so the newest id is the account's (ids are the account's, whatever lists them).
    follow: {
      listedUnder: () => null,
      subject: (backupId, params, backup): FollowSubject => {
        const { vsId, diskId } = restoreTargetOf(backup);
        return {
          serverId: vsId,
          parentType: 'Backup',
          parentId: backupId,
          actions: vsId !== null ? ['restore_incremental_backup', 'restore_backup'] : ['restore_backup', 'restore_incremental_backup'],
          facts: {
            backupId,
            vsId,
            diskId,
            backupSize: backup.backup_size ?? null,
            backupType: asFact(backup.backup_type),
            operatingSystem: asFact([backup.operating_system, backup.operating_system_distro].filter(Boolean).join(' / ') || null),
            builtAt: asFact(backup.built_at ?? backup.created_at),
            reason: asFact(params.reason?.trim() || null),
          },
        };
      },
      // Done when the backup is unlocked, and its disk too where the server is known (read again too, either way).
      readState: async (reads, { parentId, facts }): Promise<EndState> => {
        const backup = await reads.getBackup(parentId);
        const vsId = factNumber(facts.vsId);
        const diskId = factNumber(facts.diskId) ?? backup.disk_id ?? null;
        const [disks, server] = await Promise.all([vsId !== null && diskId !== null ? reads.listDisks(vsId) : Promise.resolve([]), serverNow(reads, vsId)]);
        const disk = disks.find((d) => d.id === diskId);
        const state = { ...server, backupLocked: backup.locked ?? null, diskLocked: disk ? (disk.locked ?? null) : null };
        return { settled: backup.locked !== true && disk?.locked !== true, state };
      },
    },
  }),
  // Operators start, shut down and reboot; admins also force a server off and reboot it into the recovery image.
  // Their transactions (docs/cloud-api.md, Transactions): a shutdown runs as stop_virtual_machine too.
  power_start: powerChange('power_start', {
    path: '/virtual_machines/:id/startup',
    needed: 'operator',
    did: 'start-up',
    inShort: 'start',
    transactions: ['startup_virtual_machine'],
  }),
  power_shutdown: powerChange('power_shutdown', {
    path: '/virtual_machines/:id/shutdown',
    needed: 'operator',
    did: 'shutdown',
    inShort: 'shut down',
    transactions: ['stop_virtual_machine', 'shutdown_virtual_machine'],
  }),
  power_reboot: powerChange('power_reboot', {
    path: '/virtual_machines/:id/reboot',
    needed: 'operator',
    neededFor: (params) => (params.power_action === 'reboot_recovery' ? 'admin' : 'operator'),
    did: 'reboot',
    inShort: 'reboot',
    transactions: ['reboot_virtual_machine'],
  }),
  power_stop: powerChange('power_stop', {
    path: '/virtual_machines/:id/stop',
    needed: 'admin',
    did: 'forced stop',
    inShort: 'forced stop',
    transactions: ['stop_virtual_machine'],
  }),
  backup_take: defineChange({
    action: 'backup_take',
    targetKind: 'vs',
    needed: 'operator',
    notFound: (_vsId, params: BackupTakeParams): Target => ({ kind: 'disk', id: params.disk_id }),
    fields: ['disk_id', 'note', 'reason'],
    apiFields: ['note'],
    textFields: ['note'],
    validate: (_vsId, values) => validateBackupTakeForm(values),
    audited: (params: BackupTakeParams) => ({ ...params }),
    stored: StoredBackupTake,
    // docs/cloud-api.md, Take a backup: 201 with the new backup (not built yet); older clouds take it under /settings.
    request: changeRequest({
      operation: 'take_backup',
      method: 'POST',
      path: '/virtual_machines/:id/disks/:disk_id/backups',
      olderPath: '/settings/disks/:disk_id/backups',
      body: (params: BackupTakeParams) => (params.note ? { root: 'backup', fields: { note: params.note } } : null),
      expectedStatuses: [201, 200],
      answer: Responses.backup,
    }),
    describe: (vsId, backup, params) => `backup ${backup.id} of disk ${params.disk_id} on VS ${vsId}`,
    inShort: 'take backup',
    agent: { tool: 'request_backup_take', destructive: false },
    // A locked server takes no change: said before the form opens and before it is sent or asked for.
    inspect: (cloud, vsId) => inspectServerLock(cloud, vsId),
    formReads: async (cloud, vsId): Promise<FormReading> => {
      const disks = await cloud.listDisks(vsId);
      const built = backupableDisks(disks);
      return built.length > 0 ? { ok: true, reads: { disks: built } } : { ok: false, unfit: { kind: 'no_built_disk', disks: disks.length } };
    },
    // docs/cloud-api.md, Take a backup: a transaction on the disk (take_backup; take_incremental_backup for an incremental one).
    follow: {
      listedUnder: (vsId) => vsId,
      subject: (vsId, params, backup): FollowSubject => ({
        serverId: vsId,
        parentType: 'Disk',
        parentId: params.disk_id,
        actions: ['take_backup', 'take_incremental_backup'],
        facts: { vsId, diskId: params.disk_id, backupId: backup.id, note: asFact(params.note || null), reason: asFact(params.reason.trim() || null) },
      }),
      // Done when the new backup is built and unlocked: its size as the cloud says it then.
      readState: async (reads, { facts }): Promise<EndState> => {
        const backupId = factNumber(facts.backupId);
        if (backupId === null) return { settled: true, state: { missing: true } };
        const backup = await reads.getBackup(backupId);
        return {
          settled: backup.built === true && backup.locked !== true,
          state: {
            built: backup.built ?? null,
            locked: backup.locked ?? null,
            backupSize: backup.backup_size ?? null,
            builtAt: asFact(backup.built_at ?? null),
          },
        };
      },
    },
  }),
  firewall_add: defineChange({
    action: 'firewall_add',
    targetKind: 'vs',
    needed: 'operator',
    fields: ['network_interface_id', 'command', 'address', 'port', 'protocol', 'confirm_risk', 'reason'],
    apiFields: ['network_interface_id', 'command', 'address', 'port', 'protocol'],
    textFields: ['address', 'port'],
    validate: (_vsId, values, limits) => validateFirewallAddForm(values, limits),
    audited: (params: FirewallAddParams) => ({ ...params }),
    stored: StoredFirewallAdd,
    // docs/cloud-api.md, Firewall rules: the rule is stored (201, at the end of its interface's list), then the server's rules applied.
    request: changeRequest({
      operation: 'add_firewall_rule',
      method: 'POST',
      path: '/virtual_machines/:id/firewall_rules',
      body: (params: FirewallAddParams) => ({
        root: 'firewall_rule',
        fields: {
          address: params.address,
          command: params.command,
          port: params.port,
          protocol: params.protocol,
          network_interface_id: String(params.network_interface_id),
        },
      }),
      expectedStatuses: [201, 200],
      answer: Responses.firewallRule,
      then: { operation: 'update_firewall_rules', path: '/virtual_machines/:id/update_firewall_rules' },
    }),
    describe: (vsId, rule, params) => {
      const what = `${params.command} ${params.address || 'every address'} on ${params.port || 'every port'}/${params.protocol.toLowerCase()}`;
      return `firewall rule ${rule.id} (${what}) on VS ${vsId}, applied`;
    },
    inShort: 'add firewall rule',
    // A DROP rule cuts traffic; the risk of cutting SSH for everyone is confirmed as the form's box is ticked.
    agent: { tool: 'request_firewall_add', destructive: true, confirmations: (_vsId, args) => ({ confirm_risk: args.confirmed_risk === true }) },
    // A locked server takes no change: said before the form opens and before it is sent or asked for.
    inspect: (cloud, vsId) => inspectServerLock(cloud, vsId),
    // The interfaces are those its rules name (unless one was named); the only one is chosen for you.
    formReads: async (cloud, vsId, given): Promise<FormReading> => {
      const rules = await cloud.listFirewallRules(vsId);
      const named =
        typeof given.network_interface_id === 'string' && /^[0-9]{1,15}$/.test(given.network_interface_id.trim()) ? [Number(given.network_interface_id)] : [];
      const interfaces = [...new Set([...interfacesOf(rules), ...named])].sort((a, b) => a - b);
      if (interfaces.length === 0) return { ok: false, unfit: { kind: 'no_interface' } };
      return { ok: true, reads: { rules, interfaces }, ...(interfaces.length === 1 ? { fixed: { network_interface_id: String(interfaces[0]) } } : {}) };
    },
    follow: {
      listedUnder: (vsId) => vsId,
      subject: (vsId, params, rule): FollowSubject => ({
        serverId: vsId,
        parentType: 'VirtualMachine',
        parentId: vsId,
        actions: ['update_firewall'],
        facts: {
          vsId,
          ruleId: rule.id,
          command: params.command,
          address: params.address,
          port: params.port,
          protocol: params.protocol,
          reason: asFact(params.reason.trim() || null),
        },
      }),
      // Done when the server is unlocked; the rules read again answer the port question for the rule just added.
      readState: async (reads, { parentId, facts }): Promise<EndState> => {
        const [server, rules] = await Promise.all([reads.getServer(parentId), reads.listFirewallRules(parentId)]);
        const ports = parsePortForm(typeof facts.port === 'string' ? facts.port : '');
        const port = ports.kind === 'ports' ? ports.ranges[0]![0] : 22;
        const source = typeof facts.address === 'string' ? parseIp(facts.address) : null;
        const protocol = facts.protocol === 'UDP' ? 'udp' : 'tcp';
        const verdict = portVerdict(answerPortQuestion(rules, { port, protocol, source }));
        return {
          settled: server.locked !== true,
          state: { serverLocked: server.locked ?? null, ruleListed: rules.some((r) => r.id === facts.ruleId), askedPort: port, verdict },
        };
      },
    },
  }),
  firewall_remove: defineChange({
    action: 'firewall_remove',
    targetKind: 'vs',
    needed: 'admin',
    notFound: (_vsId, params: FirewallRemoveParams): Target => ({ kind: 'rule', id: params.rule_id }),
    fields: ['rule_id', 'confirm', 'reason'],
    apiFields: [],
    validate: (_vsId, values) => validateFirewallRemoveForm(values),
    audited: (params: FirewallRemoveParams) => ({ ...params }),
    stored: StoredFirewallRemove,
    // docs/cloud-api.md, Firewall rules: 204 (404 for an unknown rule), then the server's rules applied.
    request: changeRequest({
      operation: 'remove_firewall_rule',
      method: 'DELETE',
      path: '/virtual_machines/:id/firewall_rules/:rule_id',
      body: noBody,
      expectedStatuses: [204, 200],
      answer: Responses.nothing,
      then: { operation: 'update_firewall_rules', path: '/virtual_machines/:id/update_firewall_rules' },
    }),
    describe: (vsId, _nothing, params) => `removal of firewall rule ${params.rule_id} on VS ${vsId}, applied`,
    inShort: 'remove firewall rule',
    // Removing an allowing rule cuts traffic; the rule's id is the one the form has typed again.
    agent: { tool: 'request_firewall_remove', destructive: true, confirmations: (_vsId, args) => ({ confirm: String(args.rule_id) }) },
    // A locked server takes no change: said before the form opens and before it is sent or asked for.
    inspect: (cloud, vsId) => inspectServerLock(cloud, vsId),
    formReads: async (cloud, vsId, given): Promise<FormReading> => {
      const rules = await cloud.listFirewallRules(vsId);
      const ruleId = typeof given.rule_id === 'string' ? Number(given.rule_id) : NaN;
      const rule = rules.find((r) => r.id === ruleId);
      // The rule named travels with the form (its `rule_id`), typed again to confirm.
      return rule ? { ok: true, reads: { rules, rule }, fixed: { rule_id: String(rule.id) } } : { ok: false, unfit: { kind: 'no_such_rule', ruleId } };
    },
    // Done when the server is unlocked once its rules were applied (transaction update_firewall).
    follow: {
      listedUnder: (vsId) => vsId,
      subject: (vsId, params): FollowSubject => ({
        serverId: vsId,
        parentType: 'VirtualMachine',
        parentId: vsId,
        actions: ['update_firewall'],
        facts: { vsId, ruleId: params.rule_id, reason: asFact(params.reason.trim() || null) },
      }),
      readState: async (reads, { parentId, facts }): Promise<EndState> => {
        const [server, rules] = await Promise.all([reads.getServer(parentId), reads.listFirewallRules(parentId)]);
        return { settled: server.locked !== true, state: { serverLocked: server.locked ?? null, ruleListed: rules.some((r) => r.id === facts.ruleId) } };
      },
    },
  }),
};

type Definitions = typeof DEFINITIONS;

/** Every change there is: the keys of the table. */
export type ChangeAction = keyof Definitions;
/** What a change's form validates to. */
export type ChangeParams<A extends ChangeAction> = Definitions[A] extends ChangeDefinition<A, infer P, infer _S> ? P : never;
/** The shape of a change's answer. */
export type ChangeAnswerOf<A extends ChangeAction> = Definitions[A] extends ChangeDefinition<A, infer _P, infer S> ? S : never;
/** What a change's cloud API call returns (its result renderer's input). */
export type ChangeValue<A extends ChangeAction> = Decoded<ChangeAnswerOf<A>>;

/**
 * The table, typed so that a row looked up by a generic action keeps its own
 * parameter and value types (TypeScript's "correlated unions", #47109): the
 * door runs any row without a cast. A row filed under another action's key
 * does not compile.
 */
export const CHANGES: { readonly [A in ChangeAction]: ChangeDefinition<A, ChangeParams<A>, ChangeAnswerOf<A>> } = DEFINITIONS;

export const CHANGE_ACTIONS: readonly ChangeAction[] = Object.values(CHANGES).map((change) => change.action);

export function isChangeAction(action: string): action is ChangeAction {
  return CHANGE_ACTIONS.some((a) => a === action);
}

/** The role a choice of the power form needs (a reboot into the recovery image: admin): its change's, for its parameters. */
export function choiceNeeds(choice: PowerChoice): Role {
  const change = CHANGES[POWER_CHOICES[choice]];
  // Only the choice decides the role; the reason is not read.
  return change.neededFor?.({ power_action: choice, reason: '' }) ?? change.needed;
}

/**
 * VS_APPROVALS read against the table, at start-up: the changes it names, or a ConfigError naming each unknown one
 * and the actions that can need approval (config.ts checks only their spelling).
 */
export function approvalActions(names: readonly string[]): ChangeAction[] {
  const unknown = names.filter((name) => !isChangeAction(name));
  if (unknown.length > 0) {
    throw new ConfigError(
      unknown.map((name) => `VS_APPROVALS names an unknown action "${name}": the actions that can need approval are ${CHANGE_ACTIONS.join(', ')}`),
    );
  }
  return names.filter(isChangeAction);
}

/**
 * What the audit trail records: a change of the table, the freeze switched on or off (freeze.ts), or a break-glass
 * window opened or closed and a use of one acknowledged (break-glass.ts).
 */
export type RecordedChangeAction = ChangeAction | 'freeze' | 'unfreeze' | 'breakglass' | 'breakglass_end' | 'breakglass_ack' | 'agent_token' | 'agent_revoke';

// The store's vocabulary of actions is this table's (src/store/audit.ts, RecordedActions).
declare module '../store/audit' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the keys are the point
  interface RecordedActions extends Record<RecordedChangeAction, true> {}
}

/** The form input that carries a change's target id when its form is opened from a shortcut. */
export const targetFieldOf = (action: ChangeAction): string => TARGET_KINDS[CHANGES[action].targetKind].field;

function text(value: string | boolean | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
