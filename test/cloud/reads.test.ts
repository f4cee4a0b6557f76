import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { createCloudClient, type CloudClientDeps } from '../../src/cloud/client';
import type { CloudClient } from '../../src/cloud/client.types';
import { CloudError } from '../../src/cloud/errors';
import { READS, type ReadName } from '../../src/cloud/reads';
import { isFinalStatus, type Transaction } from '../../src/cloud/schemas';
import { createLogger } from '../../src/log';
import { createMetrics, observeCloudRequest } from '../../src/ops/metrics';
import { reply, startCloudFaultServer, type CloudFaultServer } from '../helpers/cloud-fault-server';
import { xmlFromJson } from '../helpers/rails-xml';

// The reads of src/cloud/reads.ts through the real client over HTTP, each in
// JSON and in XML, against answers a real OnApp cloud sent (fixtures/recorded,
// see its README) and answers shaped as docs/cloud-api.md describes.

const recorded = (name: string): unknown => JSON.parse(readFileSync(join(__dirname, 'fixtures', 'recorded', `${name}.json`), 'utf8'));
const fixture = (name: string): string => readFileSync(join(__dirname, 'fixtures', name), 'utf8');

let server: CloudFaultServer;
const clients: CloudClient[] = [];
beforeAll(async () => {
  server = await startCloudFaultServer();
});
afterAll(() => server.close());
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  server.requests.length = 0;
});

function client(format: 'json' | 'xml' = 'json', deps: CloudClientDeps = {}): CloudClient {
  const made = createCloudClient(
    {
      url: server.url,
      accountId: 'acct',
      apiKey: 'key-of-the-reads-test',
      format,
      timeoutMs: 3000,
      maxConnections: 4,
      changeConnections: 1,
      connectionWaitMs: 2000,
    },
    { retry: { baseDelayMs: 1 }, ...deps },
  );
  clients.push(made);
  return made;
}

/** Serves `json` at every path, or its XML form (`listName` roots a list) for `.xml` requests. */
function answerWith(json: unknown, listName?: string): void {
  server.handle((req, res) => reply(res, 200, req.url.includes('.xml') ? xmlFromJson(json, listName) : JSON.stringify(json)));
}

/** Reads the same answer in both formats and checks they agree; returns the JSON one. */
async function bothFormats<T>(read: (cloud: CloudClient) => Promise<T>): Promise<T> {
  const fromJson = await read(client('json'));
  const fromXml = await read(client('xml'));
  expect(fromXml).toEqual(fromJson);
  return fromJson;
}

describe('the reads table', () => {
  const args: Record<ReadName, unknown[]> = {
    listFirewallRules: [42],
    listAutoscaling: [42],
    getServer: [42],
    getServerStatus: [42],
    listDisks: [42],
    listBackups: [42],
    getBackup: [9],
    listTransactions: [42],
    listAccountTransactions: [],
    getTransaction: [7],
    listServers: [],
  };
  const paths: Record<ReadName, string> = {
    listFirewallRules: '/virtual_machines/42/firewall_rules',
    listAutoscaling: '/virtual_machines/42/auto_scaling',
    getServer: '/virtual_machines/42',
    getServerStatus: '/virtual_machines/42/status',
    listDisks: '/virtual_machines/42/disks',
    listBackups: '/virtual_machines/42/backups',
    getBackup: '/backups/9',
    listTransactions: '/virtual_machines/42/transactions',
    listAccountTransactions: '/transactions',
    getTransaction: '/transactions/7',
    listServers: '/virtual_machines',
  };

  it.each(['json', 'xml'] as const)("makes every row a method that GETs its path (%s), observed under the row's operation", async (format) => {
    const seen: string[] = [];
    server.handle((_req, res) => reply(res, 404, '{"errors": ["Resource not found"]}'));
    const cloud = client(format, { onRequestDone: (operation) => seen.push(operation) });
    for (const name of Object.keys(READS) as ReadName[]) {
      const method = cloud[name] as (...a: unknown[]) => Promise<unknown>;
      await expect(method(...args[name])).rejects.toMatchObject({ kind: 'not_found' });
    }
    // The status read asks the full record next when /status is missing (older clouds), and says so in its metrics.
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual(
      (Object.keys(READS) as ReadName[]).flatMap((name) => [
        `GET ${paths[name]}.${format}`,
        ...(name === 'getServerStatus' ? [`GET ${paths.getServer}.${format}`] : []),
      ]),
    );
    expect(seen).toEqual((Object.keys(READS) as ReadName[]).flatMap((name) => [READS[name].operation, ...(name === 'getServerStatus' ? ['get_server'] : [])]));
  });

  it('pages the account’s servers in the query, as newer clouds take it', async () => {
    server.handle((_req, res) => reply(res, 200, '[]'));
    const cloud = client('json');
    await cloud.listServers({ perPage: 100 });
    await cloud.listServers({ page: 2, perPage: 100 });
    expect(server.requests.map((r) => r.url)).toEqual(['/virtual_machines.json?per_page=100', '/virtual_machines.json?page=2&per_page=100']);
  });

  it('refuses ids that are not positive integers before any request', async () => {
    const cloud = client();
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      await expect(cloud.getServer(bad)).rejects.toThrow(RangeError);
      await expect(cloud.listTransactions(42, { page: bad })).rejects.toThrow(RangeError);
    }
    expect(server.requests).toHaveLength(0);
  });
});

describe('a server (GET /virtual_machines/:id)', () => {
  const answer = recorded('virtual_machine') as { virtual_machine: Record<string, unknown> };

  it('reads a recorded answer in JSON and XML to the allow-listed fields, its addresses unwrapped', async () => {
    answerWith(answer);
    const vs = await bothFormats((cloud) => cloud.getServer(1343));
    expect(vs).toEqual({
      id: 1343,
      identifier: 'cjiul6p4pljqzy',
      label: 'oscar-vm-do-not-delete',
      hostname: 't',
      booted: true,
      built: true,
      locked: true,
      suspended: true,
      recovery_mode: false,
      state: 'new',
      memory: 1000,
      cpus: 1,
      cpu_shares: 34,
      total_disk_size: 10,
      template_id: 264,
      template_label: 'Debian 6.0.0 LAMP x64',
      operating_system: 'linux',
      operating_system_distro: 'ubuntu',
      hypervisor_id: 1,
      enable_autoscale: true,
      ip_addresses: [{ id: 17, address: '109.123.105.212', netmask: '255.255.255.240', gateway: '109.123.105.209', network_id: 1 }],
      created_at: '2011-12-19T16:34:51Z',
      updated_at: '2012-02-09T14:46:27Z',
    });
  });

  it('is frozen through, nested lists included: callers share it', async () => {
    answerWith(answer);
    const vs = await client().getServer(1343);
    expect(Object.isFrozen(vs)).toBe(true);
    expect(Object.isFrozen(vs.ip_addresses)).toBe(true);
    expect(Object.isFrozen(vs.ip_addresses[0])).toBe(true);
  });

  it('reads what the reference marks uncertain leniently: nulls, no addresses at all, numbers as strings', async () => {
    answerWith({
      virtual_machine: {
        id: '42',
        label: 'web-1',
        booted: '1',
        locked: 'false',
        recovery_mode: null,
        hypervisor_id: null,
        enable_autoscale: null,
        memory: '2048',
      },
    });
    const vs = await bothFormats((cloud) => cloud.getServer(42));
    expect(vs).toMatchObject({
      id: 42,
      booted: true,
      locked: false,
      recovery_mode: null,
      hypervisor_id: null,
      enable_autoscale: null,
      memory: 2048,
      ip_addresses: [],
    });
  });

  it('says plainly which field it could not read', async () => {
    answerWith({ virtual_machine: { id: 42, memory: 'lots' } });
    for (const format of ['json', 'xml'] as const) {
      const error = await client(format)
        .getServer(42)
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ kind: 'bad_response', message: expect.stringMatching(/virtual_machine\.memory: /) });
    }
  });

  it('answers 404 as not_found, in either of the two error shapes real clouds send', async () => {
    for (const body of ['{"errors":["Resource not found"]}', '{"error":"Resource not found"}']) {
      server.handle((_req, res) => reply(res, 404, body));
      await expect(client().getServer(404)).rejects.toMatchObject({ kind: 'not_found', messages: ['Resource not found'] });
    }
  });

  it('shares one request among concurrent callers', async () => {
    server.handle(async (_req, res) => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      reply(res, 200, JSON.stringify(answer));
    });
    const cloud = client();
    const all = await Promise.all(Array.from({ length: 10 }, () => cloud.getServer(1343)));
    expect(server.requests).toHaveLength(1);
    for (const vs of all) expect(vs).toBe(all[0]);
  });
});

describe("a server's status (GET /virtual_machines/:id/status)", () => {
  const status = {
    virtual_machine: {
      id: 42,
      identifier: 'abc',
      hostname: 'web-1',
      template_id: 3,
      built: true,
      locked: false,
      booted: true,
      operating_system: 'linux',
      suspended: false,
      enable_autoscale: null,
      state: 'delivered',
    },
  };
  const expected = { ...status.virtual_machine };

  it('reads the cheap status in JSON and XML', async () => {
    answerWith(status);
    expect(await bothFormats((cloud) => cloud.getServerStatus(42))).toEqual(expected);
    expect(server.requests.every((r) => /\/virtual_machines\/42\/status\.(json|xml)$/.test(r.url))).toBe(true);
  });

  it('on an older cloud without /status, reads the full record to the same fields, and asks it straight away from then on', async () => {
    const full = recorded('virtual_machine');
    server.handle((req, res) => (req.url.includes('/status') ? reply(res, 404, '{"errors":["Resource not found"]}') : reply(res, 200, JSON.stringify(full))));
    const lines: string[] = [];
    const cloud = client('json', { logger: createLogger({ level: 'info', write: (line) => lines.push(line) }) });
    const vs = await cloud.getServerStatus(1343);
    expect(vs).toEqual({
      id: 1343,
      identifier: 'cjiul6p4pljqzy',
      hostname: 't',
      template_id: 264,
      built: true,
      locked: true,
      booted: true,
      operating_system: 'linux',
      suspended: true,
      enable_autoscale: true,
      state: 'new',
    });
    await cloud.getServerStatus(1343);
    expect(server.requests.map((r) => r.url)).toEqual(['/virtual_machines/1343/status.json', '/virtual_machines/1343.json', '/virtual_machines/1343.json']);
    expect(lines.filter((line) => line.includes('reading another instead'))).toHaveLength(1);
  });

  it('is not_found for an unknown server on any cloud, and does not take that for a missing path', async () => {
    server.handle((_req, res) => reply(res, 404, '{"error":"Resource not found"}'));
    const cloud = client();
    await expect(cloud.getServerStatus(999)).rejects.toMatchObject({ kind: 'not_found' });
    await expect(cloud.getServerStatus(999)).rejects.toMatchObject({ kind: 'not_found' });
    expect(server.requests.map((r) => r.url)).toEqual([
      '/virtual_machines/999/status.json',
      '/virtual_machines/999.json',
      '/virtual_machines/999/status.json',
      '/virtual_machines/999.json',
    ]);
  });

  it('does not fall back on other failures', async () => {
    server.handle((_req, res) => reply(res, 403, '{"errors":["not yours"]}'));
    await expect(client().getServerStatus(42)).rejects.toMatchObject({ kind: 'forbidden' });
    expect(server.requests).toHaveLength(1);
  });
});

describe("a server's disks (GET /virtual_machines/:id/disks)", () => {
  it('reads a recorded answer in JSON and XML', async () => {
    answerWith(recorded('disks'), 'disks');
    const disks = await bothFormats((cloud) => cloud.listDisks(58));
    expect(disks).toEqual([
      {
        id: 77,
        identifier: 'wkod7eou2q6xua',
        virtual_machine_id: 58,
        disk_vm_number: 1,
        disk_size: 50,
        primary: true,
        is_swap: false,
        mount_point: null,
        add_to_linux_fstab: null,
        built: true,
        locked: false,
        has_autobackups: false,
        data_store_id: 1,
        created_at: '2013-02-03T01:10:51Z',
        updated_at: '2013-02-03T01:10:54Z',
      },
    ]);
    expect(Object.isFrozen(disks)).toBe(true);
  });

  it('reads no disks, and a list of one without type="array"', async () => {
    answerWith([], 'disks');
    expect(await bothFormats((cloud) => cloud.listDisks(42))).toEqual([]);
    server.handle((_req, res) => reply(res, 200, '<disks><disk><id type="integer">5</id><disk_size type="integer">20</disk_size></disk></disks>'));
    expect(await client('xml').listDisks(42)).toEqual([{ id: 5, disk_size: 20 }]);
  });
});

describe("a server's backups, and one backup", () => {
  it('reads a recorded list in JSON and XML, sizes sent as strings included', async () => {
    answerWith(recorded('backups'), 'backups');
    const backups = await bothFormats((cloud) => cloud.listBackups(42));
    expect(backups.map((b) => [b.id, b.backup_type, b.backup_size, b.built, b.locked, b.marked_for_delete, b.disk_id])).toEqual([
      [68, 'days-autobackup', 8, true, false, false, 78],
      [69, 'weeks-autobackup', 8, true, false, false, 78],
      [70, 'months-autobackup', 8, true, false, false, 78],
      [71, 'years-autobackup', 8, true, false, false, 78],
    ]);
  });

  it('reads one backup (GET /backups/:id) in JSON and XML', async () => {
    server.handle((req, res) => reply(res, 200, fixture(req.url.includes('.xml') ? 'backup.xml' : 'backup.json')));
    const backup = await bothFormats((cloud) => cloud.getBackup(9));
    expect(backup).toMatchObject({ id: 9, backup_type: 'incremental', built: true, locked: false, marked_for_delete: false });
    expect(server.requests.map((r) => r.url)).toEqual(['/backups/9.json', '/backups/9.xml']);
  });
});

describe('transactions', () => {
  it("reads a server's transactions in JSON and XML, newest first as sent, without their raw log or params", async () => {
    const list = recorded('transactions') as { transaction: Record<string, unknown> }[];
    answerWith(list, 'transactions');
    const transactions = await bothFormats((cloud) => cloud.listTransactions(1));
    expect(transactions.map((t) => [t.id, t.action, t.status, t.parent_type, t.parent_id])).toEqual([
      [3, 'startup_virtual_machine', 'failed', 'VirtualMachine', 1],
      [2, 'destroy_virtual_machine', 'failed', 'VirtualMachine', 2],
      [1, 'reset_root_password', 'complete', 'VirtualMachine', 1],
    ]);
    const kept = JSON.stringify(transactions);
    expect(kept).not.toContain('log_output');
    expect(kept).not.toContain('lib/transactions');
    expect(kept).not.toContain('params');
  });

  it('asks for a page and its size as the cloud pages them', async () => {
    answerWith([], 'transactions');
    const cloud = client();
    await cloud.listTransactions(42);
    await cloud.listTransactions(42, { page: 1 });
    await cloud.listTransactions(42, { page: 3 });
    await cloud.listTransactions(42, { page: 2, perPage: 20 });
    await client('xml').listTransactions(42, { perPage: 50 });
    await cloud.listAccountTransactions({ page: 2, perPage: 5 });
    expect(server.requests.map((r) => r.url)).toEqual([
      '/virtual_machines/42/transactions.json',
      '/virtual_machines/42/transactions.json',
      '/virtual_machines/42/transactions/page/3.json',
      '/virtual_machines/42/transactions/page/2.json?per_page=20',
      '/virtual_machines/42/transactions.xml?per_page=50',
      '/transactions/page/2.json?per_page=5',
    ]);
  });

  it('reads one transaction in JSON and XML, without its params (a password reset carries the new password there)', async () => {
    const one = recorded('transaction') as { transaction: Record<string, unknown> };
    const withPassword = { transaction: { ...one.transaction, params: { new_password: 'pw-in-params-7731' } } };
    answerWith(withPassword);
    const transaction = await bothFormats((cloud) => cloud.getTransaction(1));
    expect(transaction).toEqual({
      id: 1,
      identifier: '7z2gzavnrhmmt3',
      action: 'reset_root_password',
      status: 'complete',
      parent_type: 'VirtualMachine',
      parent_id: 1,
      dependent_transaction_id: null,
      allowed_cancel: true,
      created_at: '2011-04-28T15:31:22Z',
      updated_at: '2011-04-28T15:31:27Z',
    });
    expect(JSON.stringify(transaction)).not.toContain('pw-in-params-7731');
  });

  it.each([
    ['pending', 'pending', false],
    ['running', 'running', false],
    ['complete', 'complete', true],
    ['failed', 'failed', true],
    ['cancelled', 'cancelled', true],
    ['canceled', 'cancelled', true],
    ['Complete', 'complete', true],
    ['delayed', 'unknown', false],
  ] as const)('reads the status %s as %s (final: %s)', async (sent, read, final) => {
    answerWith({ transaction: { id: 5, action: 'build_disk', status: sent, parent_type: 'Disk', parent_id: 77 } });
    const transaction: Transaction = await bothFormats((cloud) => cloud.getTransaction(5));
    expect(transaction.status).toBe(read);
    expect(isFinalStatus(transaction.status)).toBe(final);
  });
});

describe("a server's credentials", () => {
  const credentials = {
    initial_root_password: 'root-pw-Q7x!2',
    remote_access_password: 'vnc-pw-88aa',
    service_password: 'svc-pw-k3k3',
    initial_root_password_encrypted: false,
    encrypted_password: 'enc-pw-zz19',
  };
  const values = ['root-pw-Q7x!2', 'vnc-pw-88aa', 'svc-pw-k3k3', 'enc-pw-zz19'];
  const record = { ...(recorded('virtual_machine') as { virtual_machine: Record<string, unknown> }).virtual_machine, ...credentials };

  it.each(['json', 'xml'] as const)('leave no trace in the result, the logs, the errors or the metrics (%s)', async (format) => {
    const lines: string[] = [];
    const metrics = createMetrics({ defaults: false });
    const cloud = client(format, { logger: createLogger({ level: 'debug', write: (line) => lines.push(line) }), onRequestDone: observeCloudRequest(metrics) });
    answerWith({ virtual_machine: record });
    const vs = await cloud.getServer(1343);
    const status = await cloud.getServerStatus(1343);
    // A record the bot cannot read (one of its allowed fields is broken) fails with an error that names the field, never the record.
    answerWith({ virtual_machine: { ...record, memory: 'lots' } });
    const error = await cloud.getServer(1343).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CloudError);
    const traces = [
      JSON.stringify(vs),
      inspect(vs, { depth: 10, showHidden: true }),
      JSON.stringify(status),
      JSON.stringify(error),
      String(error),
      (error as Error).stack ?? '',
      inspect(error, { depth: 10, showHidden: true }),
      await metrics.registry.metrics(),
      ...lines,
    ].join('\n');
    expect(lines.length).toBeGreaterThan(0);
    for (const value of values) expect(traces).not.toContain(value);
    expect(traces).not.toMatch(/password/);
  });
});

describe("the account's servers (GET /virtual_machines)", () => {
  const record = (recorded('virtual_machine') as { virtual_machine: Record<string, unknown> }).virtual_machine;
  const listed = (id: number, extra: Record<string, unknown> = {}) => ({
    virtual_machine: { ...record, id, label: `srv-${id}`, initial_root_password: 'root-pw-Q7x!2', ...extra },
  });

  it('reads each server to the list’s shorter allow-list, in JSON and XML: what the name index and the watch use, no password', async () => {
    answerWith([listed(1), listed(2, { booted: false })], 'virtual_machines');
    const servers = await bothFormats((cloud) => cloud.listServers({ perPage: 100 }));
    expect(servers.map((s) => [s.id, s.label, s.booted])).toEqual([
      [1, 'srv-1', record.booted],
      [2, 'srv-2', false],
    ]);
    expect(Object.keys(servers[0]!).sort()).toEqual(
      ['booted', 'built', 'hostname', 'id', 'identifier', 'ip_addresses', 'label', 'locked', 'recovery_mode', 'state', 'suspended', 'updated_at'].filter(
        (key) => key in record || key === 'ip_addresses' || key === 'label',
      ),
    );
    expect(JSON.stringify(servers)).not.toMatch(/password|root-pw/);
  });

  it('gives back the same frozen page for an answer of the same text, and reads a changed or broken one anew', async () => {
    let pages: Record<string, unknown[]> = { '1': [listed(1), listed(2)], '2': [listed(3)] };
    server.handle((req, res) => reply(res, 200, JSON.stringify(pages[new URL(req.url, 'http://x').searchParams.get('page') ?? '1'])));
    const cloud = client('json');
    const first = await cloud.listServers({ perPage: 2 });
    const second = await cloud.listServers({ page: 2, perPage: 2 });
    expect(await cloud.listServers({ perPage: 2 })).toBe(first);
    expect(await cloud.listServers({ page: 2, perPage: 2 })).toBe(second);
    expect(Object.isFrozen(first) && Object.isFrozen(first[0]) && Object.isFrozen(first[0]!.ip_addresses)).toBe(true);
    // One server of the first page powered off: that page is read anew, the other still the same.
    pages = { ...pages, '1': [listed(1), listed(2, { booted: false })] };
    const changed = await cloud.listServers({ perPage: 2 });
    expect(changed).not.toBe(first);
    expect(changed.map((s) => s.booted)).toEqual([record.booted, false]);
    expect(await cloud.listServers({ page: 2, perPage: 2 })).toBe(second);
    // A page the bot cannot read fails as any, kept or not; the next answer is read again.
    pages = { ...pages, '1': [listed(1, { label: { not: 'a label' } })] };
    await expect(cloud.listServers({ perPage: 2 })).rejects.toMatchObject({ kind: 'bad_response' });
    pages = { ...pages, '1': [listed(1), listed(2, { booted: false })] };
    expect(await cloud.listServers({ perPage: 2 })).toBe(changed);
    expect(server.requests).toHaveLength(8);
  });

  it('reads a page sent in pieces that split a character, and knows it again by its bytes however they are split', async () => {
    const bytes = Buffer.from(JSON.stringify([listed(1, { label: 'café-☕-1' })]));
    const cut = bytes.indexOf(Buffer.from('☕')) + 1;
    let pieces: Buffer[] = [bytes.subarray(0, cut), bytes.subarray(cut)];
    server.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const [first, ...rest] = pieces;
      res.write(first);
      setTimeout(() => res.end(Buffer.concat(rest)), 20);
    });
    const cloud = client('json');
    const split = await cloud.listServers({ perPage: 100 });
    expect(split.map((s) => s.label)).toEqual(['café-☕-1']);
    pieces = [bytes.subarray(0, 5), bytes.subarray(5)];
    expect(await cloud.listServers({ perPage: 100 })).toBe(split);
  });
});
