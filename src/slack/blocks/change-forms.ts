import type { ModalView } from '@slack/types';
import {
  atLeast,
  CHANGE_ACTIONS,
  choiceNeeds,
  fits,
  neededRole,
  POWER_CHOICES,
  POWER_CHOICE_NAMES,
  powerActionOf,
  type ChangeAction,
  type FormLimits,
  type FormReads,
  type FormUnfit,
  type FormValues,
  type Role,
  type TargetState,
  isBackupState,
} from '../../changes';
import { BACKUP_RESTORED_WORDS, BACKUP_TAKEN_WORDS, DISK_ADDED_WORDS, FIREWALL_RULE_ADDED_WORDS, FIREWALL_RULE_REMOVED_WORDS } from './changes';
import type { FollowedWords } from './followed';
import { firewallRisk, previewFirewallRule } from '../../changes/firewall-changes';
import { parseAddressForm } from '../../firewall/address';
import { parsePortForm } from '../../firewall/ports';
import { noBuiltDiskText } from './backups';
import { FIREWALL_RISK_TEXT, firewallPreviewText, noInterfaceText, noSuchRuleText } from './firewall-rule';
import { backupRestoreModal, backupTakeModal, diskAddModal, firewallAddModal, firewallRemoveModal, powerModal, type RestorePick } from './modals';
import { POWER_FOLLOWED_WORDS } from './power';

// What Slack is told of each change of src/changes (whose table says what the
// change is: its form's schema, its target, its request, its audit text).
// Two tables: FORMS, the modals people fill in (a form's callback id, its
// global shortcut, its Home tab button, the modal itself), and CHANGE_FORMS, a
// row per change (the form that makes it, its words, the result posted to the
// channel). A form usually makes one change; one may make several, its values
// saying which. The command opens the form, the global shortcut and the Home
// tab button open it without a target, the view submission runs it through
// the change door. CHANGE_FORMS is typed by ChangeAction, so a change without
// its row here does not compile; the shortcuts, the submissions and the Home
// tab buttons are registered from FORMS, and manifest.yml and the local page's
// shortcut menu are kept in step with them by
// test/slack/listeners/manifest.test.ts.

export interface ChangeFormModal {
  /** Undefined when opened from the global shortcut: the form then asks for it. */
  targetId?: number;
  /** Undefined when opened from the global shortcut: the form then asks for it. */
  channelId?: string;
  privateMetadata: string;
  sandbox: boolean;
  /** The change asked for (a command names one; a form that makes several preselects it). */
  action?: ChangeAction;
  /** The person's role: a form that makes several changes offers those it allows. */
  role?: Role;
  /** The target as read before the form opened (a change whose row inspects it): a form offers what its state allows. */
  state?: TargetState;
  /** A restore opened for a server: its usable backups to pick from (the form's `backup_id`). */
  pick?: RestorePick;
  /** What its change's row read before the form opened (`formReads`: the disks to pick from, the rules as they are). */
  reads?: FormReads;
  /** What the command named, as form values (`/vs firewall block 42 203.0.113.5 443`: command, address, port, protocol). */
  given?: FormValues;
  /** The channel picked in a shortcut's form, when the form is shown again (its preview). */
  channelPicked?: string;
  /** What the deployment's forms accept (VS_MAX_DISK_GB, VS_BOT_ADDRESSES): a firewall rule's risk is said from them. */
  limits?: FormLimits;
  /** The bot's clock, for forms that say how long ago something was (a backup taken). */
  now: number;
}

/** One modal people fill in to make a change. */
export interface FormOfChanges {
  /** The modal's callback_id (docs/product.md, "Modals"). */
  callbackId: string;
  /** The global shortcut that opens the form without a target (manifest.yml, the local page's menu). */
  shortcut: { callbackId: string; name: string; description: string };
  /** Its title where no change is chosen yet (a refusal before it opens). */
  title: string;
  modal(o: ChangeFormModal): ModalView;
  /**
   * An input present in every variant of the form, under which messages about
   * the whole form are shown when the submitted view does not list its blocks
   * (the first input is used when it does): Slack attaches modal errors to
   * inputs only.
   */
  formErrorBlock: string;
  /** Which of its changes a submission makes, for a form that makes several (read from its values); undefined: none chosen. */
  chosenIn?(values: FormValues): ChangeAction | undefined;
  /**
   * For a form that shows what its values will do before anything is sent (a firewall rule's preview): those values,
   * keyed (null when they do not read: the door says why). A submission whose key is not the one shown shows the
   * effect of its own values first, and sends nothing (src/slack/listeners/views/submission.ts).
   */
  showsEffectOf?(values: FormValues, reads?: FormReads): string | null;
}

/** What Slack says of one change. */
export interface ChangeForm {
  /** The form that makes it (a row of FORMS). */
  form: FormOfChanges;
  /** What the change is called in titles of status modals and approval requests. */
  title: string;
  /** The change as the subject of a sentence: "Adding a disk needs the operator role". */
  doing: string;
  /** What `/vs whoami` says a role that may make it may do (where, if restricted, is added). */
  allows: string;
  /** Its result posted to the channel, followed to its end (src/slack/blocks/followed.ts): what was asked, what done means. */
  followed: FollowedWords;
}

const diskAddForm: FormOfChanges = {
  callbackId: 'disk_add',
  shortcut: { callbackId: 'disk_add_shortcut', name: 'Add a disk to a server', description: 'Opens the add-disk form (operators and admins)' },
  title: 'Add disk',
  modal: ({ targetId, channelId, privateMetadata, sandbox }) => diskAddModal({ vsId: targetId, channelId, privateMetadata, sandbox }),
  formErrorBlock: 'disk_type',
};

const backupRestoreForm: FormOfChanges = {
  callbackId: 'backup_restore',
  shortcut: { callbackId: 'backup_restore_shortcut', name: 'Restore a backup', description: 'Opens the restore form (admins)' },
  title: 'Restore backup',
  modal: ({ targetId, channelId, privateMetadata, sandbox, state, pick, now }) =>
    backupRestoreModal({
      backupId: targetId,
      channelId,
      privateMetadata,
      sandbox,
      now,
      ...(state && isBackupState(state) ? { state } : {}),
      ...(pick ? { pick } : {}),
    }),
  formErrorBlock: 'confirm',
};

const powerForm: FormOfChanges = {
  callbackId: 'vs_power',
  shortcut: { callbackId: 'power_shortcut', name: 'Start, stop or reboot a server', description: 'Opens the power form (operators and admins)' },
  title: 'Power action',
  modal: ({ targetId, channelId, privateMetadata, sandbox, action, role, state: target }) => {
    const state = target && !isBackupState(target) ? target : undefined;
    return powerModal({
      vsId: targetId,
      channelId,
      privateMetadata,
      sandbox,
      state,
      choices: POWER_CHOICE_NAMES.filter(
        (choice) => (role === undefined || atLeast(role, choiceNeeds(choice))) && (state === undefined || fits(POWER_CHOICES[choice], state.power)),
      ),
      // The command's action, plainly: `/vs reboot` preselects a reboot, not one into the recovery image.
      chosen: POWER_CHOICE_NAMES.find((choice) => powerActionOf(choice) === action),
    });
  },
  formErrorBlock: 'power_action',
  chosenIn: (values) => powerActionOf(values.power_action),
};

const backupTakeForm: FormOfChanges = {
  callbackId: 'backup_take',
  shortcut: { callbackId: 'backup_take_shortcut', name: 'Take a backup', description: 'Opens the take-a-backup form (operators and admins)' },
  title: 'Take backup',
  modal: ({ targetId, channelId, privateMetadata, sandbox, reads }) =>
    backupTakeModal({
      channelId,
      privateMetadata,
      sandbox,
      ...(targetId !== undefined && reads?.disks ? { pick: { vsId: targetId, disks: reads.disks } } : {}),
    }),
  formErrorBlock: 'reason',
};

const firewallAddForm: FormOfChanges = {
  callbackId: 'firewall_add',
  shortcut: { callbackId: 'firewall_add_shortcut', name: 'Add a firewall rule', description: 'Opens the add-rule form (operators and admins)' },
  title: 'Add firewall rule',
  modal: ({ targetId, channelId, channelPicked, privateMetadata, sandbox, reads, given, limits }) =>
    firewallAddModal({
      channelId,
      privateMetadata,
      sandbox,
      ...(channelPicked ? { channelPicked } : {}),
      ...(targetId !== undefined && reads ? { prefill: firewallPrefill(targetId, reads, given ?? {}, limits) } : {}),
    }),
  formErrorBlock: 'reason',
  showsEffectOf: (values, reads) => firewallRuleKey(values, reads),
};

const firewallRemoveForm: FormOfChanges = {
  callbackId: 'firewall_remove',
  shortcut: { callbackId: 'firewall_remove_shortcut', name: 'Remove a firewall rule', description: 'Opens the remove-rule form (admins)' },
  title: 'Remove firewall rule',
  modal: ({ targetId, channelId, privateMetadata, sandbox, reads }) =>
    firewallRemoveModal({
      channelId,
      privateMetadata,
      sandbox,
      ...(targetId !== undefined && reads?.rule ? { chosen: { vsId: targetId, rule: reads.rule } } : {}),
    }),
  formErrorBlock: 'confirm',
};

/**
 * `/vs firewall block 42 203.0.113.5 443`: the form prefilled with what the command named, and what the rule would do
 * given the rules as they are (first match in position order, the new rule at the end of the first interface's).
 */
function firewallPrefill(vsId: number, reads: FormReads, given: FormValues, limits?: FormLimits) {
  const rule = firewallRuleOf(given, reads);
  const preview = firewallPreviewText(rule, previewFirewallRule(reads.rules ?? [], rule));
  const risk = firewallRisk(rule, limits);
  const reason = typeof given.reason === 'string' ? given.reason : '';
  return {
    vsId,
    interfaces: reads.interfaces ?? [],
    networkInterfaceId: rule.network_interface_id,
    ...rule,
    preview,
    ...(risk ? { risk: FIREWALL_RISK_TEXT[risk] } : {}),
    ...(reason ? { reason } : {}),
  };
}

/** A new rule as a form's values say it (the interface: the one picked, else the first the server's rules name). */
function firewallRuleOf(values: FormValues, reads?: FormReads) {
  const word = (key: string): string => (typeof values[key] === 'string' ? values[key].trim() : '');
  const picked = /^[0-9]{1,15}$/.test(word('network_interface_id')) ? Number(word('network_interface_id')) : undefined;
  return {
    network_interface_id: picked ?? reads?.interfaces?.[0] ?? 0,
    command: word('command').toUpperCase() === 'ACCEPT' ? ('ACCEPT' as const) : ('DROP' as const),
    address: word('address'),
    port: word('port').replace(/-/g, ':'),
    protocol: word('protocol').toUpperCase() === 'UDP' ? ('UDP' as const) : ('TCP' as const),
  };
}

/** What a firewall rule's preview was worked out for: its interface, command, address, port and protocol. */
function firewallRuleKey(values: FormValues, reads?: FormReads): string | null {
  const rule = firewallRuleOf(values, reads);
  if (rule.network_interface_id === 0 || parseAddressForm(rule.address).kind === 'unreadable' || parsePortForm(rule.port).kind === 'unreadable') return null;
  return [rule.network_interface_id, rule.command, rule.address, rule.port, rule.protocol].join('|');
}

/** A form that shows what its values will do could not read its target in time to show it: nothing was sent. */
export const effectUnreadText = (vsId: number): string =>
  `VS ${vsId} could not be read in time to show what these values would do, so nothing was sent: submit again in a moment.`;

/** Why a form cannot open as its target stands (its row's `formReads`), in words. */
export function formUnfitText(vsId: number, unfit: FormUnfit): string {
  switch (unfit.kind) {
    case 'no_built_disk':
      return noBuiltDiskText(vsId, unfit.disks);
    case 'no_interface':
      return noInterfaceText(vsId);
    case 'no_such_rule':
      return noSuchRuleText(vsId, unfit.ruleId);
  }
}

/** A power action's row: its words, and its result (scheduled: the cloud runs it as a transaction, followed to its end). */
const powerRow = (o: { title: string; doing: string; allows: string }) => ({ form: powerForm, ...o, followed: POWER_FOLLOWED_WORDS });

export const CHANGE_FORMS: { readonly [A in ChangeAction]: ChangeForm } = {
  disk_add: {
    form: diskAddForm,
    title: 'Add disk',
    doing: 'Adding a disk',
    allows: 'add a disk to a server',
    followed: DISK_ADDED_WORDS,
  },
  backup_restore: {
    form: backupRestoreForm,
    title: 'Restore backup',
    doing: 'Restoring a backup',
    allows: 'restore a disk from a backup',
    followed: BACKUP_RESTORED_WORDS,
  },
  power_start: powerRow({ title: 'Start server', doing: 'Starting a server', allows: 'start a server' }),
  power_shutdown: powerRow({ title: 'Shut down server', doing: 'Shutting down a server', allows: 'shut down a server' }),
  power_reboot: powerRow({ title: 'Reboot server', doing: 'Rebooting a server', allows: 'reboot a server (into the recovery image: admins)' }),
  power_stop: powerRow({ title: 'Stop server', doing: 'Forcing a server off', allows: 'force a server off (stop)' }),
  backup_take: {
    form: backupTakeForm,
    title: 'Take backup',
    doing: 'Taking a backup',
    allows: 'take a backup of a disk',
    followed: BACKUP_TAKEN_WORDS,
  },
  firewall_add: {
    form: firewallAddForm,
    title: 'Add firewall rule',
    doing: 'Adding a firewall rule',
    allows: 'add a firewall rule (block or allow)',
    followed: FIREWALL_RULE_ADDED_WORDS,
  },
  firewall_remove: {
    form: firewallRemoveForm,
    title: 'Remove firewall rule',
    doing: 'Removing a firewall rule',
    allows: 'remove a firewall rule',
    followed: FIREWALL_RULE_REMOVED_WORDS,
  },
};

/** The change a submission of `form` makes: its only one, or the one its values choose. */
export function changeChosen(form: FormOfChanges, values: FormValues): ChangeAction | undefined {
  return form.chosenIn ? form.chosenIn(values) : changesOf(form)[0];
}

/** Every form, once each, in the order of the table of changes. */
export const FORMS: readonly FormOfChanges[] = [...new Set(CHANGE_ACTIONS.map((action) => CHANGE_FORMS[action].form))];

/** The changes a form makes, in the order of the table. */
export function changesOf(form: FormOfChanges): ChangeAction[] {
  return CHANGE_ACTIONS.filter((action) => CHANGE_FORMS[action].form === form);
}

/**
 * The change whose role is asked for when a form opens without a target (a shortcut, a Home tab button): of those it
 * makes, the one with the lowest role, so that whoever may make any of them may open it; the submission checks the
 * change chosen.
 */
export function openedAs(form: FormOfChanges): ChangeAction {
  const changes = changesOf(form);
  return changes.find((action) => changes.every((other) => atLeast(neededRole(other), neededRole(action))))!;
}

/** The action_id of the Home tab button that opens a form. */
export const homeFormButton = (form: FormOfChanges): string => `home_open_${form.callbackId}`;
