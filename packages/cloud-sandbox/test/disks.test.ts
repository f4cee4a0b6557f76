import { call, parseXml, postJson, postXml, typed } from './http';
import { useSandbox } from './started';

const NOW = new Date('2026-03-14T09:26:53Z');
const sandbox = useSandbox({ now: () => NOW });

const DISK_FIELDS = [
  'id',
  'identifier',
  'virtual_machine_id',
  'disk_vm_number',
  'disk_type',
  'disk_size',
  'label',
  'primary',
  'is_swap',
  'mount_point',
  'file_system',
  'add_to_linux_fstab',
  'add_to_freebsd_fstab',
  'built',
  'locked',
  'burst_bw',
  'max_bw',
  'has_autobackups',
  'iqn',
  'volume_id',
  'created_at',
  'updated_at',
];

async function addJson(body: unknown, vsId = 42) {
  const res = await postJson(sandbox, `/virtual_machines/${vsId}/disks.json`, body);
  return { status: res.status, body: JSON.parse(res.text) as Record<string, unknown> };
}

describe('POST /virtual_machines/:id/disks', () => {
  it('creates a disk from the API example with string values and answers 201 with every disk field', async () => {
    const { status, body } = await addJson({
      disk: {
        disk_type: 'SSD',
        disk_size: '20',
        label: 'data',
        primary: '0',
        is_swap: 'false',
        mount_point: '/data',
        hot_attach: '1',
        add_to_linux_fstab: 'true',
        require_format_disk: '1',
        file_system: 'ext4',
        min_iops: '100',
      },
    });
    expect(status).toBe(201);
    const disk = body.disk as Record<string, unknown>;
    expect(Object.keys(disk)).toEqual(DISK_FIELDS);
    expect(disk).toMatchObject({
      id: 110,
      virtual_machine_id: 42,
      disk_vm_number: 3,
      disk_type: 'SSD',
      disk_size: 20,
      label: 'data',
      primary: false,
      is_swap: false,
      mount_point: '/data',
      file_system: 'ext4',
      add_to_linux_fstab: true,
      add_to_freebsd_fstab: false,
      built: false,
      locked: true,
      created_at: '2026-03-14T09:26:53+00:00',
      updated_at: '2026-03-14T09:26:53+00:00',
    });
    expect(disk.identifier).toMatch(/^[a-z0-9]{14}$/);
  });

  it('accepts real numbers and booleans, leaves file_system null when not given, and numbers disks per server', async () => {
    const first = await addJson({ disk: { disk_type: 'HDD', disk_size: 5, primary: 0, is_swap: true, hot_attach: 1 } });
    const second = await addJson({ disk: { disk_type: 'HDD', disk_size: 6 } });
    expect(first.status).toBe(201);
    expect(first.body.disk).toMatchObject({ disk_size: 5, is_swap: true, file_system: null, disk_vm_number: 3 });
    expect(second.body.disk).toMatchObject({ id: 111, disk_vm_number: 4 });
    const other = await addJson({ disk: { disk_type: 'SSD', disk_size: 1 } }, 46);
    expect(other.body.disk).toMatchObject({ id: 112, virtual_machine_id: 46, disk_vm_number: 4 });
  });

  it('remembers the request with its parsed body in the request log', async () => {
    await addJson({ disk: { disk_type: 'SSD', disk_size: '20', label: 'logs' } });
    expect(sandbox.requests).toHaveLength(1);
    expect(sandbox.requests[0]).toMatchObject({
      method: 'POST',
      path: '/virtual_machines/42/disks.json',
      format: 'json',
      status: 201,
      body: { disk: { disk_type: 'SSD', disk_size: '20', label: 'logs' } },
      at: '2026-03-14T09:26:53+00:00',
    });
    expect(sandbox.requests[0]?.headers['content-type']).toBe('application/json');
  });

  it('takes an XML body and answers XML with typed attributes', async () => {
    const res = await postXml(
      sandbox,
      '/virtual_machines/44/disks.xml',
      '<?xml version="1.0" encoding="UTF-8"?><disk><disk_type>SSD</disk_type><disk_size type="integer">50</disk_size>' +
        '<label>scratch &lt;tmp&gt; &amp; &quot;x&quot;</label><require_format_disk>1</require_format_disk>' +
        '<file_system>ext3</file_system><add_to_linux_fstab type="boolean">true</add_to_linux_fstab><mount_point nil="true"/></disk>',
    );
    expect(res.status).toBe(201);
    expect(res.headers['content-type']).toMatch(/^application\/xml/);
    const disk = parseXml(res.text).disk as Record<string, unknown>;
    expect(Object.keys(disk)).toEqual(DISK_FIELDS);
    expect(typed(disk.disk_size)).toEqual({ text: '50', type: 'integer', nil: false });
    expect(typed(disk.built)).toEqual({ text: 'false', type: 'boolean', nil: false });
    expect(typed(disk.locked)).toEqual({ text: 'true', type: 'boolean', nil: false });
    expect(typed(disk.iqn).nil).toBe(true);
    expect(typed(disk.created_at)).toEqual({ text: '2026-03-14T09:26:53+00:00', type: 'datetime', nil: false });
    expect(disk.label).toBe('scratch <tmp> & "x"');
    expect(res.text).toContain('<label>scratch &lt;tmp&gt; &amp; &quot;x&quot;</label>');
    expect(sandbox.requests[0]?.body).toEqual({
      disk: {
        disk_type: 'SSD',
        disk_size: '50',
        label: 'scratch <tmp> & "x"',
        require_format_disk: '1',
        file_system: 'ext3',
        add_to_linux_fstab: 'true',
        mount_point: null,
      },
    });
  });

  it('takes a Rails-style form body as curl -d sends it', async () => {
    const res = await call(sandbox, '/virtual_machines/42/disks.json', {
      method: 'POST',
      body: 'disk[disk_type]=HDD&disk[disk_size]=8&disk[label]=from+curl',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(201);
    expect(JSON.parse(res.text)).toMatchObject({ disk: { disk_type: 'HDD', disk_size: 8, label: 'from curl' } });
  });

  it('answers 404 for an unknown server', async () => {
    const { status, body } = await addJson({ disk: { disk_type: 'SSD', disk_size: 1 } }, 4242);
    expect(status).toBe(404);
    expect(body).toEqual({ errors: ['VirtualMachine 4242 was not found'] });
  });
});

describe('POST /virtual_machines/:id/disks with bad parameters', () => {
  const valid = { disk_type: 'SSD', disk_size: '20' };
  it.each<[string, Record<string, unknown>, Record<string, string[]>]>([
    ['disk_type is missing', { disk_size: '20' }, { disk_type: ["can't be blank"] }],
    ['disk_size is missing', { disk_type: 'SSD' }, { disk_size: ["can't be blank"] }],
    ['both are missing', {}, { disk_type: ["can't be blank"], disk_size: ["can't be blank"] }],
    ['disk_type is not HDD or SSD', { ...valid, disk_type: 'NVMe' }, { disk_type: ['must be HDD or SSD'] }],
    ['disk_type is lower case', { ...valid, disk_type: 'ssd' }, { disk_type: ['must be HDD or SSD'] }],
    ['disk_size is zero', { ...valid, disk_size: '0' }, { disk_size: ['must be a positive integer'] }],
    ['disk_size is negative', { ...valid, disk_size: -5 }, { disk_size: ['must be a positive integer'] }],
    ['disk_size is a fraction', { ...valid, disk_size: 2.5 }, { disk_size: ['must be a positive integer'] }],
    ['disk_size is text', { ...valid, disk_size: 'twenty' }, { disk_size: ['must be a positive integer'] }],
    ['mount_point is over 256 characters', { ...valid, mount_point: '/' + 'm'.repeat(256) }, { mount_point: ['is too long (maximum is 256 characters)'] }],
    ['file_system comes without require_format_disk', { ...valid, file_system: 'ext4' }, { file_system: ['can only be set when require_format_disk is 1'] }],
    [
      'file_system comes with require_format_disk 0',
      { ...valid, file_system: 'ext4', require_format_disk: '0' },
      { file_system: ['can only be set when require_format_disk is 1'] },
    ],
    ['file_system is not ext3 or ext4', { ...valid, file_system: 'xfs', require_format_disk: '1' }, { file_system: ['must be ext3 or ext4'] }],
    ['min_iops is not a positive integer', { ...valid, min_iops: '-1' }, { min_iops: ['must be a positive integer'] }],
    ['a 1/0 flag has another value', { ...valid, primary: 'yes' }, { primary: ['must be 1 or 0'] }],
  ])('answers 422 with field messages when %s', async (_, disk, errors) => {
    const { status, body } = await addJson({ disk });
    expect(status).toBe(422);
    expect(body).toEqual({ errors });
  });

  it('accepts a mount_point of exactly 256 characters', async () => {
    const { status } = await addJson({ disk: { ...valid, mount_point: '/' + 'm'.repeat(255) } });
    expect(status).toBe(201);
  });

  it('answers 422 in XML with one error element per message, prefixed with the field', async () => {
    const res = await postXml(
      sandbox,
      '/virtual_machines/42/disks.xml',
      '<disk><disk_type>SSD</disk_type><disk_size>0</disk_size><file_system>zfs</file_system></disk>',
    );
    expect(res.status).toBe(422);
    expect(parseXml(res.text).errors).toEqual({
      error: ['disk_size must be a positive integer', 'file_system must be ext3 or ext4', 'file_system can only be set when require_format_disk is 1'],
    });
  });

  it('answers 422 for a body that is not JSON, one that is not XML, and one without the disk wrapper', async () => {
    const notJson = await call(sandbox, '/virtual_machines/42/disks.json', {
      method: 'POST',
      body: '{"disk": {',
      headers: { 'content-type': 'application/json' },
    });
    expect(notJson.status).toBe(422);
    expect(JSON.parse(notJson.text)).toEqual({ errors: { base: ['the request body is not valid JSON'] } });
    const notXml = await postXml(sandbox, '/virtual_machines/42/disks.xml', '<disk><disk_type>SSD</disk>');
    expect(notXml.status).toBe(422);
    expect(parseXml(notXml.text).errors).toEqual({ error: [expect.stringMatching(/^base the request body is not well-formed XML/)] });
    const unwrapped = await addJson({ disk_type: 'SSD', disk_size: 20 });
    expect(unwrapped.status).toBe(422);
    expect(Object.keys(unwrapped.body.errors as object)).toEqual(['disk']);
    const empty = await call(sandbox, '/virtual_machines/42/disks.json', { method: 'POST' });
    expect(empty.status).toBe(422);
  });

  it('remembers nothing after a refused request', async () => {
    await addJson({ disk: { disk_type: 'SSD' } });
    const { body } = await addJson({ disk: valid });
    expect(body.disk).toMatchObject({ id: 110, disk_vm_number: 3 });
  });
});
