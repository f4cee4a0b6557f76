// `npm run test:browser`: the local page in headless Chromium (Debian's, /usr/bin/chromium). Not part of `npm test`;
// no PostgreSQL either: the page's tests need none.
const base = require('./jest.config.js');

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  roots: ['<rootDir>/test/browser'],
  testMatch: ['**/*.browser.ts'],
  globalSetup: undefined,
  globalTeardown: undefined,
  reporters: ['default'],
  testTimeout: 30000,
  maxWorkers: 1,
};
