import { CHANGES } from '../../src/changes/definitions';
import { Responses } from '../../src/cloud/shapes';
import { changeRequest, noBody, pathId, samePreparedRequest } from '../../src/cloud/prepared';

// A change as it will go on the wire (src/cloud/prepared.ts): each change's
// row declares its request with changeRequest(); what approvers see and the
// audit keeps is the value it prepares, which the client sends as it is
// (test/cloud/client.test.ts checks the wire).

const addDisk = CHANGES.disk_add.request;
const restore = CHANGES.backup_restore.request;

describe('prepared requests', () => {
  test('add a disk: POST to the server, the body in the configured format, read as a disk', () => {
    expect(addDisk.prepare('json', 42, { disk_type: 'SSD', disk_size: 20, primary: true })).toEqual({
      operation: 'add_disk',
      method: 'POST',
      path: '/virtual_machines/42/disks.json',
      body: '{"disk":{"disk_type":"SSD","disk_size":"20","primary":"1"}}',
      expectedStatuses: [201, 200],
      answer: Responses.disk,
    });
    expect(addDisk.prepare('xml', 7, { disk_type: 'HDD', disk_size: 5 })).toMatchObject({
      path: '/virtual_machines/7/disks.xml',
      body: '<?xml version="1.0" encoding="UTF-8"?><disk><disk_type>HDD</disk_type><disk_size>5</disk_size></disk>',
    });
  });

  test('restore a backup: POST without a body', () => {
    expect(restore.prepare('xml', 9, { backup_id: 9 })).toMatchObject({
      operation: 'restore_backup',
      method: 'POST',
      path: '/backups/9/restore.xml',
      body: null,
    });
  });

  test('ids must be positive whole numbers: anything else is a bug, refused before any request exists', () => {
    for (const id of [0, -1, 1.5, Number.NaN, 2 ** 60]) expect(() => pathId(id)).toThrow(`expected a positive integer id, got ${String(id)}`);
    expect(pathId(1)).toBe('1');
    expect(() => restore.prepare('json', 0, { backup_id: 0 })).toThrow(RangeError);
    expect(() => addDisk.prepare('json', -3, { disk_type: 'SSD', disk_size: 1 })).toThrow(RangeError);
  });

  test('a declared request is a path template with the target id in it; anything else is refused when the table is read', () => {
    const declare = (path: `/${string}`) => () =>
      changeRequest({ operation: 'x', method: 'POST', path, body: noBody, expectedStatuses: [201], answer: Responses.disk });
    expect(declare('/virtual_machines/:id/startup')).not.toThrow();
    for (const path of ['/virtual_machines/startup', '/virtual_machines/:id/../x', '/virtual_machines/:id/startup.json', '/a b/:id'] as const)
      expect(declare(path)).toThrow(/not a path template/);
  });

  test('the same request means the same method, path and body, byte for byte', () => {
    const a = addDisk.prepare('json', 42, { disk_type: 'SSD', disk_size: 20 });
    expect(samePreparedRequest(a, { method: 'POST', path: a.path, body: a.body })).toBe(true);
    expect(samePreparedRequest(a, { method: 'PUT', path: a.path, body: a.body })).toBe(false);
    expect(samePreparedRequest(a, { method: 'POST', path: '/virtual_machines/42/disks.xml', body: a.body })).toBe(false);
    expect(samePreparedRequest(a, { method: 'POST', path: a.path, body: `${a.body} ` })).toBe(false);
    expect(samePreparedRequest(restore.prepare('json', 9, { backup_id: 9 }), { method: 'POST', path: '/backups/9/restore.json', body: '' })).toBe(false);
  });
});
