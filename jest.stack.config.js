const base = require('./jest.config');

/**
 * `npm run test:stack`: the production topology (test/stack/), on the stack `npm run stack` brings up (PostgreSQL,
 * the Temporal server built from the version docker-compose.yml pins, the Web UI server, MinIO, the Collector, the
 * codec server, two workers), which each test file starts itself: no dev server, so no global setup beyond the
 * unit tests' directories. Minutes, not seconds: `npm test` leaves it out and .ci/run runs it once.
 */
/** @type {import('jest').Config} */
module.exports = {
  ...base,
  testMatch: ['<rootDir>/test/stack/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/'],
  globalSetup: '<rootDir>/test/support/unit-global-setup.ts',
  globalTeardown: undefined,
  testTimeout: 300_000,
  maxWorkers: 1,
};
