import { defaultSeed } from '../src';
import { call, postJson } from './http';
import { startTestSandbox, useSandbox } from './started';

// The sandbox's control panel: a server's page with its state, disks and transactions, as a browser asks for it (a
// link in a chat message), readable without credentials; its data escaped; the API at the same address unchanged.

const T0 = Date.parse('2026-03-14T09:00:00Z');
let clock = T0;
const sandbox = useSandbox({ now: () => new Date(clock), transactionMs: { pending: 1_000, running: 3_000 } });
beforeEach(() => {
  clock = T0;
});

const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
const page = (path: string) => call(sandbox, path, { auth: null, headers: BROWSER });

describe("a server's page of the panel", () => {
  it('shows a failed change as the browser asks for it, without credentials: the transaction failed, with its log; the disk it left', async () => {
    expect((await postJson(sandbox, '/virtual_machines/48/disks.json', { disk: { disk_type: 'HDD', disk_size: 50, label: 'scratch' } })).status).toBe(201);
    clock += 5_000;
    const res = await page('/virtual_machines/48/transactions');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.text).toContain('<h1>legacy-app (VS 48)</h1>');
    expect(res.text).toContain('<strong>on</strong> · <strong>unlocked</strong>');
    expect(res.text).toMatch(/<tr class="failed"><td>\d+<\/td><td>build_disk<\/td><td>failed<\/td><td>Disk \d+<\/td>/);
    expect(res.text).toMatch(/<tr><td>\d+<\/td><td>scratch<\/td><td>50 GB HDD<\/td><td>—<\/td><td>not built<\/td><td>unlocked<\/td><\/tr>/);
    // The raw log is the panel's to show (where to look, the messages say), as text.
    expect(res.text).toContain('<summary>Log of transaction');
    expect(res.text).toContain('Sandbox data — not a real cloud account.');
    // `/virtual_machines/48` is the same page.
    expect((await page('/virtual_machines/48')).text).toContain('<h1>legacy-app (VS 48)</h1>');
  });

  it('a running change shows the server locked by it; an unknown server is a page that says so (404)', async () => {
    await call(sandbox, '/virtual_machines/42/reboot.json', { method: 'POST' });
    clock += 2_000;
    expect((await page('/virtual_machines/42/transactions')).text).toMatch(/<strong>locked by transaction \d+ \(reboot_virtual_machine, running\)<\/strong>/);
    const missing = await page('/virtual_machines/999/transactions');
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('No server 999 in this sandbox.');
  });

  it('is only for a browser: the API at the same paths still needs credentials, and answers JSON or XML', async () => {
    expect((await call(sandbox, '/virtual_machines/48/transactions', { auth: null, headers: { accept: 'application/json' } })).status).toBe(401);
    expect((await call(sandbox, '/virtual_machines/48/transactions.json', { auth: null, headers: BROWSER })).status).toBe(401);
    expect((await call(sandbox, '/virtual_machines/48', { auth: null })).status).toBe(401);
    const api = await call(sandbox, '/virtual_machines/48/transactions', { headers: { accept: 'application/json' } });
    expect(api.status).toBe(200);
    expect(api.headers['content-type']).toContain('application/json');
    // Nothing but a GET: a POST with the browser's Accept is the API's, and needs credentials.
    expect((await call(sandbox, '/virtual_machines/48/reboot', { method: 'POST', auth: null, headers: BROWSER })).status).toBe(401);
    // A panel page is not an API call: the request log is the API's.
    expect(sandbox.requests.filter((r) => r.path.startsWith('/virtual_machines/48/transactions') && r.status === 200)).toHaveLength(1);
  });
});

it('escapes what it shows: a label or a hostname with markup is text', async () => {
  const seed = defaultSeed();
  const hostile = seed.servers.find((s) => s.id === 48)!;
  hostile.label = '<script>alert("x")</script>';
  hostile.hostname = 'a&b"<img>';
  const own = await startTestSandbox({ seed });
  try {
    const res = await call(own, '/virtual_machines/48', { auth: null, headers: BROWSER });
    expect(res.text).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; (VS 48)');
    expect(res.text).toContain('a&amp;b&quot;&lt;img&gt;');
    expect(res.text).not.toContain('<script>alert');
    expect(res.text).not.toContain('<img>');
  } finally {
    await own.close();
  }
});
