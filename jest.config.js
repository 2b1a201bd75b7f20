/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': '@swc/jest' },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  // test/stack/ brings up the whole production topology: `npm run test:stack` (jest.stack.config.js) runs it.
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/stack/'],
  // Definitions modules import the public API by the package name, as an app would (tsconfig.json "paths" too).
  moduleNameMapper: {
    '^durable-agent$': '<rootDir>/index.ts',
    '^durable-agent/workflow$': '<rootDir>/workflow.ts',
    '^durable-agent/web$': '<rootDir>/web/index.ts',
    '^durable-agent/testing$': '<rootDir>/testing/index.ts',
  },
  // One Temporal dev server and one workflow bundle serve every test file.
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  setupFiles: ['<rootDir>/test/support/quiet-aws-sdk.ts', '<rootDir>/test/support/quiet-runtime.ts'],
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
  // Above waitFor's default bound (test/support/wait-for.ts), so that a wait that fails says what it waited for.
  testTimeout: 180_000,
  // Two cores: two test files at a time keeps the dev server responsive.
  maxWorkers: 2,
};
