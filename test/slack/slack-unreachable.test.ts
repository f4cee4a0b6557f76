import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, spawnBot, spawnMain } from '../helpers/spawned-bot';
import { waitFor } from '../helpers/wait';

// Slack out of reach while the bot starts: the real process, with
// SLACK_API_URL on a loopback port where nothing listens (connection refused).
// The operator is told which URL failed and what to check, not "fetch failed".

const BOT_TOKEN = 'xoxb-unreachable-bot-token-0123456789';
const APP_TOKEN = 'xapp-1-A1-unreachable-app-token-0123456789';
const SIGNING_SECRET = 'unreachable-signing-secret-0123456789';

describe('Slack unreachable at start-up', () => {
  let dir: string;
  let refusingUrl: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vs-slack-unreachable-'));
    // Bound and released at once: nothing listens there, so connecting is refused.
    refusingUrl = `http://127.0.0.1:${await freePort()}/api/`;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const expectNoSecret = (output: string) => {
    for (const secret of [BOT_TOKEN, APP_TOKEN, SIGNING_SECRET]) expect(output).not.toContain(secret);
  };

  it('Socket Mode: start-up stops with exit status 1, naming the URL, the reason, and the token, network and proxy to check', async () => {
    // The ops port is probed free, then bound by the bot: another suite's process may take it in between, and the bot
    // then stops (rightly) on the port, not on Slack. At most three ports; what is asserted is the Slack refusal.
    let main: ReturnType<typeof spawnMain> | undefined;
    let code: number | null = null;
    for (let tries = 0; tries < 3; tries++) {
      main = spawnMain({
        PORT: String(await freePort()),
        SLACK_BOT_TOKEN: BOT_TOKEN,
        SLACK_APP_TOKEN: APP_TOKEN,
        SLACK_API_URL: refusingUrl,
        VS_API_URL: 'sandbox',
        VS_DB_PATH: join(dir, 'socket.sqlite'),
      });
      ({ code } = await main.exit('start-up to stop', 15_000));
      if (!/could not start: port \d+ is already in use/.test(main.stderr())) break;
    }
    if (!main) throw new Error('never started');
    const stderr = main.stderr();

    expect(code).toBe(1);
    const last = stderr.trim().split('\n').pop() ?? '';
    expect(last).toContain(`vs-chatops could not start: Slack could not be reached at ${refusingUrl}apps.connections.open (connection refused, ECONNREFUSED)`);
    expect(last).toMatch(/network, DNS, firewall/);
    expect(last).toMatch(/SLACK_API_URL names your proxy/);
    expect(last).toMatch(/SLACK_APP_TOKEN is set to an app-level token \(xapp-…\)/);
    expect(last).not.toMatch(/fetch failed|\n\s+at /);
    expectNoSecret(main.output());
  });

  it('HTTP mode: the bot serves anyway, and the log says where auth.test failed and what to check', async () => {
    const bot = await spawnBot({
      SLACK_BOT_TOKEN: BOT_TOKEN,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: refusingUrl,
      VS_API_URL: 'sandbox',
      VS_DB_PATH: join(dir, 'http.sqlite'),
    });
    try {
      const warning = () =>
        bot
          .output()
          .split('\n')
          .find((l) => l.includes('"auth.test failed: '));
      const line = await waitFor('the auth.test warning', warning, { within: 10_000 });
      const msg = (JSON.parse(line) as { msg: string }).msg;
      expect(msg).toContain(`Slack could not be reached at ${refusingUrl}auth.test (connection refused, ECONNREFUSED)`);
      expect(msg).toMatch(/network, DNS, firewall/);
      expect(msg).toMatch(/SLACK_API_URL names your proxy/);
      expect(msg).toMatch(/SLACK_BOT_TOKEN is set to the Bot User OAuth Token \(xoxb-…\)/);
      expect(msg).toMatch(/the bot keeps serving/);
      expectNoSecret(bot.output());
    } finally {
      expect((await bot.kill('SIGTERM')).code).toBe(0);
    }
  });
});
