import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnMain } from './helpers/spawned-bot';

// `npm start` failing at start-up says what to do, in one line, without a stack trace.

describe('start-up', () => {
  it('with a password in SLACK_API_URL stops with exit status 2 and the configuration error, never the password', async () => {
    const main = spawnMain({
      SLACK_BOT_TOKEN: 'xoxb-user-info-0123456789',
      SLACK_SIGNING_SECRET: 'user-info-signing-secret',
      SLACK_API_URL: 'https://proxy-user:hunter2-secret@slack-proxy.example/api/',
    });
    expect((await main.exit('start-up to stop')).code).toBe(2);
    expect(main.stderr()).toMatch(/SLACK_API_URL carries a user name or password \(user:password@…\), which would be written to logs: /);
    expect(main.stderr()).not.toMatch(/hunter2|proxy-user/);
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
