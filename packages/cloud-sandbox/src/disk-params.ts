// Validation of the add-disk parameters (docs/cloud-api.md, Add a disk) as the real API does it:
// lenient about how values are written (the API's own JSON example sends
// "20", "1", "true"), strict about what they mean. Every problem is reported
// at once, keyed by the parameter name, so a client can put it on the field.

export interface DiskParams {
  disk_type: 'HDD' | 'SSD';
  disk_size: number;
  label: string | null;
  primary: boolean;
  is_swap: boolean;
  mount_point: string;
  hot_attach: boolean;
  min_iops: number | null;
  add_to_linux_fstab: boolean;
  add_to_freebsd_fstab: boolean;
  require_format_disk: boolean;
  file_system: 'ext3' | 'ext4' | null;
}

export type FieldErrors = Record<string, string[]>;

export type DiskParamsResult = { ok: true; params: DiskParams } | { ok: false; errors: FieldErrors };

export const MOUNT_POINT_MAX = 256;

const blank = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');

/** A scalar written as text; undefined for anything that is not a scalar. */
function scalarText(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v === 'boolean') return String(v);
  return undefined;
}

function positiveInteger(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isSafeInteger(v) && v > 0 ? v : undefined;
  if (typeof v === 'string' && /^\s*\d+\s*$/.test(v)) {
    const n = Number(v);
    return Number.isSafeInteger(n) && n > 0 ? n : undefined;
  }
  return undefined;
}

/** 1/0 and true/false flags are both accepted, as numbers, booleans or strings. */
function flag(v: unknown): boolean | undefined {
  if (v === true || v === 1) return true;
  if (v === false || v === 0) return false;
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    if (s === 'true' || s === '1') return true;
    if (s === 'false' || s === '0') return false;
  }
  return undefined;
}

const FLAGS = ['primary', 'is_swap', 'hot_attach', 'add_to_linux_fstab', 'add_to_freebsd_fstab', 'require_format_disk'] as const;

export function validateDiskParams(input: Readonly<Record<string, unknown>>): DiskParamsResult {
  const errors: FieldErrors = {};
  const add = (name: string, message: string) => (errors[name] ??= []).push(message);

  let diskType: DiskParams['disk_type'] = 'HDD';
  const rawType = input.disk_type;
  if (blank(rawType)) add('disk_type', "can't be blank");
  else if (rawType === 'HDD' || rawType === 'SSD') diskType = rawType;
  else add('disk_type', 'must be HDD or SSD');

  let diskSize = 0;
  if (blank(input.disk_size)) add('disk_size', "can't be blank");
  else {
    const n = positiveInteger(input.disk_size);
    if (n === undefined) add('disk_size', 'must be a positive integer');
    else diskSize = n;
  }

  const flags = {} as Record<(typeof FLAGS)[number], boolean>;
  for (const name of FLAGS) {
    const raw = input[name];
    if (blank(raw)) {
      flags[name] = false;
      continue;
    }
    const value = flag(raw);
    if (value === undefined) add(name, name === 'is_swap' || name.endsWith('_fstab') ? 'must be true or false' : 'must be 1 or 0');
    flags[name] = value ?? false;
  }

  let label: string | null = null;
  if (!blank(input.label)) {
    const text = scalarText(input.label);
    if (text === undefined) add('label', 'must be text');
    else label = text;
  }

  let mountPoint = '';
  if (!blank(input.mount_point)) {
    const text = scalarText(input.mount_point);
    if (text === undefined) add('mount_point', 'must be text');
    // Counted in characters (code points), not UTF-16 units or bytes.
    else if ([...text].length > MOUNT_POINT_MAX) add('mount_point', `is too long (maximum is ${MOUNT_POINT_MAX} characters)`);
    else mountPoint = text;
  }

  let minIops: number | null = null;
  if (!blank(input.min_iops)) {
    const n = positiveInteger(input.min_iops);
    if (n === undefined) add('min_iops', 'must be a positive integer');
    else minIops = n;
  }

  let fileSystem: DiskParams['file_system'] = null;
  if (!blank(input.file_system)) {
    const raw = input.file_system;
    if (raw !== 'ext3' && raw !== 'ext4') add('file_system', 'must be ext3 or ext4');
    else fileSystem = raw;
    if (!flags.require_format_disk) add('file_system', 'can only be set when require_format_disk is 1');
  }

  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return {
    ok: true,
    params: {
      disk_type: diskType,
      disk_size: diskSize,
      label,
      primary: flags.primary,
      is_swap: flags.is_swap,
      mount_point: mountPoint,
      hot_attach: flags.hot_attach,
      min_iops: minIops,
      add_to_linux_fstab: flags.add_to_linux_fstab,
      add_to_freebsd_fstab: flags.add_to_freebsd_fstab,
      require_format_disk: flags.require_format_disk,
      file_system: fileSystem,
    },
  };
}
