import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { request } from 'undici';

// The real bot as operators run it (`node --import tsx src/main.ts`), in a
// child process on a free port, for tests and the soak that need a process
// they can kill or measure from outside.

export interface SpawnedBot {
  child: ChildProcess;
  port: number;
  eventsUrl: string;
  /** Everything the process wrote, stdout and stderr, in order. */
  output: () => string;
  /** Resolves with how it ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface SpawnOptions {
  readyTimeoutMs?: number;
  nodeArgs?: string[];
  /** Where the bot runs (relative paths, e.g. local mode's ./data/local-mode/); the project folder by default. */
  cwd?: string;
  /**
   * What to wait for: `/readyz` (default: ready to serve Slack), or only `/healthz` (listening, e.g. while
   * start-up waits for its database and Slack's requests are still answered 503).
   */
  until?: '/readyz' | '/healthz';
}

export async function spawnBot(env: Record<string, string>, options: SpawnOptions = {}): Promise<SpawnedBot> {
  const port = await freePort();
  const root = join(__dirname, '..', '..');
  // tsx by path, so that it is found from any working directory.
  const tsx = pathToFileURL(join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), '--import', tsx, join(root, 'src', 'main.ts')], {
    cwd: options.cwd ?? root,
    // Only what we pass: no .env of the developer, no inherited Slack tokens.
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  let ended = false;
  void exited.then(() => (ended = true));

  const deadline = Date.now() + (options.readyTimeoutMs ?? 20_000);
  for (;;) {
    if (ended) throw new Error(`the bot exited before it was ready:\n${out}`);
    try {
      const res = await request(`http://127.0.0.1:${port}${options.until ?? '/readyz'}`, { headersTimeout: 1000, bodyTimeout: 1000 });
      await res.body.dump();
      if (res.statusCode === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the bot did not answer ${options.until ?? '/readyz'} with 200 within the time allowed:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    port,
    eventsUrl: `http://127.0.0.1:${port}/slack/events`,
    output: () => out,
    exited,
    async kill(signal = 'SIGTERM') {
      if (!ended) child.kill(signal);
      return exited;
    },
  };
}
