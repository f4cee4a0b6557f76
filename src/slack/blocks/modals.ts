import type { InputBlock, KnownBlock, ModalView, PlainTextOption } from '@slack/types';
import { POWER_CHOICE_NAMES, type BackupState, type PowerChoice, type ServerState } from '../../changes';
import type { Frozen } from '../../cloud/reads';
import type { Backup, Disk, FirewallRule } from '../../cloud/schemas';
import { ruleLine } from './firewall-rule';
import { backupFacts, backupOptionText, lossText, overwritesText } from './backups';
import { LIMITS, section, truncate, withSandbox } from './mrkdwn';
import { POWER_CHOICE_WORDS, POWER_SUBMIT_WORDS, serverLine } from './power';

// The change forms. Each input's block_id and action_id are the name of
// the API parameter it fills (docs/product.md, Modals), so validation messages keyed by
// parameter go straight back onto the field.

const plain = (text: string) => ({ type: 'plain_text' as const, text, emoji: true });
const option = (value: string, text: string, description?: string): PlainTextOption => ({
  text: plain(text),
  value,
  ...(description ? { description: plain(description) } : {}),
});

function input(id: string, label: string, element: InputBlock['element'], o: { optional?: boolean; hint?: string } = {}): InputBlock {
  return { type: 'input', block_id: id, label: plain(label), element, optional: o.optional ?? false, ...(o.hint ? { hint: plain(o.hint) } : {}) };
}

function flag(id: string, text: string, description: string, checked: boolean): InputBlock {
  const opt = option('true', text, description);
  return input(id, text, { type: 'checkboxes', action_id: id, options: [opt], ...(checked ? { initial_options: [opt] } : {}) }, { optional: true });
}

function channelInput(chosen?: string): InputBlock {
  return input(
    'channel',
    'Post the result in',
    {
      type: 'conversations_select',
      action_id: 'channel',
      ...(chosen ? { initial_conversation: chosen } : { default_to_current_conversation: true }),
      response_url_enabled: true,
      filter: { include: ['public', 'private'], exclude_bot_users: true },
    },
    { hint: 'The channel that sees the result (and where changes must be allowed).' },
  );
}

function idInput(id: 'vs_id' | 'backup_id' | 'disk_id' | 'rule_id' | 'network_interface_id', label: string, example: string): InputBlock {
  // A server is also named by its label, hostname or address (up to a hostname's 253 characters); the others by their id.
  return input(id, label, { type: 'plain_text_input', action_id: id, max_length: id === 'vs_id' ? 253 : 16, placeholder: plain(example) });
}

export interface DiskAddModalOptions {
  /** Undefined when opened from the global shortcut: the form then asks for it. */
  vsId?: number;
  /** Undefined when opened from the global shortcut: the form then asks for it. */
  channelId?: string;
  privateMetadata: string;
  sandbox: boolean;
  /** Initial values by API parameter name (e.g. to reopen a form as it was); the defaults otherwise. */
  values?: DiskAddInitialValues;
}

export interface DiskAddInitialValues {
  disk_type?: 'HDD' | 'SSD';
  disk_size?: number;
  label?: string;
  mount_point?: string;
  file_system?: 'ext3' | 'ext4';
  min_iops?: number;
  primary?: boolean;
  is_swap?: boolean;
  hot_attach?: boolean;
  add_to_linux_fstab?: boolean;
  add_to_freebsd_fstab?: boolean;
  require_format_disk?: boolean;
}

/**
 * The form's defaults: a formatted SSD, hot attached. Not in an fstab: an fstab line needs a mount point, which the
 * form cannot guess, so a form submitted as it opens (a size typed, nothing else) is accepted (docs/product.md, One
 * outcome: "its defaults never contradict each other").
 */
export const DISK_ADD_DEFAULTS = {
  disk_type: 'SSD',
  hot_attach: true,
  add_to_linux_fstab: false,
  require_format_disk: true,
  primary: false,
  is_swap: false,
  add_to_freebsd_fstab: false,
} as const;

const initialText = (value: string | undefined, max: number) => (value ? { initial_value: truncate(value, max) } : {});
const initialNumber = (value: number | undefined) => (value !== undefined && Number.isSafeInteger(value) && value > 0 ? { initial_value: String(value) } : {});

export function diskAddModal({ vsId, channelId, privateMetadata, sandbox, values = {} }: DiskAddModalOptions): ModalView {
  const initial = { ...DISK_ADD_DEFAULTS, ...values };
  const diskType = [option('SSD', 'SSD'), option('HDD', 'HDD')];
  const fileSystems = [option('ext4', 'ext4'), option('ext3', 'ext3')];
  const chosenFileSystem = fileSystems.find((o) => o.value === initial.file_system);
  const blocks: KnownBlock[] = [];
  if (vsId === undefined) blocks.push(idInput('vs_id', 'Server (VS) id', 'e.g. 42, or a name: web-1'));
  else blocks.push(section(`Add a disk to *VS ${vsId}*. It is created at once and built in the background.`));
  if (channelId === undefined) blocks.push(channelInput());
  blocks.push(
    input('disk_type', 'Disk type', {
      type: 'static_select',
      action_id: 'disk_type',
      options: diskType,
      initial_option: diskType.find((o) => o.value === initial.disk_type) ?? diskType[0],
    }),
    input(
      'disk_size',
      'Size (GB)',
      {
        type: 'number_input',
        action_id: 'disk_size',
        is_decimal_allowed: false,
        min_value: '1',
        placeholder: plain('e.g. 20'),
        ...initialNumber(initial.disk_size),
      },
      { hint: 'Whole gigabytes, at least 1.' },
    ),
    input(
      'label',
      'Label',
      { type: 'plain_text_input', action_id: 'label', max_length: 255, placeholder: plain('e.g. data'), ...initialText(initial.label, 255) },
      { optional: true },
    ),
    input(
      'mount_point',
      'Mount point',
      { type: 'plain_text_input', action_id: 'mount_point', max_length: 256, placeholder: plain('/mnt/data'), ...initialText(initial.mount_point, 256) },
      { optional: true, hint: 'An absolute path, e.g. /mnt/data: where an fstab line mounts it at boot. Leave empty for a swap disk.' },
    ),
    flag('require_format_disk', 'Format the disk', 'Create a file system on the new disk', initial.require_format_disk),
    input(
      'file_system',
      'File system',
      { type: 'static_select', action_id: 'file_system', options: fileSystems, ...(chosenFileSystem ? { initial_option: chosenFileSystem } : {}) },
      { optional: true, hint: 'Only with "Format the disk". ext3 when not chosen.' },
    ),
    flag('add_to_linux_fstab', 'Add to Linux fstab', 'Mount it at boot at the mount point above (Linux servers)', initial.add_to_linux_fstab),
    flag('add_to_freebsd_fstab', 'Add to FreeBSD fstab', 'Mount it at boot at the mount point above (FreeBSD servers)', initial.add_to_freebsd_fstab),
    flag('hot_attach', 'Hot attach', 'Attach without stopping the server', initial.hot_attach),
    flag('primary', 'Primary disk', 'Make it the primary disk of the server', initial.primary),
    flag('is_swap', 'Swap disk', 'Use the disk as swap (no mount point, no file system)', initial.is_swap),
    input(
      'min_iops',
      'Minimum IOPS',
      { type: 'number_input', action_id: 'min_iops', is_decimal_allowed: false, min_value: '1', ...initialNumber(initial.min_iops) },
      { optional: true, hint: 'Only for storage backends that guarantee IOPS; leave empty otherwise.' },
    ),
  );
  return {
    type: 'modal',
    callback_id: 'disk_add',
    private_metadata: privateMetadata,
    title: plain(truncate(vsId === undefined ? 'Add disk' : `Add disk · VS ${vsId}`, LIMITS.modalTitle)),
    submit: plain('Add disk'),
    close: plain('Cancel'),
    blocks: withSandbox(blocks, sandbox),
  };
}

export interface BackupRestoreModalOptions {
  /** Undefined when opened for a server (a picker of its backups) or from the global shortcut (the form asks for it). */
  backupId?: number;
  channelId?: string;
  privateMetadata: string;
  sandbox: boolean;
  /** The backup as read just now, when opened for one: what it overwrites, when it was taken, its size and type. */
  state?: BackupState;
  /** Opened for a server (`/vs restore 42`, a Restore button): its usable backups, newest first, and the one picked already. */
  pick?: RestorePick;
  /** The bot's clock, for how long ago each backup was taken. */
  now: number;
}

/** A server's usable backups to pick from in the restore form (action_id `backup_id`). */
export interface RestorePick {
  vsId: number;
  backups: readonly Frozen<Backup>[];
  chosen?: number;
}

const UNDONE = 'This cannot be undone.';

/**
 * The restore form (docs/product.md, Restore with eyes open): for one backup, what it overwrites and what is lost;
 * for a server, a picker of its usable backups, each with when it was taken, how long ago, its size, type and disk;
 * from the shortcut, the backup id asked for. Then the backup id typed again and the reason.
 */
export function backupRestoreModal({ backupId, channelId, privateMetadata, sandbox, state, pick, now }: BackupRestoreModalOptions): ModalView {
  const blocks: KnownBlock[] = [];
  if (pick) {
    // A select takes at most 100 options: the newest, and the one a Restore button chose wherever it stands.
    const newest = pick.backups.slice(0, LIMITS.selectOptions);
    const chosen = pick.backups.find((b) => b.id === pick.chosen);
    const offered = chosen && !newest.includes(chosen) ? [...newest.slice(0, -1), chosen] : newest;
    const options = offered.map((b) => option(String(b.id), backupOptionText(b, now)));
    const initial = options.find((o) => o.value === String(pick.chosen));
    const older =
      pick.backups.length > offered.length
        ? ` The newest ${offered.length} of ${pick.backups.length} are offered; for an older one, \`/vs backup restore <backup_id>\`.`
        : '';
    blocks.push(
      section(`Restore a backup of *VS ${pick.vsId}*: its usable backups, newest first.${older} Each is read again before anything is sent.`),
      input('backup_id', 'Backup', { type: 'static_select', action_id: 'backup_id', options, ...(initial ? { initial_option: initial } : {}) }),
      section(
        `:warning: *Restoring overwrites the disk the backup was taken of, on VS ${pick.vsId}:* everything written to that disk since the backup ` +
          `was taken is lost. ${UNDONE}`,
      ),
    );
  } else if (backupId !== undefined && state) {
    const { backup } = state;
    blocks.push(
      section(`:warning: *Restoring backup ${backupId} overwrites ${overwritesText(backup)}:* ${lossText(backup, now)}. ${UNDONE}`),
      section(`${backupFacts(backup)}
It was read just now, and is read again before anything is sent.`),
    );
  } else {
    if (backupId === undefined) blocks.push(idInput('backup_id', 'Backup id', 'e.g. 9'));
    const which = backupId === undefined ? 'the backup' : `backup *${backupId}*`;
    blocks.push(
      section(
        `:warning: *Restoring overwrites the disk* with the contents of ${which}: everything written to that disk since the backup was taken is lost. ` +
          `The backup is read before anything is sent. ${UNDONE}`,
      ),
    );
  }
  if (channelId === undefined) blocks.push(channelInput());
  const confirm =
    backupId !== undefined
      ? `Type ${backupId} to confirm`
      : pick
        ? 'Type the number of the backup you picked (#…) to confirm'
        : 'Type the backup id again to confirm';
  blocks.push(
    input('confirm', confirm, { type: 'plain_text_input', action_id: 'confirm', max_length: 16 }),
    input(
      'reason',
      'Reason (kept in the audit trail)',
      { type: 'plain_text_input', action_id: 'reason', multiline: true, max_length: 500, placeholder: plain('e.g. data corrupted by the 14:00 deploy') },
      // Required (docs/product.md, Modals): whoever approves, and the audit, read why the disk is overwritten.
      { hint: 'Required: whoever approves it and the audit trail read it.' },
    ),
  );
  const title = backupId !== undefined ? `Restore backup ${backupId}` : pick ? `Restore · VS ${pick.vsId}` : 'Restore backup';
  return {
    type: 'modal',
    callback_id: 'backup_restore',
    private_metadata: privateMetadata,
    title: plain(truncate(title, LIMITS.modalTitle)),
    submit: plain('Restore'),
    close: plain('Cancel'),
    blocks: withSandbox(blocks, sandbox),
  };
}

export interface BackupTakeModalOptions {
  /** Undefined when opened from the global shortcut: the form then asks for the server and the disk by id. */
  pick?: BackupTakePick;
  /** Undefined when opened from the global shortcut: the form then asks for it. */
  channelId?: string;
  privateMetadata: string;
  sandbox: boolean;
}

/** A backup taken from `/vs backup take <vs_id>`: the server's built disks to pick from (the form's `disk_id`). */
export interface BackupTakePick {
  vsId: number;
  disks: readonly Disk[];
}

/** The take-a-backup form (callback id `backup_take`): the disk, an optional note, a reason. */
export function backupTakeModal({ pick, channelId, privateMetadata, sandbox }: BackupTakeModalOptions): ModalView {
  const blocks: KnownBlock[] = [];
  if (pick) {
    const options = pick.disks.slice(0, LIMITS.selectOptions).map((d) => {
      const words = [`#${d.id}`, `${d.disk_size} GB`, ...(d.label ? [d.label] : []), ...(d.primary ? ['primary'] : []), ...(d.is_swap ? ['swap'] : [])];
      return option(String(d.id), truncate(words.join(' · '), 75));
    });
    const only = options.length === 1 ? { initial_option: options[0]! } : {};
    blocks.push(
      section(
        `Take a backup of one of *VS ${pick.vsId}*'s built disks now. The cloud takes it as a transaction; the result says when it is built, and its size.`,
      ),
      input('disk_id', 'Disk', { type: 'static_select', action_id: 'disk_id', options, ...only }),
    );
  } else {
    blocks.push(
      section('Take a backup of one disk of a server now. The cloud takes it as a transaction; the result says when it is built, and its size.'),
      idInput('vs_id', 'Server id', 'e.g. 42'),
      idInput('disk_id', 'Disk id', 'e.g. 101'),
    );
  }
  if (channelId === undefined) blocks.push(channelInput());
  blocks.push(
    input(
      'note',
      'Note (shown with the backup)',
      { type: 'plain_text_input', action_id: 'note', max_length: 200, placeholder: plain('e.g. before the 14:00 deploy') },
      { optional: true },
    ),
    input(
      'reason',
      'Reason (kept in the audit trail)',
      { type: 'plain_text_input', action_id: 'reason', multiline: true, max_length: 500, placeholder: plain('e.g. schema migration at 14:00') },
      { hint: 'Required: whoever approves it and the audit trail read it.' },
    ),
  );
  return {
    type: 'modal',
    callback_id: 'backup_take',
    private_metadata: privateMetadata,
    title: plain(truncate(pick ? `Backup · VS ${pick.vsId}` : 'Take a backup', LIMITS.modalTitle)),
    submit: plain('Take backup'),
    close: plain('Cancel'),
    blocks: withSandbox(blocks, sandbox),
  };
}

export interface FirewallRemoveModalOptions {
  /** The server and its rule, read before the form opened; undefined from the global shortcut (the form asks for both ids). */
  chosen?: { vsId: number; rule: FirewallRule };
  channelId?: string;
  privateMetadata: string;
  sandbox: boolean;
}

/** The remove-a-firewall-rule form (callback id `firewall_remove`): the rule in words, its id typed again, a reason. */
export function firewallRemoveModal({ chosen, channelId, privateMetadata, sandbox }: FirewallRemoveModalOptions): ModalView {
  const blocks: KnownBlock[] = [];
  if (chosen) {
    blocks.push(
      section(`:warning: *Removing rule ${chosen.rule.id} of VS ${chosen.vsId}*, then applying the server's rules:\n${ruleLine(chosen.rule)}`),
      section("Traffic it decided is then decided by the rules after it, or by the interface's default. It was read just now."),
    );
  } else {
    blocks.push(
      section(":warning: *Removing a firewall rule*, then applying the server's rules: traffic it decided is then decided by the rules after it."),
      idInput('vs_id', 'Server id', 'e.g. 42'),
      idInput('rule_id', 'Rule id', 'e.g. 3'),
    );
  }
  if (channelId === undefined) blocks.push(channelInput());
  blocks.push(
    input('confirm', chosen ? `Type ${chosen.rule.id} to confirm` : 'Type the rule id again to confirm', {
      type: 'plain_text_input',
      action_id: 'confirm',
      max_length: 16,
    }),
    input(
      'reason',
      'Reason (kept in the audit trail)',
      {
        type: 'plain_text_input',
        action_id: 'reason',
        multiline: true,
        max_length: 500,
        placeholder: plain('e.g. the temporary block for the 14:00 incident'),
      },
      { hint: 'Required: whoever approves it and the audit trail read it.' },
    ),
  );
  return {
    type: 'modal',
    callback_id: 'firewall_remove',
    private_metadata: privateMetadata,
    title: plain(truncate(chosen ? `Remove rule ${chosen.rule.id}` : 'Remove firewall rule', LIMITS.modalTitle)),
    submit: plain('Remove rule'),
    close: plain('Cancel'),
    blocks: withSandbox(blocks, sandbox),
  };
}

export interface FirewallAddModalOptions {
  /** The server, its interfaces and what the command named, read before the form opened; undefined from the shortcut. */
  prefill?: FirewallAddPrefill;
  channelId?: string;
  /** The channel picked in the shortcut's form, shown again with its preview. */
  channelPicked?: string;
  privateMetadata: string;
  sandbox: boolean;
}

export interface FirewallAddPrefill {
  vsId: number;
  /** The server's network interfaces, as its rules name them: one is chosen for you (and not asked). */
  interfaces: readonly number[];
  /** The interface the preview is for (the first, unless one was picked). */
  networkInterfaceId: number;
  /** The reason typed before the preview was shown again. */
  reason?: string;
  command: 'DROP' | 'ACCEPT';
  address: string;
  port: string;
  protocol: 'TCP' | 'UDP';
  /** What the rule would do given the rules as they are, in words (blocks/firewall.ts). */
  preview: string;
  /** Why it asks for a second confirmation, if it does. */
  risk?: string;
}

/** The add-a-firewall-rule form (callback id `firewall_add`). */
export function firewallAddModal({ prefill, channelId, channelPicked, privateMetadata, sandbox }: FirewallAddModalOptions): ModalView {
  const blocks: KnownBlock[] = [];
  const select = (id: string, label: string, values: readonly string[], chosen?: string) => {
    const options = values.map((v) => option(v, v));
    const initial = options.find((o) => o.value === chosen);
    return input(id, label, { type: 'static_select', action_id: id, options, ...(initial ? { initial_option: initial } : {}) });
  };
  if (prefill) {
    blocks.push(section(`Add a firewall rule to *VS ${prefill.vsId}*, at the end of its interface's rules, then apply its rules.\n${prefill.preview}`));
    if (prefill.interfaces.length > 1) {
      blocks.push(select('network_interface_id', 'Network interface', prefill.interfaces.map(String), String(prefill.networkInterfaceId)));
    }
  } else {
    blocks.push(
      section("Add a firewall rule to a server, at the end of its interface's rules, then apply its rules."),
      idInput('vs_id', 'Server id', 'e.g. 42'),
      idInput('network_interface_id', 'Network interface id', 'e.g. 105'),
    );
  }
  if (channelId === undefined) blocks.push(channelInput(channelPicked));
  blocks.push(
    select('command', 'Command', ['DROP', 'ACCEPT'], prefill?.command),
    input(
      'address',
      'Address',
      {
        type: 'plain_text_input',
        action_id: 'address',
        max_length: 100,
        ...initialText(prefill?.address, 100),
        placeholder: plain('203.0.113.5, 192.0.2.0/24 or a range'),
      },
      { optional: true, hint: 'Empty: every address.' },
    ),
    input(
      'port',
      'Port',
      { type: 'plain_text_input', action_id: 'port', max_length: 100, ...initialText(prefill?.port, 100), placeholder: plain('443, 80,443 or 1024:1028') },
      { optional: true, hint: 'Empty: every port.' },
    ),
    select('protocol', 'Protocol', ['TCP', 'UDP'], prefill?.protocol ?? 'TCP'),
  );
  if (prefill?.risk) blocks.push(section(`:warning: ${prefill.risk}`));
  blocks.push(
    flag('confirm_risk', 'I know this rule may cut access', "Needed to drop SSH (22) for everyone, or the bot's own address", false),
    input(
      'reason',
      'Reason (kept in the audit trail)',
      {
        type: 'plain_text_input',
        action_id: 'reason',
        multiline: true,
        max_length: 500,
        ...initialText(prefill?.reason, 500),
        placeholder: plain('e.g. scanner hitting the login page'),
      },
      { hint: 'Required: whoever approves it and the audit trail read it.' },
    ),
  );
  return {
    type: 'modal',
    callback_id: 'firewall_add',
    private_metadata: privateMetadata,
    title: plain(truncate(prefill ? `Firewall rule · VS ${prefill.vsId}` : 'Add firewall rule', LIMITS.modalTitle)),
    submit: plain('Add rule'),
    close: plain('Cancel'),
    blocks: withSandbox(blocks, sandbox),
  };
}

export interface PowerModalOptions {
  /** Undefined when opened from the global shortcut: the form then asks for it. */
  vsId?: number;
  /** Undefined when opened from the global shortcut: the form then asks for it. */
  channelId?: string;
  privateMetadata: string;
  sandbox: boolean;
  /** The server as it was read before the form opened; unknown from the shortcut (read when it is submitted). */
  state?: ServerState;
  /** The actions offered (those the role and the state allow); every one when not given. */
  choices?: readonly PowerChoice[];
  /** The action chosen already (the command's). */
  chosen?: PowerChoice;
}

/** The power form (docs/product.md, Power actions): the server and its state, the action, a reason, the server id typed again. */
export function powerModal({ vsId, channelId, privateMetadata, sandbox, state, choices = POWER_CHOICE_NAMES, chosen }: PowerModalOptions): ModalView {
  const options = choices.map((choice) => option(choice, POWER_CHOICE_WORDS[choice]));
  const initial = options.find((o) => o.value === chosen);
  const blocks: KnownBlock[] = [];
  if (vsId === undefined) blocks.push(idInput('vs_id', 'Server (VS) id', 'e.g. 42, or a name: web-1'));
  else if (state) blocks.push(section(`${serverLine(vsId, state)}\nIt was read just now, and is read again before anything is sent.`));
  if (channelId === undefined) blocks.push(channelInput());
  blocks.push(
    input('power_action', 'Action', { type: 'static_select', action_id: 'power_action', options, ...(initial ? { initial_option: initial } : {}) }),
    section(':warning: A shutdown, a reboot or a stop interrupts whatever runs on the server; a stop is a forced power-off, like pulling the plug.'),
    input('confirm', vsId === undefined ? 'Type the server id again to confirm' : `Type ${vsId} to confirm`, {
      type: 'plain_text_input',
      action_id: 'confirm',
      max_length: 16,
    }),
    input('reason', 'Reason (kept in the audit trail)', {
      type: 'plain_text_input',
      action_id: 'reason',
      multiline: true,
      max_length: 500,
      placeholder: plain('e.g. unresponsive since the 14:00 deploy'),
    }),
  );
  return {
    type: 'modal',
    callback_id: 'vs_power',
    private_metadata: privateMetadata,
    title: plain(truncate(vsId === undefined ? 'Power action' : `Power · VS ${vsId}`, LIMITS.modalTitle)),
    // The action it was opened for (docs/product.md, One outcome: submit buttons name the action); from the shortcut, none yet.
    submit: plain(chosen ? POWER_SUBMIT_WORDS[chosen] : 'Send power action'),
    close: plain('Cancel'),
    blocks: withSandbox(blocks, sandbox),
  };
}

type StateEntry = {
  type?: string;
  value?: string | null;
  selected_option?: { value?: string } | null;
  selected_options?: unknown[] | null;
  selected_conversation?: string | null;
  selected_channel?: string | null;
};

/** Flattens view.state.values into { action_id: value }: selects to their value, checkboxes to booleans. */
export function viewStateToValues(state: unknown): Record<string, string | boolean | undefined> {
  const out: Record<string, string | boolean | undefined> = {};
  if (!state || typeof state !== 'object') return out;
  for (const block of Object.values(state as Record<string, unknown>)) {
    if (!block || typeof block !== 'object') continue;
    for (const [actionId, raw] of Object.entries(block as Record<string, unknown>)) {
      if (!raw || typeof raw !== 'object') continue;
      const e = raw as StateEntry;
      if (e.type === 'checkboxes') out[actionId] = Array.isArray(e.selected_options) && e.selected_options.length > 0;
      else if (e.selected_option !== undefined) out[actionId] = typeof e.selected_option?.value === 'string' ? e.selected_option.value : undefined;
      else if (e.selected_conversation !== undefined) out[actionId] = e.selected_conversation ?? undefined;
      else if (e.selected_channel !== undefined) out[actionId] = e.selected_channel ?? undefined;
      else out[actionId] = typeof e.value === 'string' ? e.value : undefined;
    }
  }
  return out;
}

/** Field messages as `response_action: errors` wants them: keyed by block id (= action id), within Slack's length. */
export function fieldErrorsToBlockErrors(fieldErrors: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(fieldErrors).map(([field, message]) => [field, truncate(message, LIMITS.errorMessage)]));
}
