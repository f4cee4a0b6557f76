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

/** Spec 2.1. */
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
 * Spec 2.2. A slot with no rule comes back as a placeholder (id null); it is
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

/** Spec 2.3. */
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
  created_at: opt(timestamp),
  updated_at: opt(timestamp),
});
export type Disk = z.infer<typeof Disk>;

/**
 * Spec 2.4. XML carries only a subset (id, network_interface_id, position,
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
