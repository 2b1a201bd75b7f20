const base = require('./jest.config');

/**
 * `npm run test:unit`: the tests of test/unit/, which need no server, without the Temporal dev
 * server, MinIO and the Collector that jest.config.js starts for every run (seconds instead of a
 * minute on a cold machine). `npm test` still runs them too, with everything else.
 */
/** @type {import('jest').Config} */
module.exports = {
  ...base,
  testMatch: ['<rootDir>/test/unit/**/*.test.ts'],
  // The directories of test/support/global-setup.ts, and no servers.
  globalSetup: '<rootDir>/test/support/unit-global-setup.ts',
  globalTeardown: undefined,
  // Not quiet-runtime.ts: loading @temporalio/worker into every test file took about half of a small file's time, and
  // the unit tests that use the SDK give it a quiet logger of their own.
  setupFiles: ['<rootDir>/test/support/quiet-aws-sdk.ts'],
};
