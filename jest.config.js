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
  reporters: ['default', '<rootDir>/test/helpers/summary-reporter.js'],
};
