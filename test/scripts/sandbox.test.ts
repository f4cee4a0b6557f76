import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { request } from 'undici';
import { freePort, runToExit } from '../helpers/spawned-bot';
import { awaitWithin, waitFor } from '../helpers/wait';

// `npm run sandbox` (scripts/sandbox.ts): the cloud API simulator of packages/cloud-sandbox on its own, serving the
// bot's table of reads, as a developer runs it to try the API with curl.

describe('npm run sandbox', () => {
  it('listens on the port after --, says it is a simulator with fake data, prints URL, credentials and a curl line, answers, stops on SIGTERM', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, '../../scripts/sandbox.ts'), '--port', String(port)], {
      cwd: join(__dirname, '../..'),
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
  const root = join(__dirname, '../..');
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
