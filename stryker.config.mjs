// @ts-check
// `npm run mutation`: Stryker mutates the safety-critical files below and runs
// the tests that matter for them (docs/reliability.md, "Mutation testing").
// One file: `npm run mutation -- --mutate src/changes/policy.ts`.
//
// Sized for two cores: per-test coverage (each mutant runs only the tests that
// reach it), two workers, no type checking of mutants (ts-jest only
// transpiles), and jest limited to the test files listed here rather than the
// whole suite (the integration suites start servers and PostgreSQL).

/**
 * Each mutated file and its direct tests. Jest may run all of these test files
 * (each mutant: those that import the mutated file and reach the mutant); to
 * see what a file's own tests kill alone, add `--testFiles <its tests>`.
 */
const TARGETS = {
  'src/slack/request-guard.ts': ['test/slack/request-guard.test.ts'],
  'src/slack/middleware/needs.ts': ['test/slack/middleware/needs.test.ts'],
  'src/changes/policy.ts': ['test/changes/policy.test.ts'],
  'src/changes/roles.ts': ['test/changes/policy.test.ts'],
  'src/changes/changes.ts': ['test/changes/changes.test.ts', 'test/changes/workflow-requests.test.ts'],
  'src/ops/audit-outbox.ts': ['test/ops/audit-outbox.test.ts'],
  'src/firewall/address.ts': ['test/firewall/address.test.ts'],
  'src/firewall/ports.ts': ['test/firewall/ports.test.ts'],
  'src/firewall/sources.ts': ['test/firewall/sources.test.ts'],
  'src/firewall/port-question.ts': ['test/firewall/port-question.test.ts', 'test/firewall/port-question.property.test.ts'],
  'src/changes/door.ts': ['test/changes/door.test.ts', 'test/changes/changes.test.ts', 'test/changes/approvals.test.ts', 'test/changes/freeze.test.ts'],
  'src/changes/approvals.ts': ['test/changes/approvals.test.ts', 'test/changes/workflow-requests.test.ts'],
  'src/changes/freeze.ts': ['test/changes/freeze.test.ts'],
  'src/cloud/prepared.ts': ['test/cloud/prepared.test.ts'],
  'src/slack/blocks/approvals.ts': ['test/slack/blocks/approvals.test.ts'],
  'src/slack/approval-messages.ts': ['test/slack/approval-messages.test.ts'],
  // Nothing is called done before the cloud says so: how a followed change's transactions are told apart and ended.
  'src/follow/poll.ts': ['test/follow/follow.test.ts', 'test/follow/poll.test.ts'],
};

const testFiles = [...new Set(Object.values(TARGETS).flat())];

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'jest',
  mutate: Object.keys(TARGETS),
  coverageAnalysis: 'perTest',
  concurrency: 2,
  // Mutants are not type-checked (no checker plugin); Stryker adds @ts-nocheck to the mutated copies.
  checkers: [],
  disableTypeChecks: true,
  jest: {
    projectType: 'custom',
    configFile: 'jest.config.js',
    config: {
      testMatch: testFiles.map((file) => `<rootDir>/${file}`),
      // All of src/ in jest's map, so that --findRelatedTests follows imports through other directories.
      roots: ['<rootDir>/test', '<rootDir>/src'],
      // None of the listed tests needs PostgreSQL: no server per mutant (null, not undefined, survives Stryker's JSON).
      globalSetup: null,
      globalTeardown: null,
      // Unit tests answer in milliseconds: a mutant that makes one wait fails it here, without restarting a worker.
      testTimeout: 5000,
    },
    // Each mutant runs only the listed tests that import its file (and, with perTest, only those that reach it).
    enableFindRelatedTests: true,
  },
  // The backstop for a mutant that loops without yielding (jest's own timeout cannot stop it); generous under load.
  timeoutMS: 10_000,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  // Only what the tests need goes into the sandbox copy.
  ignorePatterns: ['/docs', '/bench', '/dist', '/data', '/reports', '/coverage', '*.sqlite*'],
  tempDirName: '.stryker-tmp',
  thresholds: { high: 90, low: 80, break: null },
};
