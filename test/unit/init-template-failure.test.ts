import { spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { collect } from '../support/cli';

// The project `durable-agent init` makes runs its own tests with jest. When its test environment cannot start (here:
// a test server path with nothing there), jest reports that error, and only that: the project's afterAll once called
// shutdown() on the environment that never came, and a second error ("reading 'shutdown'") followed the first.

const repository = path.join(__dirname, '..', '..');

it("reports the init project's failed test environment once, without a second error from its afterAll", async () => {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'init-template-failure-'));
  // The template's own jest settings, its package resolved to this checkout as an installed copy would be.
  const config = path.join(directory, 'jest.config.js');
  await writeFile(
    config,
    `module.exports = ${JSON.stringify({
      rootDir: path.join(repository, 'init-template'),
      testEnvironment: 'node',
      transform: { '^.+\\.ts$': '@swc/jest' },
      testMatch: ['<rootDir>/test/support.test.ts'],
      moduleNameMapper: {
        '^durable-agent$': path.join(repository, 'index.ts'),
        '^durable-agent/testing$': path.join(repository, 'testing', 'index.ts'),
      },
      cacheDirectory: path.join(directory, 'cache'),
    })};`,
  );
  const missing = path.join(directory, 'no-test-server-here');
  const jest = await collect(
    spawn(process.execPath, [path.join(repository, 'node_modules', 'jest', 'bin', 'jest.js'), '-c', config, '--ci'], {
      cwd: directory,
      env: { ...process.env, TEMPORAL_TEST_SERVER_PATH: missing, NODE_ENV: 'test' },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  const output = `${jest.stdout}${jest.stderr}`;
  expect(jest.code).toBe(1);
  expect(output).toContain(missing);
  expect(output).not.toMatch(/reading 'shutdown'/);
}, 120_000);
