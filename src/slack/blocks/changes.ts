import { targetTitle, type Target } from '../../changes';
import type { Backup, Disk } from '../../cloud/schemas';
import { context, fallback, header, oneLine, safe, section, slackTime, userMention, withSandbox, type Rendered } from './mrkdwn';

// Results of changes, posted to the channel the change was asked from.

export function renderDiskAdded({ vsId, disk, user, sandbox }: { vsId: number; disk: Disk; user: string; sandbox: boolean }): Rendered {
  const state = disk.built ? 'built' : disk.locked ? 'being built (locked until it is ready)' : 'being built';
  const lines = [
    `*Disk ${disk.id}* on VS ${vsId}: ${disk.disk_size} GB${disk.disk_type ? ` ${safe(disk.disk_type, 10)}` : ''}`,
    `Label: ${disk.label ? safe(oneLine(disk.label), 600) : '_none_'}`,
    `Mount point: ${disk.mount_point ? `\`${safe(oneLine(disk.mount_point), 600).replace(/`/g, "'")}\`` : disk.is_swap ? '_swap_' : '_none_'}`,
    `State: ${state}`,
  ];
  return {
    text: fallback(`Disk ${disk.id} (${disk.disk_size} GB) added to VS ${vsId} by ${userMention(user)}`, sandbox),
    blocks: withSandbox([header(`Disk added · VS ${vsId}`), section(lines.join('\n')), context(`asked by ${userMention(user)}`)], sandbox),
  };
}

export function renderBackupRestored({ backup, user, reason, sandbox }: { backup: Backup; user: string; reason: string | null; sandbox: boolean }): Rendered {
  const target = backup.target_id != null ? `VS ${backup.target_id}` : 'its server';
  const os = [backup.operating_system, backup.operating_system_distro]
    .filter(Boolean)
    .map((s) => safe(s, 40))
    .join(' / ');
  const lines = [
    `*Backup ${backup.id}* restored onto ${target}${backup.disk_id != null ? `, disk ${backup.disk_id}` : ''}`,
    `Size: ${backup.backup_size != null ? formatKb(backup.backup_size) : '_unknown_'}`,
    `Operating system: ${os || '_unknown_'}`,
    `Backup taken: ${backup.built_at ? slackTime(backup.built_at) : '_unknown_'}`,
  ];
  // Free text from a user: one line, quoted, and said to be theirs, so it cannot pass for the bot's own lines.
  if (reason && reason.trim()) lines.push(`Reason given by ${userMention(user)}: “${safe(oneLine(reason).trim(), 500)}”`);
  return {
    text: fallback(`Backup ${backup.id} restored onto ${target} by ${userMention(user)}`, sandbox),
    blocks: withSandbox([header(`Backup restored · ${target}`), section(lines.join('\n')), context(`asked by ${userMention(user)}`)], sandbox),
  };
}

/** A 2xx whose answer could not be read: the change was applied, its details are unknown. */
export function appliedUnreadableText(target: Target, status: number | undefined): string {
  const accepted = `The cloud API accepted the change${status ? ` (HTTP ${status})` : ''}`;
  return `${accepted}, but its answer could not be read, so its details are not known here: check ${targetTitle(target)} before changing it again.`;
}

/** A change the cloud API accepted (2xx) with an answer that could not be read. */
export function renderAppliedUnreadable({
  title,
  target,
  user,
  status,
  sandbox,
}: {
  title: string;
  target: Target;
  user: string;
  status: number | undefined;
  sandbox: boolean;
}): Rendered {
  return {
    text: fallback(`${title} on ${targetTitle(target)} by ${userMention(user)}: applied, but the cloud API's answer could not be read`, sandbox),
    blocks: withSandbox(
      [header(`${title} · ${targetTitle(target)} · applied`), section(appliedUnreadableText(target, status)), context(`asked by ${userMention(user)}`)],
      sandbox,
    ),
  };
}

/** backup_size is in KB in the observed data. */
function formatKb(kb: number): string {
  if (kb >= 1024 * 1024) return `${(kb / 1024 / 1024).toFixed(1)} GB`;
  if (kb >= 1024) return `${(kb / 1024).toFixed(1)} MB`;
  return `${kb} KB`;
}
