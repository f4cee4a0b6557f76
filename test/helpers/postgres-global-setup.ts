import { startPostgresServer, type PostgresServer } from './postgres';

// jest globalSetup: one PostgreSQL server per jest run, unless
// VS_TEST_DATABASE_URL names one. Test files reach it through
// createTestDatabase() (test/helpers/postgres.ts), each with a database of
// its own.

declare global {
  var vsTestPostgres: PostgresServer | undefined;
}

export default async function startTestPostgres(): Promise<void> {
  if (process.env.VS_TEST_DATABASE_URL) return;
  const server = await startPostgresServer({ detach: true });
  process.env.VS_TEST_POSTGRES_URL = server.url;
  globalThis.vsTestPostgres = server;
}
