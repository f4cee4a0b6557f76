/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  // The product's tests, and the workspace packages' own (packages/*/test).
  roots: ['<rootDir>/test', '<rootDir>/packages'],
  testMatch: ['**/*.test.ts'],
  // Type checking runs once in `npm test` (tsc --noEmit); ts-jest only transpiles here.
  transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
  setupFilesAfterEnv: ['<rootDir>/test/helpers/fail-on-unhandled.ts'],
  // One real PostgreSQL server per run (or VS_TEST_DATABASE_URL's); see test/helpers/postgres.ts.
  globalSetup: '<rootDir>/test/helpers/postgres-global-setup.ts',
  globalTeardown: '<rootDir>/test/helpers/postgres-global-teardown.ts',
  testTimeout: 20000,
  // Two workers on two cores: jest's default (cores - 1) runs one, and most of a test's time is spent waiting on
  // loopback sockets, PostgreSQL and timers, not on the CPU; measured on the shared 2-core machine, 394 s with one
  // worker and 198 s with two, the same 2,986 tests passing.
  maxWorkers: 2,
  reporters: ['default', '<rootDir>/test/helpers/summary-reporter.js'],
};
