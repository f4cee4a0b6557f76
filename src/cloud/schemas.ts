import { z } from 'zod';

// Real deployments send numbers as strings and flags as "true"/"1"; the wire
// decoders hand over what they got and these schemas settle the types once.

const integer = z.union([
  z.number().int(),
  z
    .string()
    .trim()
    .regex(/^-?\d+$/, 'expected an integer')
    .transform(Number),
]);

const flag = z.union([
  z.boolean(),
  z.literal(1).transform(() => true),
  z.literal(0).transform(() => false),
  z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1'),
]);

/** Text field that some deployments send as a number (ports) or leave out. */
const text = z.union([z.string(), z.number().transform(String)]);

const timestamp = z.string();

const opt = <T extends z.ZodType>(schema: T) => schema.nullable().optional();

/** A backup (docs/cloud-api.md, Backups). */
export const Backup = z.object({
  id: integer,
  identifier: opt(text),
  user_id: opt(integer),
  target_id: opt(integer),
  target_type: opt(text),
  template_id: opt(integer),
  backup_server_id: opt(integer),
  backup_size: opt(integer),
  backup_type: opt(text),
  initiated: opt(text),
  data_store_type: opt(text),
  operating_system: opt(text),
  operating_system_distro: opt(text),
  min_disk_size: opt(integer),
  min_memory_size: opt(integer),
  built: opt(flag),
  built_at: opt(timestamp),
  locked: opt(flag),
  marked_for_delete: opt(flag),
  allow_resize_without_reboot: opt(flag),
  allowed_hot_migrate: opt(flag),
  allowed_swap: opt(flag),
  created_at: opt(timestamp),
  updated_at: opt(timestamp),
  iqn: opt(text),
  note: opt(text),
  volume_id: opt(integer),
  disk_id: opt(integer),
});
export type Backup = z.infer<typeof Backup>;

export const AutoscalingResource = z.enum(['memory', 'cpu', 'disk']);
export type AutoscalingResource = z.infer<typeof AutoscalingResource>;
export const ScaleType = z.enum(['up', 'down']);
export type ScaleType = z.infer<typeof ScaleType>;

/**
 * An autoscaling slot (docs/cloud-api.md, Autoscaling rules). A slot with no rule comes back as a placeholder (id null); it is
 * kept and marked `configured: false`. `above`/`add_units` are the older names
 * of `limit_trigger`/`adjust_units`: whichever is present fills both.
 */
export const AutoscalingSlot = z
  .object({
    id: opt(integer),
    virtual_machine_id: integer,
    resource: AutoscalingResource,
    scale_type: ScaleType,
    limit_trigger: opt(integer),
    for_minutes: opt(integer),
    adjust_units: opt(integer),
    up_to: opt(integer),
    above: opt(integer),
    add_units: opt(integer),
    created_at: opt(timestamp),
    updated_at: opt(timestamp),
  })
  .transform((s) => {
    const limitTrigger = s.limit_trigger ?? s.above ?? null;
    const adjustUnits = s.adjust_units ?? s.add_units ?? null;
    return {
      id: s.id ?? null,
      virtual_machine_id: s.virtual_machine_id,
      resource: s.resource,
      scale_type: s.scale_type,
      limit_trigger: limitTrigger,
      for_minutes: s.for_minutes ?? null,
      adjust_units: adjustUnits,
      up_to: s.up_to ?? null,
      above: limitTrigger,
      add_units: adjustUnits,
      created_at: s.created_at ?? null,
      updated_at: s.updated_at ?? null,
      configured: s.id != null && limitTrigger != null,
    };
  });
export type AutoscalingSlot = z.infer<typeof AutoscalingSlot>;

/** A disk (docs/cloud-api.md, Disks); `data_store_id` comes with a server's list of disks. */
export const Disk = z.object({
  id: integer,
  identifier: opt(text),
  virtual_machine_id: opt(integer),
  disk_vm_number: opt(integer),
  disk_type: opt(text),
  disk_size: integer,
  label: opt(text),
  primary: opt(flag),
  is_swap: opt(flag),
  mount_point: opt(text),
  file_system: opt(text),
  add_to_linux_fstab: opt(flag),
  add_to_freebsd_fstab: opt(flag),
  built: opt(flag),
  locked: opt(flag),
  burst_bw: opt(integer),
  max_bw: opt(integer),
  has_autobackups: opt(flag),
  iqn: opt(text),
  volume_id: opt(integer),
  data_store_id: opt(integer),
  created_at: opt(timestamp),
  updated_at: opt(timestamp),
});
export type Disk = z.infer<typeof Disk>;

/**
 * A firewall rule (docs/cloud-api.md, Firewall rules). XML carries only a subset (id, network_interface_id, position,
 * address, port, protocol, command, created_at, updated_at): the rest is
 * absent, not an error. Empty address/port arrive as "" or null: both mean
 * "any" and are normalised to null.
 */
const blankToNull = (v: string | null | undefined) => (v == null || v.trim() === '' ? null : v);
export const FirewallRule = z
  .object({
    id: integer,
    identifier: opt(text),
    network_interface_id: integer,
    position: integer,
    address: opt(text),
    port: opt(text),
    protocol: text,
    command: text,
    created_at: opt(timestamp),
    updated_at: opt(timestamp),
    description: opt(text),
    destination_ip: opt(text),
    enable_logging: opt(flag),
    enabled: opt(flag),
    firewall_service_id: opt(integer),
    source_port: opt(text),
  })
  .transform((r) => ({ ...r, address: blankToNull(r.address), port: blankToNull(r.port) }));
export type FirewallRule = z.infer<typeof FirewallRule>;

/**
 * `{ "disk": {...} }` → `{...}`: a record under its wrapper (docs/cloud-api.md), as JSON sends it; one already
 * unwrapped (XML's list items) is taken as it is. The codec unwraps answers with it, a schema the records it nests.
 */
export function unwrap(value: unknown, wrapper: string): unknown {
  const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (isRecord(value)) {
    const inner = value[wrapper];
    if (isRecord(inner) && Object.keys(value).length === 1) return inner;
  }
  return value;
}

/** One element of a list sent either wrapped (JSON's `{"ip_address": {…}}`) or bare (XML's list items). */
const unwrapped = <T extends z.ZodType>(wrapper: string, schema: T) => z.preprocess((item) => unwrap(item, wrapper), schema);

/** An address of a server (docs/cloud-api.md, The server: `ip_addresses`). */
export const IpAddress = z.object({
  id: opt(integer),
  address: text,
  netmask: opt(text),
  gateway: opt(text),
  network_id: opt(integer),
});
export type IpAddress = z.infer<typeof IpAddress>;

/**
 * A server (docs/cloud-api.md, The server), read from an allow-list: real
 * answers carry about 80 keys, among them `initial_root_password`,
 * `remote_access_password` and `service_password`, and zod drops every key not
 * named here, so no credential is ever kept, logged or passed on.
 */
export const Server = z.object({
  id: integer,
  identifier: opt(text),
  label: opt(text),
  hostname: opt(text),
  booted: opt(flag),
  built: opt(flag),
  locked: opt(flag),
  suspended: opt(flag),
  recovery_mode: opt(flag),
  state: opt(text),
  memory: opt(integer),
  cpus: opt(integer),
  cpu_shares: opt(integer),
  total_disk_size: opt(integer),
  template_id: opt(integer),
  template_label: opt(text),
  operating_system: opt(text),
  operating_system_distro: opt(text),
  hypervisor_id: opt(integer),
  enable_autoscale: opt(flag),
  // Some versions leave the list out, XML sends an empty one as nothing at all: both mean no addresses.
  ip_addresses: opt(z.array(unwrapped('ip_address', IpAddress))).transform((list) => list ?? []),
  created_at: opt(timestamp),
  updated_at: opt(timestamp),
});
export type Server = z.infer<typeof Server>;

/**
 * A server as the account's server list gives it (READS.listServers), read from a shorter allow-list: only what the
 * name index (id, label, hostname, addresses) and the watch (power, lock, suspension, recovery, last change) use. The
 * list is read every interval by the watch, 5,000 servers in 51 pages on a large account: every field checked is CPU
 * per round, and zod drops the rest (passwords among them) as it does for the full record.
 */
export const ListedServer = Server.pick({
  id: true,
  identifier: true,
  label: true,
  hostname: true,
  booted: true,
  built: true,
  locked: true,
  suspended: true,
  recovery_mode: true,
  state: true,
  ip_addresses: true,
  updated_at: true,
});
export type ListedServer = z.infer<typeof ListedServer>;

/**
 * A server's state (docs/cloud-api.md, Status): the fields `/status` answers
 * with. The full record read through this schema gives the same shape, which is
 * how an older cloud without `/status` is read.
 */
export const ServerStatus = Server.pick({
  id: true,
  identifier: true,
  hostname: true,
  template_id: true,
  built: true,
  locked: true,
  booted: true,
  operating_system: true,
  suspended: true,
  enable_autoscale: true,
  state: true,
});
export type ServerStatus = z.infer<typeof ServerStatus>;

/** Final statuses first; `canceled` is read as `cancelled`, anything else as `unknown` (still running, as far as we can tell). */
export const TRANSACTION_STATUSES = ['complete', 'failed', 'cancelled', 'pending', 'running', 'unknown'] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];
const FINAL_STATUSES: ReadonlySet<TransactionStatus> = new Set(['complete', 'failed', 'cancelled']);

/** Whether a transaction has ended, one way or another. */
export const isFinalStatus = (status: TransactionStatus): boolean => FINAL_STATUSES.has(status);

const transactionStatus = text.transform((raw): TransactionStatus => {
  const status = raw.trim().toLowerCase();
  if (status === 'canceled') return 'cancelled';
  return (TRANSACTION_STATUSES as readonly string[]).includes(status) ? (status as TransactionStatus) : 'unknown';
});

/**
 * A transaction (docs/cloud-api.md, Transactions). `log_output` (the cloud's
 * raw log: server stack traces) and `params` (free form: a password reset
 * carries the new password there) are never kept.
 */
export const Transaction = z.object({
  id: integer,
  identifier: opt(text),
  action: text,
  status: transactionStatus,
  parent_type: opt(text),
  parent_id: opt(integer),
  associated_object_type: opt(text),
  associated_object_id: opt(integer),
  dependent_transaction_id: opt(integer),
  allowed_cancel: opt(flag),
  created_at: opt(timestamp),
  started_at: opt(timestamp),
  updated_at: opt(timestamp),
});
export type Transaction = z.infer<typeof Transaction>;

/**
 * What our code asks the client to send to add a disk (docs/cloud-api.md, Add a disk). Plain booleans here;
 * the client writes them on the wire as the API wants (1/0 or true/false).
 */
export const AddDiskParams = z.object({
  disk_type: z.enum(['HDD', 'SSD']),
  disk_size: z.number().int().positive(),
  label: z.string().optional(),
  primary: z.boolean().optional(),
  is_swap: z.boolean().optional(),
  mount_point: z.string().max(256).optional(),
  hot_attach: z.boolean().optional(),
  min_iops: z.number().int().positive().optional(),
  add_to_linux_fstab: z.boolean().optional(),
  add_to_freebsd_fstab: z.boolean().optional(),
  require_format_disk: z.boolean().optional(),
  file_system: z.enum(['ext3', 'ext4']).optional(),
});
export type AddDiskParams = z.infer<typeof AddDiskParams>;
