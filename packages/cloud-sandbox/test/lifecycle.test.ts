import { createServer } from 'node:net';
import { Agent, request } from 'undici';
import { defaultSeed, type SandboxSeed } from '../src';
import { call, postJson } from './http';
import { startTestSandbox } from './started';

const listenOn = (port: number) =>
  new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve()));
  });

describe('sandbox lifecycle', () => {
  it('listens on 127.0.0.1 on a random port and reports its URL', async () => {
    const sandbox = await startTestSandbox();
    try {
      expect(sandbox.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect((await call(sandbox, '/virtual_machines/42/firewall_rules.json')).status).toBe(200);
    } finally {
      await sandbox.close();
    }
  });

  it('says it is the sandbox in every answer (X-VS-Sandbox: 1), errors included, so a bot given its URL labels its data', async () => {
    const sandbox = await startTestSandbox();
    try {
      const answers = [
        await call(sandbox, '/virtual_machines/42/firewall_rules.json'),
        await call(sandbox, '/virtual_machines/42/firewall_rules.xml', { auth: null }),
        await call(sandbox, '/virtual_machines/999/auto_scaling.json'),
        await call(sandbox, '/nowhere'),
      ];
      expect(answers.map((a) => a.status)).toEqual([200, 401, 404, 404]);
      for (const a of answers) expect(a.headers['x-vs-sandbox']).toBe('1');
    } finally {
      await sandbox.close();
    }
  });

  it('delays every answer by the injected upstream delay, and setDelay changes it', async () => {
    // Told when each request has arrived (and is held by the delay as it was then): a fixed pause loses that race on a busy machine.
    let arrived = 0;
    let bothArrived = () => {};
    const twoArrived = new Promise<void>((resolve) => (bothArrived = resolve));
    const sandbox = await startTestSandbox({
      delayMs: 250,
      onRequest: () => {
        arrived += 1;
        if (arrived === 2) bothArrived();
      },
    });
    try {
      // Order, not time: an answer held by a delay comes after one asked later without it.
      const order: string[] = [];
      const slow = call(sandbox, '/virtual_machines/42/auto_scaling.json').then((a) => order.push(`slow ${a.status}`));
      const slowDenied = call(sandbox, '/virtual_machines/42/auto_scaling.json', { auth: null }).then((a) => order.push(`slow ${a.status}`));
      await twoArrived;
      sandbox.setDelay(0);
      await call(sandbox, '/virtual_machines/42/auto_scaling.json').then((a) => order.push(`fast ${a.status}`));
      await Promise.all([slow, slowDenied]);
      expect(order[0]).toBe('fast 200');
      expect(order.slice(1).sort()).toEqual(['slow 200', 'slow 401']);
      expect(() => sandbox.setDelay(-1)).toThrow(RangeError);
    } finally {
      await sandbox.close();
    }
  });

  it('restores the seed state and clears the request log on reset', async () => {
    const sandbox = await startTestSandbox({ now: () => new Date('2026-03-14T09:26:53Z') });
    try {
      const first = JSON.parse((await postJson(sandbox, '/virtual_machines/42/disks.json', { disk: { disk_type: 'SSD', disk_size: 1 } })).text) as {
        disk: unknown;
      };
      await postJson(sandbox, '/virtual_machines/42/disks.json', { disk: { disk_type: 'SSD', disk_size: 1 } });
      const restored: unknown = JSON.parse((await call(sandbox, '/backups/9/restore.json', { method: 'POST' })).text);
      expect(restored).toHaveProperty(['backup', 'updated_at'], '2026-03-14T09:26:53+00:00');
      expect(sandbox.requests).toHaveLength(3);

      sandbox.reset();
      expect(sandbox.requests).toHaveLength(0);
      const again = JSON.parse((await postJson(sandbox, '/virtual_machines/42/disks.json', { disk: { disk_type: 'SSD', disk_size: 1 } })).text) as {
        disk: unknown;
      };
      // Same id, number and identifier as the first disk after start: the state and the generator are back to the seed.
      expect(again.disk).toEqual(first.disk);
      expect(sandbox.requests).toHaveLength(1);
    } finally {
      await sandbox.close();
    }
  });

  it('frees its port on close, even with a keep-alive connection open', async () => {
    const sandbox = await startTestSandbox();
    const port = Number(new URL(sandbox.url).port);
    const agent = new Agent({ keepAliveTimeout: 60_000 });
    const res = await request(`${sandbox.url}/virtual_machines/42/firewall_rules.json`, {
      dispatcher: agent,
      headers: { authorization: `Basic ${Buffer.from('sandbox:sandbox-key').toString('base64')}` },
    });
    await res.body.text();
    await sandbox.close();
    await expect(listenOn(port)).resolves.toBeUndefined();
    await sandbox.close(); // a second close is harmless
    await agent.close();
  });

  it('ends a request waiting on the delay when it closes, without hanging', async () => {
    const sandbox = await startTestSandbox({ delayMs: 5_000 });
    const pending = call(sandbox, '/virtual_machines/42/firewall_rules.json');
    await new Promise((resolve) => setTimeout(resolve, 50));
    // The close itself settles the request (a 5 s delay would outlive the test's wait otherwise).
    const settled = pending.then(
      () => 'answered',
      () => 'ended',
    );
    await sandbox.close();
    expect(await Promise.race([settled, new Promise((resolve) => setTimeout(() => resolve('still waiting'), 4_000))])).toBe('ended');
  });

  it('serves a seed given by the caller without changing it', async () => {
    const tiny = { ...defaultSeed().servers.find((s) => s.id === 43)!, id: 7, label: 'tiny', firewallRules: [], autoscaling: [], disks: [] };
    const seed: SandboxSeed = { servers: [tiny], backups: [], transactions: [] };
    const before = JSON.stringify(seed);
    const sandbox = await startTestSandbox({ seed });
    try {
      expect((await call(sandbox, '/virtual_machines/42/firewall_rules.json')).status).toBe(404);
      const res = await postJson(sandbox, '/virtual_machines/7/disks.json', { disk: { disk_type: 'HDD', disk_size: 3 } });
      expect(JSON.parse(res.text)).toMatchObject({ disk: { id: 1, disk_vm_number: 1, label: 'Disk 1' } });
      expect(JSON.stringify(seed)).toBe(before);
    } finally {
      await sandbox.close();
    }
  });
});

describe('the default seed', () => {
  it('is the same on every call', () => {
    expect(defaultSeed()).toEqual(defaultSeed());
  });

  it('holds servers 42 to 48 and 77, backups 9 to 15 and transactions 1 to 8', () => {
    const seed = defaultSeed();
    expect(seed.servers.map((s) => s.id)).toEqual([42, 43, 44, 45, 46, 47, 48, 77]);
    expect(seed.backups.map((b) => b.id)).toEqual([9, 10, 11, 12, 13, 14, 15]);
    expect(seed.transactions.map((t) => t.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('has unique firewall rule ids and disk ids', () => {
    const seed = defaultSeed();
    const ruleIds = seed.servers.flatMap((s) => s.firewallRules.map((r) => r.id));
    const diskIds = seed.servers.flatMap((s) => s.disks.map((d) => d.id));
    expect(new Set(ruleIds).size).toBe(ruleIds.length);
    expect(new Set(diskIds).size).toBe(diskIds.length);
  });
});
