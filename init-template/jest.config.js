/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': '@swc/jest' },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  setupFiles: ['<rootDir>/test/quiet-temporal.ts'],
  // The first test of a file starts Temporal's test server and bundles the workflows: seconds, not milliseconds, and
  // on a busy CI machine more than a minute.
  testTimeout: 180_000,
};
