#!/usr/bin/env bash
# `npm test`: the unit tier first, as a gate (no servers, a minute), then every other test on one Temporal dev
# server (jest.suite.config.js). With arguments, jest runs just those (`npm test -- test/e2e/cli.test.ts`) on the
# dev server. The packed-tarball test is `npm run test:package`, the production topology `npm run test:stack`;
# docs/test-suite.md lists the tiers and .ci/run runs them all.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -gt 0 ]; then exec npx jest "$@"; fi
echo "== the unit tier (jest.unit.config.js)"
npx jest -c jest.unit.config.js
echo "== the dev-server tier (jest.suite.config.js)"
npx jest -c jest.suite.config.js
