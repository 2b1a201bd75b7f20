/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  // The AI SDK's packages ship ES modules only: transformed like our TypeScript, so tests load the real ones (issue 38).
  transform: { '^.+\\.ts$': '@swc/jest', '/node_modules/(@ai-sdk|@workflow)/.+\\.js$': '@swc/jest' },
  transformIgnorePatterns: ['/node_modules/(?!(@ai-sdk|@workflow)/)'],
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  // test/stack/ brings up the whole production topology: `npm run test:stack` (jest.stack.config.js) runs it.
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/stack/'],
  // Definitions modules import the public API by the package name, as an app would (tsconfig.json "paths" too).
  moduleNameMapper: {
    '^durable-agent$': '<rootDir>/index.ts',
    '^durable-agent/workflow$': '<rootDir>/workflow.ts',
    '^durable-agent/web$': '<rootDir>/web/index.ts',
    '^durable-agent/testing$': '<rootDir>/testing/index.ts',
    // @ai-sdk/provider-utils names zod's locale file by its ES module path; zod ships the CommonJS one beside it.
    '^zod/v4/locales/(.*)\\.js$': '<rootDir>/node_modules/zod/v4/locales/$1.cjs',
  },
  // One Temporal dev server and one workflow bundle serve every test file.
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  setupFiles: ['<rootDir>/test/support/quiet-aws-sdk.ts', '<rootDir>/test/support/quiet-runtime.ts'],
  // TEST_CPU_CENSUS=FILE: the CPU each test file cost, a JSON line per file (test/support/cpu-census.js).
  setupFilesAfterEnv: process.env.TEST_CPU_CENSUS ? ['<rootDir>/test/support/cpu-census.js'] : [],
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
  // The slowest files first, by their seconds in a green run, on a fresh machine too (test/support/slowest-first.js).
  testSequencer: '<rootDir>/test/support/slowest-first.js',
  // Above waitFor's default bound (test/support/wait-for.ts), so that a wait that fails says what it waited for.
  testTimeout: 180_000,
  // Three test files at a time on two cores: a file waits much of its time (on a process, a timer, a retry), and with
  // two the cores sat idle 15 % of the run (docs/test-suite.md, "Where the time goes").
  maxWorkers: 3,
};
