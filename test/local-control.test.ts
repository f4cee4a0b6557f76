import { startSlackStandIn, type SlackStandIn } from '@vs-chatops/slack-standin';
import { request } from 'undici';
import { useSandbox, useStarted } from './helpers/use-started';

// The local page's control panel (sandbox): the page names a server by its label and an act; the page server passes
// it on to the sandbox's control endpoint with the API's credentials, which never reach the page.

const sandbox = useSandbox({ accountId: 'local-account', apiKey: 'local-secret-key-123' });
const page = useStarted(
  'the stand-in with its page',
  () => startSlackStandIn({ page: true }),
  (s: SlackStandIn) => s.close(),
);

beforeEach(() =>
  page.setControl({
    url: sandbox.url,
    authorization: `Basic ${Buffer.from(`${sandbox.accountId}:${sandbox.apiKey}`).toString('base64')}`,
    servers: () => sandbox.servers(),
  }),
);

async function control(act: string, body: unknown, contentType = 'application/json'): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await request(`${page.origin}/sandbox-control/${act}`, { method: 'POST', headers: { 'content-type': contentType }, body: JSON.stringify(body) });
  const text = await res.body.text();
  try {
    return { status: res.statusCode, json: JSON.parse(text) as Record<string, unknown> };
  } catch {
    return { status: res.statusCode, json: { text } };
  }
}

const web1 = () => sandbox.servers().find((s) => s.label === 'web-1')!;
const powerOf = async (id: number) => {
  const res = await request(`${sandbox.url}/virtual_machines/${id}.json`, {
    headers: { authorization: `Basic ${Buffer.from(`${sandbox.accountId}:${sandbox.apiKey}`).toString('base64')}` },
  });
  return ((await res.body.json()) as { virtual_machine: { booted: boolean } }).virtual_machine.booted;
};

test('the page lists the servers by label, and never the sandbox’s address or credentials', async () => {
  const res = await request(`${page.origin}/local/state`);
  const text = await res.body.text();
  const state = JSON.parse(text) as { control: { id: number; label: string }[] };
  expect(state.control).toContainEqual({ id: web1().id, label: 'web-1' });
  expect(text).not.toContain('local-secret-key-123');
  expect(text).not.toContain(sandbox.url);
});

test('Power off, then Power on, act on the server named by its label, as the control panel would', async () => {
  const id = web1().id;
  expect(await powerOf(id)).toBe(true);
  const off = await control('power_off', { server: 'web-1' });
  expect(off).toEqual({ status: 200, json: { ok: true, message: `web-1 (VS ${id}) powered off, from the control panel.` } });
  expect(await powerOf(id)).toBe(false);
  // Again: the sandbox's refusal, in words.
  const again = await control('power_off', { server: 'web-1' });
  expect(again.status).toBe(409);
  expect(again.json).toEqual({ ok: false, error: `web-1 (VS ${id}): VirtualMachine ${id} is already off.` });
  expect(await control('power_on', { server: 'web-1' })).toMatchObject({ status: 200, json: { ok: true } });
  expect(await powerOf(id)).toBe(true);
});

test('Lock for 10 minutes and Fail a transaction reach the sandbox', async () => {
  const lock = await control('lock', { server: 'web-1' });
  expect(lock).toMatchObject({ status: 200, json: { ok: true, message: expect.stringContaining('locked for 10 minutes') } });
  expect(await control('fail', { server: 'web-1' })).toMatchObject({ status: 200, json: { ok: true, message: expect.stringContaining('failed transaction') } });
});

test('an unknown server gets a clear message naming the ones there are, and nothing changes', async () => {
  const before = sandbox.servers().length;
  const answer = await control('power_off', { server: 'web-99' });
  expect(answer.status).toBe(400);
  expect(answer.json.ok).toBe(false);
  expect(answer.json.error).toMatch(/^The sandbox has no server labelled “web-99”: .*web-1/);
  expect(await control('power_off', { server: '' })).toEqual({ status: 400, json: { ok: false, error: 'Pick a server first.' } });
  expect(await powerOf(web1().id)).toBe(true);
  expect(sandbox.servers().length).toBe(before);
});

test('an unknown action gets a clear message naming the ones there are', async () => {
  const answer = await control('reboot', { server: 'web-1' });
  expect(answer).toEqual({ status: 404, json: { ok: false, error: '“reboot” is not something the control panel does: power_off, power_on, lock, fail.' } });
  expect(await powerOf(web1().id)).toBe(true);
});

test('only JSON POSTs are taken (a form elsewhere cannot post here), and a page with no sandbox says so', async () => {
  expect((await control('power_off', { server: 'web-1' }, 'text/plain')).status).toBe(415);
  const get = await request(`${page.origin}/sandbox-control/power_off`);
  await get.body.dump();
  expect(get.statusCode).toBe(405);
  expect(await powerOf(web1().id)).toBe(true);
  const bare = await startSlackStandIn({ page: true });
  try {
    const res = await request(`${bare.origin}/sandbox-control/power_off`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ server: 'web-1' }),
    });
    expect(res.statusCode).toBe(404);
    expect(((await res.body.json()) as { error: string }).error).toMatch(/^There is no sandbox to act on here/);
  } finally {
    await bare.close();
  }
});
