import { pathId, prepareAddDisk, prepareRestoreBackup, preparing, samePreparedRequest } from '../../src/cloud/prepared';

// A change as it will go on the wire (src/cloud/prepared.ts): what approvers
// see and the audit keeps is this value, which the client sends as it is
// (test/cloud/client.test.ts checks the wire).

describe('prepared requests', () => {
  test('add a disk: POST to the server, the body in the configured format', () => {
    expect(prepareAddDisk('json', 42, { disk_type: 'SSD', disk_size: 20, primary: true })).toEqual({
      operation: 'add_disk',
      method: 'POST',
      path: '/virtual_machines/42/disks.json',
      body: '{"disk":{"disk_type":"SSD","disk_size":"20","primary":"1"}}',
    });
    expect(prepareAddDisk('xml', 7, { disk_type: 'HDD', disk_size: 5 })).toEqual({
      operation: 'add_disk',
      method: 'POST',
      path: '/virtual_machines/7/disks.xml',
      body: '<?xml version="1.0" encoding="UTF-8"?><disk><disk_type>HDD</disk_type><disk_size>5</disk_size></disk>',
    });
  });

  test('restore a backup: POST without a body', () => {
    expect(prepareRestoreBackup('xml', 9)).toEqual({ operation: 'restore_backup', method: 'POST', path: '/backups/9/restore.xml', body: null });
  });

  test('ids must be positive whole numbers: anything else is a bug, refused before any request exists', () => {
    for (const id of [0, -1, 1.5, Number.NaN, 2 ** 60]) expect(() => pathId(id)).toThrow(`expected a positive integer id, got ${String(id)}`);
    expect(pathId(1)).toBe('1');
    expect(() => prepareRestoreBackup('json', 0)).toThrow(RangeError);
    expect(() => prepareAddDisk('json', -3, { disk_type: 'SSD', disk_size: 1 })).toThrow(RangeError);
  });

  test('the same request means the same method, path and body, byte for byte', () => {
    const a = prepareAddDisk('json', 42, { disk_type: 'SSD', disk_size: 20 });
    expect(samePreparedRequest(a, { method: 'POST', path: a.path, body: a.body })).toBe(true);
    expect(samePreparedRequest(a, { method: 'PUT', path: a.path, body: a.body })).toBe(false);
    expect(samePreparedRequest(a, { method: 'POST', path: '/virtual_machines/42/disks.xml', body: a.body })).toBe(false);
    expect(samePreparedRequest(a, { method: 'POST', path: a.path, body: `${a.body} ` })).toBe(false);
    expect(samePreparedRequest(prepareRestoreBackup('json', 9), { method: 'POST', path: '/backups/9/restore.json', body: '' })).toBe(false);
  });

  test('the preparing half of a client prepares in its format', () => {
    const json = preparing('json');
    expect(json.prepareRestoreBackup(9)).toEqual(prepareRestoreBackup('json', 9));
    expect(preparing('xml').prepareAddDisk(42, { disk_type: 'SSD', disk_size: 20 })).toEqual(prepareAddDisk('xml', 42, { disk_type: 'SSD', disk_size: 20 }));
  });
});
