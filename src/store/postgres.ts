import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { ConfigError } from '../errors';
import type { Logger } from '../log';
import { DEFAULT_STORE_OPTIONS, type StoreOptions } from './kysely/rows';
import { createKyselyStore } from './kysely/store';
import { migratePostgres } from './migrations';
import type { StoreTables } from './schema';
import type { Store } from './store';
import { storeError } from './unavailable';

// The store on PostgreSQL, shared by any number of instances. One bounded
// pool; Kysely runs each transaction on one connection taken from it. A
// connection lost while the database is down is dropped by the pool and a new
// one made on next use, so the store recovers without reopening.

export interface PostgresStoreOptions extends StoreOptions {
  /** Upper bound of the pool. */
  maxConnections: number;
  /** How long a query may wait for a connection (the database unreachable, or the pool exhausted). */
  connectTimeoutMs: number;
  /** The server cancels a statement running longer than this. */
  statementTimeoutMs: number;
  /**
   * This side gives up on an answer after this long (a database that went
   * silent, e.g. behind a network partition, where the server's own timeout
   * cannot fire). Default: statementTimeoutMs + 5 s.
   */
  answerTimeoutMs?: number;
  logger?: Pick<Logger, 'warn'>;
}

export const DEFAULT_POSTGRES_OPTIONS: PostgresStoreOptions = {
  ...DEFAULT_STORE_OPTIONS,
  maxConnections: 10,
  connectTimeoutMs: 5000,
  statementTimeoutMs: 10_000,
};

const INT8 = 20;
const JSON_OID = 114;
const TIMESTAMPTZ = 1184;
const parseTimestamptz = pg.types.getTypeParser(TIMESTAMPTZ, 'text') as (value: string) => Date;

/**
 * Per pool, not global (pg.types would change every pg user in the process):
 * bigint as number (ids and epoch ms stay far below 2^53), timestamptz as an
 * ISO string and json as its text, as SQLite hands them over.
 */
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string) => {
    if (oid === INT8) return (value: string) => Number(value);
    if (oid === TIMESTAMPTZ) return (value: string) => parseTimestamptz(value).toISOString();
    if (oid === JSON_OID) return (value: string) => value;
    return pg.types.getTypeParser(oid, format as 'text') as (value: string) => unknown;
  }) as pg.CustomTypesConfig['getTypeParser'],
};

/** Connects, migrates (one instance at a time) and returns the store. Rejects with StoreUnavailableError when the database cannot be reached. */
export async function openPostgresStore(url: string, options: Partial<PostgresStoreOptions> = {}): Promise<Store> {
  const settings = { ...DEFAULT_POSTGRES_OPTIONS, ...options };
  const pool = new pg.Pool({
    connectionString: url,
    max: settings.maxConnections,
    connectionTimeoutMillis: settings.connectTimeoutMs,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    statement_timeout: settings.statementTimeoutMs,
    query_timeout: settings.answerTimeoutMs ?? settings.statementTimeoutMs + 5000,
    application_name: 'vs-chatops',
    types,
  });
  // An idle connection that dies (the server restarted) must not crash the process; the pool replaces it.
  pool.on('error', (error) => settings.logger?.warn('a pooled database connection failed; a new one is made on next use', { error: describe(error) }));
  // So must one that dies while checked out between two statements (the server was stopped): the pool
  // listens only to idle clients, and an 'error' nobody listens to ends the process. The statement in
  // flight, or the next one, fails with StoreUnavailableError.
  pool.on('connect', (client) => client.on('error', () => undefined));
  try {
    const client = await pool.connect();
    try {
      await migratePostgres(client);
    } finally {
      client.release();
    }
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw refusedSetting(error) ?? storeError(error, 'postgres');
  }
  const kysely = new Kysely<StoreTables>({ dialect: new PostgresDialect({ pool }) });
  return createKyselyStore(kysely, 'postgres', settings);
}

/**
 * The server answered, and refused what DATABASE_URL says (who, with which
 * password, which database): waiting will not change that, so start-up stops
 * as for any configuration problem. Never the URL itself: it holds the password.
 */
function refusedSetting(error: unknown): ConfigError | undefined {
  const code = (error as { code?: unknown }).code;
  if (code === '28P01' || code === '28000') {
    return new ConfigError([
      `DATABASE_URL: the PostgreSQL server refused the user or its password (${code}): check the user name and password in DATABASE_URL, ` +
        "and that the server's pg_hba.conf lets this host in",
    ]);
  }
  if (code === '3D000') return new ConfigError([`DATABASE_URL names a database the PostgreSQL server does not have (${code}): create it, or fix its name`]);
  return undefined;
}

function describe(error: Error): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? `${code}: ${error.message}` : error.message;
}
