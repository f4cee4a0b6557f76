// jest globalTeardown: stops the server globalSetup started. Were teardown
// never to run (the run killed), the server's own process still stops it when
// jest's process is gone (test/helpers/postgres-server.ts).
export default async function stopTestPostgres(): Promise<void> {
  await globalThis.vsTestPostgres?.close();
  globalThis.vsTestPostgres = undefined;
}
