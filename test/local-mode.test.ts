import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { request } from 'undici';
import { appManifest, MANIFEST_PATH } from '../src/local-mode';
import { spawnBot, spawnMain, type SpawnedBot } from './helpers/spawned-bot';
import { waitFor } from './helpers/wait';

// Local mode at the protocol level: the bot started as `npm start` starts it
// with no Slack variable at all, driven through the stand-in's own endpoints
// (what the page calls), and read back from the stand-in's state.

type Message = { ts: string; channel: string; author: string; text: string; blocks?: Block[]; ephemeralTo?: string; kind: string; replaced?: boolean };
type Block = { type: string; block_id?: string; text?: { text: string }; elements?: { action_id?: string; text?: string | { text: string } }[] };
type View = { id: string; user: string; view: { callback_id: string; title: { text: string }; blocks: Block[] }; errors?: Record<string, string> };
type Home = { id: string; type: string; blocks: Block[] };
type State = { messages: Message[]; views: View[]; homes: Record<string, Home>; refusals: { source: string; error: string }[] };

let bot: SpawnedBot;
let dir: string;
let page: string;

async function call(path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await request(page + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const text = await res.body.text();
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = { text };
  }
  return { status: res.statusCode, json };
}

async function state(): Promise<State> {
  const res = await request(`${page}/local/state`);
  return (await res.body.json()) as State;
}

/** The stand-in's state once `find` finds something in it, bounded. */
const until = <T>(find: (s: State) => T | undefined, what: string, within = 8000): Promise<T> =>
  waitFor(what, async () => find(await state()), { within, every: 25 });

const textOf = (m: { blocks?: unknown; text?: string }) => JSON.stringify(m.blocks ?? []) + m.text;
const fromBot = (s: State, channel: string, test: (m: Message) => boolean) => s.messages.find((m) => m.channel === channel && m.kind === 'bot' && test(m));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vs-chatops-local-'));
  // No Slack variable at all: local mode, run in a folder of its own, with a deployment's VS_DB_PATH left set.
  bot = await spawnBot({ VS_DB_PATH: join(dir, 'deployment.sqlite') }, { cwd: dir });
  page = `http://127.0.0.1:${bot.port}`;
});

afterAll(async () => {
  await bot?.kill();
  rmSync(dir, { recursive: true, force: true });
});

test('start-up prints the page address and nothing of the made-up credentials', () => {
  expect(bot.output()).toContain(`Open http://127.0.0.1:${bot.port}/ to try vs-chatops without Slack`);
  expect(bot.output()).not.toMatch(/xoxb-local-/);
});

test('a command typed on the page comes back as the rendered message, in the channel', async () => {
  const sent = await call('/local/command', { user: 'U0VIEWER', channel: 'C0INCIDENT', text: '/vs firewall 42' });
  expect(sent).toMatchObject({ status: 200, json: { ok: true } });
  const m = await until((s) => fromBot(s, 'C0INCIDENT', (x) => textOf(x).includes('Firewall rules · VS 42')), 'the firewall summary');
  expect(m.ephemeralTo).toBeUndefined();
  expect(m.blocks![0]).toMatchObject({ type: 'header', text: { text: 'Firewall rules · VS 42' } });
  expect(textOf(m)).toContain('sandbox data');
});

test('Next on a list in the channel shows the next page to the clicker alone; Next on that page replaces it in place', async () => {
  await call('/local/command', { user: 'U0VIEWER', channel: 'C0GENERAL', text: 'firewall 45' });
  const first = await until((s) => fromBot(s, 'C0GENERAL', (x) => textOf(x).includes('rules 1–20 of 300')), 'page 1');
  const clicked = await call('/local/action', { user: 'U0OPERATOR', channel: 'C0GENERAL', ts: first.ts, actionId: 'firewall_page_next' });
  expect(clicked.json).toMatchObject({ ok: true });
  const second = await until(
    (s) => fromBot(s, 'C0GENERAL', (x) => x.ephemeralTo === 'U0OPERATOR' && textOf(x).includes('rules 21–40 of 300')),
    'page 2, for the one who clicked',
  );
  await call('/local/action', { user: 'U0OPERATOR', channel: 'C0GENERAL', ts: second.ts, actionId: 'firewall_page_next' });
  const third = await until((s) => fromBot(s, 'C0GENERAL', (x) => x.ts === second.ts && textOf(x).includes('rules 41–60 of 300')), 'page 3 in place');
  expect(third.replaced).toBe(true);
  const s = await state();
  const bots = s.messages.filter((x) => x.channel === 'C0GENERAL' && x.kind === 'bot');
  // The channel still reads page 1, as posted; the clicker has one page of their own.
  expect(bots.filter((x) => x.ephemeralTo === undefined).map((x) => [x.ts, x.replaced ?? false, textOf(x).includes('rules 1–20 of 300')])).toEqual([
    [first.ts, false, true],
  ]);
  expect(bots.filter((x) => x.ephemeralTo === 'U0OPERATOR')).toHaveLength(1);
});

test('the wrong person is told, only them, that the form needs a role', async () => {
  await call('/local/command', { user: 'U0VIEWER', channel: 'C0INCIDENT', text: 'backup restore 9' });
  const denial = await until(
    (s) => fromBot(s, 'C0INCIDENT', (x) => x.ephemeralTo === 'U0VIEWER' && /admin/.test(textOf(x)) && /restor/i.test(textOf(x))),
    'the denial',
  );
  expect(denial.ephemeralTo).toBe('U0VIEWER');
  expect((await state()).views.filter((v) => v.user === 'U0VIEWER')).toHaveLength(0);
});

test('the add-disk form: opened, refused inline, fixed, submitted; the channel gets the disk and the audit channel the record', async () => {
  await call('/local/command', { user: 'U0OPERATOR', channel: 'C0INCIDENT', text: 'disk add 42' });
  const opened = await until((s) => s.views.find((v) => v.user === 'U0OPERATOR' && v.view.callback_id === 'disk_add'), 'the add-disk modal');
  expect(opened.view.title.text).toBe('Add disk · VS 42');

  const values = {
    disk_type: 'SSD',
    disk_size: '20',
    label: 'data',
    mount_point: '/mnt/data',
    require_format_disk: ['true'],
    file_system: 'ext4',
    add_to_linux_fstab: ['true'],
    hot_attach: ['true'],
    is_swap: ['true'],
  };
  const refused = await call('/local/submit', { user: 'U0OPERATOR', viewId: opened.id, values });
  expect(refused.json).toMatchObject({ ok: true, outcome: 'errors' });
  expect((refused.json.errors as Record<string, string>).mount_point).toMatch(/swap disk has no mount point/);
  const shown = await until((s) => s.views.find((v) => v.id === opened.id && v.errors?.mount_point), 'the inline error');
  expect(shown.errors!.mount_point).toMatch(/swap/);

  const fixed = await call('/local/submit', { user: 'U0OPERATOR', viewId: opened.id, values: { ...values, is_swap: [] } });
  expect(fixed.json.outcome === 'updated' || fixed.json.outcome === 'closed').toBe(true);
  const result = await until(
    (s) => fromBot(s, 'C0INCIDENT', (x) => !x.ephemeralTo && /added to VS 42|Disk \d+/.test(textOf(x)) && textOf(x).includes('20 GB')),
    'the new disk in the channel',
  );
  expect(textOf(result)).toContain('20 GB');
  const record = await until(
    (s) => fromBot(s, 'C0AUDIT', (x) => /→ \*(scheduled|running|done)\*/.test(textOf(x)) && /disk/i.test(textOf(x))),
    'the audit record',
  );
  expect(textOf(record)).toMatch(/42/);
});

test("the Home tab: opened, the bot publishes each person's own; its restore button opens the form, which asks for the channel", async () => {
  const opened = await call('/local/home', { user: 'U0ADMIN' });
  expect(opened).toMatchObject({ status: 200, json: { ok: true } });
  const home = await until((s) => (textOf(s.homes.U0ADMIN ?? {}).includes('your role is *admin*') ? s.homes.U0ADMIN : undefined), "Ada's Home tab");
  expect(home.type).toBe('home');
  expect(textOf(home)).toContain('Restore a backup');
  await call('/local/home', { user: 'U0VIEWER' });
  const vera = await until((s) => s.homes.U0VIEWER, "Vera's Home tab");
  expect(textOf(vera)).toContain('your role is *viewer*');
  expect(textOf(vera)).not.toContain('home_open_');

  expect(await call('/local/action', { user: 'U0ADMIN', viewId: home.id, actionId: 'home_open_backup_restore' })).toMatchObject({ json: { ok: true } });
  const form = await until((s) => s.views.find((v) => v.user === 'U0ADMIN' && v.view.callback_id === 'backup_restore'), 'the restore form');
  expect(form.view.blocks.map((b) => b.block_id)).toEqual(expect.arrayContaining(['backup_id', 'channel']));
  await call('/local/close', { user: 'U0ADMIN', viewId: form.id });
  // Vera cannot press a button of Ada's Home tab.
  expect(await call('/local/action', { user: 'U0VIEWER', viewId: home.id, actionId: 'home_open_backup_restore' })).toMatchObject({
    json: { ok: false, error: 'no such view' },
  });
});

test('requests from another origin or for another host are refused, and nothing happens', async () => {
  const before = (await state()).messages.length;
  const other = await call('/local/command', { user: 'U0ADMIN', channel: 'C0INCIDENT', text: 'whoami' }, { origin: 'http://evil.example' });
  expect(other.status).toBe(403);
  const rebound = await call('/local/command', { user: 'U0ADMIN', channel: 'C0INCIDENT', text: 'whoami' }, { host: `evil.example:${bot.port}` });
  expect(rebound.status).toBe(403);
  const form = await request(`${page}/local/command`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'user=U0ADMIN&channel=C0INCIDENT&text=whoami',
  });
  expect(form.statusCode).toBe(415);
  await form.body.dump();
  const res = await request(`${page}/`, { headers: { origin: 'http://evil.example' } });
  expect(res.statusCode).toBe(403);
  expect(res.headers['access-control-allow-origin']).toBeUndefined();
  await res.body.dump();
  await new Promise((r) => setTimeout(r, 200));
  expect((await state()).messages.length).toBe(before);
});

test('the page itself is served to its own origin', async () => {
  const res = await request(`${page}/`);
  expect(res.statusCode).toBe(200);
  expect(String(res.headers['content-security-policy'])).toContain("default-src 'self'");
  expect(await res.body.text()).toMatch(/<html/i);
});

test("a control-panel link posted on the page unfurls into the server's card; the page is told which links the sandbox's panel has", async () => {
  const { panel } = (await state()) as State & { panel: { url: string; servers: number[] } };
  // The sandbox's panel is the sandbox's own address: VS_PANEL_URL's default, the scheme and host of the API it runs.
  expect(panel.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  expect(panel.url).not.toBe(page);
  expect(panel.servers).toEqual([42, 43, 44, 45, 46, 47, 48, 77]);
  const url = `${panel.url}/virtual_machines/44/firewall_rules`;
  const sent = await call('/local/message', { user: 'U0VIEWER', channel: 'C0GENERAL', text: `is ${url} open?` });
  expect(sent).toMatchObject({ status: 200, json: { ok: true } });
  type Unfurled = Message & { unfurls?: Record<string, { blocks: Block[] }> };
  const message = await until((s) => (s.messages as Unfurled[]).find((m) => m.kind === 'post' && m.unfurls?.[url]), 'the unfurl');
  expect(message.author).toBe('U0VIEWER');
  expect(textOf(message.unfurls![url]!)).toContain('*VS 44*');
  expect(textOf(message.unfurls![url]!)).toContain('sandbox data');
});

test('the Workflows panel: the steps manifest.yml declares; a step run from the page completes with its outputs, a bad input is not sent', async () => {
  type Run = { id: string; callbackId: string; user: string; state: string; outputs?: Record<string, unknown>; error?: string; token?: string };
  const { functions } = (await state()) as State & { functions: Record<string, { title: string }> };
  expect(Object.keys(functions)).toEqual(expect.arrayContaining(['vs_firewall_summary', 'vs_port_check', 'vs_autoscaling_summary']));
  const refused = await call('/local/step', { user: 'U0VIEWER', callbackId: 'vs_port_check', inputs: { vs_id: '42', port: 'ssh' } });
  expect(refused).toMatchObject({ status: 200, json: { ok: false, problems: { port: 'Enter a whole number.' } } });
  const sent = await call('/local/step', { user: 'U0VIEWER', callbackId: 'vs_autoscaling_summary', inputs: { vs_id: '42' } });
  expect(sent).toMatchObject({ status: 200, json: { ok: true, execution: { callbackId: 'vs_autoscaling_summary', user: 'U0VIEWER' } } });
  const id = (sent.json.execution as Run).id;
  const run = await until((s) => ((s as State & { executions: Run[] }).executions ?? []).find((x) => x.id === id && x.state !== 'running'), 'the completion');
  expect(run).toMatchObject({ state: 'completed', outputs: { configured_count: 3 } });
  // The page never sees the execution's token.
  expect(run.token).toBeUndefined();
  expect(JSON.stringify(await state())).not.toMatch(/xwfp-/);
});

test("the audit trail is kept in local mode's own file, never at VS_DB_PATH", () => {
  expect(existsSync(join(dir, 'data', 'local-mode', 'vs-chatops.sqlite'))).toBe(true);
  expect(existsSync(join(dir, 'deployment.sqlite'))).toBe(false);
  expect(bot.output()).toContain('"store":"./data/local-mode/vs-chatops.sqlite"');
});

test('configured roles replace the make-believe ones; another run in the same folder reads the same local audit trail', async () => {
  const configured = await spawnBot({ VS_DB_PATH: join(dir, 'deployment.sqlite'), VS_ADMINS: 'U0VIEWER' }, { cwd: dir });
  try {
    const origin = `http://127.0.0.1:${configured.port}`;
    const post = async (text: string, user: string) => {
      const res = await request(`${origin}/local/command`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ user, channel: 'C0INCIDENT', text }),
      });
      await res.body.dump();
    };
    const answerFor = (user: string, pattern: RegExp) =>
      waitFor(
        `an answer matching ${pattern} for ${user}`,
        async () => {
          const s = (await (await request(`${origin}/local/state`)).body.json()) as State & { people: { id: string; name: string }[] };
          const found = s.messages.find((m) => m.kind === 'bot' && m.ephemeralTo === user && pattern.test(textOf(m)));
          return found && { found, people: s.people };
        },
        { within: 8000, every: 25 },
      );
    await post('whoami', 'U0VIEWER');
    await answerFor('U0VIEWER', /admin/);
    await post('disk add 42', 'U0ADMIN');
    const { people } = await answerFor('U0ADMIN', /needs the operator role/);
    expect(people.find((p) => p.id === 'U0ADMIN')?.name).toBe('Ada');
    // The disk Otto added through the first run is in this run's audit trail.
    await post('audit 20', 'U0VIEWER');
    await answerFor('U0VIEWER', /U0OPERATOR[\s\S]*Add disk/);
    expect(existsSync(join(dir, 'deployment.sqlite'))).toBe(false);
  } finally {
    await configured.kill();
  }
});

describe('start-up refusals', () => {
  /** Starts the bot as `npm start` does and resolves with how it ended and what it wrote (bounded: it must stop by itself). */
  const run = async (env: Record<string, string>) => {
    const main = spawnMain({ PORT: '1', ...env });
    const { code } = await main.exit('start-up to stop', 15_000);
    return { code, output: main.output() };
  };

  test('a real VS_API_URL with no Slack variable stops start-up and says why', async () => {
    const { code, output } = await run({ VS_API_URL: 'https://cloud.example.com', VS_ACCOUNT_ID: '7', VS_API_KEY: 'live-key-123' });
    expect(code).toBe(2);
    expect(output).toMatch(/local mode runs on the sandbox only/);
    expect(output).not.toContain('live-key-123');
    expect(output).not.toContain('Open http');
  });

  test('DATABASE_URL with no Slack variable stops start-up, naming it, without connecting to it', async () => {
    const connections: Socket[] = [];
    const database = createServer((socket) => connections.push(socket));
    await new Promise<void>((resolve) => database.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = database.address() as { port: number };
      const { code, output } = await run({ DATABASE_URL: `postgres://vs:hunter2-secret@127.0.0.1:${port}/vs` });
      expect(code).toBe(2);
      expect(output).toMatch(/DATABASE_URL is set, but no Slack variable is, which means local mode/);
      expect(output).not.toContain('hunter2');
      expect(output).not.toContain('Open http');
      expect(connections).toHaveLength(0);
    } finally {
      for (const socket of connections) socket.destroy();
      database.close();
    }
  });

  test('a half-configured Slack app stops start-up with the configuration error', async () => {
    const { code, output } = await run({ SLACK_BOT_TOKEN: 'xoxb-1-abc' });
    expect(code).toBe(2);
    expect(output).toMatch(/SLACK_SIGNING_SECRET is required/);
    expect(output).not.toContain('Open http');
  });
});

describe("the app's manifest, which local mode tells its stand-in", () => {
  test('is manifest.yml at the root; one that cannot be read or is not a manifest stops local mode, naming the file or the line', () => {
    expect(MANIFEST_PATH).toBe(join(__dirname, '..', 'manifest.yml'));
    expect(() => appManifest(join(tmpdir(), 'no-such-folder', 'manifest.yml'))).toThrow(/no-such-folder\/manifest\.yml, which could not be read/);
    const dir = mkdtempSync(join(tmpdir(), 'vs-chatops-manifest-'));
    try {
      writeFileSync(join(dir, 'manifest.yml'), 'features:\n  shortcuts:\n    - name: No callback\n      type: global\n');
      expect(() => appManifest(join(dir, 'manifest.yml'))).toThrow('features.shortcuts[0].callback_id must be text');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

test('on call through the PagerDuty stand-in: Pia holds the operator role while on call, and a change that ends reaches the page’s timeline', async () => {
  await call('/local/command', { user: 'U0PAGED', channel: 'C0GENERAL', text: '/vs whoami' });
  const whoami = await until((s) => fromBot(s, 'C0GENERAL', (x) => x.ephemeralTo === 'U0PAGED' && textOf(x).includes('while on call')), 'whoami');
  expect(textOf(whoami)).toMatch(/\*operator\* while on call until .*\(PagerDuty: Infrastructure primary\)/);
  // On call, she shuts VS 46 down; once the sandbox has run it, the PagerDuty stand-in has its change event, on the page.
  await call('/local/command', { user: 'U0PAGED', channel: 'C0GENERAL', text: '/vs shutdown 46' });
  const form = await until((s) => s.views.find((v) => v.user === 'U0PAGED' && v.view.callback_id === 'vs_power'), 'the power form');
  const sent = await call('/local/submit', {
    user: 'U0PAGED',
    viewId: form.id,
    values: { power_action: 'shutdown', confirm: '46', reason: 'trying the timeline' },
  });
  expect(sent.json.outcome === 'updated' || sent.json.outcome === 'closed').toBe(true);
  const timeline = await waitFor(
    'the change event on the page',
    async () =>
      ((await state()) as State & { timeline: { summary: string; link: string | null }[] }).timeline.find((e) =>
        e.summary.startsWith('db-primary (VS 46): shut down done'),
      ),
    { within: 20_000, every: 200 },
  );
  expect(timeline.summary).toBe('db-primary (VS 46): shut down done — asked by Pia (on call)');
  expect(timeline.link).toMatch(new RegExp(`^${page}/\\?channel=C0GENERAL&message=`));
});
