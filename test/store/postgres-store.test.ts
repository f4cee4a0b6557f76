import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { Client } from 'pg';
import { isStoreUnavailable, StoreUnavailableError, type Store } from '../../src/store';
import { MIGRATION_LOCK_KEY, MIGRATIONS, SCHEMA_VERSION } from '../../src/store/migrations';
import { openPostgresStore } from '../../src/store/postgres';
import { createTestDatabase, createTestSchema, startPostgresServer, type PostgresServer, type TestDatabase } from '../helpers/postgres';
import { describeStoreContract } from './contract';
import { entry } from './contract/entries';

// The contract on a real PostgreSQL server (test/helpers/postgres.ts), then
// what only a networked database has: instances migrating at once, the
// database going away and coming back.

const databases: TestDatabase[] = [];
async function freshDatabase(): Promise<TestDatabase> {
  const database = await createTestDatabase();
  databases.push(database);
  return database;
}
afterAll(async () => {
  await Promise.all(databases.map((d) => d.drop()));
});

// One database for this file, a schema of its own per test (a database takes a second to create).
let database: Promise<TestDatabase> | undefined;
async function freshSchema(): Promise<{ url: string }> {
  database ??= freshDatabase();
  return { url: await createTestSchema((await database).url) };
}

describeStoreContract('PostgreSQL', {
  async fresh() {
    const { url } = await freshSchema();
    return { open: (options) => openPostgresStore(url, { maxConnections: 4, ...options }) };
  },
  async freshAt(version, seed) {
    const { url } = await freshSchema();
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(
        'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())',
      );
      for (const migration of MIGRATIONS.slice(0, version)) {
        for (const statement of migration.postgres) await client.query(statement);
        await client.query('INSERT INTO schema_migrations (version, description) VALUES ($1, $2)', [migration.version, migration.description]);
      }
      for (const statement of seed) await client.query(statement);
    } finally {
      await client.end();
    }
    return { open: (options) => openPostgresStore(url, { maxConnections: 4, ...options }) };
  },
});

async function query<T>(url: string, text: string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows as T[];
  } finally {
    await client.end();
  }
}

/**
 * A TCP proxy in front of PostgreSQL that can go silent: connections stay
 * open and new ones are accepted, but nothing passes until restore(), when
 * what was held back is delivered (as TCP would after a partition heals).
 */
async function partitionableProxy(target: URL): Promise<{ url: string; silence(): void; restore(): void; close(): Promise<void> }> {
  let silent = false;
  const held: (() => void)[] = [];
  const sockets = new Set<Socket>();
  const relay = (from: Socket, to: Socket) =>
    from.on('data', (chunk: Buffer) => {
      if (silent) held.push(() => to.write(chunk));
      else to.write(chunk);
    });
  const server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    relay(client, upstream);
    relay(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target.toString());
  url.port = String((server.address() as AddressInfo).port);
  return {
    url: url.toString(),
    silence: () => {
      silent = true;
    },
    restore: () => {
      silent = false;
      for (const deliver of held.splice(0)) deliver();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('the PostgreSQL store', () => {
  test('rate buckets are kept without the write-ahead log: a take waits for no disk, and a crash only refills them', async () => {
    const { url } = await freshSchema();
    const store = await openPostgresStore(url);
    try {
      const rows = await query<{ persistence: string }>(
        url,
        "SELECT c.relpersistence AS persistence FROM pg_class c WHERE c.relname = 'rate_buckets' AND c.relnamespace = current_schema()::regnamespace",
      );
      expect(rows).toEqual([{ persistence: 'u' }]);
      expect(await store.rates.take('reads:U1', 1, 60_000, 1_000)).toEqual({ allowed: true, retryInMs: 0 });
    } finally {
      await store.close();
    }
  });

  test('three instances migrating one fresh database at once: each migration applied once, all three work', async () => {
    const { url } = await freshSchema();
    const stores = await Promise.all([openPostgresStore(url), openPostgresStore(url), openPostgresStore(url)]);
    try {
      const versions = await query<{ version: number }>(url, 'SELECT version FROM schema_migrations ORDER BY version');
      expect(versions.map((v) => v.version)).toEqual(MIGRATIONS.map((m) => m.version));
      await stores[0].audit.record(entry());
      expect(await stores[2].audit.latest(5)).toHaveLength(1);
      // Once more, sequentially: nothing left to do.
      const again = await openPostgresStore(url);
      await again.close();
      expect(await query(url, 'SELECT version FROM schema_migrations')).toHaveLength(SCHEMA_VERSION);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  test('an instance waits for another one migrating, however long that takes, then finds nothing to do', async () => {
    const { url } = await freshSchema();
    await (await openPostgresStore(url)).close();
    const holder = new Client({ connectionString: url });
    await holder.connect();
    try {
      // Another instance is migrating: it holds the lock longer than a statement may run.
      await holder.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
      let opened = false;
      const opening = openPostgresStore(url, { statementTimeoutMs: 100 }).then((store) => {
        opened = true;
        return store;
      });
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(opened).toBe(false);
      await holder.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
      const store = await opening;
      await store.ping();
      await store.close();
    } finally {
      await holder.end();
    }
  });

  test('the pool is bounded: a burst of calls shares at most maxConnections connections', async () => {
    const { url } = await freshSchema();
    const tagged = new URL(url);
    tagged.searchParams.set('application_name', 'vs-pool-bound-test');
    const store = await openPostgresStore(tagged.toString(), { maxConnections: 3 });
    try {
      const results = await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          i % 2 ? store.audit.record(entry({ target: `vs:${i}` })) : store.claims.claim(`V${i}`, '2024-05-01T10:00:00.000Z'),
        ),
      );
      expect(results).toHaveLength(60);
      const [row] = await query<{ count: string }>(url, "SELECT count(*) AS count FROM pg_stat_activity WHERE application_name = 'vs-pool-bound-test'");
      expect(Number(row?.count)).toBeGreaterThan(0);
      expect(Number(row?.count)).toBeLessThanOrEqual(3);
    } finally {
      await store.close();
    }
  });

  test('refuses a database written by a newer schema instead of guessing', async () => {
    const { url } = await freshSchema();
    await (await openPostgresStore(url)).close();
    await query(url, `INSERT INTO schema_migrations (version, description) VALUES (${SCHEMA_VERSION + 1}, 'from the future')`);
    await expect(openPostgresStore(url)).rejects.toThrow(/newer/);
  });

  test('ids, times and parameters read back as written (bigint, timestamptz and json as SQLite gives them)', async () => {
    const { url } = await freshSchema();
    const store = await openPostgresStore(url);
    try {
      const written = await store.audit.record(entry({ at: '2024-05-01T10:00:00.123Z', params: { b: 1, a: [2, { c: null }] } }));
      const [read] = await store.audit.latest(1);
      expect(read).toEqual(written);
      expect(Object.keys(read!.params)).toEqual(['b', 'a']);
      expect(typeof read!.id).toBe('number');
    } finally {
      await store.close();
    }
  });

  test('a database gone silent (a network partition): calls are refused after the answer timeout, and work again once it answers', async () => {
    const { url } = await freshSchema();
    const proxy = await partitionableProxy(new URL(url));
    const store = await openPostgresStore(proxy.url, { answerTimeoutMs: 300, connectTimeoutMs: 1000 });
    try {
      await store.audit.record(entry({ target: 'vs:1' }));
      proxy.silence();
      for (const call of [store.ping(), store.claims.claim('V-silent', '2024-05-01T10:00:00.000Z'), store.audit.latest(1)]) {
        const refusal = await call.catch((error: unknown) => error);
        expect(refusal).toBeInstanceOf(StoreUnavailableError);
      }
      proxy.restore();
      await expect(store.ping()).resolves.toBeUndefined();
      await store.audit.record(entry({ target: 'vs:2' }));
      expect((await store.audit.latest(10)).map((r) => r.target)).toContain('vs:2');
    } finally {
      await store.close();
      await proxy.close();
    }
  });

  describe('when the database goes away', () => {
    let server: PostgresServer;
    let store: Store;
    beforeAll(async () => {
      server = await startPostgresServer();
      store = await openPostgresStore(server.url, { connectTimeoutMs: 2000 });
    });
    afterAll(async () => {
      await store?.close();
      await server?.close();
    });

    test('every call is refused with StoreUnavailableError, and the same store works again once it is back', async () => {
      const before = await store.audit.record(entry({ target: 'vs:1' }));
      expect(await store.claims.claim('V-before', '2024-05-01T10:00:00.000Z')).toBe(true);
      await server.stop();

      const refusals = await Promise.allSettled([
        store.ping(),
        store.audit.record(entry({ target: 'vs:2' })),
        store.claims.claim('V-during', '2024-05-01T10:00:00.000Z'),
        store.leases.take('vs:2', 'owner', 0, 1000),
        store.audit.latest(5),
        store.outbox.claim('sender', 0, 30_000, 10),
        store.audit.recoverInterrupted(0),
      ]);
      for (const refusal of refusals) {
        expect(refusal.status).toBe('rejected');
        const reason = (refusal as PromiseRejectedResult).reason as unknown;
        expect(reason).toBeInstanceOf(StoreUnavailableError);
        expect(isStoreUnavailable(reason)).toBe(true);
        expect((reason as StoreUnavailableError).code).toBe('STORE_UNAVAILABLE');
        expect((reason as Error).message).not.toContain(new URL(server.url).password);
      }

      await server.start();
      await expect(store.ping()).resolves.toBeUndefined();
      // Nothing was written while it was down; what was written before is there.
      expect((await store.audit.latest(5)).map((r) => r.id)).toEqual([before.id]);
      expect(await store.claims.claim('V-during', '2024-05-01T10:00:00.000Z')).toBe(true);
      expect(await store.claims.claim('V-before', '2024-05-01T10:00:00.000Z')).toBe(false);
    });

    test('opening while the database is down is refused with StoreUnavailableError', async () => {
      await server.stop();
      try {
        await expect(openPostgresStore(server.url, { connectTimeoutMs: 2000 })).rejects.toBeInstanceOf(StoreUnavailableError);
      } finally {
        await server.start();
      }
      await expect(store.ping()).resolves.toBeUndefined();
    });
  });
});
