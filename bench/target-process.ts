import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { request } from 'undici';

// A server under test in a process of its own, so the load generator, the
// Slack stand-in and the sandbox (all in the bench process) do not share its
// event loop. Memory is read from /proc (Linux): VmRSS now, VmHWM the peak.

export const REPO_ROOT = resolve(__dirname, '..');

export interface TargetProcess {
  readonly name: string;
  readonly origin: string;
  readonly eventsUrl: string;
  /** From spawn to the first 200 of GET `readyPath`. */
  readonly startupMs: number;
  /** Resident set of the process that serves (for `npm start`: the node process under npm). */
  rssBytes(): number;
  /** Peak resident set since the process started. */
  peakRssBytes(): number;
  /** CPU time (user + system) the process has used so far, in seconds. */
  cpuSeconds(): number;
  /** SIGTERM to the process group, SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

export interface SpawnTargetOptions {
  name: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  port: number;
  /** Picks the serving process among the spawned one and its descendants (npm → sh → node). */
  servingProcess?: (cmdline: string) => boolean;
  readyTimeoutMs?: number;
  /** What answers 200 once the target serves: `/readyz` for the bot (its `/healthz` answers while start-up waits for the store); `/healthz` by default. */
  readyPath?: '/healthz' | '/readyz';
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function spawnTarget(options: SpawnTargetOptions): Promise<TargetProcess> {
  const started = performance.now();
  const child = spawn(options.command, options.args, {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...options.env },
    // Its own process group: npm's children are stopped with it.
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    if (stderr.length < 20_000) stderr += chunk.toString('utf8');
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const origin = `http://127.0.0.1:${options.port}`;

  try {
    await waitHealthy(`${origin}${options.readyPath ?? '/healthz'}`, child, options.readyTimeoutMs ?? 20_000);
  } catch (error) {
    killGroup(child, 'SIGKILL');
    throw new Error(`${options.name} did not start: ${(error as Error).message}\n${stderr.trim()}`, { cause: error });
  }
  const startupMs = performance.now() - started;
  const pid = servingPid(child.pid ?? 0, options.servingProcess);

  return {
    name: options.name,
    origin,
    eventsUrl: `${origin}/slack/events`,
    startupMs,
    rssBytes: () => procStatusBytes(pid, 'VmRSS'),
    peakRssBytes: () => procStatusBytes(pid, 'VmHWM'),
    cpuSeconds: () => procCpuSeconds(pid),
    async stop(graceMs = 5000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      killGroup(child, 'SIGTERM');
      const timer = setTimeout(() => killGroup(child, 'SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

async function waitHealthy(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`exited with status ${child.exitCode}`);
    try {
      const res = await request(url, { headersTimeout: 1000, bodyTimeout: 1000 });
      await res.body.dump();
      if (res.statusCode === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no 200 from ${new URL(url).pathname} within ${timeoutMs} ms`);
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

/** The pid whose command line matches, searched from `root` down; `root` itself without a matcher. */
function servingPid(root: number, matches: ((cmdline: string) => boolean) | undefined): number {
  if (!matches) return root;
  const queue = [root];
  const children = childrenByParent();
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    if (matches(cmdlineOf(pid))) return pid;
    queue.push(...(children.get(pid) ?? []));
  }
  throw new Error(`no process under ${root} matches the serving process`);
}

function childrenByParent(): Map<number, number[]> {
  const map = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // "pid (comm) state ppid …"; comm may hold spaces, so parse after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      map.set(ppid, [...(map.get(ppid) ?? []), Number(entry)]);
    } catch {
      // the process ended meanwhile
    }
  }
  return map;
}

function cmdlineOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return '';
  }
}

function procStatusBytes(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  if (!match?.[1]) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(match[1]) * 1024;
}

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ: 100 on Linux). */
const USER_HZ = 100;

/** User + system CPU time of `pid` so far, in seconds (Linux /proc). */
export function procCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // After "pid (comm) ": state is field 3; utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / USER_HZ;
}
