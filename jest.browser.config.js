/** @type {import('jest').Config} */
// `npm run test:browser`: the local page in headless Chromium (Debian's, /usr/bin/chromium). Not part of `npm test`.
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test/browser'],
  testMatch: ['**/*.browser.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
  setupFilesAfterEnv: ['<rootDir>/test/helpers/fail-on-unhandled.ts'],
  testTimeout: 30000,
  maxWorkers: 1,
};
