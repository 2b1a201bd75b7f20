import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode } from '@temporalio/worker';
import { fastDispatchArgs } from '../../temporal-cli/dev-server-options';
import { ensureTemporalCli } from '../../temporal-cli/find-cli';
import { workflowsPath } from '../../worker/create-worker';

/** Starts one real Temporal dev server and bundles the workflows once, for every test file. */
export default async function globalSetup(): Promise<void> {
  const executable = await ensureTemporalCli((line) => console.error(line));
  const environment = await TestWorkflowEnvironment.createLocal({
    server: { executable, ip: '127.0.0.1', extraArgs: fastDispatchArgs },
  });
  (globalThis as Record<string, unknown>).temporalTestEnvironment = environment;
  process.env.TEST_TEMPORAL_ADDRESS = environment.address;
  if (executable.type === 'existing-path') process.env.TEST_TEMPORAL_CLI = executable.path;

  const bundle = await bundleWorkflowCode({ workflowsPath, logger: quietLogger });
  const directory = path.join(__dirname, '..', '..', '.test-tmp');
  await mkdir(directory, { recursive: true });
  const bundlePath = path.join(directory, 'workflow-bundle.js');
  await writeFile(bundlePath, bundle.code);
  process.env.TEST_WORKFLOW_BUNDLE = bundlePath;
  // Transcripts and large payloads of test runs stay out of the user's data directory.
  process.env.AGENT_TRANSCRIPT_DIR = path.join(directory, 'transcripts');
  process.env.AGENT_PAYLOAD_DIR = path.join(directory, 'payloads');
}

const quietLogger = {
  trace: () => {},
  debug: () => {},
  info: () => {},
  log: () => {},
  warn: (message: string) => console.warn(message),
  error: (message: string) => console.error(message),
};
