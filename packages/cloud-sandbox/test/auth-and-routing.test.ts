import { call, parseXml } from './http';
import { startSandbox, type SandboxReads } from '../src';
import { API_READS, startTestSandbox, useSandbox } from './started';

const sandbox = useSandbox({ accountId: 'acct-7', apiKey: 'k3y-for-tests' });

describe('authentication', () => {
  it('answers 401 with a JSON error and a Basic challenge when no credentials are sent', async () => {
    const res = await call(sandbox, '/virtual_machines/42/firewall_rules.json', { auth: null });
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Basic /);
    expect(JSON.parse(res.text)).toEqual({ error: expect.stringMatching(/Basic auth/) });
  });

  it('answers 401 with an XML error when the API key is wrong', async () => {
    const res = await call(sandbox, '/virtual_machines/42/firewall_rules.xml', { auth: 'acct-7:wrong' });
    expect(res.status).toBe(401);
    expect(res.headers['content-type']).toMatch(/^application\/xml/);
    expect(parseXml(res.text)).toEqual({ '?xml': expect.anything(), errors: { error: ['Invalid account id or API key'] } });
  });

  it('answers 401 when the account id is wrong even with the right key', async () => {
    const res = await call(sandbox, '/virtual_machines/42/firewall_rules.json', { auth: 'sandbox:k3y-for-tests' });
    expect(res.status).toBe(401);
  });

  it('answers 401 for a malformed Authorization header', async () => {
    const res = await call(sandbox, '/virtual_machines/42/firewall_rules.json', { auth: null, headers: { authorization: 'Bearer abc' } });
    expect(res.status).toBe(401);
  });

  it('accepts the configured credentials', async () => {
    const res = await call(sandbox, '/virtual_machines/42/firewall_rules.json', { auth: 'acct-7:k3y-for-tests' });
    expect(res.status).toBe(200);
  });

  it('never keeps the Authorization header or the key in the request log', async () => {
    await call(sandbox, '/virtual_machines/42/firewall_rules.json');
    await call(sandbox, '/virtual_machines/42/firewall_rules.json', { auth: 'acct-7:wrong' });
    expect(sandbox.requests).toHaveLength(2);
    for (const r of sandbox.requests) expect(r.headers.authorization).toBeUndefined();
    expect(JSON.stringify(sandbox.requests)).not.toContain('k3y-for-tests');
    expect(sandbox.requests.map((r) => r.status)).toEqual([200, 401]);
  });

  it('defaults to the sandbox credentials from the config', async () => {
    const other = await startTestSandbox();
    try {
      expect([other.accountId, other.apiKey]).toEqual(['sandbox', 'sandbox-key']);
      expect((await call(other, '/virtual_machines/42/auto_scaling', { auth: 'sandbox:sandbox-key' })).status).toBe(200);
    } finally {
      await other.close();
    }
  });
});

describe('formats', () => {
  it('answers JSON for a .json path and for a path without suffix', async () => {
    for (const path of ['/virtual_machines/44/firewall_rules.json', '/virtual_machines/44/firewall_rules']) {
      const res = await call(sandbox, path);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(Array.isArray(JSON.parse(res.text))).toBe(true);
    }
  });

  it('answers XML for a .xml path and for Accept: application/xml without suffix', async () => {
    const bySuffix = await call(sandbox, '/virtual_machines/44/firewall_rules.xml');
    const byAccept = await call(sandbox, '/virtual_machines/44/firewall_rules', { headers: { accept: 'application/xml' } });
    expect(bySuffix.headers['content-type']).toBe('application/xml; charset=utf-8');
    expect(byAccept.text).toBe(bySuffix.text);
    expect(bySuffix.text.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<firewall_rules type="array">')).toBe(true);
  });

  it('lets the path suffix win over the Accept header', async () => {
    const res = await call(sandbox, '/virtual_machines/44/firewall_rules.json', { headers: { accept: 'application/xml' } });
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(sandbox.requests.at(-1)?.format).toBe('json');
  });
});

describe('the account’s servers', () => {
  it('lists every server with distinct labels, hostnames and addresses, paged by page and per_page, in JSON and XML', async () => {
    const first = await call(sandbox, '/virtual_machines.json?per_page=5');
    const second = await call(sandbox, '/virtual_machines.json?page=2&per_page=5');
    const servers = [...(JSON.parse(first.text) as unknown[]), ...(JSON.parse(second.text) as unknown[])].map(
      (item) => (item as { virtual_machine: { id: number; label: string; hostname: string } }).virtual_machine,
    );
    expect(servers.map((s) => s.id)).toEqual([42, 43, 44, 45, 46, 47, 48, 77]);
    expect(servers.map((s) => s.label)).toEqual(['web-1', 'batch-worker-3', 'bastion', 'edge-lb-1', 'db-primary', 'web-2', 'legacy-app', 'api-gateway']);
    expect(new Set(servers.map((s) => s.hostname)).size).toBe(8);
    const xml = await call(sandbox, '/virtual_machines.xml');
    expect(xml.status).toBe(200);
    expect(xml.text).toMatch(/^<\?xml[^>]*>\s*<virtual_machines type="array">/);
    // Ten a page, as the API pages them: the whole seed.
    expect(xml.text.match(/<virtual_machine>/g)).toHaveLength(8);
  });
});

describe('routing', () => {
  it.each([
    ['/virtual_machines/abc/firewall_rules.json'],
    ['/virtual_machines/4.2/firewall_rules.json'],
    ['/virtual_machines/-42/firewall_rules.json'],
    ['/virtual_machines/42/firewall_rules.yaml'],
    ['/virtual_machines/42/templates.json'],
    ['/virtual_machines/page/2.json'],
    ['/'],
  ])('answers 404 for %s', async (path) => {
    const res = await call(sandbox, path);
    expect(res.status).toBe(404);
    expect(JSON.parse(res.text)).toEqual({ errors: [expect.any(String)] });
  });

  it('answers 404 with an error list for an unknown server, in both formats', async () => {
    const json = await call(sandbox, '/virtual_machines/999/firewall_rules.json');
    expect(json.status).toBe(404);
    expect(JSON.parse(json.text)).toEqual({ errors: ['VirtualMachine 999 was not found'] });
    const xml = await call(sandbox, '/virtual_machines/999/auto_scaling.xml');
    expect(xml.status).toBe(404);
    expect(parseXml(xml.text).errors).toEqual({ error: ['VirtualMachine 999 was not found'] });
  });

  it('answers 405 with Allow for a known path and the wrong method', async () => {
    const get = await call(sandbox, '/backups/9/restore.json');
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST');
    // Firewall rules are read (GET) and added (POST): not updated in place here.
    const put = await call(sandbox, '/virtual_machines/42/firewall_rules.json', { method: 'PUT' });
    expect(put.status).toBe(405);
    expect(put.headers.allow).toBe('GET, POST');
  });

  it('refuses to start with a read it has no handler for, naming where the handler goes', async () => {
    const reads = {
      ...API_READS,
      listSnapshots: { path: '/virtual_machines/:vsId/snapshots', answer: { kind: 'list', listName: 'snapshots', itemName: 'snapshot' } },
    };
    // @ts-expect-error -- a row without a handler does not compile: the point of SandboxReadsFor.
    const starting = startSandbox({ port: 0, reads: reads as SandboxReads });
    await expect(starting).rejects.toThrow('the sandbox has no handler for the read listSnapshots: add one to packages/cloud-sandbox/src/reads.ts');
  });
});
