const base = require('./jest.config');

/**
 * `npm run test:package`: README's quick start done from a packed copy of this checkout, in a fresh app
 * (test/examples/installed-package.test.ts): a pack, two installs and the app's own tests, minutes on two cores.
 * It needs the dev server of the global setup (its app's `run` and `serve`) but none of the other tiers: .ci/run
 * runs it once, on the oldest supported Node.js (where an installed package differs the most), beside the suite.
 */
/** @type {import('jest').Config} */
module.exports = {
  ...base,
  testMatch: ['<rootDir>/test/examples/installed-package.test.ts'],
};
