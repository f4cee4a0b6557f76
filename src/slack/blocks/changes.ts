import { factNumber, OUTCOME_SIGNS, RestoreFacts, targetTitle, type Fact, type Target } from '../../changes';
import { restoreConsequence } from './backups';
import { sizeFromKb } from './measures';
import { factCode, factText, reasonLine, type Facts, type FollowedWords } from './followed';
import { context, fallback, header, safe, section, slackTime, userMention, withSandbox, type Rendered } from './mrkdwn';

// Results of changes, posted to the channel the change was asked from: a change the cloud accepted is followed there
// (followed.ts, with these words of what each change is), one whose answer could not be read says so.

/** An added disk, from the facts its row kept (src/changes/definitions.ts): what was asked, and what done means. */
export const DISK_ADDED_WORDS: FollowedWords = {
  about: (facts) => [
    `*Disk ${factNumber(facts.diskId) ?? '?'}* on VS ${factNumber(facts.vsId) ?? '?'}: ${factNumber(facts.diskSize) ?? '?'} GB${
      typeof facts.diskType === 'string' && facts.diskType ? ` ${safe(facts.diskType, 10)}` : ''
    }`,
    `Label: ${factText(facts.label)}`,
    `Mount point: ${typeof facts.mountPoint === 'string' && facts.mountPoint ? factCode(facts.mountPoint, 600) : facts.isSwap === true ? '_swap_' : '_none_'}`,
  ],
  done: (facts, state) =>
    state?.missing === true
      ? `disk ${factNumber(facts.diskId) ?? '?'} is no longer listed on VS ${factNumber(facts.vsId) ?? '?'}`
      : `disk ${factNumber(facts.diskId) ?? '?'} is built and unlocked`,
  left: (facts, state) => {
    const vsId = factNumber(facts.vsId);
    const disk = `disk ${factNumber(facts.diskId) ?? '?'} (${factNumber(facts.diskSize) ?? '?'} GB)`;
    if (state?.missing === true) return `nothing was left: ${disk} is no longer listed on ${vsId === null ? 'its server' : `VS ${vsId}`}`;
    if (state?.built === false) return `${disk} exists but is not built: remove it in the control panel`;
    if (state?.built === true) return `${disk} is built, but what followed its build did not finish: check it, or remove it in the control panel`;
    return `${disk} may have been left on ${vsId === null ? 'its server' : `VS ${vsId}`}: check its disks${vsId === null ? '' : ` (\`/vs disks ${vsId}\`)`}`;
  },
};

/** A backup taken, from the facts its row kept: the disk, the note and why; done when the new backup is built, with its size. */
export const BACKUP_TAKEN_WORDS: FollowedWords = {
  about: (facts, requestedBy) => [
    `*Backup ${factNumber(facts.backupId) ?? '?'}* of disk ${factNumber(facts.diskId) ?? '?'} on VS ${factNumber(facts.vsId) ?? '?'}`,
    `Note: ${factText(facts.note)}`,
    ...reasonLine(typeof facts.reason === 'string' ? facts.reason : '', requestedBy),
  ],
  done: (facts, state) => {
    const size = factNumber(state?.backupSize);
    return `backup ${factNumber(facts.backupId) ?? '?'} is built${size !== null ? `: ${sizeFromKb(size)}` : ', its size not given'}`;
  },
  left: (facts, state) => {
    const vsId = factNumber(facts.vsId);
    const backup = `backup ${factNumber(facts.backupId) ?? '?'}`;
    if (state?.missing === true) return `nothing was left: ${backup} is no longer listed`;
    const where = vsId === null ? '' : ` (\`/vs backups ${vsId}\`)`;
    return `${backup} may have been left unbuilt: check its backups${where}, and delete it in the control panel if it is not usable`;
  },
};

/** A firewall rule added and the server's rules applied: done when the server is unlocked, with the port question answered again. */
export const FIREWALL_RULE_ADDED_WORDS: FollowedWords = {
  about: (facts, requestedBy) => [
    `*Firewall rule ${factNumber(facts.ruleId) ?? '?'}* on VS ${factNumber(facts.vsId) ?? '?'}: ${ruleWords(facts)}, then its rules applied`,
    ...reasonLine(typeof facts.reason === 'string' ? facts.reason : '', requestedBy),
  ],
  done: (facts, state) => {
    const port = factNumber(state?.askedPort);
    const verdict = typeof state?.verdict === 'string' ? safe(state.verdict, 40) : null;
    const protocol = facts.protocol === 'UDP' ? 'udp' : 'tcp';
    if (port === null || !verdict) return 'the rules are applied';
    const asked = `port ${port}/${protocol} from ${addressWords(facts.address)}`;
    // The new rule lands at the end: a rule above it that decides the other way is said, not hidden behind "now".
    const against = verdict === (facts.command === 'ACCEPT' ? 'dropped' : 'accepted');
    if (against) {
      const which = `\`/vs firewall ${factNumber(facts.vsId) ?? ''} ${port}${protocol === 'udp' ? '/udp' : ''}\``;
      return `the rules are applied; ${asked} is still ${verdict}: a rule above the new one decides first (${which} says which)`;
    }
    return `the rules are applied; ${asked} is now ${verdict}`;
  },
  left: (facts) => {
    const check = `\`/vs firewall ${factNumber(facts.vsId) ?? ''}\``;
    return `rule ${factNumber(facts.ruleId) ?? '?'} was stored, but applying the rules did not finish: check ${check} and apply them in the control panel`;
  },
};

const addressWords = (address: Fact | undefined): string => (typeof address === 'string' && address ? `\`${safe(address, 60)}\`` : 'every address');

/** "DROP `203.0.113.5` on port 443/tcp", from a rule's facts. */
function ruleWords(facts: Facts): string {
  const port = typeof facts.port === 'string' && facts.port ? `port ${safe(facts.port, 60)}` : 'every port';
  return `${facts.command === 'ACCEPT' ? 'ACCEPT' : 'DROP'} ${addressWords(facts.address)} on ${port}/${facts.protocol === 'UDP' ? 'udp' : 'tcp'}`;
}

/** A firewall rule removed and the server's rules applied: done when the server is unlocked, the rule no longer listed. */
export const FIREWALL_RULE_REMOVED_WORDS: FollowedWords = {
  about: (facts, requestedBy) => [
    `*Removal of firewall rule ${factNumber(facts.ruleId) ?? '?'}* on VS ${factNumber(facts.vsId) ?? '?'}, then its rules applied`,
    ...reasonLine(typeof facts.reason === 'string' ? facts.reason : '', requestedBy),
  ],
  done: (facts, state) =>
    state?.ruleListed === true
      ? `the rules were applied, but rule ${factNumber(facts.ruleId) ?? '?'} is still listed: check \`/vs firewall ${factNumber(facts.vsId) ?? ''}\``
      : `rule ${factNumber(facts.ruleId) ?? '?'} is gone and the server's rules are applied`,
  left: (facts) => {
    const vsId = factNumber(facts.vsId);
    const check = `\`/vs firewall ${vsId ?? ''}\``;
    return `rule ${factNumber(facts.ruleId) ?? '?'} was removed, but applying the rules did not finish: check ${check} and apply them in the control panel`;
  },
};

/**
 * A restored backup, from the facts its row kept: what was asked and why, and what it overwrites and loses in the words
 * of its form and approval request (restoreConsequence), its ages counted to when the cloud accepted it.
 */
export const BACKUP_RESTORED_WORDS: FollowedWords = {
  about: (facts, requestedBy, acceptedAtMs) => {
    const vsId = factNumber(facts.vsId);
    const diskId = factNumber(facts.diskId);
    const size = factNumber(facts.backupSize);
    const builtAt = typeof facts.builtAt === 'string' && facts.builtAt ? facts.builtAt : null;
    const lines = [
      // What was asked, never words that read as done while it is scheduled (docs/product.md, One outcome).
      `*Restore of backup ${factNumber(facts.backupId) ?? '?'}* onto ${vsId !== null ? `VS ${vsId}` : 'its server'}` +
        (diskId !== null ? `, disk ${diskId}` : ''),
      `Size: ${size !== null ? sizeFromKb(size) : '_unknown_'}`,
      `Operating system: ${typeof facts.operatingSystem === 'string' && facts.operatingSystem ? safe(facts.operatingSystem, 80) : '_unknown_'}`,
      `Backup taken: ${builtAt ? slackTime(builtAt) : '_unknown_'}`,
    ];
    const restores = RestoreFacts.safeParse({
      id: factNumber(facts.backupId),
      disk_id: diskId,
      target_id: vsId,
      target_type: vsId === null ? null : 'VirtualMachine',
      built_at: builtAt,
      created_at: null,
      backup_size: size,
      backup_type: typeof facts.backupType === 'string' ? facts.backupType : null,
    });
    if (restores.success) lines.push(`${restoreConsequence(restores.data, acceptedAtMs)}.`);
    if (typeof facts.reason === 'string') lines.push(...reasonLine(facts.reason, requestedBy));
    return lines;
  },
  done: (facts) => {
    const diskId = factNumber(facts.diskId);
    const backupId = factNumber(facts.backupId) ?? '?';
    return diskId !== null ? `backup ${backupId} is restored onto disk ${diskId}, and the disk is unlocked` : `backup ${backupId} is restored and unlocked`;
  },
  left: (facts, state) => {
    const vsId = factNumber(facts.vsId);
    const diskId = factNumber(facts.diskId);
    const disk = diskId !== null ? `disk ${diskId}${vsId !== null ? ` of VS ${vsId}` : ''}` : 'the disk it restores onto';
    const locked = state?.diskLocked === true || state?.backupLocked === true ? ' (still locked: the restore may still be running)' : '';
    return `${disk} may be partly overwritten${locked}: check it before using it; backup ${factNumber(facts.backupId) ?? '?'} itself is unchanged`;
  },
};

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
    text: fallback(`${title} on ${targetTitle(target)} by ${userMention(user)}: unknown, the cloud API's answer could not be read`, sandbox),
    blocks: withSandbox(
      [
        header(`${title} · ${targetTitle(target)}`),
        section(`${OUTCOME_SIGNS.unknown} *Unknown*: ${appliedUnreadableText(target, status)}`),
        context(`asked by ${userMention(user)}`),
      ],
      sandbox,
    ),
  };
}
