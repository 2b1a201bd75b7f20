const base = require('./jest.config');

/**
 * The dev-server tier that `npm test` runs after the unit tier has passed (scripts/test.sh): every test file of
 * jest.config.js except test/unit/ (already run, as the gate) and the packed-tarball test (jest.package.config.js).
 */
/** @type {import('jest').Config} */
module.exports = {
  ...base,
  testPathIgnorePatterns: [...base.testPathIgnorePatterns, '<rootDir>/test/unit/', '<rootDir>/test/examples/installed-package'],
};
