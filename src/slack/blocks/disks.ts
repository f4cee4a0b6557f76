import type { Frozen } from '../../cloud/reads';
import type { Disk } from '../../cloud/schemas';
import { chunkLines } from './firewall';
import { code, context, fallback, header, oneLine, safe, section, slackTime, withSandbox, type Rendered } from './mrkdwn';

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

export function renderDisks({ vsId, disks, now, sandbox }: { vsId: number; disks: readonly DiskRecord[]; now: number; sandbox: boolean }): Rendered {
  const total = disks.reduce((sum, d) => sum + d.disk_size, 0);
  const counted = `${disks.length} disk${disks.length === 1 ? '' : 's'}`;
  const blocks = [header(`Disks · VS ${vsId}`)];
  if (disks.length === 0) blocks.push(section(`No disks are attached to VS ${vsId}.`));
  else for (const chunk of chunkLines(diskOrder(disks).map(diskLine), 2900)) blocks.push(section(chunk));
  blocks.push(context(`${counted}, ${total} GB in all · fetched ${slackTime(now)}`));
  return { text: fallback(`VS ${vsId} has ${counted} (${total} GB)`, sandbox), blocks: withSandbox(blocks, sandbox) };
}
