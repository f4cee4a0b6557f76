import type { DiskParams } from './disk-params';
import { identifier, isoTimestamp, seededRandom, type Random } from './random';
import { Transactions } from './transactions';
import type {
  PanelAct,
  PanelActResult,
  SandboxBackup,
  SandboxDisk,
  SandboxFirewallRule,
  SandboxSeed,
  SandboxServer,
  SandboxTransaction,
  TransactionEffect,
} from './types';

/** Why a restore was refused (docs/cloud-api.md, Restore a backup: 403, "correct but could not be processed"). */
export type RestoreRefusal = 'marked_for_delete' | 'not_built' | 'locked';

export type RestoreResult = { ok: true; backup: SandboxBackup } | { ok: false; reason: RestoreRefusal };

/** The power actions (docs/cloud-api.md, Power actions), by the last segment of their path. */
export type PowerAction = 'startup' | 'shutdown' | 'stop' | 'reboot';

export type PowerResult =
  | { ok: true; server: SandboxServer }
  /** `off`/`on`: the state does not allow it (404, as the API answers); `locked`: a transaction is running on it. */
  | { ok: false; reason: 'off' | 'on' | 'locked'; transaction?: SandboxTransaction };

const DEFAULT_TIMING = { pending: 1_000, running: 3_000 };

/** The action of the panel's transactions: rebuilding the network locks the server, as in a real control panel. */
export const PANEL_ACTION = 'rebuild_network';

export type TakeBackupResult =
  { ok: true; backup: SandboxBackup } | { ok: false; reason: 'not_built' } | { ok: false; reason: 'locked'; transaction: SandboxTransaction };

/** The mutable world of the sandbox: a deep copy of the seed, plus what requests changed and the transactions they started. */
export class SandboxState {
  private servers = new Map<number, SandboxServer>();
  private backups = new Map<number, SandboxBackup>();
  private nextDiskId = 1;
  private random: Random = seededRandom(1);
  private transactions!: Transactions;

  constructor(
    private readonly seed: SandboxSeed,
    private readonly now: () => Date,
    private readonly timing: { pending: number; running: number } = DEFAULT_TIMING,
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
    // Same identifiers for new disks and transactions after every reset: tests can rely on them.
    this.random = seededRandom(0xd15c);
    this.transactions = new Transactions(copy.transactions, this.random, this.timing);
  }

  /** Brings the transactions up to the clock and applies what the completed ones did. Called before every request is answered. */
  advance(): void {
    for (const effect of this.transactions.advance(this.now().getTime())) this.apply(effect);
  }

  private apply(effect: TransactionEffect): void {
    if (effect.kind === 'disk_built') {
      const disk = this.findDisk(effect.diskId);
      if (disk) disk.built = true;
    } else if (effect.kind === 'backup_built') {
      const backup = this.backups.get(effect.backupId);
      if (backup) {
        backup.built = true;
        backup.locked = false;
        backup.backup_size = effect.sizeKb;
        backup.built_at = isoTimestamp(this.now());
      }
    } else if (effect.kind === 'power') {
      const server = this.servers.get(effect.serverId);
      if (server) {
        server.booted = effect.booted;
        server.recovery_mode = effect.recoveryMode;
      }
    }
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

  /** A server's backups: incremental ones target the server, normal ones one of its disks. */
  backupsOf(server: SandboxServer): SandboxBackup[] {
    const disks = new Set(server.disks.map((d) => d.id));
    return [...this.backups.values()].filter((b) => (b.target_type === 'Disk' ? disks.has(b.target_id) : b.target_id === server.id));
  }

  transaction(id: number): SandboxTransaction | undefined {
    return this.transactions.byId(id);
  }

  /** A server's transactions, newest first. */
  transactionsOf(server: SandboxServer): SandboxTransaction[] {
    return this.transactions.ofServer(server.id);
  }

  /** Every transaction of the account, newest first. */
  allTransactions(): SandboxTransaction[] {
    return this.transactions.all();
  }

  /** Cancels a transaction that has not ended, at the clock's time; false when there is none. */
  cancelTransaction(id: number): boolean {
    this.advance();
    return this.transactions.cancel(id, this.now().getTime());
  }

  /** The transaction holding the object locked, if one is running (or waiting to). */
  lockOf(kind: 'servers' | 'disks' | 'backups', id: number): SandboxTransaction | undefined {
    return this.transactions.holding(kind, id);
  }

  /** Creates the disk as the API reports a fresh one, and its build (and format) transactions: not built, locked until they end. */
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
      locked: false,
      burst_bw: 0,
      max_bw: 0,
      has_autobackups: false,
      iqn: null,
      volume_id: null,
      created_at: stamp,
      updated_at: stamp,
    };
    server.disks.push(disk);
    const locks = { servers: [server.id], disks: [disk.id], backups: [] };
    const fails = server.changesFail === true;
    const parent = { type: 'Disk' as const, id: disk.id };
    const build = this.transactions.start(
      {
        action: 'build_disk',
        parent,
        serverId: server.id,
        locks,
        effect: { kind: 'disk_built', diskId: disk.id },
        fails,
        params: { disk_size: disk.disk_size },
      },
      this.now().getTime(),
    );
    if (params.require_format_disk) {
      this.transactions.start(
        {
          action: 'format_disk',
          parent,
          serverId: server.id,
          locks,
          effect: { kind: 'none' },
          fails: false,
          after: build,
          params: { file_system: disk.file_system },
        },
        this.now().getTime(),
      );
    }
    return disk;
  }

  /** Queues the restore: the backup record comes back with updated_at now, locked (with its server and disk) while it runs. */
  restore(backup: SandboxBackup): RestoreResult {
    if (backup.marked_for_delete) return { ok: false, reason: 'marked_for_delete' };
    if (!backup.built) return { ok: false, reason: 'not_built' };
    if (backup.locked || this.lockOf('backups', backup.id)) return { ok: false, reason: 'locked' };
    backup.updated_at = isoTimestamp(this.now());
    const server = this.serverOfBackup(backup);
    if (server) {
      const incremental = backup.target_type === 'VirtualMachine';
      this.transactions.start(
        {
          action: incremental ? 'restore_incremental_backup' : 'restore_backup',
          parent: { type: 'Backup', id: backup.id },
          serverId: server.id,
          locks: { servers: [server.id], disks: backup.disk_id === null ? [] : [backup.disk_id], backups: [backup.id] },
          effect: { kind: 'none' },
          fails: server.changesFail === true,
        },
        this.now().getTime(),
      );
    }
    return { ok: true, backup };
  }

  /**
   * Takes a backup of a built disk (docs/cloud-api.md, Take a backup): a new backup, not built and locked,
   * built by a take_backup transaction on the disk (its size then: the disk's used part, here a quarter of it).
   */
  takeBackup(server: SandboxServer, disk: SandboxDisk, note: string | null): TakeBackupResult {
    if (!disk.built) return { ok: false, reason: 'not_built' };
    const running = this.lockOf('disks', disk.id) ?? this.lockOf('servers', server.id);
    if (running) return { ok: false, reason: 'locked', transaction: running };
    const stamp = isoTimestamp(this.now());
    const id = Math.max(0, ...this.backups.keys()) + 1;
    const backup: SandboxBackup = {
      id,
      identifier: identifier(this.random),
      user_id: 1,
      target_id: disk.id,
      target_type: 'Disk',
      template_id: 0,
      backup_server_id: 1,
      backup_size: 0,
      backup_type: 'normal',
      initiated: 'manual',
      data_store_type: 'lvm',
      operating_system: 'linux',
      operating_system_distro: '',
      min_disk_size: disk.disk_size,
      min_memory_size: 128,
      built: false,
      built_at: null,
      locked: true,
      marked_for_delete: false,
      allow_resize_without_reboot: false,
      allowed_hot_migrate: false,
      allowed_swap: false,
      created_at: stamp,
      updated_at: stamp,
      iqn: null,
      note,
      volume_id: null,
      disk_id: disk.id,
    };
    this.backups.set(id, backup);
    this.transactions.start(
      {
        action: 'take_backup',
        parent: { type: 'Disk', id: disk.id },
        serverId: server.id,
        locks: { servers: [], disks: [disk.id], backups: [id] },
        effect: { kind: 'backup_built', backupId: id, sizeKb: Math.max(1, Math.round((disk.disk_size * 1024 * 1024) / 4)) },
        fails: server.changesFail === true,
      },
      this.now().getTime(),
    );
    return { ok: true, backup };
  }

  /** Stores a firewall rule at the end of its interface's list (docs/cloud-api.md, Firewall rules); not applied yet. */
  addFirewallRule(
    server: SandboxServer,
    r: Pick<SandboxFirewallRule, 'network_interface_id' | 'address' | 'port' | 'protocol' | 'command'>,
  ): SandboxFirewallRule {
    const stamp = isoTimestamp(this.now());
    const all = [...this.servers.values()].flatMap((s) => s.firewallRules);
    const mine = server.firewallRules.filter((x) => x.network_interface_id === r.network_interface_id);
    const added: SandboxFirewallRule = {
      id: Math.max(0, ...all.map((x) => x.id)) + 1,
      identifier: identifier(this.random),
      position: Math.max(0, ...mine.map((x) => x.position)) + 1,
      ...r,
      created_at: stamp,
      updated_at: stamp,
      description: null,
      destination_ip: null,
      enable_logging: null,
      enabled: true,
      firewall_service_id: null,
      source_port: null,
    };
    server.firewallRules.push(added);
    return added;
  }

  /** Applies a server's firewall rules (docs/cloud-api.md, Firewall rules): an update_firewall transaction on it. */
  applyFirewall(server: SandboxServer): { ok: true } | { ok: false; transaction: SandboxTransaction } {
    const running = this.lockOf('servers', server.id);
    if (running) return { ok: false, transaction: running };
    this.transactions.start(
      {
        action: 'update_firewall',
        parent: { type: 'VirtualMachine', id: server.id },
        serverId: server.id,
        locks: { servers: [server.id], disks: [], backups: [] },
        effect: { kind: 'none' },
        fails: server.changesFail === true,
      },
      this.now().getTime(),
    );
    return { ok: true };
  }

  /** The server a disk is on, and the disk. */
  diskOf(diskId: number): { server: SandboxServer; disk: SandboxDisk } | undefined {
    for (const server of this.servers.values()) {
      const disk = server.disks.find((d) => d.id === diskId);
      if (disk) return { server, disk };
    }
    return undefined;
  }

  /** Starts a power action, as the API allows it: not on a locked server, not "start" when on nor the others when off. */
  power(server: SandboxServer, action: PowerAction, recovery: boolean): PowerResult {
    const running = this.lockOf('servers', server.id);
    if (running) return { ok: false, reason: 'locked', transaction: running };
    if (action === 'startup' && server.booted) return { ok: false, reason: 'on' };
    if (action !== 'startup' && !server.booted) return { ok: false, reason: 'off' };
    const effect: TransactionEffect = { kind: 'power', serverId: server.id, booted: action === 'startup' || action === 'reboot', recoveryMode: recovery };
    this.transactions.start(
      {
        action: action === 'startup' ? 'startup_virtual_machine' : action === 'reboot' ? 'reboot_virtual_machine' : 'stop_virtual_machine',
        parent: { type: 'VirtualMachine', id: server.id },
        serverId: server.id,
        locks: { servers: [server.id], disks: [], backups: [] },
        effect,
        fails: server.changesFail === true,
        params: action === 'reboot' ? { mode: recovery ? 'recovery' : null } : action === 'stop' ? { forced: true } : {},
      },
      this.now().getTime(),
    );
    server.updated_at = isoTimestamp(this.now());
    return { ok: true, server };
  }

  /** Acts on a server as someone in the control panel would (PanelAct), at the clock's time. */
  panelAct(server: SandboxServer, what: PanelAct): PanelActResult {
    this.advance();
    const nowMs = this.now().getTime();
    if (what.act === 'power_off' || what.act === 'power_on') {
      const booted = what.act === 'power_on';
      if (server.booted === booted) return { ok: false, reason: booted ? 'on' : 'off' };
      if (this.lockOf('servers', server.id)) return { ok: false, reason: 'locked' };
      server.booted = booted;
      server.recovery_mode = false;
      server.updated_at = isoTimestamp(this.now());
      return { ok: true, server };
    }
    if (what.act === 'lock' && this.lockOf('servers', server.id)) return { ok: false, reason: 'locked' };
    const lock = what.act === 'lock';
    const transaction = this.transactions.start(
      {
        action: PANEL_ACTION,
        parent: { type: 'VirtualMachine', id: server.id },
        serverId: server.id,
        // A failure locks nothing: it failed at once.
        locks: { servers: lock ? [server.id] : [], disks: [], backups: [] },
        effect: { kind: 'none' },
        fails: !lock,
        pendingMs: 0,
        runMs: lock ? what.minutes * 60_000 : 0,
      },
      nowMs,
    );
    this.advance();
    return { ok: true, server, transaction };
  }

  private serverOfBackup(backup: SandboxBackup): SandboxServer | undefined {
    if (backup.target_type === 'VirtualMachine') return this.servers.get(backup.target_id);
    return [...this.servers.values()].find((s) => s.disks.some((d) => d.id === backup.target_id));
  }

  private findDisk(id: number): SandboxDisk | undefined {
    for (const server of this.servers.values()) {
      const disk = server.disks.find((d) => d.id === id);
      if (disk) return disk;
    }
    return undefined;
  }
}
