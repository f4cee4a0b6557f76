import { defaultSeed } from '@vs-chatops/cloud-sandbox';
import { request } from 'undici';
import { CHANGES, type ChangeAction, type ChangeParams } from '../../src/changes/definitions';
import { createCloudClient } from '../../src/cloud/client';
import type { CloudClient } from '../../src/cloud/client.types';
import { READS, type ReadName } from '../../src/cloud/reads';
import { Backup, Disk, FirewallRule, Server, Transaction } from '../../src/cloud/schemas';
import { useSandbox } from '../helpers/use-started';

// What the sandbox (packages/cloud-sandbox) answers, read by the bot: it serves the rows of the bot's table of reads
// (READS), each in JSON and XML, read here by the bot's own client, as are the answers to every change of the bot's
// table (CHANGES) and the records of its seed, so the sandbox and the bot's schemas cannot drift apart. The sandbox's
// own tests (packages/cloud-sandbox/test) hold its routes and wire formats without the bot.

const sandbox = useSandbox();
const clients: CloudClient[] = [];
afterAll(() => Promise.all(clients.map((c) => c.close())));

function client(format: 'json' | 'xml'): CloudClient {
  const made = createCloudClient({
    url: sandbox.url,
    accountId: sandbox.accountId,
    apiKey: sandbox.apiKey,
    format,
    timeoutMs: 5000,
    maxConnections: 4,
    changeConnections: 1,
    connectionWaitMs: 2000,
  });
  clients.push(made);
  return made;
}

/** Ids of the seed each read is asked for, and an id it does not hold. */
const ASKED: Record<ReadName, { ids: number[]; unknown: number[] | null; missing: string }> = {
  listFirewallRules: { ids: [42], unknown: [999], missing: 'VirtualMachine 999' },
  listAutoscaling: { ids: [46], unknown: [999], missing: 'VirtualMachine 999' },
  getServer: { ids: [42], unknown: [999], missing: 'VirtualMachine 999' },
  getServerStatus: { ids: [47], unknown: [999], missing: 'VirtualMachine 999' },
  listDisks: { ids: [46], unknown: [999], missing: 'VirtualMachine 999' },
  listBackups: { ids: [42], unknown: [999], missing: 'VirtualMachine 999' },
  getBackup: { ids: [11], unknown: [999], missing: 'Backup 999' },
  listTransactions: { ids: [42], unknown: [999], missing: 'VirtualMachine 999' },
  // The account's own: nothing in its path to be unknown.
  listAccountTransactions: { ids: [], unknown: null, missing: '' },
  getTransaction: { ids: [4], unknown: [999], missing: 'Transaction 999' },
  // The account's own, like its transactions.
  listServers: { ids: [], unknown: null, missing: '' },
};

describe('the reads of the bot’s table', () => {
  it.each(Object.keys(READS) as ReadName[])('serves %s in JSON and XML, read alike by the bot’s client, and 404 for what it does not hold', async (name) => {
    const { ids, unknown, missing } = ASKED[name];
    const read = (cloud: CloudClient, args: number[]) => (cloud[name] as (...a: number[]) => Promise<unknown>)(...args);
    const fromJson = await read(client('json'), ids);
    const fromXml = await read(client('xml'), ids);
    // The XML of firewall rules carries a subset of their fields (docs/cloud-api.md, Firewall rules).
    const carried = (rules: unknown) =>
      (rules as Record<string, unknown>[]).map((r) => Object.fromEntries(Object.keys((fromXml as object[])[0] ?? {}).map((f) => [f, r[f]])));
    if (name === 'listFirewallRules') expect(carried(fromXml)).toEqual(carried(fromJson));
    else expect(fromXml).toEqual(fromJson);
    expect(Array.isArray(fromJson) ? fromJson.length : 1).toBeGreaterThan(0);
    if (unknown === null) return;
    await expect(read(client('json'), unknown)).rejects.toMatchObject({ kind: 'not_found', messages: [`${missing} was not found`] });
    await expect(read(client('xml'), unknown)).rejects.toMatchObject({ kind: 'not_found', messages: [`${missing} was not found`] });
  });

  it('reads what each seeded server shows: on, off, locked by a running transaction', async () => {
    const cloud = client('json');
    const states = await Promise.all([42, 43, 47, 48].map((id) => cloud.getServerStatus(id)));
    expect(states.map((s) => [s.id, s.booted, s.locked])).toEqual([
      [42, true, false],
      [43, false, false],
      [47, true, true],
      [48, true, false],
    ]);
    const [running] = await cloud.listTransactions(47);
    expect(running).toMatchObject({ action: 'take_incremental_backup', status: 'running', parent_type: 'VirtualMachine', parent_id: 47 });
  });

  it('serves backups usable, not built and marked for deletion, normal and incremental, each under its server', async () => {
    const cloud = client('xml');
    const of42 = await cloud.listBackups(42);
    expect(of42.map((b) => [b.id, b.backup_type, b.target_type, b.target_id, b.built, b.marked_for_delete])).toEqual([
      [9, 'incremental', 'VirtualMachine', 42, true, false],
      [12, 'incremental', 'VirtualMachine', 42, true, true],
      [15, 'normal', 'Disk', 101, true, false],
    ]);
    const of46 = await cloud.listBackups(46);
    expect(of46.map((b) => [b.id, b.backup_type, b.target_type, b.target_id, b.built])).toEqual([
      [11, 'normal', 'Disk', 109, true],
      [13, 'incremental', 'VirtualMachine', 46, false],
    ]);
    expect(await cloud.listBackups(43)).toEqual([]);
  });

  it("sends each server's fake credentials, as real clouds do, and the bot's client keeps none of them", async () => {
    for (const format of ['json', 'xml'] as const) {
      const wire = await request(`${sandbox.url}/virtual_machines/42.${format}`, {
        headers: { authorization: `Basic ${Buffer.from(`${sandbox.accountId}:${sandbox.apiKey}`).toString('base64')}` },
      });
      const text = await wire.body.text();
      const passwords = [...text.matchAll(/fake-(?:root|vnc|svc)-pw-42-[a-z0-9]{6}/g)].map((m) => m[0]);
      expect(new Set(passwords).size).toBe(3);
      const read = JSON.stringify(await client(format).getServer(42));
      for (const password of passwords) expect(read).not.toContain(password);
      expect(read).not.toContain('fake-');
    }
  });

  it('pages a server’s transactions, newest first, 10 a page or per_page', async () => {
    const cloud = client('json');
    expect((await cloud.listTransactions(42)).map((t) => t.id)).toEqual([6, 5, 3, 1]);
    expect((await cloud.listTransactions(42, { perPage: 2 })).map((t) => t.id)).toEqual([6, 5]);
    expect((await cloud.listTransactions(42, { page: 2, perPage: 2 })).map((t) => t.id)).toEqual([3, 1]);
    expect(await cloud.listTransactions(42, { page: 3, perPage: 2 })).toEqual([]);
  });
});

describe('the sandbox’s records, read by the bot’s schemas', () => {
  it('reads the firewall rules and autoscaling of every seeded server, in JSON and XML; unset slots read as not configured', async () => {
    for (const format of ['json', 'xml'] as const) {
      const cloud = client(format);
      for (const id of sandbox.serverIds()) {
        await expect(cloud.listFirewallRules(id)).resolves.toBeInstanceOf(Array);
        await expect(cloud.listAutoscaling(id)).resolves.toHaveLength(6);
      }
      expect((await cloud.listAutoscaling(42)).map((s) => s.configured)).toEqual([true, true, true, false, false, false]);
      expect((await cloud.listAutoscaling(46)).every((s) => s.configured)).toBe(true);
    }
  });

  it('holds a default seed whose every record validates against the client schemas', () => {
    const seed = defaultSeed();
    const problems = [
      ...seed.servers.flatMap((s) => [Server.safeParse(s), ...s.firewallRules.map((r) => FirewallRule.safeParse(r)), ...s.disks.map((d) => Disk.safeParse(d))]),
      ...seed.backups.map((b) => Backup.safeParse(b)),
      ...seed.transactions.map((t) => Transaction.safeParse(t)),
    ].filter((parsed) => !parsed.success);
    expect(seed.servers.length).toBeGreaterThan(5);
    expect(problems).toEqual([]);
  });
});

/** Each change of the bot's table, as sent to the seed: a target it accepts the change for now, and valid parameters. */
const SENT: { [A in ChangeAction]: { target: number; params: ChangeParams<A> } } = {
  disk_add: { target: 42, params: { disk_type: 'SSD', disk_size: 20, label: 'data', mount_point: '/mnt/data', add_to_linux_fstab: true } },
  backup_restore: { target: 9, params: { backup_id: 9, reason: 'the data was lost' } },
  power_start: { target: 43, params: { power_action: 'startup', reason: 'back to work' } },
  power_shutdown: { target: 42, params: { power_action: 'shutdown', reason: 'maintenance' } },
  power_reboot: { target: 44, params: { power_action: 'reboot_recovery', reason: 'fsck' } },
  power_stop: { target: 45, params: { power_action: 'stop', reason: 'hung' } },
  backup_take: { target: 42, params: { disk_id: 101, note: 'before the deploy', reason: 'schema migration' } },
  firewall_add: {
    target: 42,
    params: { network_interface_id: 3, command: 'DROP', address: '198.51.100.5', port: '8080', protocol: 'TCP', reason: 'scanner', confirmed_risk: false },
  },
  firewall_remove: { target: 42, params: { rule_id: 17, reason: 'MySQL moved to its own network' } },
};

/** Sends a change as its row prepares it, and words the answer as its row does (which reads it). */
async function sent<A extends ChangeAction>(cloud: CloudClient, action: A): Promise<string> {
  const { target, params } = SENT[action];
  const change = CHANGES[action];
  return change.describe(target, await cloud.send(change.request.prepare(cloud.format, target, params)), params);
}

describe('the changes of the bot’s table', () => {
  it.each((['json', 'xml'] as const).flatMap((format) => (Object.keys(SENT) as ChangeAction[]).map((action) => [action, format] as const)))(
    'accepts %s in %s as the row prepares it, and answers with what the row reads',
    async (action, format) => {
      // What was asked, read from the answer (its outcome is the record's: "scheduled" once accepted).
      const described = [
        /disk \d+ \(\d+ GB\) on VS \d+/,
        /restore of backup \d+( onto .*)?/,
        /(start-up|shutdown|reboot|forced stop) of VS \d+/,
        /backup \d+ of disk \d+ on VS \d+/,
        /removal of firewall rule \d+ on VS \d+, applied/,
        /firewall rule \d+ \(DROP 198\.51\.100\.5 on 8080\/tcp\) on VS \d+, applied/,
      ];
      expect(await sent(client(format), action)).toMatch(new RegExp(`^(${described.map((r) => r.source).join('|')})$`));
      const expected: [string, number][] =
        action === 'firewall_remove'
          ? [
              ['DELETE', 204],
              ['POST', 201],
            ]
          : action === 'firewall_add'
            ? [
                ['POST', 201],
                ['POST', 201],
              ]
            : [['POST', action === 'backup_restore' ? 200 : 201]];
      expect(sandbox.requests.map((r) => [r.method, r.status])).toEqual(expected);
    },
  );
});
