const base = require('./jest.config');

/**
 * `npm run test:smoke`: what can differ on the oldest supported Node.js (package.json `engines`), which .ci/run runs
 * there after the whole suite has passed on the active LTS: the unit tier and one end-to-end test per subsystem (the
 * loop on a worker, the CLI, the web chat, MCP, object storage, tracing, evals). The packed tarball installed into a
 * fresh app, the other thing that differs there, is `npm run test:package`, which .ci/run runs beside the suite.
 */
/** @type {import('jest').Config} */
module.exports = {
  ...base,
  // Two at a time: .ci/run runs the production topology beside it.
  maxWorkers: 2,
  testMatch: [
    '<rootDir>/test/unit/**/*.test.ts',
    '<rootDir>/test/workflow/agent-loop.test.ts',
    '<rootDir>/test/e2e/cli.test.ts',
    '<rootDir>/test/web/chat-handler.test.ts',
    '<rootDir>/test/e2e/mcp-serve.test.ts',
    '<rootDir>/test/storage/s3-external-payloads.test.ts',
    '<rootDir>/test/telemetry/tracing.test.ts',
    '<rootDir>/test/evals/eval-run.test.ts',
  ],
};
