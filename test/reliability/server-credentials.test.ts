import { inspect } from 'node:util';
import { request } from 'undici';
import { useHarnessBehindFaults } from '../helpers/app-harness';
import { forward, reply, type FaultHandler } from '../helpers/cloud-fault-server';
import { answerTo, CHANNEL, openForm, runStep, submit } from '../helpers/drive';
import { input, linkShared } from '../helpers/payloads';
import { sleep } from '../helpers/wait';

// A server's passwords and credentials from the cloud (docs/product.md, Server
// at a glance; docs/cloud-api.md, The server) are never shown, logged, stored
// or passed on. The sandbox's records carry fake ones on every server; a
// server record served by the fault server carries others, under the names
// real clouds use and some they might, and a transaction whose params hold a
// reset password. Every way the bot reads a server is driven with LOG_LEVEL
// debug, approvals on, the audit channel set; then every Slack post, Web API
// call, log line, audit record, metric and thrown error is searched for them.

/** A record of VS 44 as a cloud with more credentials than the reference names might send it. */
const VS_44 = {
  id: 44,
  label: 'bastion',
  hostname: 'bastion.example.com',
  booted: true,
  locked: true,
  memory: 1024,
  cpus: 1,
  ip_addresses: [{ ip_address: { address: '192.0.2.44', password: 'ip-pw-Zq81' } }],
  initial_root_password: 'root-pw-Xk93',
  remote_access_password: 'vnc-pw-Lm27',
  service_password: 'svc-pw-Qa55',
  root_password: 'root2-pw-Hy61',
  admin_password: 'admin-pw-Pw04',
  initial_root_password_encrypted: 'enc-pw-Rt38',
  encryption_passphrase: 'passphrase-Ub19',
  ssh_private_key: '-----BEGIN OPENSSH PRIVATE KEY----- key-Ke72',
  api_key: 'apikey-Ak66',
};
const CREDENTIALS_44 = [
  'ip-pw-Zq81',
  'root-pw-Xk93',
  'vnc-pw-Lm27',
  'svc-pw-Qa55',
  'root2-pw-Hy61',
  'admin-pw-Pw04',
  'enc-pw-Rt38',
  'passphrase-Ub19',
  'key-Ke72',
  'apikey-Ak66',
];

/** A password reset still running on VS 44: its params carry the new password (docs/cloud-api.md, Transactions). */
const RESET = {
  transaction: {
    id: 9001,
    action: 'reset_root_password',
    status: 'running',
    parent_type: 'VirtualMachine',
    parent_id: 44,
    params: { new_password: 'reset-pw-Np48', initial_root_password: 'root-pw-Xk93' },
    log_output: 'setting password reset-pw-Np48',
    created_at: '2026-03-14T10:00:00Z',
  },
};

describe('a server’s credentials from the cloud go nowhere', () => {
  const { h, fault: cloud } = useHarnessBehindFaults({
    env: { LOG_LEVEL: 'debug', VS_ADMINS: 'UADMIN,UADMIN2', VS_OPERATORS: 'UOPER', VS_AUDIT_CHANNEL: 'CAUDIT', VS_APPROVALS: 'power_reboot' },
    reset: false,
  });
  let credentials: string[];
  let metrics: string;
  /** What the bot asked the cloud (the harness forgets it before each test). */
  let asked: string[];

  /** VS 44 and its transactions as above; everything else from the sandbox. */
  const withCredentials: FaultHandler = (req, res) => {
    if (/^\/virtual_machines\/44(\/status)?\.json/.test(req.url)) return reply(res, 200, JSON.stringify({ virtual_machine: VS_44 }));
    if (/^\/virtual_machines\/44\/transactions\.json/.test(req.url)) return reply(res, 200, JSON.stringify([RESET]));
    return forward(h.sandbox.url, req, res);
  };

  beforeAll(async () => {
    // The sandbox's own fake credentials, read from it as a cloud client would (the bot never keeps them).
    const sandboxed: string[] = [];
    for (const id of [42, 43, 44, 46, 47, 48]) {
      const auth = Buffer.from(`${h.sandbox.accountId}:${h.sandbox.apiKey}`).toString('base64');
      const res = await request(`${h.sandbox.url}/virtual_machines/${id}.json`, { headers: { authorization: `Basic ${auth}` } });
      const { virtual_machine: vm } = (await res.body.json()) as { virtual_machine: Record<string, string> };
      sandboxed.push(vm.initial_root_password!, vm.remote_access_password!, vm.service_password!);
    }
    credentials = [...sandboxed, ...CREDENTIALS_44, 'reset-pw-Np48'];
    expect(sandboxed.every((c) => c.startsWith('fake-'))).toBe(true);

    cloud.handle(withCredentials);

    for (const text of ['server 42', 'status 44', 'server 47', 'disks 42', 'backups 42', 'server 48']) await answerTo(h, text, { user: 'UADMIN' });
    for (const id of [42, 44, 47]) await runStep(h, 'vs_server_status', { vs_id: id });
    await h.event(linkShared({ user: 'UADMIN', channel: CHANNEL, urls: [`${cloud.url}/virtual_machines/44`, `${cloud.url}/virtual_machines/42`] }));
    // The power form reads the server first; 44 is locked (busy), 42 is not: its reboot is asked for approval (the request is stored).
    await answerTo(h, 'reboot 44', { user: 'UADMIN' });
    const view = await openForm(h, 'reboot 42', 'UADMIN');
    await submit(h, 'vs_power', 'UADMIN', view.private_metadata, {
      power_action: input.select('reboot'),
      confirm: input.text('42'),
      reason: input.text('hung'),
    });
    const restore = await openForm(h, 'restore 42', 'UADMIN');
    await submit(h, 'backup_restore', 'UADMIN', restore.private_metadata, {
      backup_id: input.select('9'),
      confirm: input.text('9'),
      reason: input.text('rows lost'),
    });
    // Thrown errors a caller could log: the client read directly.
    await h.cloud.getServer(44).catch(() => undefined);
    await sleep(500);
    asked = cloud.requests.map((r) => r.url);
    metrics = await (await request(`${h.eventsUrl.replace('/slack/events', '')}/metrics`)).body.text();
  }, 60_000);

  const leaks = (text: string) => credentials.filter((c) => text.includes(c));

  test('the records that carried them were really read', () => {
    for (const path of ['/virtual_machines/42.json', '/virtual_machines/44.json', '/virtual_machines/44/transactions.json', '/virtual_machines/47.json'])
      expect(asked).toContain(path);
    expect(h.slack.responses.length).toBeGreaterThan(6);
    expect(h.slack.callsTo('chat.unfurl')).toHaveLength(1);
  });

  test('in no Slack message, modal or Web API call', () => {
    expect(leaks(JSON.stringify(h.slack.responses))).toEqual([]);
    expect(leaks(JSON.stringify(h.slack.calls.map((c) => c.args)))).toEqual([]);
  });

  test('in no log line, at debug level', () => {
    expect(h.logs.some((l) => l.includes('"level":"debug"'))).toBe(true);
    expect(leaks(h.logs.join('\n'))).toEqual([]);
  });

  test('in no audit record, approval request or audit post', async () => {
    const records = await h.store.audit.latest(200);
    expect(records.map((r) => r.action)).toEqual(expect.arrayContaining(['power_reboot', 'backup_restore']));
    expect(leaks(JSON.stringify(records))).toEqual([]);
    expect(leaks(JSON.stringify(await h.store.approvals.open(0)))).toEqual([]);
  });

  test('in no metric', () => {
    expect(metrics).toContain('vs_chatops_cloud_requests_total{operation="get_server"');
    expect(leaks(metrics)).toEqual([]);
  });

  test('and the client’s answers do not keep them, however they are printed', async () => {
    cloud.handle(withCredentials);
    const answers = [await h.cloud.getServer(44), await h.cloud.getServerStatus(44), await h.cloud.listTransactions(44), await h.cloud.getServer(42)];
    expect(leaks(inspect(answers, { depth: 10, showHidden: true }) + JSON.stringify(answers))).toEqual([]);
  });
});
