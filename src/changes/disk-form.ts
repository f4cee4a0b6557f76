import { z } from 'zod';
import type { AddDiskParams } from '../cloud/schemas';
import { DEFAULT_MAX_DISK_GB, MAX_DISK_GB } from '../config';

// The add-disk modal, validated once. Keys are the API parameter names (they
// are also the inputs' action_ids), so zod's field errors go straight back
// onto the inputs. Every message is something the user can act on.

/** What the Slack side flattens a view's state into: text/select values as strings, checkboxes as booleans. */
export type FormValues = Record<string, string | boolean | undefined>;

export const DISK_FORM_FIELDS = [
  'disk_type',
  'disk_size',
  'label',
  'mount_point',
  'primary',
  'is_swap',
  'hot_attach',
  'add_to_linux_fstab',
  'add_to_freebsd_fstab',
  'require_format_disk',
  'file_system',
  'min_iops',
] as const;
export type DiskFormField = (typeof DISK_FORM_FIELDS)[number];

/** What the deployment says the forms accept (docs/product.md, Configuration). */
export interface FormLimits {
  /** The largest disk, in GB (VS_MAX_DISK_GB). */
  maxDiskGb: number;
  /**
   * The addresses (addresses, CIDR blocks, ranges) the bot reaches the cloud API from (VS_BOT_ADDRESSES), and the API's
   * TCP port: a firewall rule that would drop them there asks for a second confirmation. Null or absent: not known.
   */
  botAccess?: { addresses: readonly string[]; port: number } | null;
}

export const DEFAULT_FORM_LIMITS: FormLimits = { maxDiskGb: DEFAULT_MAX_DISK_GB };
export const MAX_MIN_IOPS = 10_000_000;
export const MAX_LABEL_LENGTH = 255;
export const MAX_MOUNT_POINT_LENGTH = 256;

// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const CONTROL = /[\u0000-\u001F\u007F-\u009F\u2028\u2029]/;
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const WHITESPACE_OR_CONTROL = /[\s\u0000-\u001F\u007F-\u009F]/;

/** A text input: blank and absent mean "not given"; surrounding spaces are not part of the value. */
const textInput = (notText: string) =>
  z
    .string({ error: notText })
    .optional()
    .transform((s) => (s === undefined || s.trim() === '' ? undefined : s.trim()));

/** A whole number typed into a number input (Slack sends it as a string). */
const wholeNumber = (message: string, min: number, max: number, tooLarge: string) =>
  z.string().regex(/^\d+$/, message).transform(Number).pipe(z.number().min(min, message).max(max, tooLarge));

const checkbox = z.boolean({ error: 'Expected a checkbox value' }).optional();

const sizeMessage = 'Enter a whole number of GB, at least 1';
const iopsMessage = 'Enter a whole number of IOPS, at least 1';

const diskAddFormFields = ({ maxDiskGb }: FormLimits) => {
  const max = Math.min(maxDiskGb, MAX_DISK_GB);
  return z.object({
    disk_type: textInput('Choose HDD or SSD').pipe(z.enum(['HDD', 'SSD'], { error: 'Choose HDD or SSD' })),
    // The cap names the setting that makes it: whoever needs a bigger disk knows whom to ask.
    disk_size: textInput(sizeMessage).pipe(
      z.string({ error: 'Enter the size in GB' }).pipe(wholeNumber(sizeMessage, 1, max, `At most ${max} GB: the largest disk this bot adds (VS_MAX_DISK_GB)`)),
    ),
    label: textInput('Enter the label as text').pipe(
      z
        .string()
        .max(MAX_LABEL_LENGTH, `At most ${MAX_LABEL_LENGTH} characters`)
        .refine((s) => !CONTROL.test(s), 'No control characters in a label')
        .optional(),
    ),
    mount_point: textInput('Enter the mount point as text').pipe(
      z
        .string()
        .max(MAX_MOUNT_POINT_LENGTH, `At most ${MAX_MOUNT_POINT_LENGTH} characters`)
        .refine((s) => s.startsWith('/'), 'Start the mount point with /, e.g. /mnt/data')
        .refine((s) => !WHITESPACE_OR_CONTROL.test(s), 'No spaces or control characters in a mount point')
        .optional(),
    ),
    file_system: textInput('Choose ext3 or ext4').pipe(z.enum(['ext3', 'ext4'], { error: 'Choose ext3 or ext4' }).optional()),
    min_iops: textInput(iopsMessage).pipe(wholeNumber(iopsMessage, 1, MAX_MIN_IOPS, `At most ${MAX_MIN_IOPS} IOPS`).optional()),
    primary: checkbox,
    is_swap: checkbox,
    hot_attach: checkbox,
    add_to_linux_fstab: checkbox,
    add_to_freebsd_fstab: checkbox,
    require_format_disk: checkbox,
  });
};

/**
 * The one schema of the add-disk form, for the deployment's limits: flattened
 * modal values in, the API's AddDiskParams out. Unknown keys (e.g. the
 * shortcut's vs_id and channel) are ignored. Rules across fields run even when
 * a field failed on its own, so the user sees every problem at once.
 */
export const DiskAddForm = (limits: FormLimits = DEFAULT_FORM_LIMITS) =>
  diskAddFormFields(limits)
    .superRefine(
      (form, ctx) => {
        // Fields that failed their own check may still hold raw input here: compare, never assume types.
        const swap = form.is_swap === true;
        if (swap && form.mount_point !== undefined) ctx.addIssue({ code: 'custom', path: ['mount_point'], message: 'A swap disk has no mount point' });
        if (swap && form.file_system !== undefined) ctx.addIssue({ code: 'custom', path: ['file_system'], message: 'A swap disk has no file system' });
        if (form.file_system !== undefined && form.require_format_disk !== true) {
          ctx.addIssue({ code: 'custom', path: ['file_system'], message: 'A file system is only set when the disk is formatted: tick “Format the disk”' });
        }
        if (swap && form.primary === true) ctx.addIssue({ code: 'custom', path: ['is_swap'], message: 'A primary disk cannot be a swap disk' });
        // An fstab line names where the disk is mounted: without a mount point the server would not boot cleanly.
        const fstab = form.add_to_linux_fstab === true ? 'Linux' : form.add_to_freebsd_fstab === true ? 'FreeBSD' : null;
        if (fstab && !swap && form.mount_point === undefined)
          ctx.addIssue({ code: 'custom', path: ['mount_point'], message: `Give a mount point, e.g. /mnt/data: the disk is added to the ${fstab} fstab` });
      },
      { when: () => true },
    )
    .transform((form): AddDiskParams => {
      // Only what was given: absent keys let the API apply its defaults.
      const params: AddDiskParams = { disk_type: form.disk_type, disk_size: form.disk_size };
      for (const key of DISK_FORM_FIELDS) {
        const value = form[key];
        if (value !== undefined) (params as Record<string, unknown>)[key] = value;
      }
      return params;
    });
export type DiskAddForm = z.output<ReturnType<typeof DiskAddForm>>;

export type FormValidation<T> = { ok: true; params: T } | { ok: false; fieldErrors: Record<string, string> };

/** Validates the add-disk form under the deployment's limits; on failure, the first message of each field, keyed by field name. */
export function validateDiskForm(values: FormValues, limits: FormLimits = DEFAULT_FORM_LIMITS): FormValidation<AddDiskParams> {
  const parsed = DiskAddForm(limits).safeParse(values);
  if (parsed.success) return { ok: true, params: parsed.data };
  return { ok: false, fieldErrors: firstMessages(parsed.error) };
}

/** One message per field (the first), as Slack's `response_action: errors` wants. */
export function firstMessages(error: z.ZodError): Record<string, string> {
  const flat = z.flattenError(error);
  const out: Record<string, string> = {};
  for (const [field, messages] of Object.entries<string[] | undefined>(flat.fieldErrors)) {
    const first = messages?.[0];
    if (first !== undefined) out[field] = first;
  }
  // Problems with no field (the values were not an object at all) still need a place.
  if (flat.formErrors.length > 0 && Object.keys(out).length === 0) out['form'] = flat.formErrors[0]!;
  return out;
}
