import { join } from 'node:path';
import { BENCH_BOT_TOKEN, BENCH_SIGNING_SECRET } from './signed-commands';
import { freePort, REPO_ROOT, spawnTarget, type TargetProcess } from './target-process';
import type { BenchWorld } from './world';

// The four servers of the closed loop, each in its own process, started the
// way the bot is started: env vars of src/config.ts, the V8 flags of
// `npm start`, `node --import tsx`.

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

/** A target talking to the bench's sandbox and Slack stand-in. `ours` is src/main.ts itself. */
export async function launchTarget(name: TargetName, world: BenchWorld, options: LaunchOptions = {}): Promise<TargetProcess> {
  const port = await freePort();
  const env = {
    ...botEnv(world, port, `${name}.sqlite`),
    VS_API_URL: world.sandbox.url,
    VS_ACCOUNT_ID: world.sandbox.accountId,
    VS_API_KEY: world.sandbox.apiKey,
    ...options.env,
  };
  const script = name === 'ours' ? 'src/main.ts' : `bench/targets/${name}.ts`;
  const profiling = name === 'ours' && options.cpuProfile ? ['--cpu-prof', `--cpu-prof-dir=${join(REPO_ROOT, 'bench', 'profiles')}`] : [];
  const readyPath = name === 'ours' ? '/readyz' : '/healthz';
  return spawnTarget({
    name,
    command: process.execPath,
    args: [...BOT_NODE_FLAGS, ...profiling, '--import', 'tsx', ...(options.nodeArgs ?? []), script],
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
