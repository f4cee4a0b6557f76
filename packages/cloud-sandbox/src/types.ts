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

export interface SandboxServer {
  id: number;
  /** Not served by any route (docs/cloud-api.md, The server); for people reading the seed. */
  label: string;
  firewallRules: SandboxFirewallRule[];
  /** Configured rules only; the missing slots are answered as placeholders. */
  autoscaling: SandboxAutoscalingRule[];
  disks: SandboxDisk[];
}

/** The whole state of the sandbox; `reset()` goes back to a fresh copy of it. */
export interface SandboxSeed {
  servers: SandboxServer[];
  backups: SandboxBackup[];
}

export type WireFormat = 'json' | 'xml';

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
  /** Clock for created/updated timestamps; the real clock by default. */
  now?: () => Date;
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
  /** Clears `requests` and restores the seed state. */
  reset(): void;
  /** Stops listening and ends open (keep-alive) connections. */
  close(): Promise<void>;
}
