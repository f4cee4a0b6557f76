import type { FormValues } from '../../src/changes/disk-form';

/** A complete, valid add-disk form as the Slack side flattens it (sizes as typed text, checkboxes as booleans). */
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
