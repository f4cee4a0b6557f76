import { call, parseXml, typed } from './http';
import { useSandbox } from './started';

const NOW = new Date('2026-03-14T09:26:53Z');
const sandbox = useSandbox({ now: () => NOW });

const BACKUP_FIELDS = [
  'id',
  'identifier',
  'user_id',
  'target_id',
  'target_type',
  'template_id',
  'backup_server_id',
  'backup_size',
  'backup_type',
  'initiated',
  'data_store_type',
  'operating_system',
  'operating_system_distro',
  'min_disk_size',
  'min_memory_size',
  'built',
  'built_at',
  'locked',
  'marked_for_delete',
  'allow_resize_without_reboot',
  'allowed_hot_migrate',
  'allowed_swap',
  'created_at',
  'updated_at',
  'iqn',
  'note',
  'volume_id',
  'disk_id',
];

const restore = (id: number, suffix: '.json' | '.xml' = '.json') => call(sandbox, `/backups/${id}/restore${suffix}`, { method: 'POST' });

describe('POST /backups/:id/restore', () => {
  it('answers 200 with the backup record, updated now, in JSON', async () => {
    const res = await restore(9);
    expect(res.status).toBe(200);
    const backup = (JSON.parse(res.text) as { backup: Record<string, unknown> }).backup;
    expect(Object.keys(backup)).toEqual(BACKUP_FIELDS);
    expect(backup).toMatchObject({
      id: 9,
      target_id: 42,
      target_type: 'VirtualMachine',
      disk_id: 101,
      built: true,
      marked_for_delete: false,
      operating_system: 'Linux',
      operating_system_distro: 'ubuntu',
      backup_size: 5242880,
      updated_at: '2026-03-14T09:26:53+00:00',
    });
    expect(backup.built_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/);
  });

  it('restores the backups of the bastion (incremental: its target is the server) and the database server (normal: its disk) too', async () => {
    for (const [id, target] of [
      [10, { target_type: 'VirtualMachine', target_id: 44 }],
      [11, { target_type: 'Disk', target_id: 109, disk_id: 109 }],
    ] as const) {
      const res = await restore(id);
      expect(res.status).toBe(200);
      expect(JSON.parse(res.text)).toMatchObject({ backup: { id, ...target } });
    }
  });

  it('answers the same record in XML with typed attributes and nil for null fields', async () => {
    const res = await restore(9, '.xml');
    expect(res.status).toBe(200);
    const backup = parseXml(res.text).backup as Record<string, unknown>;
    expect(Object.keys(backup)).toEqual(BACKUP_FIELDS);
    expect(typed(backup.id)).toEqual({ text: '9', type: 'integer', nil: false });
    expect(typed(backup.built)).toEqual({ text: 'true', type: 'boolean', nil: false });
    expect(typed(backup.built_at).type).toBe('datetime');
    expect(typed(backup.updated_at).text).toBe('2026-03-14T09:26:53+00:00');
    expect(typed(backup.iqn).nil).toBe(true);
    expect(typed(backup.volume_id).nil).toBe(true);
  });

  it('answers 404 for an unknown backup', async () => {
    const res = await restore(99);
    expect(res.status).toBe(404);
    expect(JSON.parse(res.text)).toEqual({ errors: ['Backup 99 was not found'] });
  });

  it.each([
    [12, 'it is marked for deletion'],
    [13, 'it is not built yet'],
  ])('answers 403 "could not be processed" for backup %i', async (id, why) => {
    const json = await restore(id);
    expect(json.status).toBe(403);
    expect(JSON.parse(json.text)).toEqual({ errors: [`Backup ${id} could not be processed: ${why}`] });
    const xml = await restore(id, '.xml');
    expect(xml.status).toBe(403);
    expect(parseXml(xml.text).errors).toEqual({ error: [`Backup ${id} could not be processed: ${why}`] });
  });
});
