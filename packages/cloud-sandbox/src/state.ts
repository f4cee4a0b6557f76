import type { DiskParams } from './disk-params';
import { identifier, isoTimestamp, seededRandom, type Random } from './random';
import type { SandboxBackup, SandboxDisk, SandboxSeed, SandboxServer } from './types';

/** Why a restore was refused (docs/cloud-api.md, Status codes: 403, "request is correct but could not be processed"). */
export type RestoreRefusal = 'marked_for_delete' | 'not_built' | 'locked';

export type RestoreResult = { ok: true; backup: SandboxBackup } | { ok: false; reason: RestoreRefusal };

/** The mutable world of the sandbox: a deep copy of the seed, plus what requests changed. */
export class SandboxState {
  private servers = new Map<number, SandboxServer>();
  private backups = new Map<number, SandboxBackup>();
  private nextDiskId = 1;
  private random: Random = seededRandom(1);

  constructor(
    private readonly seed: SandboxSeed,
    private readonly now: () => Date,
  ) {
    this.reset();
  }

  reset(): void {
    // structuredClone: requests must never change the caller's seed object.
    const copy = structuredClone(this.seed);
    this.servers = new Map(copy.servers.map((s) => [s.id, s]));
    this.backups = new Map(copy.backups.map((b) => [b.id, b]));
    const diskIds = copy.servers.flatMap((s) => s.disks.map((d) => d.id));
    this.nextDiskId = Math.max(0, ...diskIds) + 1;
    // Same identifiers for new disks after every reset: tests can rely on them.
    this.random = seededRandom(0xd15c);
  }

  /** The ids of its servers, in order. */
  serverIds(): number[] {
    return [...this.servers.keys()].sort((a, b) => a - b);
  }

  server(id: number): SandboxServer | undefined {
    return this.servers.get(id);
  }

  backup(id: number): SandboxBackup | undefined {
    return this.backups.get(id);
  }

  /** Creates the disk as the API reports a fresh one: not built yet, locked while the transaction runs. */
  addDisk(server: SandboxServer, params: DiskParams): SandboxDisk {
    const stamp = isoTimestamp(this.now());
    const diskVmNumber = Math.max(0, ...server.disks.map((d) => d.disk_vm_number)) + 1;
    const disk: SandboxDisk = {
      id: this.nextDiskId++,
      identifier: identifier(this.random),
      virtual_machine_id: server.id,
      disk_vm_number: diskVmNumber,
      disk_type: params.disk_type,
      disk_size: params.disk_size,
      label: params.label ?? `Disk ${diskVmNumber}`,
      primary: params.primary,
      is_swap: params.is_swap,
      mount_point: params.mount_point,
      file_system: params.file_system,
      add_to_linux_fstab: params.add_to_linux_fstab,
      add_to_freebsd_fstab: params.add_to_freebsd_fstab,
      built: false,
      locked: true,
      burst_bw: 0,
      max_bw: 0,
      has_autobackups: false,
      iqn: null,
      volume_id: null,
      created_at: stamp,
      updated_at: stamp,
    };
    server.disks.push(disk);
    return disk;
  }

  /** Queues the restore: the backup record comes back with updated_at now. */
  restore(backup: SandboxBackup): RestoreResult {
    if (backup.marked_for_delete) return { ok: false, reason: 'marked_for_delete' };
    if (!backup.built) return { ok: false, reason: 'not_built' };
    if (backup.locked) return { ok: false, reason: 'locked' };
    backup.updated_at = isoTimestamp(this.now());
    return { ok: true, backup };
  }
}
