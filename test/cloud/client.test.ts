import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { MockAgent } from 'undici';
import { createCloudClient, type CloudClientDeps } from '../../src/cloud/client';
import type { CloudClient } from '../../src/cloud/client.types';
import { CloudError, type CloudErrorKind } from '../../src/cloud/errors';
import { parseRetryAfter } from '../../src/cloud/http';
import type { AddDiskParams, AutoscalingSlot, FirewallRule } from '../../src/cloud/schemas';
import { CHANGES } from '../../src/changes/definitions';
import { createLogger } from '../../src/log';
import { closedPortUrl, cutMidBody, reply, startCloudFaultServer, type CloudFaultServer } from '../helpers/cloud-fault-server';
import { waitFor } from '../helpers/wait';

const ACCOUNT_ID = 'acct-7';
const API_KEY = 'k3y-that-must-never-leak-4f9a2c';
const CREDENTIALS = Buffer.from(`${ACCOUNT_ID}:${API_KEY}`).toString('base64');
const fixture = (name: string) => readFileSync(join(__dirname, 'fixtures', name), 'utf8');

// Changes as the door prepares them (each change's row declares its request), sent by the client as prepared.
const prepareAddDisk = (c: CloudClient, vsId: number, params: AddDiskParams) => CHANGES.disk_add.request.prepare(c.format, vsId, params);
const prepareRestore = (c: CloudClient, backupId: number) => CHANGES.backup_restore.request.prepare(c.format, backupId, { backup_id: backupId });
const addDisk = async (c: CloudClient, vsId: number, params: AddDiskParams) => c.send(prepareAddDisk(c, vsId, params));
const restoreBackup = async (c: CloudClient, backupId: number) => c.send(prepareRestore(c, backupId));

let server: CloudFaultServer;
const clients: CloudClient[] = [];

beforeEach(async () => {
  server = await startCloudFaultServer();
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await server.close();
});

function client(
  options: { url?: string; format?: 'json' | 'xml'; timeoutMs?: number; maxConnections?: number; changeConnections?: number; connectionWaitMs?: number } = {},
  deps: CloudClientDeps = {},
) {
  const maxConnections = options.maxConnections ?? 4;
  const made = createCloudClient(
    {
      url: options.url ?? server.url,
      accountId: ACCOUNT_ID,
      apiKey: API_KEY,
      format: options.format ?? 'json',
      timeoutMs: options.timeoutMs ?? 3000,
      maxConnections,
      changeConnections: options.changeConnections ?? Math.floor(maxConnections / 2),
      connectionWaitMs: options.connectionWaitMs ?? 5000,
    },
    { retry: { baseDelayMs: 5 }, ...deps },
  );
  clients.push(made);
  return made;
}

async function failure(promise: Promise<unknown>): Promise<CloudError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof CloudError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

async function expectKind(promise: Promise<unknown>, kind: CloudErrorKind): Promise<CloudError> {
  const error = await failure(promise);
  expect(error.kind).toBe(kind);
  return error;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('what the client sends', () => {
  it('asks for JSON with the .json suffix, JSON headers and Basic auth of account id and API key', async () => {
    server.handle((_req, res) => reply(res, 200, fixture('firewall_rules.json')));
    const rules = await client().listFirewallRules(42);
    expect(rules).toHaveLength(3);
    const [request] = server.requests;
    expect(request).toMatchObject({ method: 'GET', url: '/virtual_machines/42/firewall_rules.json' });
    expect(request!.headers).toMatchObject({
      accept: 'application/json',
      'content-type': 'application/json',
      authorization: `Basic ${CREDENTIALS}`,
    });
  });

  it('asks for XML with the .xml suffix and XML headers, and decodes the same rules', async () => {
    server.handle((req, res) => reply(res, 200, fixture(req.url.endsWith('.xml') ? 'auto_scaling.xml' : 'auto_scaling.json')));
    const fromXml = await client({ format: 'xml' }).listAutoscaling(42);
    expect(server.requests[0]).toMatchObject({ url: '/virtual_machines/42/auto_scaling.xml' });
    expect(server.requests[0]!.headers).toMatchObject({ accept: 'application/xml', 'content-type': 'application/xml' });
    expect(fromXml).toEqual(await client({ format: 'json' }).listAutoscaling(42));
  });

  it('keeps a path prefix of the base URL', async () => {
    server.handle((_req, res) => reply(res, 200, '[]'));
    await client({ url: `${server.url}/api/` }).listFirewallRules(7);
    expect(server.requests[0]!.url).toBe('/api/virtual_machines/7/firewall_rules.json');
  });

  it('posts the add-disk body of docs/cloud-api.md and returns the created disk', async () => {
    server.handle((_req, res) => reply(res, 201, fixture('disk.json')));
    const disk = await addDisk(client(), 42, { disk_type: 'SSD', disk_size: 20, primary: false, add_to_linux_fstab: true });
    expect(disk).toMatchObject({ id: 311, disk_size: 20, built: false, locked: true });
    expect(server.requests[0]).toMatchObject({ method: 'POST', url: '/virtual_machines/42/disks.json' });
    expect(JSON.parse(server.requests[0]!.body)).toEqual({
      disk: { disk_type: 'SSD', disk_size: '20', primary: '0', add_to_linux_fstab: 'true' },
    });
  });

  it('posts the add-disk body as XML in XML mode', async () => {
    server.handle((_req, res) => reply(res, 201, fixture('disk.xml')));
    const disk = await addDisk(client({ format: 'xml' }), 42, { disk_type: 'HDD', disk_size: 5, hot_attach: true });
    expect(disk.id).toBe(311);
    expect(server.requests[0]!.url).toBe('/virtual_machines/42/disks.xml');
    expect(server.requests[0]!.body).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><disk><disk_type>HDD</disk_type><disk_size>5</disk_size><hot_attach>1</hot_attach></disk>',
    );
  });

  it('restores a backup with a body-less POST and returns the backup', async () => {
    server.handle((_req, res) => reply(res, 200, fixture('backup.xml')));
    const backup = await restoreBackup(client({ format: 'xml' }), 9);
    expect(backup).toMatchObject({ id: 9, target_id: 42, disk_id: 310 });
    expect(server.requests[0]).toMatchObject({ method: 'POST', url: '/backups/9/restore.xml', body: '' });
  });

  it('sends a prepared change exactly as prepared: its path under the base URL, its body byte for byte, in JSON and XML', async () => {
    server.handle((req, res) => reply(res, 201, fixture(req.url.endsWith('.xml') ? 'disk.xml' : 'disk.json')));
    for (const format of ['json', 'xml'] as const) {
      const c = client({ format, url: `${server.url}/api` });
      const prepared = prepareAddDisk(c, 42, { disk_type: 'SSD', disk_size: 20, label: 'a "quoted" <label> & more' });
      expect(prepared).toMatchObject({ operation: 'add_disk', method: 'POST', path: `/virtual_machines/42/disks.${format}` });
      await c.send(prepared);
      const received = server.requests[server.requests.length - 1]!;
      expect(received.method).toBe(prepared.method);
      expect(received.url).toBe(`/api${prepared.path}`);
      expect(received.body).toBe(prepared.body);
    }
    expect(prepareRestore(client(), 9)).toMatchObject({ operation: 'restore_backup', method: 'POST', path: '/backups/9/restore.json', body: null });
  });

  it('prepares without a credential anywhere in the request, and sends nothing until asked', () => {
    const prepared = prepareAddDisk(client(), 42, { disk_type: 'SSD', disk_size: 20 });
    expect(JSON.stringify(prepared)).not.toContain(API_KEY);
    expect(JSON.stringify(prepared)).not.toContain(CREDENTIALS);
    expect(server.requests).toHaveLength(0);
  });

  it('refuses a request prepared for another format, or not a POST, without calling the API', async () => {
    const xml = prepareRestore(client({ format: 'xml' }), 9);
    await expect(client().send(xml)).rejects.toThrow(/not a json change request/);
    await expect(client().send({ ...prepareRestore(client(), 9), method: 'GET' as 'POST' })).rejects.toThrow(RangeError);
    await expect(client().send({ ...prepareRestore(client(), 9), path: 'backups/9/restore.json' })).rejects.toThrow(RangeError);
    expect(server.requests).toHaveLength(0);
  });

  it('refuses an id that is not a positive integer without calling the API', async () => {
    await expect(client().listFirewallRules(-1)).rejects.toThrow(RangeError);
    await expect(restoreBackup(client(), 1.5)).rejects.toThrow(RangeError);
    expect(server.requests).toHaveLength(0);
  });

  it('refuses to be built on "sandbox" instead of a URL', () => {
    const settings = { accountId: 'a', apiKey: 'b', format: 'json', timeoutMs: 100, maxConnections: 4, changeConnections: 2, connectionWaitMs: 100 } as const;
    expect(() => createCloudClient({ ...settings, url: 'sandbox' })).toThrow(/http\(s\) base URL/);
  });

  it('logs one debug line per request with method, path, status, time and attempt, and no credentials', async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'debug', write: (line) => lines.push(line) });
    server.handle((_req, res) => reply(res, 200, '[]'));
    await client({}, { logger }).listFirewallRules(42);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'debug', method: 'GET', path: '/virtual_machines/42/firewall_rules.json', status: 200, attempt: 1 });
    expect(JSON.parse(lines[0]!)).toHaveProperty('ms', expect.any(Number));
    expect(lines.join('\n')).not.toContain(API_KEY);
    expect(lines.join('\n')).not.toContain(CREDENTIALS);
  });
});

describe('status codes become error kinds', () => {
  it('401 → unauthorized', async () => {
    server.handle((_req, res) => reply(res, 401, '{"error": "Invalid credentials"}'));
    const error = await expectKind(client().listFirewallRules(42), 'unauthorized');
    expect(error).toMatchObject({
      status: 401,
      code: 'CLOUD_UNAUTHORIZED',
      messages: ['Invalid credentials'],
      request: 'GET /virtual_machines/42/firewall_rules.json',
    });
  });

  it('403 → forbidden, with the API messages', async () => {
    server.handle((_req, res) => reply(res, 403, '<errors><error>You do not have permissions for this action</error></errors>'));
    const error = await expectKind(restoreBackup(client({ format: 'xml' }), 9), 'forbidden');
    expect(error.messages).toEqual(['You do not have permissions for this action']);
  });

  it('404 → not_found', async () => {
    server.handle((_req, res) => reply(res, 404, '{"errors": ["Resource not found"]}'));
    const error = await expectKind(client().listAutoscaling(999), 'not_found');
    expect(error.status).toBe(404);
    expect(server.requests).toHaveLength(1);
  });

  it.each([
    [
      '{"errors": {"field": ["msg"]}}',
      '{"errors": {"disk_size": ["must be greater than or equal to 1"], "mount_point": ["is too long"]}}',
      [],
      { disk_size: ['must be greater than or equal to 1'], mount_point: ['is too long'] },
    ],
    ['{"errors": ["msg"]}', '{"errors": ["Disk size must be greater than or equal to 1"]}', ['Disk size must be greater than or equal to 1'], {}],
    ['{"error": "msg"}', '{"error": "Disk type is not included in the list"}', ['Disk type is not included in the list'], {}],
    [
      '<errors><error>msg</error></errors>',
      '<?xml version="1.0" encoding="UTF-8"?><errors><error>File system requires require_format_disk</error></errors>',
      ['File system requires require_format_disk'],
      {},
    ],
    ['an empty body', '', [], {}],
    ['a bare field hash (older OnApp)', '{"label":["has already been taken"]}', [], { label: ['has already been taken'] }],
    [
      'a bare XML hash (older OnApp)',
      '<?xml version="1.0" encoding="UTF-8"?><hash><identifier type="array"><identifier>has already been taken</identifier></identifier></hash>',
      [],
      { identifier: ['has already been taken'] },
    ],
  ])('422 with %s → validation with the messages and field messages', async (_shape, body, messages, fieldErrors) => {
    server.handle((_req, res) => reply(res, 422, body));
    const error = await expectKind(addDisk(client(), 42, { disk_type: 'SSD', disk_size: 20 }), 'validation');
    expect(error.messages).toEqual(messages);
    expect(error.fieldErrors).toEqual(fieldErrors);
  });

  it('500 with an HTML page → server, keeping only the page title', async () => {
    const page =
      "<!DOCTYPE html>\n<html><head><title>We're sorry, but something went wrong (500)</title>" +
      '<style>body{}</style></head><body><h1>Internal error</h1><pre>stack trace here</pre></body></html>';
    server.handle((_req, res) => reply(res, 500, page));
    const error = await expectKind(client().listFirewallRules(42), 'server');
    expect(error.status).toBe(500);
    expect(error.messages).toEqual(["We're sorry, but something went wrong (500)"]);
    expect(JSON.stringify(error)).not.toContain('stack trace here');
  });

  it('207 Multi-Status and a 204 without a body → server, not a silent success', async () => {
    server.handle((_req, res) => reply(res, 207, '{"errors": ["partially applied"]}'));
    const multi = await expectKind(addDisk(client(), 42, { disk_type: 'SSD', disk_size: 20 }), 'server');
    expect(multi).toMatchObject({ status: 207, messages: ['partially applied'] });
    server.handle((_req, res) => {
      res.writeHead(204);
      res.end();
    });
    await expectKind(client().listFirewallRules(42), 'server');
  });

  it('429 on a GET with a long Retry-After → rate_limited with the wait, without waiting it out', async () => {
    server.handle((_req, res) => reply(res, 429, '', { 'retry-after': '120' }));
    const error = await expectKind(client().listFirewallRules(42), 'rate_limited');
    expect(error.retryAfterSeconds).toBe(120);
    expect(server.requests).toHaveLength(1);
  });
});

describe('broken answers become error kinds', () => {
  it('a server that never answers → timeout naming the seconds waited', async () => {
    server.handle(() => undefined);
    const error = await expectKind(client({ timeoutMs: 200 }).listFirewallRules(42), 'timeout');
    expect(error.message).toBe('the cloud API did not answer within 0.2 s');
  });

  it('a body trickled byte by byte → timeout: the whole request must finish within the deadline', async () => {
    server.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const trickle = setInterval(() => (res.destroyed ? clearInterval(trickle) : res.write(' ')), 20);
      res.on('close', () => clearInterval(trickle));
    });
    // Without one deadline over the whole exchange the trickle would keep it alive past jest's timeout.
    await expectKind(client({ timeoutMs: 300 }).listFirewallRules(42), 'timeout');
  });

  it('a closed port → network, "could not connect to the cloud API (ECONNREFUSED)", retried twice for a GET', async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'debug', write: (line) => lines.push(line) });
    const error = await expectKind(client({ url: await closedPortUrl() }, { logger }).listFirewallRules(42), 'network');
    expect(error.message).toBe('could not connect to the cloud API (ECONNREFUSED)');
    expect(lines.map((l) => (JSON.parse(l) as { attempt: unknown }).attempt)).toEqual([1, 2, 3]);
  });

  it('a connection reset in the middle of the body → network, after two retries of the GET', async () => {
    server.handle((_req, res) => cutMidBody(res, fixture('firewall_rules.json').slice(0, 200)));
    const error = await expectKind(client().listFirewallRules(42), 'network');
    expect(error.message).toMatch(/^the connection to the cloud API broke off \(/);
    expect(server.requests).toHaveLength(3);
  });

  it('a reset on a POST → network, not retried', async () => {
    server.handle((_req, res) => cutMidBody(res, '{"disk": {'));
    await expectKind(addDisk(client(), 42, { disk_type: 'SSD', disk_size: 20 }), 'network');
    expect(server.requests).toHaveLength(1);
  });

  it('truncated JSON → bad_response', async () => {
    const json = fixture('firewall_rules.json');
    server.handle((_req, res) => reply(res, 200, json.slice(0, json.length - 40)));
    const error = await expectKind(client().listFirewallRules(42), 'bad_response');
    expect(error.message).toMatch(/not valid JSON/);
    expect(error).toMatchObject({ status: 200, request: 'GET /virtual_machines/42/firewall_rules.json' });
  });

  it('truncated XML and garbage → bad_response', async () => {
    const xml = fixture('firewall_rules.xml');
    server.handle((_req, res) => reply(res, 200, xml.slice(0, xml.length - 40)));
    await expectKind(client({ format: 'xml' }).listFirewallRules(42), 'bad_response');
    server.handle((_req, res) => reply(res, 200, '\u0000\u0001garbage\u00ff'));
    await expectKind(client().listFirewallRules(42), 'bad_response');
  });

  it('valid JSON of the wrong shape → bad_response', async () => {
    server.handle((_req, res) => reply(res, 200, '[{"firewall_rule": {"id": "abc"}}]'));
    const error = await expectKind(client().listFirewallRules(42), 'bad_response');
    expect(error.message).toMatch(/firewall_rule\[0\]\.id/);
  });

  it('a body over the size cap → bad_response "too large", announced or not, without reading it all', async () => {
    const big = JSON.stringify([{ firewall_rule: { id: 1, note: 'x'.repeat(64 * 1024) } }]);
    server.handle((_req, res) => reply(res, 200, big));
    const announced = await expectKind(client({}, { maxBodyBytes: 16 * 1024 }).listFirewallRules(42), 'bad_response');
    expect(announced.message).toBe('the cloud API sent a response too large to handle (over 16 KB)');

    // No content-length: 50 MB streamed in chunks; the client must stop after the cap.
    let sent = 0;
    server.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const pump = () => {
        while (sent < 50 * 1024 * 1024 && !res.destroyed) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    });
    const streamed = await expectKind(client({}, { maxBodyBytes: 256 * 1024 }).listFirewallRules(42), 'bad_response');
    expect(streamed.message).toMatch(/too large/);
    expect(sent).toBeLessThan(50 * 1024 * 1024);
  });
});

describe('retries', () => {
  it('waits out a 429 Retry-After on a GET, then succeeds', async () => {
    server.handle((_req, res, index) =>
      index === 0 ? reply(res, 429, '{"error": "slow down"}', { 'retry-after': '1' }) : reply(res, 200, fixture('firewall_rules.json')),
    );
    const waits: number[] = [];
    const rules = await client({ timeoutMs: 5000 }, { wait: async (ms) => void waits.push(ms) }).listFirewallRules(42);
    expect(rules).toHaveLength(3);
    expect(server.requests).toHaveLength(2);
    expect(waits).toEqual([1000]);
  });

  it('never retries a POST on 429: rate_limited with the wait asked for', async () => {
    server.handle((_req, res) => reply(res, 429, '', { 'retry-after': '1' }));
    const error = await expectKind(restoreBackup(client(), 9), 'rate_limited');
    expect(error.retryAfterSeconds).toBe(1);
    expect(server.requests).toHaveLength(1);
  });

  it('retries a GET on 502 twice, then reports the server error', async () => {
    server.handle((_req, res) => reply(res, 502, '<html><head><title>502 Bad Gateway</title></head></html>'));
    const error = await expectKind(client().listFirewallRules(42), 'server');
    expect(error).toMatchObject({ status: 502, messages: ['502 Bad Gateway'] });
    expect(server.requests).toHaveLength(3);
  });

  it('retries a GET on 503 and 504 and returns the answer that follows', async () => {
    server.handle((_req, res, index) => (index < 2 ? reply(res, index === 0 ? 503 : 504, '') : reply(res, 200, '[]')));
    expect(await client().listFirewallRules(42)).toEqual([]);
    expect(server.requests).toHaveLength(3);
  });

  it('never retries a POST on 503', async () => {
    server.handle((_req, res) => reply(res, 503, ''));
    await expectKind(addDisk(client(), 42, { disk_type: 'SSD', disk_size: 20 }), 'server');
    expect(server.requests).toHaveLength(1);
  });

  it('does not retry 4xx answers of a GET', async () => {
    server.handle((_req, res) => reply(res, 404, ''));
    await expectKind(client().listFirewallRules(42), 'not_found');
    expect(server.requests).toHaveLength(1);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2024-01-01T00:00:00Z');
    expect(parseRetryAfter('7', now)).toBe(7);
    expect(parseRetryAfter('Mon, 01 Jan 2024 00:00:05 GMT', now)).toBe(5);
    expect(parseRetryAfter('Sun, 31 Dec 2023 23:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});

describe('single-flight reads', () => {
  it('serves 20 concurrent identical reads with one upstream request, sharing one frozen answer', async () => {
    server.handle(async (req, res) => {
      await sleep(50);
      reply(res, 200, fixture(req.url.includes('auto_scaling') ? 'auto_scaling.json' : 'firewall_rules.json'));
    });
    const cloud = client();
    const results = await Promise.all(Array.from({ length: 20 }, () => cloud.listFirewallRules(42)));
    expect(server.requests).toHaveLength(1);
    for (const rules of results) expect(rules).toBe(results[0]);
    // No caller can reorder or cut what the others see: the shared list is frozen (its records are read-only by type).
    const shared = results[0] as FirewallRule[];
    expect(() => shared.pop()).toThrow(TypeError);
    expect(() => shared.sort((a, b) => b.id - a.id)).toThrow(TypeError);
    expect(results[1]).toHaveLength(3);
    expect(results[1]![0]!.port).toBe('22');
    const slots = (await cloud.listAutoscaling(42)) as AutoscalingSlot[];
    expect(Object.isFrozen(slots)).toBe(true);
  });

  it('asks again for a read that starts after the previous one settled: never a stale cache', async () => {
    let answer = '[]';
    server.handle((_req, res) => reply(res, 200, answer));
    const cloud = client();
    expect(await cloud.listFirewallRules(42)).toEqual([]);
    answer = fixture('firewall_rules.json');
    expect(await cloud.listFirewallRules(42)).toHaveLength(3);
    expect(server.requests).toHaveLength(2);
  });

  it('keeps different servers and different operations apart', async () => {
    server.handle(async (req, res) => {
      await sleep(30);
      reply(res, 200, req.url.includes('auto_scaling') ? fixture('auto_scaling.json') : '[]');
    });
    const cloud = client();
    await Promise.all([cloud.listFirewallRules(1), cloud.listFirewallRules(2), cloud.listAutoscaling(1), cloud.listFirewallRules(1)]);
    expect(server.requests.map((r) => r.url).sort()).toEqual([
      '/virtual_machines/1/auto_scaling.json',
      '/virtual_machines/1/firewall_rules.json',
      '/virtual_machines/2/firewall_rules.json',
    ]);
  });

  it('shares a failure with everyone waiting, and the next read asks again', async () => {
    server.handle(async (_req, res, index) => {
      await sleep(30);
      if (index === 0) reply(res, 404, '');
      else reply(res, 200, '[]');
    });
    const cloud = client();
    const outcomes = await Promise.allSettled(Array.from({ length: 5 }, () => cloud.listFirewallRules(42)));
    expect(outcomes.every((o) => o.status === 'rejected' && (o.reason as CloudError).kind === 'not_found')).toBe(true);
    expect(await cloud.listFirewallRules(42)).toEqual([]);
    expect(server.requests).toHaveLength(2);
  });

  it('never merges changes: two identical add-disk calls make two requests', async () => {
    server.handle(async (_req, res) => {
      await sleep(30);
      reply(res, 201, fixture('disk.json'));
    });
    const cloud = client();
    await Promise.all([addDisk(cloud, 42, { disk_type: 'SSD', disk_size: 20 }), addDisk(cloud, 42, { disk_type: 'SSD', disk_size: 20 })]);
    expect(server.requests).toHaveLength(2);
  });
});

describe('connections to the API', () => {
  it('opens no more than maxConnections at once, and reuses them', async () => {
    server.handle(async (req, res) => {
      await sleep(40);
      reply(res, 200, '[]');
    });
    const cloud = client({ maxConnections: 2 });
    await Promise.all(Array.from({ length: 10 }, (_, i) => cloud.listFirewallRules(i + 1)));
    expect(server.requests).toHaveLength(10);
    expect(server.connections.maxOpen).toBeLessThanOrEqual(2);
    expect(server.connections.total).toBeLessThanOrEqual(2);
  });
});

describe('connection budgets: reads cannot starve changes', () => {
  /** A server whose GETs hang until released; POSTs answer at once. */
  function holdReads() {
    const held: (() => void)[] = [];
    server.handle((req, res) => {
      if (req.method === 'POST') return reply(res, 201, fixture('disk.json'));
      held.push(() => reply(res, 200, '[]'));
    });
    return { release: () => held.splice(0).forEach((r) => r()), held };
  }

  it('with every read connection busy on slow reads, a change still gets its own connection and is applied', async () => {
    const slow = holdReads();
    const cloud = client({ maxConnections: 4, changeConnections: 1, connectionWaitMs: 5000 });
    const reads = Array.from({ length: 6 }, (_, i) => cloud.listFirewallRules(i + 1));
    await waitFor('three reads held', () => slow.held.length >= 3, { every: 5 });
    const disk = await addDisk(cloud, 42, { disk_type: 'SSD', disk_size: 20 });
    expect(disk.id).toBeGreaterThan(0);
    // The change went out while the reads were still waiting: 3 held, 3 queued behind them.
    expect(slow.held).toHaveLength(3);
    expect(server.requests.map((r) => r.method)).toEqual(['GET', 'GET', 'GET', 'POST']);
    await waitFor(
      'every read released',
      () => {
        slow.release();
        return server.requests.length >= 7 && slow.held.length === 0;
      },
      { every: 5 },
    );
    await Promise.all(reads);
  });

  it("a change's reads (the door's and the follower's) use the change connections: with every read connection held, they are answered", async () => {
    const slow = holdReads();
    const cloud = client({ maxConnections: 2, changeConnections: 1, connectionWaitMs: 50 });
    const first = cloud.listFirewallRules(1);
    await waitFor('a read held', () => slow.held.length >= 1, { every: 5 });
    // A person's read finds no read connection; the same read of a change is sent on the change connection.
    await expectKind(cloud.listTransactions(42), 'no_connection');
    const pending = cloud.changeReads.listTransactions(42);
    await waitFor('the change read sent', () => slow.held.length >= 2, { every: 5 });
    slow.release();
    await expect(pending).resolves.toEqual([]);
    await first;
    expect(server.connections.maxOpen).toBe(2);
  });

  it('a read that finds no read connection free within the wait bound fails as no_connection, unsent, with its own message', async () => {
    const slow = holdReads();
    const cloud = client({ maxConnections: 2, changeConnections: 1, connectionWaitMs: 50 });
    const first = cloud.listFirewallRules(1);
    await waitFor('a read held', () => slow.held.length >= 1, { every: 5 });
    const error = await expectKind(cloud.listAutoscaling(2), 'no_connection');
    expect(error.message).toMatch(/^no connection to the cloud API came free within 0\.1 s .*not sent/);
    expect(error.unreadableSuccess).toBe(false);
    expect(server.requests).toHaveLength(1);
    slow.release();
    await first;
  });

  it("a request's deadline starts when it is sent: time spent waiting for a connection does not count", async () => {
    let answered = 0;
    server.handle(async (_req, res) => {
      await sleep(250);
      answered += 1;
      reply(res, 200, '[]');
    });
    // One read connection, a 400 ms deadline, and three reads at once: the last waits ~500 ms before it is sent.
    const cloud = client({ maxConnections: 2, changeConnections: 1, timeoutMs: 400, connectionWaitMs: 5000 });
    const results = await Promise.allSettled([1, 2, 3].map((id) => cloud.listFirewallRules(id)));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
    expect(answered).toBe(3);
    expect(server.connections.maxOpen).toBe(1);
  });
});

describe('a 2xx whose body cannot be read is told apart', () => {
  it.each([
    ['garbage', (res: import('node:http').ServerResponse) => reply(res, 201, '{"disk": {"id": tru')],
    ['the wrong shape', (res: import('node:http').ServerResponse) => reply(res, 201, '{"volume": {}}')],
    ['a body that breaks off', (res: import('node:http').ServerResponse) => cutMidBody(res, '{"disk": {"id": 1')],
  ])('201 with %s → unreadableSuccess (the change was applied, only its answer is lost)', async (_name, answer) => {
    server.handle((_req, res) => answer(res));
    const error = await failure(addDisk(client(), 42, { disk_type: 'SSD', disk_size: 20 }));
    expect(error.unreadableSuccess).toBe(true);
    expect([200, 201]).toContain(error.status);
    expect(JSON.parse(JSON.stringify(error))).toMatchObject({ unreadableSuccess: true });
  });

  it.each([
    ['422', 422, '{"errors": ["no"]}'],
    ['500 with garbage', 500, '{"disk": tru'],
  ])('%s → not unreadableSuccess', async (_name, status, body) => {
    server.handle((_req, res) => reply(res, status, body));
    const error = await failure(addDisk(client(), 42, { disk_type: 'SSD', disk_size: 20 }));
    expect(error.unreadableSuccess).toBe(false);
  });

  it('a refused connection is not unreadableSuccess', async () => {
    const error = await failure(addDisk(client({ url: await closedPortUrl() }), 42, { disk_type: 'SSD', disk_size: 20 }));
    expect(error).toMatchObject({ kind: 'network', unreadableSuccess: false });
  });
});

describe('the request observer (the seam for metrics)', () => {
  it('is told each operation once, with its HTTP status or failure kind and its seconds; a throwing observer changes nothing', async () => {
    const seen: [string, string, number][] = [];
    server.handle((req, res) =>
      req.method === 'POST' ? reply(res, 422, '{"errors": ["no"]}') : req.url.includes('/auto_scaling') ? reply(res, 200, 'garbage') : reply(res, 200, '[]'),
    );
    const cloud = client({}, { onRequestDone: (operation, status, seconds) => seen.push([operation, status, seconds]) });
    await cloud.listFirewallRules(42);
    await failure(cloud.listAutoscaling(42));
    await failure(addDisk(cloud, 42, { disk_type: 'SSD', disk_size: 20 }));
    await failure(restoreBackup(client({ url: await closedPortUrl() }, { onRequestDone: (o, s, t) => seen.push([o, s, t]) }), 9));
    expect(seen.map(([o, s]) => [o, s])).toEqual([
      ['list_firewall_rules', '200'],
      ['list_autoscaling', '200'],
      ['add_disk', '422'],
      ['restore_backup', 'network'],
    ]);
    expect(seen.every(([, , seconds]) => seconds >= 0)).toBe(true);
    const throwing = client(
      {},
      {
        onRequestDone: () => {
          throw new Error('metrics broke');
        },
      },
    );
    server.handle((_req, res) => reply(res, 200, '[]'));
    await expect(throwing.listFirewallRules(43)).resolves.toEqual([]);
  });
});

describe('the API key never leaks', () => {
  const faults: [string, (s: CloudFaultServer) => void][] = [
    ['401', (s) => s.handle((_req, res) => reply(res, 401, ''))],
    [
      'a body echoing the credentials',
      (s) =>
        s.handle((req, res) =>
          reply(res, 422, JSON.stringify({ errors: { api_key: [`${API_KEY} is wrong`], base: [`bad header ${req.headers.authorization}`] } })),
        ),
    ],
    ['an HTML 500 echoing the key', (s) => s.handle((_req, res) => reply(res, 500, `<html><head><title>key ${API_KEY}</title></head></html>`))],
    ['a timeout', (s) => s.handle(() => undefined)],
    ['a reset mid-body', (s) => s.handle((_req, res) => cutMidBody(res, '[{'))],
    ['garbage', (s) => s.handle((_req, res) => reply(res, 200, `not json ${API_KEY}`))],
  ];

  it.each(faults)('not in the error of %s, however it is printed, nor in the logs', async (_name, arrange) => {
    arrange(server);
    const lines: string[] = [];
    const logger = createLogger({ level: 'debug', write: (line) => lines.push(line) });
    const error = await failure(addDisk(client({ timeoutMs: 250 }, { logger }), 42, { disk_type: 'SSD', disk_size: 20 }));
    const renderings = [
      JSON.stringify(error),
      String(error),
      error.stack ?? '',
      inspect(error, { depth: 10, showHidden: true }),
      inspect(error.cause, { depth: 10, showHidden: true }),
      JSON.stringify(error.cause ?? null),
      JSON.stringify({ messages: error.messages, fieldErrors: error.fieldErrors }),
      ...lines,
    ].join('\n');
    expect(renderings).not.toContain(API_KEY);
    expect(renderings).not.toContain(CREDENTIALS);
  });

  it('not in the error of a refused connection', async () => {
    const error = await failure(client({ url: await closedPortUrl() }).listFirewallRules(42));
    const text = [JSON.stringify(error), String(error), inspect(error, { depth: 10, showHidden: true }), inspect(error.cause, { showHidden: true })].join('\n');
    expect(text).not.toContain(API_KEY);
    expect(text).not.toContain(CREDENTIALS);
    expect(error.cause).toMatchObject({ code: 'ECONNREFUSED' });
  });
});

describe('with an injected dispatcher (undici MockAgent)', () => {
  it('uses it for every request, and maps a low-level error to network', async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    const pool = agent.get('http://cloud.test');
    pool.intercept({ path: '/virtual_machines/42/firewall_rules.json', method: 'GET' }).reply(200, fixture('firewall_rules.json'));
    pool.intercept({ path: '/backups/9/restore.json', method: 'POST' }).replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    const cloud = client({ url: 'http://cloud.test' }, { dispatcher: agent });
    expect(await cloud.listFirewallRules(42)).toHaveLength(3);
    const error = await expectKind(restoreBackup(cloud, 9), 'network');
    expect(error.message).toBe('the connection to the cloud API broke off (ECONNRESET)');
    agent.assertNoPendingInterceptors();
    await agent.close();
  });
});
