const base = require('./jest.config');

/**
 * The dev-server tier that `npm test` runs after the unit tier has passed (scripts/test.sh): every test file of
 * jest.config.js except test/unit/ (already run, as the gate) and the packed-tarball test (jest.package.config.js).
 */
/** @type {import('jest').Config} */
module.exports = {
  ...base,
  testPathIgnorePatterns: [...base.testPathIgnorePatterns, '<rootDir>/test/unit/', '<rootDir>/test/examples/installed-package'],
  // Three files at a time on two cores: a third of the suite's time is spent waiting (heartbeat timeouts, retry
  // backoffs, a browser or a process starting), so two left the cores idle 15 % of the run. Measured on this 2-core
  // machine, the whole tier: 1,684 s with two, 1,463 s with three (docs/test-suite.md).
  maxWorkers: 3,
};
