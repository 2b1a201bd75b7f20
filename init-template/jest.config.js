/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': '@swc/jest' },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  setupFiles: ['<rootDir>/test/quiet-temporal.ts'],
  // The first test of a file starts Temporal's test server and bundles the workflows: seconds, not milliseconds.
  testTimeout: 60_000,
};
