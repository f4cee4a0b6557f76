import { call, postJson, postXml } from './http';
import { API_READS, useSandbox } from './started';

// Every change the sandbox accepts runs as transactions on its clock: pending
// for a second, running for three, then complete (or, on VS 48, failed). The
// clock here is the test's: moving it is the next step, no sleeping.

const T0 = Date.parse('2026-03-14T09:00:00Z');
let clock = T0;
const sandbox = useSandbox({ now: () => new Date(clock), transactionMs: { pending: 1_000, running: 3_000 } });
beforeEach(() => {
  clock = T0;
});
const later = (ms: number) => {
  clock += ms;
};

type Json = Record<string, unknown>;
const get = async (path: string): Promise<Json> => {
  const res = await call(sandbox, path);
  expect(res.status).toBe(200);
  return JSON.parse(res.text) as Json;
};
const server = async (id: number) => (await get(`/virtual_machines/${id}.json`)).virtual_machine as Json;
const transactions = async (id: number, query = '') =>
  ((await get(`/virtual_machines/${id}/transactions.json${query}`)) as unknown as { transaction: Json }[]).map((t) => t.transaction);
const disks = async (id: number) => ((await get(`/virtual_machines/${id}/disks.json`)) as unknown as { disk: Json }[]).map((d) => d.disk);
const post = (path: string, body?: unknown) => (body === undefined ? call(sandbox, path, { method: 'POST' }) : postJson(sandbox, path, body));

describe('adding a disk', () => {
  it('builds it in a transaction: pending, running, complete; the disk and its server locked until then, built after', async () => {
    const added = await post('/virtual_machines/42/disks.json', { disk: { disk_type: 'SSD', disk_size: 20, label: 'data' } });
    expect(added.status).toBe(201);
    const disk = (JSON.parse(added.text) as { disk: Json }).disk;
    expect(disk).toMatchObject({ id: 110, built: false, locked: true });
    const [build] = await transactions(42);
    expect(build).toMatchObject({ action: 'build_disk', status: 'pending', parent_type: 'Disk', parent_id: 110, associated_object_id: 42, started_at: null });
    expect(build).not.toHaveProperty('log_output');
    expect(await server(42)).toMatchObject({ locked: true });

    later(1_000);
    expect((await transactions(42))[0]).toMatchObject({ id: build!.id, status: 'running', started_at: '2026-03-14T09:00:01+00:00' });
    expect((await disks(42)).find((d) => d.id === 110)).toMatchObject({ built: false, locked: true });

    later(2_999);
    expect((await transactions(42))[0]).toMatchObject({ status: 'running' });
    later(1);
    expect((await transactions(42))[0]).toMatchObject({ status: 'complete', updated_at: '2026-03-14T09:00:04+00:00' });
    expect((await disks(42)).find((d) => d.id === 110)).toMatchObject({ built: true, locked: false });
    expect(await server(42)).toMatchObject({ locked: false });
  });

  it('formats it afterwards when asked: a second transaction that waits for the build and runs when it ends', async () => {
    await post('/virtual_machines/42/disks.json', { disk: { disk_type: 'SSD', disk_size: 20, require_format_disk: '1', file_system: 'ext4' } });
    const [format, build] = await transactions(42);
    expect(format).toMatchObject({ action: 'format_disk', status: 'pending', parent_type: 'Disk', parent_id: 110, dependent_transaction_id: build!.id });
    later(4_000);
    expect((await transactions(42)).slice(0, 2).map((t) => t.status)).toEqual(['running', 'complete']);
    expect((await disks(42)).find((d) => d.id === 110)).toMatchObject({ built: true, locked: true });
    later(3_000);
    expect((await transactions(42)).slice(0, 2).map((t) => t.status)).toEqual(['complete', 'complete']);
    expect((await disks(42)).find((d) => d.id === 110)).toMatchObject({ built: true, locked: false });
  });
});

describe('restoring a backup', () => {
  it.each([
    [11, 46, 'restore_backup'],
    [9, 42, 'restore_incremental_backup'],
  ])('runs backup %i’s restore as a transaction on the backup, locking it and its server until it ends', async (id, vsId, action) => {
    expect((await post(`/backups/${id}/restore.json`)).status).toBe(200);
    expect((await transactions(vsId))[0]).toMatchObject({ action, status: 'pending', parent_type: 'Backup', parent_id: id });
    expect(await get(`/backups/${id}.json`)).toMatchObject({ backup: { locked: true } });
    expect(await server(vsId)).toMatchObject({ locked: true });
    // Locked while it runs: a second restore is refused as the API refuses it.
    expect((await post(`/backups/${id}/restore.json`)).status).toBe(403);
    later(4_000);
    expect((await transactions(vsId))[0]).toMatchObject({ action, status: 'complete' });
    expect(await get(`/backups/${id}.json`)).toMatchObject({ backup: { locked: false } });
    expect(await server(vsId)).toMatchObject({ locked: false });
  });
});

describe('power actions', () => {
  it.each([
    [43, 'startup', 'startup_virtual_machine', { booted: true, recovery_mode: false }],
    [42, 'shutdown', 'stop_virtual_machine', { booted: false, recovery_mode: false }],
    [42, 'stop', 'stop_virtual_machine', { booted: false, recovery_mode: false }],
    [42, 'reboot', 'reboot_virtual_machine', { booted: true, recovery_mode: false }],
  ] as const)('VS %i %s: 201 with the server locked, a %s transaction, the power state changed once it completes', async (id, action, transaction, after) => {
    const before = await server(id);
    const res = await post(`/virtual_machines/${id}/${action}.json`);
    expect(res.status).toBe(201);
    expect(JSON.parse(res.text)).toMatchObject({ virtual_machine: { id, locked: true, booted: before.booted } });
    expect((await transactions(id))[0]).toMatchObject({ action: transaction, status: 'pending', parent_type: 'VirtualMachine', parent_id: id });
    later(3_999);
    expect(await server(id)).toMatchObject({ booted: before.booted, locked: true });
    later(1);
    expect(await server(id)).toMatchObject({ ...after, locked: false });
  });

  it('reboots into the recovery image with {"mode": "recovery"} (JSON or XML), and out of it with a plain reboot', async () => {
    expect((await post('/virtual_machines/42/reboot.json', { mode: 'recovery' })).status).toBe(201);
    expect((await transactions(42))[0]).toMatchObject({ params: { mode: 'recovery' } });
    later(4_000);
    expect(await server(42)).toMatchObject({ booted: true, recovery_mode: true });
    expect((await postXml(sandbox, '/virtual_machines/44/reboot.xml', '<mode>recovery</mode>')).status).toBe(201);
    expect((await post('/virtual_machines/42/reboot.json')).status).toBe(201);
    later(4_000);
    expect(await server(42)).toMatchObject({ recovery_mode: false });
    expect(await server(44)).toMatchObject({ recovery_mode: true });
  });

  it.each([
    [42, 'startup', 404, 'VirtualMachine 42 cannot be started: it is already on'],
    [43, 'shutdown', 404, 'VirtualMachine 43 cannot be shut down: it is off'],
    [43, 'stop', 404, 'VirtualMachine 43 cannot be stopped: it is off'],
    [43, 'reboot', 404, 'VirtualMachine 43 cannot be rebooted: it is off'],
    [47, 'reboot', 422, 'VirtualMachine 47 is locked: take_incremental_backup is running on it'],
    [999, 'reboot', 404, 'VirtualMachine 999 was not found'],
  ] as const)('VS %i %s is refused (%i) and starts nothing', async (id, action, status, message) => {
    const before = id === 999 ? [] : await transactions(id);
    for (const format of ['json', 'xml'] as const) {
      const res = await post(`/virtual_machines/${id}/${action}.${format}`);
      expect(res.status).toBe(status);
      expect(res.text).toContain(message);
    }
    if (id !== 999) expect(await transactions(id)).toEqual(before);
  });

  it('refuses a reboot mode other than recovery (422 on the field)', async () => {
    const res = await post('/virtual_machines/42/reboot.json', { mode: 'safe' });
    expect(res.status).toBe(422);
    expect(JSON.parse(res.text)).toEqual({ errors: { mode: ['must be recovery, or left out for a normal reboot'] } });
  });

  it('a second power action while the first runs is refused: the server is locked', async () => {
    expect((await post('/virtual_machines/42/reboot.json')).status).toBe(201);
    expect((await post('/virtual_machines/42/stop.json')).status).toBe(422);
  });
});

describe('the locked server and the failing one', () => {
  it('VS 47 stays locked by its running backup however long the clock runs', async () => {
    later(365 * 24 * 3_600_000);
    expect(await server(47)).toMatchObject({ locked: true });
    expect((await transactions(47))[0]).toMatchObject({ status: 'running', action: 'take_incremental_backup' });
  });

  it('VS 48 accepts every change, then each fails in the cloud; its raw log shows only with ?detailed, and nothing changes', async () => {
    expect((await post('/virtual_machines/48/reboot.json')).status).toBe(201);
    expect((await post('/virtual_machines/48/disks.json', { disk: { disk_type: 'HDD', disk_size: 5 } })).status).toBe(201);
    expect((await post('/backups/14/restore.json')).status).toBe(200);
    later(4_000);
    const [restore, build, reboot] = await transactions(48);
    expect([restore, build, reboot].map((t) => [t!.action, t!.status])).toEqual([
      ['restore_backup', 'failed'],
      ['build_disk', 'failed'],
      ['reboot_virtual_machine', 'failed'],
    ]);
    for (const t of [restore, build, reboot]) expect(t).not.toHaveProperty('log_output');
    const detailed = await transactions(48, '?detailed');
    for (const t of detailed.slice(0, 3)) expect(t.log_output).toMatch(/Fatal: .*\n.*ssh -i \/onapp\/[\s\S]*\.rb:\d+:in/);
    const rebootId = Number(reboot!.id);
    const one = await get(`/transactions/${rebootId}.json?detailed=1`);
    expect((one.transaction as Json).log_output).toContain('DATABASE_URL=');
    expect(await get(`/transactions/${rebootId}.json`)).not.toHaveProperty('transaction.log_output');
    expect(await server(48)).toMatchObject({ booted: true, recovery_mode: false, locked: false });
    expect((await disks(48)).at(-1)).toMatchObject({ built: false, locked: false });
  });
});

describe("the account's transactions and a cancel", () => {
  it("lists every server's transactions newest first, paged as a server's", async () => {
    await post('/virtual_machines/42/shutdown.json');
    await post('/virtual_machines/46/disks.json', { disk: { disk_type: 'SSD', disk_size: 20 } });
    const all = ((await get('/transactions.json')) as unknown as { transaction: Json }[]).map((t) => t.transaction);
    expect(all.slice(0, 2).map((t) => [t.action, t.associated_object_id])).toEqual([
      ['build_disk', 46],
      ['stop_virtual_machine', 42],
    ]);
    expect(all).toHaveLength(10);
    const second = ((await get('/transactions/page/2.json?per_page=1')) as unknown as { transaction: Json }[]).map((t) => t.transaction);
    expect(second.map((t) => t.id)).toEqual([all[1]!.id]);
  });

  it("cancels a transaction that has not ended, as the panel's Cancel button: what waits for it too; its objects unlocked, nothing applied", async () => {
    await post('/virtual_machines/42/disks.json', { disk: { disk_type: 'SSD', disk_size: 20, require_format_disk: '1', file_system: 'ext4' } });
    const [format, build] = await transactions(42);
    later(1_500);
    expect(sandbox.cancelTransaction(Number(build!.id))).toBe(true);
    expect((await transactions(42)).slice(0, 2).map((t) => [t.id, t.status])).toEqual([
      [format!.id, 'cancelled'],
      [build!.id, 'cancelled'],
    ]);
    expect((await disks(42)).find((d) => d.id === 110)).toMatchObject({ built: false, locked: false });
    expect(await server(42)).toMatchObject({ locked: false });
    expect(sandbox.cancelTransaction(Number(build!.id))).toBe(false);
    expect(sandbox.cancelTransaction(99_999)).toBe(false);
  });
});

describe('reset', () => {
  it('goes back to the seed: the changes and the transactions they started are gone', async () => {
    await post('/virtual_machines/42/shutdown.json');
    later(4_000);
    expect(await server(42)).toMatchObject({ booted: false });
    sandbox.reset();
    expect(await server(42)).toMatchObject({ booted: true, locked: false });
    expect((await transactions(42)).map((t) => t.id)).toEqual([6, 5, 3, 1]);
  });
});

it('serves every read beside the changes (no route lost to the power routes)', async () => {
  const ids: Record<string, number> = { vsId: 42, backupId: 9, transactionId: 1 };
  for (const row of Object.values(API_READS)) {
    const path = row.path.replace(/:(\w+)/g, (_, name: string) => String(ids[name]));
    expect([path, (await call(sandbox, `${path}.json`)).status]).toEqual([path, 200]);
  }
  expect((await call(sandbox, '/virtual_machines/42/reboot.json')).status).toBe(405);
});
