import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { Backup, Disk, FirewallRule, Server, Transaction } from '../../../src/cloud/schemas';
import { defaultSeed, startSandbox, type SandboxSeed } from '../src';
import { freePort, runToExit } from '../../../test/helpers/spawned-bot';
import { call, postJson } from './http';
import { awaitWithin, waitFor } from '../../../test/helpers/wait';
import { READS } from '../../../src/cloud/reads';

const listenOn = (port: number) =>
  new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve()));
  });

describe('sandbox lifecycle', () => {
  it('listens on 127.0.0.1 on a random port and reports its URL', async () => {
    const sandbox = await startSandbox({ reads: READS, port: 0 });
    try {
      expect(sandbox.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect((await call(sandbox, '/virtual_machines/42/firewall_rules.json')).status).toBe(200);
    } finally {
      await sandbox.close();
    }
  });

  it('says it is the sandbox in every answer (X-VS-Sandbox: 1), errors included, so a bot given its URL labels its data', async () => {
    const sandbox = await startSandbox({ reads: READS, port: 0 });
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
    const sandbox = await startSandbox({ reads: READS, delayMs: 250 });
    try {
      // Order, not time: an answer held by a delay comes after one asked later without it.
      const order: string[] = [];
      const slow = call(sandbox, '/virtual_machines/42/auto_scaling.json').then((a) => order.push(`slow ${a.status}`));
      const slowDenied = call(sandbox, '/virtual_machines/42/auto_scaling.json', { auth: null }).then((a) => order.push(`slow ${a.status}`));
      // Both held by the delay as it was when they arrived (a fixed pause here loses the race on a busy machine).
      await waitFor('the two slow requests to arrive', () => sandbox.requests.length >= 2);
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
    const sandbox = await startSandbox({ reads: READS, now: () => new Date('2026-03-14T09:26:53Z') });
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
    const sandbox = await startSandbox({ reads: READS });
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
    const sandbox = await startSandbox({ reads: READS, delayMs: 5_000 });
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
    const sandbox = await startSandbox({ reads: READS, seed });
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

  it('holds servers 42 to 48 and 77, backups 9 to 15 and transactions 1 to 8, whose records validate against the client schemas', () => {
    const seed = defaultSeed();
    expect(seed.servers.map((s) => s.id)).toEqual([42, 43, 44, 45, 46, 47, 48, 77]);
    expect(seed.backups.map((b) => b.id)).toEqual([9, 10, 11, 12, 13, 14, 15]);
    expect(seed.transactions.map((t) => t.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    for (const s of seed.servers) {
      expect(Server.safeParse(s).success).toBe(true);
      for (const r of s.firewallRules) expect(FirewallRule.safeParse(r).success).toBe(true);
      for (const d of s.disks) expect(Disk.safeParse(d).success).toBe(true);
    }
    for (const b of seed.backups) expect(Backup.safeParse(b).success).toBe(true);
    for (const t of seed.transactions) expect(Transaction.safeParse(t).success).toBe(true);
  });

  it('has unique firewall rule ids and disk ids', () => {
    const seed = defaultSeed();
    const ruleIds = seed.servers.flatMap((s) => s.firewallRules.map((r) => r.id));
    const diskIds = seed.servers.flatMap((s) => s.disks.map((d) => d.id));
    expect(new Set(ruleIds).size).toBe(ruleIds.length);
    expect(new Set(diskIds).size).toBe(diskIds.length);
  });
});

describe('npm run sandbox', () => {
  it('listens on the port after --, says it is a simulator with fake data, prints URL, credentials and a curl line, answers, stops on SIGTERM', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, '../../../scripts/sandbox.ts'), '--port', String(port)], {
      cwd: join(__dirname, '../../..'),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      await waitFor('the sandbox to say it is listening', () => out.includes('Ctrl-C'), { within: 8000, every: 50, detail: () => out });
      expect(out).toMatch(/SIMULATOR .* FAKE data \(not a real cloud account\)/);
      const url = `http://127.0.0.1:${port}`;
      expect(out).toContain(`URL          ${url}\n`);
      expect(out).toContain(`curl -u sandbox:sandbox-key ${url}/virtual_machines/42/firewall_rules.xml`);
      const res = await request(`${url}/virtual_machines/42/firewall_rules.xml`, {
        headers: { authorization: `Basic ${Buffer.from('sandbox:sandbox-key').toString('base64')}` },
      });
      expect(res.statusCode).toBe(200);
      expect(await res.body.text()).toContain('<firewall_rules type="array">');
    } finally {
      child.kill('SIGTERM');
    }
    expect(await awaitWithin('the sandbox to stop on SIGTERM', exited)).toBe(0);
    expect(out).toContain('GET /virtual_machines/42/firewall_rules.xml → 200');
  });
});

describe('npm run sandbox options', () => {
  const root = join(__dirname, '../../..');
  const sandboxMain = (...args: string[]) => runToExit(process.execPath, ['--import', 'tsx', join(root, 'scripts/sandbox.ts'), ...args]);
  const usageLine = 'usage: npm run sandbox -- [--port N] [--delay MS]';

  it('refuses `npm run sandbox --port N` (npm keeps the option) with the spelling that works, and exit status 2', async () => {
    const port = await freePort();
    const result = await runToExit('npm', ['run', 'sandbox', '--port', String(port)]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`run npm run sandbox -- --port ${port}`);
    expect(result.stderr).toContain(usageLine);
    expect(result.stdout).not.toContain('URL');
  });

  it.each([
    [['--prot', '5000'], 'unknown option --prot'],
    [['5000'], 'unexpected argument "5000"'],
    [['--port', '0', 'extra'], 'unexpected argument "extra"'],
    [['--port'], '--port needs a value'],
    [['--delay=soon'], '--delay must be a whole number from 0 to 600000, got "soon"'],
  ])('refuses %j with "%s", the usage line and exit status 2', async (args, problem) => {
    const result = await sandboxMain(...args);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`${problem}\n${usageLine}   (the -- passes the options on to the sandbox)\n`);
    expect(result.stdout).toBe('');
  });
});
