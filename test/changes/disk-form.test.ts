import fc from 'fast-check';
import { DISK_FORM_FIELDS, validateDiskForm, type FormValues } from '../../src/changes/disk-form';
import { validateRestoreForm } from '../../src/changes/restore-form';
import { AddDiskParams } from '../../src/cloud/schemas';
import { goodDiskForm } from '../helpers/forms';

const good: FormValues = { ...goodDiskForm, min_iops: undefined };

const errorsOf = (values: FormValues) => {
  const result = validateDiskForm(values);
  if (result.ok) throw new Error(`expected errors, got ${JSON.stringify(result.params)}`);
  return result.fieldErrors;
};

describe('the add-disk form', () => {
  test('a complete form becomes exactly the API parameters, numbers as numbers and unknown keys dropped', () => {
    expect(validateDiskForm({ ...good, vs_id: '42', channel: 'C1', min_iops: ' 300 ' })).toEqual({
      ok: true,
      params: { ...goodDiskForm, disk_size: 20, min_iops: 300 },
    });
  });

  test('only type and size are required; blanks count as not given and leave the API defaults', () => {
    const result = validateDiskForm({ disk_type: 'HDD', disk_size: '1', label: '   ', mount_point: '', min_iops: '' });
    expect(result).toEqual({ ok: true, params: { disk_type: 'HDD', disk_size: 1 } });
    expect(Object.keys(result.ok ? result.params : {})).toEqual(['disk_type', 'disk_size']);
  });

  test('VS_MAX_DISK_GB sets the largest disk, up to the 65,536 GB the API takes; a disk of that size passes', () => {
    expect(validateDiskForm({ ...good, disk_size: '100' }, { maxDiskGb: 100 })).toMatchObject({ ok: true, params: { disk_size: 100 } });
    expect(validateDiskForm({ ...good, disk_size: '101' }, { maxDiskGb: 100 })).toEqual({
      ok: false,
      fieldErrors: { disk_size: 'At most 100 GB: the largest disk this bot adds (VS_MAX_DISK_GB)' },
    });
    expect(validateDiskForm({ ...good, disk_size: '65537' }, { maxDiskGb: 1_000_000 })).toMatchObject({
      ok: false,
      fieldErrors: { disk_size: expect.stringContaining('At most 65536 GB') },
    });
  });

  test('a disk in no fstab, or a swap disk, needs no mount point', () => {
    expect(validateDiskForm({ ...good, mount_point: undefined, add_to_linux_fstab: false })).toMatchObject({ ok: true });
    expect(validateDiskForm({ ...good, mount_point: undefined, file_system: undefined, is_swap: true })).toMatchObject({ ok: true });
  });

  test('every problem comes back at once, one short message per field', () => {
    expect(errorsOf({ ...good, disk_size: '0', require_format_disk: false, mount_point: '/' + 'x'.repeat(300) })).toEqual({
      disk_size: 'Enter a whole number of GB, at least 1',
      mount_point: 'At most 256 characters',
      file_system: expect.stringMatching(/Format the disk/),
    });
  });

  test.each([
    ['disk_type', { disk_type: undefined }, 'Choose HDD or SSD'],
    ['disk_type', { disk_type: 'NVMe' }, 'Choose HDD or SSD'],
    ['disk_size', { disk_size: undefined }, 'Enter the size in GB'],
    ['disk_size', { disk_size: '2.5' }, 'Enter a whole number of GB, at least 1'],
    ['disk_size', { disk_size: '-3' }, 'Enter a whole number of GB, at least 1'],
    ['disk_size', { disk_size: '1e3' }, 'Enter a whole number of GB, at least 1'],
    ['disk_size', { disk_size: '2049' }, 'At most 2048 GB: the largest disk this bot adds (VS_MAX_DISK_GB)'],
    ['disk_size', { disk_size: '65536' }, 'At most 2048 GB: the largest disk this bot adds (VS_MAX_DISK_GB)'],
    ['mount_point', { mount_point: undefined }, 'Give a mount point, e.g. /mnt/data: the disk is added to the Linux fstab'],
    [
      'mount_point',
      { mount_point: ' ', add_to_linux_fstab: false, add_to_freebsd_fstab: true },
      'Give a mount point, e.g. /mnt/data: the disk is added to the FreeBSD fstab',
    ],
    ['label', { label: 'x'.repeat(256) }, 'At most 255 characters'],
    ['label', { label: 'a\u0000b' }, 'No control characters in a label'],
    ['mount_point', { mount_point: 'mnt/data' }, 'Start the mount point with /, e.g. /mnt/data'],
    ['mount_point', { mount_point: '/mnt/my data' }, 'No spaces or control characters in a mount point'],
    ['mount_point', { mount_point: '/mnt/\tdata' }, 'No spaces or control characters in a mount point'],
    ['file_system', { file_system: 'xfs' }, 'Choose ext3 or ext4'],
    ['file_system', { require_format_disk: undefined }, 'A file system is only set when the disk is formatted: tick “Format the disk”'],
    ['min_iops', { min_iops: '0' }, 'Enter a whole number of IOPS, at least 1'],
    ['min_iops', { min_iops: 'fast' }, 'Enter a whole number of IOPS, at least 1'],
    ['mount_point', { is_swap: true, file_system: undefined }, 'A swap disk has no mount point'],
    ['file_system', { is_swap: true, mount_point: undefined }, 'A swap disk has no file system'],
    ['is_swap', { is_swap: true, primary: true, mount_point: undefined, file_system: undefined }, 'A primary disk cannot be a swap disk'],
    ['primary', { primary: 'yes' }, 'Expected a checkbox value'],
  ] as [string, FormValues, string][])('%s: %j is refused with "%s"', (field, change, message) => {
    expect(errorsOf({ ...good, ...change })[field]).toBe(message);
  });

  test('a swap disk without mount point or file system is fine', () => {
    expect(validateDiskForm({ disk_type: 'SSD', disk_size: '4', is_swap: true, require_format_disk: true })).toMatchObject({ ok: true });
  });

  test('any input at all: never throws; accepted values are valid API parameters that keep every rule', () => {
    const interestingText = fc.oneof(
      fc.constantFrom(
        '',
        ' ',
        'HDD',
        'SSD',
        'hdd',
        'ext3',
        'ext4',
        'xfs',
        '0',
        '1',
        '20',
        '65536',
        '65537',
        '-1',
        '1.5',
        '007',
        '99999999999999999999',
        '/',
        '/mnt/data',
        '/a b',
        '/\u0000',
        'mnt',
        'x'.repeat(300),
      ),
      fc.string({ maxLength: 40 }),
      fc.string({ unit: 'grapheme', maxLength: 10 }),
      fc.integer({ min: -5, max: 70000 }).map(String),
      fc.string({ maxLength: 20 }).map((s) => `/${s}`),
    );
    const value = fc.oneof(fc.constant(undefined), fc.boolean(), interestingText);
    const form = fc.dictionary(fc.oneof(fc.constantFrom(...DISK_FORM_FIELDS), fc.string({ maxLength: 8 })), value, { maxKeys: 16 });

    fc.assert(
      fc.property(form, (values) => {
        const result = validateDiskForm(values);
        if (!result.ok) {
          for (const [field, message] of Object.entries(result.fieldErrors)) {
            expect(DISK_FORM_FIELDS as readonly string[]).toContain(field);
            expect(message.length).toBeGreaterThan(0);
          }
          return;
        }
        const p = result.params;
        expect(AddDiskParams.safeParse(p).success).toBe(true);
        expect(Number.isInteger(p.disk_size) && p.disk_size >= 1 && p.disk_size <= 65536).toBe(true);
        if (p.mount_point !== undefined) {
          expect(p.mount_point.startsWith('/')).toBe(true);
          expect(p.mount_point.length).toBeLessThanOrEqual(256);
          // eslint-disable-next-line no-control-regex -- control characters are what it looks for
          expect(/[\s\u0000-\u001f\u007f]/.test(p.mount_point)).toBe(false);
        }
        if (p.label !== undefined) expect(p.label.length).toBeLessThanOrEqual(255);
        if (p.file_system !== undefined) expect(p.require_format_disk).toBe(true);
        if (p.is_swap) expect(p.mount_point === undefined && p.file_system === undefined && p.primary !== true).toBe(true);
        if (p.min_iops !== undefined) expect(Number.isSafeInteger(p.min_iops) && p.min_iops >= 1).toBe(true);
        for (const key of Object.keys(p)) expect(DISK_FORM_FIELDS as readonly string[]).toContain(key);
      }),
      { numRuns: 2000 },
    );
  });

  test('any form built within the rules is accepted as typed', () => {
    const validForm = fc.record(
      {
        disk_type: fc.constantFrom('HDD', 'SSD'),
        disk_size: fc.integer({ min: 1, max: 2048 }),
        // eslint-disable-next-line no-control-regex -- control characters are what it leaves out
        label: fc.string({ maxLength: 40 }).filter((s) => s.trim() === s && !/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(s)),
        mount_point: fc.stringMatching(/^\/[a-z0-9_./-]{0,40}$/),
        min_iops: fc.integer({ min: 1, max: 100000 }),
        hot_attach: fc.boolean(),
        swap: fc.boolean(),
        format: fc.boolean(),
      },
      { requiredKeys: ['disk_type', 'disk_size', 'swap', 'format'] },
    );
    fc.assert(
      fc.property(validForm, ({ swap, format, disk_size, min_iops, ...rest }) => {
        const values: FormValues = {
          ...rest,
          disk_size: String(disk_size),
          min_iops: min_iops === undefined ? undefined : String(min_iops),
          is_swap: swap,
          primary: false,
          require_format_disk: format,
          file_system: format && !swap ? 'ext3' : undefined,
          mount_point: swap ? undefined : rest.mount_point,
        };
        const result = validateDiskForm(values);
        expect(result.ok).toBe(true);
        if (result.ok) {
          expect(result.params.disk_size).toBe(disk_size);
          expect(result.params.min_iops).toBe(min_iops);
          expect(result.params.label).toBe(rest.label === '' ? undefined : rest.label);
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('the restore form', () => {
  test('the backup id typed again (spaces forgiven) confirms; the reason is kept', () => {
    expect(validateRestoreForm(9, { confirm: ' 9 ', reason: ' corrupt table ' })).toEqual({ ok: true, params: { backup_id: 9, reason: 'corrupt table' } });
    expect(validateRestoreForm(9, { confirm: '#9', reason: 'x' })).toEqual({ ok: true, params: { backup_id: 9, reason: 'x' } });
  });

  test.each([[undefined], [''], ['   ']])('a reason is required: %j is refused on its field', (reason) => {
    expect(validateRestoreForm(9, { confirm: '9', reason })).toEqual({
      ok: false,
      fieldErrors: { reason: expect.stringMatching(/^Say why the disk is restored/) },
    });
  });

  test.each([[undefined], [''], ['10'], ['09'], ['9 9'], ['##9'], ['# 9']])('confirm %j does not match backup 9', (confirm) => {
    expect(validateRestoreForm(9, { confirm, reason: 'corrupt' })).toEqual({ ok: false, fieldErrors: { confirm: expect.stringContaining('(9)') } });
  });

  test('a reason over 500 characters is refused on its field', () => {
    expect(validateRestoreForm(9, { confirm: '9', reason: 'x'.repeat(501) })).toEqual({ ok: false, fieldErrors: { reason: 'At most 500 characters' } });
  });
});
