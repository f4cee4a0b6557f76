import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { freePort, spawnBot, spawnMain } from './helpers/spawned-bot';
import { waitFor } from './helpers/wait';

// `npm start` failing at start-up says what to do, in one line, without a stack trace;
// and waits, serving health checks, while its database cannot be reached.

/** Who the bot runs as in the permission case: `nobody` when the tests run as root (root may write anywhere). */
const AS_NOBODY = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};

describe('start-up', () => {
  it('with a password in SLACK_API_URL stops with exit status 2 and the configuration error, never the password', async () => {
    const main = spawnMain({
      SLACK_BOT_TOKEN: 'xoxb-user-info-0123456789',
      SLACK_SIGNING_SECRET: 'user-info-signing-secret',
      SLACK_API_URL: 'https://proxy-user:hunter2-secret@slack-proxy.example/api/',
      VS_API_URL: 'sandbox',
    });
    expect((await main.exit('start-up to stop')).code).toBe(2);
    expect(main.stderr()).toMatch(/SLACK_API_URL carries a user name or password \(user:password@…\), which would be written to logs: /);
    expect(main.stderr()).not.toMatch(/hunter2|proxy-user/);
  });

  const slackOff = {
    SLACK_BOT_TOKEN: 'xoxb-db-path-0123456789',
    SLACK_SIGNING_SECRET: 'db-path-signing-secret',
    SLACK_API_URL: 'http://127.0.0.1:1/api/',
    VS_API_URL: 'sandbox',
  };

  it('connected to Slack without VS_API_URL stops with exit status 2 naming it, even on a production database: never the sandbox by default', async () => {
    const { VS_API_URL: _unset, ...withoutCloud } = slackOff;
    const password = 'prod-db-password-0123456789';
    const main = spawnMain({ ...withoutCloud, PORT: String(await freePort()), DATABASE_URL: `postgres://vs:${password}@db.prod.example:5432/vs` });
    expect((await main.exit('start-up to stop')).code).toBe(2);
    expect(main.stderr()).toBe(
      'vs-chatops cannot start: 1 configuration problem:\n' +
        '  - VS_API_URL is required in HTTP and Socket Mode: the base URL of your cloud API (https://cloud.example.com), ' +
        'or "sandbox" to run on the built-in simulator and its make-believe servers\n' +
        'Set them in the environment or in .env (see .env.example and README.md).\n',
    );
  });

  it('with VS_APPROVALS naming an action that is not a change stops with exit status 2, naming it and every change that can need approval', async () => {
    const main = spawnMain({ ...slackOff, PORT: String(await freePort()), VS_APPROVALS: 'power_reboot,reboot_everything' });
    expect((await main.exit('start-up to stop')).code).toBe(2);
    expect(main.stderr()).toBe(
      'vs-chatops cannot start: 1 configuration problem:\n' +
        '  - VS_APPROVALS names an unknown action "reboot_everything": the actions that can need approval are ' +
        'disk_add, backup_restore, power_start, power_shutdown, power_reboot, power_stop, backup_take, firewall_add, firewall_remove\n' +
        'Set them in the environment or in .env (see .env.example and README.md).\n',
    );
  });

  it("with VS_DB_PATH in a folder the bot's user may not write in stops with exit status 2, naming the folder and what to do", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vs-main-'));
    const locked = join(dir, 'locked');
    mkdirSync(locked);
    chmodSync(dir, 0o755);
    // Read-only for its owner too, when the tests are not root; as root, the bot runs as nobody and only root may write.
    chmodSync(locked, process.getuid?.() === 0 ? 0o755 : 0o555);
    try {
      const main = spawnMain({ ...slackOff, PORT: String(await freePort()), VS_DB_PATH: join(locked, 'vs.sqlite') }, { as: AS_NOBODY });
      expect((await main.exit('start-up to stop')).code).toBe(2);
      expect(main.stderr()).toContain(`this process may not write in ${locked}, where VS_DB_PATH (${join(locked, 'vs.sqlite')}) lives`);
      expect(main.stderr()).toContain("give the bot's user read and write access there, or set VS_DB_PATH to a file in a folder it may write");
      expect(main.stderr()).not.toMatch(/SQLITE_|EACCES|\n\s+at /);
    } finally {
      chmodSync(locked, 0o755);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('while PostgreSQL cannot be reached it serves /healthz, answers /readyz 503, logs each try without the password, and stops on SIGTERM', async () => {
    const password = 'failover-db-password-0123456789';
    const bot = await spawnBot({ ...slackOff, DATABASE_URL: `postgres://vs:${password}@127.0.0.1:${await freePort()}/vs` }, { until: '/healthz' });
    try {
      const ready = await request(`http://127.0.0.1:${bot.port}/readyz`);
      expect(ready.statusCode).toBe(503);
      expect(await ready.body.json()).toEqual({ status: 'starting', store: expect.stringMatching(/^(ok|unreachable)$/) });
      const tried = () => bot.output().includes('waiting for the store: The store cannot reach the PostgreSQL database (DATABASE_URL) (ECONNREFUSED)');
      await waitFor('a logged try to reach the store', tried, { within: 10_000 });
      const waiting = await request(`http://127.0.0.1:${bot.port}/readyz`);
      expect(waiting.statusCode).toBe(503);
      expect(await waiting.body.json()).toEqual({ status: 'starting', store: 'unreachable' });
      const ended = await bot.kill('SIGTERM');
      expect(ended.code).toBe(0);
      const lines = bot.output().trim().split('\n');
      expect(lines.slice(-2).map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual(['shutting down', 'stopped']);
      expect(bot.output()).not.toContain(password);
      expect(bot.output()).not.toContain('could not start');
    } finally {
      await bot.kill('SIGKILL');
    }
  });

  it('on a port already in use stops with exit status 1, naming the port and PORT', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vs-main-'));
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, resolve));
    const port = (busy.address() as { port: number }).port;
    try {
      const main = spawnMain({
        PORT: String(port),
        SLACK_BOT_TOKEN: 'xoxb-busy-port-0123456789',
        SLACK_SIGNING_SECRET: 'busy-port-signing-secret',
        // Slack itself is not needed to find the port busy; keep the bot from reaching out.
        SLACK_API_URL: 'http://127.0.0.1:1/api/',
        VS_API_URL: 'sandbox',
        VS_DB_PATH: join(dir, 'audit.sqlite'),
      });
      expect((await main.exit('start-up to stop')).code).toBe(1);
      expect(main.stderr()).toBe(
        `vs-chatops could not start: port ${port} is already in use (another vs-chatops, or another server): stop that one, or set PORT to a free port\n`,
      );
    } finally {
      busy.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
