import type { Frozen } from '../../cloud/reads';
import type { Disk } from '../../cloud/schemas';
import { chunkLines, code, context, fallback, header, oneLine, safe, section, slackTime, withSandbox, type Rendered } from './mrkdwn';

// `/vs disks <vs_id>` (docs/product.md, The /vs command): a server's disks,
// one line each, the same line as on the server's card.

type DiskRecord = Frozen<Disk> | Disk;

/** "`#101` 20 GB SSD · web-1 root · primary · mounted at `/` · built", locked or not built said plainly. */
export function diskLine(disk: DiskRecord): string {
  const parts = [`\`#${disk.id}\` ${disk.disk_size} GB${disk.disk_type ? ` ${safe(oneLine(disk.disk_type), 10)}` : ''}`];
  if (disk.label) parts.push(safe(oneLine(disk.label), 60));
  if (disk.is_swap) parts.push('swap');
  else if (disk.primary) parts.push('primary');
  if (disk.mount_point) parts.push(`mounted at ${code(disk.mount_point, 60)}`);
  parts.push(disk.built === false ? ':construction: not built' : 'built');
  if (disk.locked) parts.push(':lock: locked');
  return parts.join(' · ');
}

/** Primary first, then by the order the server numbers them, then by id. */
export function diskOrder(disks: readonly DiskRecord[]): DiskRecord[] {
  return [...disks].sort(
    (a, b) => Number(b.primary === true) - Number(a.primary === true) || (a.disk_vm_number ?? Infinity) - (b.disk_vm_number ?? Infinity) || a.id - b.id,
  );
}

/**
 * The most disks one message lists (docs/product.md, Long lists): a line each is at most a few hundred characters, so
 * they fit in a few sections, far under Slack's 50 blocks; the rest are counted and left to the control panel.
 */
export const DISKS_SHOWN = 100;

export function renderDisks({
  vsId,
  disks,
  now,
  sandbox,
  panelUrl,
}: {
  vsId: number;
  disks: readonly DiskRecord[];
  now: number;
  sandbox: boolean;
  /** The control panel's base URL (VS_PANEL_URL), where a list too long for a message can be read whole. */
  panelUrl?: string;
}): Rendered {
  const total = disks.reduce((sum, d) => sum + d.disk_size, 0);
  const counted = `${disks.length.toLocaleString('en')} disk${disks.length === 1 ? '' : 's'}`;
  const blocks = [header(`Disks · VS ${vsId}`)];
  const shown = diskOrder(disks).slice(0, DISKS_SHOWN);
  if (disks.length === 0) blocks.push(section(`No disks are attached to VS ${vsId}.`));
  else for (const chunk of chunkLines(shown.map(diskLine), 2900)) blocks.push(section(chunk));
  const left = disks.length - shown.length;
  if (left > 0) {
    const where = panelUrl ? `<${panelUrl.replace(/\/+$/, '')}/virtual_machines/${vsId}|the control panel>` : 'the control panel';
    const more = `${left.toLocaleString('en')} more disk${left === 1 ? ' is' : 's are'} not shown here (the first ${shown.length} are)`;
    blocks.push(section(`_${more}: see every disk of VS ${vsId} in ${where}._`));
  }
  blocks.push(context(`${counted}, ${total} GB in all · fetched ${slackTime(now)}`));
  return { text: fallback(`VS ${vsId} has ${counted} (${total} GB)`, sandbox), blocks: withSandbox(blocks, sandbox) };
}
