import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { BENCH_BOT_TOKEN, BENCH_SIGNING_SECRET } from './signed-commands';
import { freePort, REPO_ROOT, spawnTarget, type TargetProcess } from './target-process';
import type { BenchWorld } from './world';

// The four servers of the closed loop, each in its own process, started the
// way each is run: the bot as `npm start` runs it (the compiled tree, dist/,
// with the V8 flags of package.json's start script; env vars of
// src/config.ts), the baselines, a file each, with `node --import tsx` and
// the same heap flag. Under tsx the bot spent 13 to 22 % more CPU per command
// than it does in production (docs/benchmark.md): tsx names every function it
// creates, and the bot creates a few per request; the baselines create almost
// none per request, and their files are what they are under either.

/**
 * The V8 flags `npm start` runs the bot with (package.json; a test keeps the
 * two equal). Every target gets them, so the baselines run on the same heap
 * settings as ours. A young generation of 32 MB per semi-space: the answers of
 * a burst are short-lived, and with the default one, scavenges copying them
 * cost the cloud client about a tenth of its throughput (bench scenario 4).
 */
export const BOT_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=32'];

export type TargetName = 'bare-http' | 'bare-bolt' | 'minimal-same-work' | 'ours';

export const TARGET_NAMES: readonly TargetName[] = ['bare-http', 'bare-bolt', 'minimal-same-work', 'ours'];

function botEnv(world: BenchWorld, port: number, dbName: string): Record<string, string> {
  return {
    SLACK_BOT_TOKEN: BENCH_BOT_TOKEN,
    SLACK_SIGNING_SECRET: BENCH_SIGNING_SECRET,
    SLACK_API_URL: world.slack.apiUrl,
    PORT: String(port),
    VS_DB_PATH: join(world.scratchDir, dbName),
    LOG_LEVEL: 'info',
    // The load comes from a handful of user ids; the bench measures the bot, not the per-person read limit.
    VS_READS_PER_USER_PER_MINUTE: '1000000',
  };
}

export interface LaunchOptions {
  /** `--cpu-prof` for the bot's process, profiles in bench/profiles/. */
  cpuProfile?: boolean;
  /** Settings added to the target's environment (e.g. `DATABASE_URL` for the bot on PostgreSQL). */
  env?: Record<string, string>;
  /** Node options added after tsx, before the script (bench/command-costs.ts: a preload, a CPU profile). */
  nodeArgs?: string[];
}

/** The node flags of `npm start` beside the heap flag: source maps for stack traces (package.json's start script). */
const START_FLAGS: readonly string[] = ['--enable-source-maps'];

let built = false;
/** Compiles src/ to dist/ when a source is newer than the last build, as `npm start` does first; once per bench process. */
function buildIfStale(): void {
  if (built) return;
  execFileSync(process.execPath, [join(REPO_ROOT, 'scripts', 'build.js'), '--if-stale'], { stdio: 'inherit' });
  built = true;
}

/** A target talking to the bench's sandbox and Slack stand-in. `ours` is the bot as `npm start` runs it: dist/main.js. */
export async function launchTarget(name: TargetName, world: BenchWorld, options: LaunchOptions = {}): Promise<TargetProcess> {
  const port = await freePort();
  const env = {
    ...botEnv(world, port, `${name}.sqlite`),
    VS_API_URL: world.sandbox.url,
    VS_ACCOUNT_ID: world.sandbox.accountId,
    VS_API_KEY: world.sandbox.apiKey,
    ...options.env,
  };
  if (name === 'ours') buildIfStale();
  const profiling = name === 'ours' && options.cpuProfile ? ['--cpu-prof', `--cpu-prof-dir=${join(REPO_ROOT, 'bench', 'profiles')}`] : [];
  const runs =
    name === 'ours'
      ? [...START_FLAGS, ...(options.nodeArgs ?? []), 'dist/main.js']
      : ['--import', 'tsx', ...(options.nodeArgs ?? []), `bench/targets/${name}.ts`];
  const readyPath = name === 'ours' ? '/readyz' : '/healthz';
  return spawnTarget({
    name,
    command: process.execPath,
    args: [...BOT_NODE_FLAGS, ...profiling, ...runs],
    env,
    port,
    readyPath,
  });
}

/** `npm start` as an operator runs it: the built-in sandbox (asked for by name, as HTTP mode requires), nothing else set. */
export async function launchNpmStart(world: BenchWorld): Promise<TargetProcess> {
  const port = await freePort();
  return spawnTarget({
    name: 'npm start',
    command: 'npm',
    args: ['start', '--silent'],
    env: { ...botEnv(world, port, 'npm-start.sqlite'), VS_API_URL: 'sandbox' },
    port,
    readyPath: '/readyz',
    // npm → sh → node: the node process runs dist/main.js (sh's command line names it too).
    servingProcess: (cmdline) => /^(\S*\/)?node\s/.test(cmdline) && /(src\/main\.ts|dist\/main\.js)/.test(cmdline),
  });
}
