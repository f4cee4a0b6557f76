// Records the sandbox keeps, shaped as the records of docs/cloud-api.md. They
// are the sandbox's own types on purpose: the simulator must not lean on the
// client's decoding, or a shared mistake would go unnoticed in the tests.

export type Timestamp = string;

/** Spec 2.4, every field (the JSON form carries them all). */
export interface SandboxFirewallRule {
  id: number;
  identifier: string;
  network_interface_id: number;
  position: number;
  /** Null or "" means any address. */
  address: string | null;
  /** Null or "" means any port; otherwise "22", "8000:8100" or "53,123". */
  port: string | null;
  protocol: 'TCP' | 'UDP';
  command: 'ACCEPT' | 'DROP';
  created_at: Timestamp;
  updated_at: Timestamp;
  description: string | null;
  destination_ip: string | null;
  enable_logging: boolean | null;
  enabled: boolean | null;
  firewall_service_id: number | null;
  source_port: string | null;
}

export type AutoscalingResource = 'memory' | 'cpu' | 'disk';
export type ScaleType = 'up' | 'down';

/** A configured autoscaling rule; `above`/`add_units` are derived on output (docs/cloud-api.md, Autoscaling rules). */
export interface SandboxAutoscalingRule {
  id: number;
  resource: AutoscalingResource;
  scale_type: ScaleType;
  limit_trigger: number;
  for_minutes: number;
  adjust_units: number;
  up_to: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** Spec 2.3. */
export interface SandboxDisk {
  id: number;
  identifier: string;
  virtual_machine_id: number;
  disk_vm_number: number;
  disk_type: 'HDD' | 'SSD';
  disk_size: number;
  label: string;
  primary: boolean;
  is_swap: boolean;
  mount_point: string;
  file_system: string | null;
  add_to_linux_fstab: boolean;
  add_to_freebsd_fstab: boolean;
  built: boolean;
  locked: boolean;
  burst_bw: number;
  max_bw: number;
  has_autobackups: boolean;
  iqn: string | null;
  volume_id: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** Spec 2.1. */
export interface SandboxBackup {
  id: number;
  identifier: string;
  user_id: number;
  target_id: number;
  target_type: string;
  template_id: number;
  backup_server_id: number;
  backup_size: number;
  backup_type: string;
  initiated: string;
  data_store_type: string;
  operating_system: string;
  operating_system_distro: string;
  min_disk_size: number;
  min_memory_size: number;
  built: boolean;
  built_at: Timestamp | null;
  locked: boolean;
  marked_for_delete: boolean;
  allow_resize_without_reboot: boolean;
  allowed_hot_migrate: boolean;
  allowed_swap: boolean;
  created_at: Timestamp;
  updated_at: Timestamp;
  iqn: string | null;
  note: string | null;
  volume_id: number | null;
  disk_id: number | null;
}

/** One address of a server, as the API nests it (`ip_addresses: [{ip_address: {…}}]`). */
export interface SandboxIpAddress {
  id: number;
  address: string;
  netmask: string;
  gateway: string;
  broadcast: string;
  network_address: string;
  network_id: number;
  disallowed_primary: boolean;
  free: boolean;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** docs/cloud-api.md, The server; `locked` and `total_disk_size` are not kept but worked out when served. */
export interface SandboxServer {
  id: number;
  identifier: string;
  label: string;
  hostname: string;
  /** Powered on. */
  booted: boolean;
  built: boolean;
  suspended: boolean;
  recovery_mode: boolean;
  state: string;
  memory: number;
  cpus: number;
  cpu_shares: number;
  template_id: number;
  template_label: string;
  operating_system: string;
  operating_system_distro: string;
  hypervisor_id: number | null;
  enable_autoscale: boolean | null;
  ip_addresses: SandboxIpAddress[];
  /**
   * Fake credentials, sent with the record as real clouds send theirs: the bot must never show, log, store or pass
   * them on, and every run that reads a server tests that.
   */
  initial_root_password: string;
  remote_access_password: string;
  service_password: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** Every change to it is accepted and then fails in the cloud, with a raw log full of internals (only with `?detailed`). */
  changesFail?: boolean;
  firewallRules: SandboxFirewallRule[];
  /** Configured rules only; the missing slots are answered as placeholders. */
  autoscaling: SandboxAutoscalingRule[];
  disks: SandboxDisk[];
}

export type TransactionStatus = 'pending' | 'running' | 'complete' | 'failed' | 'cancelled';

/** What a transaction holds locked until it ends. */
export interface TransactionLocks {
  servers: number[];
  disks: number[];
  backups: number[];
}

/** What completing a transaction does to the world. */
export type TransactionEffect =
  | { kind: 'disk_built'; diskId: number }
  | { kind: 'power'; serverId: number; booted: boolean; recoveryMode: boolean }
  | { kind: 'backup_built'; backupId: number; sizeKb: number }
  | { kind: 'none' };

/**
 * docs/cloud-api.md, Transactions: what the API serves, and the schedule the
 * sandbox runs it by (times in ms since the epoch on the sandbox's clock):
 * pending until `startsAt`, running until `endsAt`, then `outcome`.
 */
export interface SandboxTransaction {
  id: number;
  identifier: string;
  action: string;
  status: TransactionStatus;
  parent_type: 'VirtualMachine' | 'Disk' | 'Backup';
  parent_id: number;
  associated_object_type: 'VirtualMachine';
  associated_object_id: number;
  dependent_transaction_id: number | null;
  allowed_cancel: boolean;
  params: Record<string, string | number | boolean | null>;
  /** The cloud's raw log: served only with `?detailed`. */
  log_output: string;
  created_at: Timestamp;
  started_at: Timestamp | null;
  updated_at: Timestamp;
  startsAt: number;
  /** Infinity: still running whatever the clock says (the seeded lock). */
  endsAt: number;
  outcome: 'complete' | 'failed';
  locks: TransactionLocks;
  effect: TransactionEffect;
}

/** The whole state of the sandbox; `reset()` goes back to a fresh copy of it. */
export interface SandboxSeed {
  servers: SandboxServer[];
  backups: SandboxBackup[];
  /** The transactions that already ran (and the one that holds a server locked), oldest first. */
  transactions: SandboxTransaction[];
}

export type WireFormat = 'json' | 'xml';

/** How a read's answer is shaped on the wire: a list of wrapped items, or one wrapped record. */
export type SandboxAnswerShape =
  { readonly kind: 'list'; readonly listName: string; readonly itemName: string } | { readonly kind: 'object'; readonly name: string };

/** A read of the API as the bot's table declares it: its path (`:name` segments are ids), its answer, whether it is paged. */
export interface SandboxReadRow {
  readonly path: string;
  readonly answer: SandboxAnswerShape;
  /** true: `…/page/N`; 'query': `?page=N` (the account's servers). */
  readonly paged?: boolean | 'query';
}

/** The rows to serve, by the bot's name for each read; the sandbox has a handler for each (src/reads.ts). */
export type SandboxReads = Readonly<Record<string, SandboxReadRow>>;

/** One request as the sandbox received it. */
export interface SandboxRequest {
  method: string;
  /** Path as sent, without the query string (suffix kept: `/virtual_machines/42/firewall_rules.xml`). */
  path: string;
  /** Format of the answer. */
  format: WireFormat;
  /** Lower-cased header names; Authorization is never kept. */
  headers: Record<string, string>;
  /** Parsed request body (JSON, XML or form), null when there was none or it could not be parsed. */
  body: unknown;
  /** Status the sandbox answered with. */
  status: number;
  /** ISO 8601 time of arrival. */
  at: Timestamp;
}

export interface SandboxOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  host?: '127.0.0.1';
  accountId?: string;
  apiKey?: string;
  /** Delay before every answer, in ms (slow-upstream tests, benchmarks). */
  delayMs?: number;
  /** Initial state; the realistic default seed when absent. */
  seed?: SandboxSeed;
  /** Clock for timestamps and for the transactions' progress; the real clock by default. Tests move a clock of their own. */
  now?: () => Date;
  /** How long a change's transactions stay pending, then running (ms). Default: 1 s pending, 3 s running. */
  transactionMs?: { pending: number; running: number };
  /** Called once per request after the answer is decided (the standalone tool prints it). */
  onRequest?: (request: SandboxRequest) => void;
}

export interface Sandbox {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  readonly url: string;
  readonly accountId: string;
  readonly apiKey: string;
  /** Every request received since start or the last reset, oldest first. */
  readonly requests: SandboxRequest[];
  setDelay(ms: number): void;
  /** The ids of the servers it holds, in order (the links its control panel has, for local mode's page). */
  serverIds(): number[];
  /** Its servers' ids and labels, in id order (local mode's page: the control panel's server picker). */
  servers(): { id: number; label: string }[];
  /**
   * Cancels a transaction that has not ended, as an operator does with the control panel's Cancel button: it ends
   * `cancelled` (what waits for it too), its objects unlocked, nothing of its effect applied. False when there is no
   * such transaction or it has ended.
   */
  cancelTransaction(id: number): boolean;
  /**
   * Acts on a server as someone in the control panel would, behind the bot's back: powers it off or on at once, locks
   * it for `minutes` (a `rebuild_network` transaction running that long), or fails a transaction on it. Undefined for
   * a server it does not hold. Also served as `POST /control/virtual_machines/:id/<act>` (README.md).
   */
  act(serverId: number, what: PanelAct): PanelActResult | undefined;
  /** Clears `requests` and restores the seed state. */
  reset(): void;
  /** Stops listening and ends open (keep-alive) connections. */
  close(): Promise<void>;
}

/**
 * What someone in the control panel does to a server, behind the bot's back (docs/product.md, Watches): power it off
 * or on at once, lock it for a while (a transaction of the panel's running that long), or fail a transaction on it.
 */
export type PanelAct = { act: 'power_off' } | { act: 'power_on' } | { act: 'lock'; minutes: number } | { act: 'fail' };

export type PanelActResult =
  | { ok: true; server: SandboxServer; transaction?: SandboxTransaction }
  /** `off`/`on`: it is already so; `locked`: a transaction is running on it. */
  | { ok: false; reason: 'off' | 'on' | 'locked' };
