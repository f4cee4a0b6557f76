import type { FormValues } from '../../src/changes/disk-form';
import { input, type StateValue } from './payloads';

// The forms tests submit, written once: a complete, valid add-disk form, as
// the change door reads it and as Slack sends it.

/** A complete, valid add-disk form as the Slack side flattens it for the change door (sizes as typed text, checkboxes as booleans). */
export const goodDiskForm = {
  disk_type: 'SSD',
  disk_size: '20',
  label: 'data',
  mount_point: '/mnt/data',
  file_system: 'ext4',
  primary: false,
  is_swap: false,
  hot_attach: true,
  add_to_linux_fstab: true,
  add_to_freebsd_fstab: false,
  require_format_disk: true,
} as const satisfies FormValues;

/** The add-disk inputs by kind: the rest are text, and booleans are checkboxes. */
const SELECTS = new Set(['disk_type', 'file_system']);
const NUMBERS = new Set(['disk_size', 'min_iops']);

/** Flat add-disk values as Slack sends them in view.state.values' entries (pass them to stateOf or viewSubmission's fields). */
export function diskInputs(values: FormValues): Record<string, StateValue> {
  const entry = (field: string, value: string | boolean | undefined): StateValue => {
    if (typeof value === 'boolean') return input.check(value);
    const v = value ?? null;
    if (SELECTS.has(field)) return input.select(v);
    return NUMBERS.has(field) ? input.number(v) : input.text(v);
  };
  return Object.fromEntries(Object.entries(values).map(([field, value]) => [field, entry(field, value)]));
}

/** goodDiskForm as a person submits it in the add-disk modal (min IOPS left empty). */
export const goodDisk: Record<string, StateValue> = diskInputs({ ...goodDiskForm, min_iops: undefined });
