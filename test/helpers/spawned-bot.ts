import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { request } from 'undici';
import { FORM, interactiveBody, slashCommandBody } from './payloads';
import { postToSlackEndpoint, type SlackHttpResponse, type SlackRequestOptions } from './signed-requests';
import { awaitWithin } from './wait';

// The real bot as operators run it (`node --import tsx src/main.ts`), in a
// child process on a free port, for tests and the soak that need a process
// they can kill or measure from outside. spawnMain() only starts it (for
// start-ups that are meant to fail); spawnBot() also waits until /readyz
// (or /healthz) answers 200 and signs requests with the SLACK_SIGNING_SECRET
// it was given.

export type Exit = { code: number | null; signal: NodeJS.Signals | null };

export interface MainProcess {
  child: ChildProcess;
  /** Everything the process wrote, stdout and stderr, in order. */
  output: () => string;
  /** Only what it wrote to stderr. */
  stderr: () => string;
  /** Resolves with how it ended. */
  exited: Promise<Exit>;
  /** How it ended, or a rejection naming `what` (and its output) if it has not ended within `ms`. */
  exit(what: string, ms?: number): Promise<Exit>;
  /** Sends `signal` (SIGTERM by default) unless it ended already, and resolves with how it ended. */
  kill(signal?: NodeJS.Signals): Promise<Exit>;
}

export interface SpawnedBot extends MainProcess {
  port: number;
  eventsUrl: string;
  /** Sends a signed `/vs <text>`; the answer goes to `responseUrl`. */
  command(text: string, opts: { responseUrl: string; user?: string; channel?: string; triggerId?: string } & SlackRequestOptions): Promise<SlackHttpResponse>;
  /** Sends a signed interactive payload (block_actions, view_submission, shortcut). */
  interact(payload: unknown, opts?: SlackRequestOptions): Promise<SlackHttpResponse>;
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
  /** Run as another user (as root, the tests run the bot as `nobody` where permissions matter). */
  as?: { uid?: number; gid?: number };
}

/** Starts src/main.ts with only `env` (and PATH, HOME); PORT is a free port unless `env` names one. */
export function spawnMain(env: Record<string, string>, options: SpawnOptions = {}): MainProcess {
  const root = join(__dirname, '..', '..');
  // tsx by path, so that it is found from any working directory.
  const tsx = pathToFileURL(join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), '--import', tsx, join(root, 'src', 'main.ts')], {
    cwd: options.cwd ?? root,
    // Only what we pass: no .env of the developer, no inherited Slack tokens.
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...options.as,
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => {
    out += d.toString();
    err += d.toString();
  });
  const exited = new Promise<Exit>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  let ended = false;
  void exited.then(() => (ended = true));
  const output = () => out;
  return {
    child,
    output,
    stderr: () => err,
    exited,
    exit: (what, ms = 10_000) => awaitWithin(what, exited, ms).catch((error: Error) => Promise.reject(new Error(`${error.message}; its output:\n${output()}`))),
    async kill(signal = 'SIGTERM') {
      if (!ended) child.kill(signal);
      return exited;
    },
  };
}

/** Starts src/main.ts on a free port and resolves once `until` (/readyz) answers 200 (rejects with its output if it exits or does not in time). */
export async function spawnBot(env: Record<string, string>, options: SpawnOptions = {}): Promise<SpawnedBot> {
  const port = await freePort();
  const main = spawnMain({ PORT: String(port), ...env }, options);
  let ended = false;
  void main.exited.then(() => (ended = true));

  const deadline = Date.now() + (options.readyTimeoutMs ?? 20_000);
  for (;;) {
    if (ended) throw new Error(`the bot exited before it was ready:\n${main.output()}`);
    try {
      const res = await request(`http://127.0.0.1:${port}${options.until ?? '/readyz'}`, { headersTimeout: 1000, bodyTimeout: 1000 });
      await res.body.dump();
      if (res.statusCode === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      main.child.kill('SIGKILL');
      throw new Error(`the bot did not answer ${options.until ?? '/readyz'} with 200 within the time allowed:\n${main.output()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const eventsUrl = `http://127.0.0.1:${port}/slack/events`;
  const secret = env.SLACK_SIGNING_SECRET ?? '';
  return {
    ...main,
    port,
    eventsUrl,
    command: (text, opts) =>
      postToSlackEndpoint(
        eventsUrl,
        secret,
        slashCommandBody({ text, user: opts.user, channel: opts.channel, responseUrl: opts.responseUrl, triggerId: opts.triggerId }),
        FORM,
        opts,
      ),
    interact: (payload, opts) => postToSlackEndpoint(eventsUrl, secret, interactiveBody(payload), FORM, opts),
  };
}

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `command args` in the project folder with a clean env (PATH and HOME: nothing of the test run leaks in)
 * and resolves with how it ended and what it wrote; rejects if it has not exited by itself within `within` ms.
 */
export function runToExit(command: string, args: string[], within = 10_000): Promise<Ran> {
  const ran = new Promise<Ran>((resolve) => {
    const child = spawn(command, args, {
      cwd: join(__dirname, '..', '..'),
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  return awaitWithin(`${command} ${args.join(' ')} to exit by itself`, ran, within);
}
