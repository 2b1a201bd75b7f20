import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode } from '@temporalio/worker';
import { ensureMinio } from './minio/find-minio';
import { startMinio, type MinioServer } from './minio/minio-server';
import { ensureCollector } from './otel-collector/find-collector';
import { devServerArgs } from '../../cli/dev-server/dev-server-options';
import { ensureTemporalCli } from '../../cli/dev-server/find-temporal-cli';
import { workflowsPath } from '../../worker/create-worker';
import { withSharedWorkflowModules } from '../../worker/shared-workflow-modules';
import { testTmpDirectory, useTestDirectories } from './test-directories';

/** A namespace besides `default` on the tests' dev server. */
export const walkthroughNamespace = 'production-walkthrough';
/** A namespace that holds only the runs of `agent replay`'s default-selection test (every open run, the last closed). */
export const replayGateNamespace = 'replay-gate';

/**
 * Starts one real Temporal dev server and one MinIO server, makes sure the
 * OpenTelemetry Collector is built, and bundles the workflows once, for every test file.
 */
export default async function globalSetup(): Promise<void> {
  const minio = startObjectStore();
  const collector = provideCollector();
  const executable = await ensureTemporalCli((line) => console.error(line));
  const environment = await TestWorkflowEnvironment.createLocal({
    // A second namespace, as a deployment has its own (test/e2e/production-walkthrough.test.ts), and a third whose
    // every run the replay gate's default selection may replay (test/e2e/replay-cli.test.ts).
    server: {
      executable,
      ip: '127.0.0.1',
      extraArgs: [...devServerArgs, '--namespace', walkthroughNamespace, '--namespace', replayGateNamespace],
    },
  });
  (globalThis as Record<string, unknown>).temporalTestEnvironment = environment;
  process.env.TEST_TEMPORAL_ADDRESS = environment.address;
  if (executable.type === 'existing-path') process.env.TEST_TEMPORAL_CLI = executable.path;

  // As the AgentPlugin bundles it: core/'s pure modules shared by every workflow (worker/shared-workflow-modules.ts).
  const bundle = await bundleWorkflowCode(withSharedWorkflowModules({ workflowsPath, logger: quietLogger }));
  // Transcripts and large payloads of test runs stay out of the user's data directory; workspaces are temporary directories.
  await useTestDirectories();
  const bundlePath = path.join(testTmpDirectory, 'workflow-bundle.js');
  await writeFile(bundlePath, bundle.code);
  process.env.TEST_WORKFLOW_BUNDLE = bundlePath;
  await Promise.all([minio, collector]);
}

/**
 * The tests' OTLP receiver: the OpenTelemetry Collector binary (built by `npm run
 * otelcol:install`), which the tracing tests start with a spans file of their
 * own. If it cannot be provided, the other tests still run and the tracing tests
 * fail with the reason (TEST_OTELCOL_UNAVAILABLE).
 */
async function provideCollector(): Promise<void> {
  try {
    process.env.TEST_OTELCOL_BINARY = await ensureCollector((line) => console.error(line));
  } catch (error) {
    process.env.TEST_OTELCOL_UNAVAILABLE = (error as Error).message;
    console.error(`The OpenTelemetry Collector is not available, the tracing tests will fail: ${(error as Error).message}`);
  }
}

/**
 * The tests' S3: a real MinIO server (built by `npm run minio:install`), reached
 * through TEST_S3_ENDPOINT and the credentials beside it. If it cannot be
 * provided, the other tests still run and the object-storage tests fail with
 * the reason (TEST_S3_UNAVAILABLE).
 */
async function startObjectStore(): Promise<void> {
  try {
    const binary = await ensureMinio((line) => console.error(line));
    const server = await startMinio({
      binary,
      dataDirectory: await mkdtemp(path.join(os.tmpdir(), 'agent-minio-')),
      accessKeyId: 'durable-agent-tests',
      secretAccessKey: 'durable-agent-tests-secret',
    });
    (globalThis as Record<string, unknown>).minioTestServer = server satisfies MinioServer;
    process.env.TEST_MINIO_BINARY = binary;
    process.env.TEST_S3_ENDPOINT = server.endpoint;
    process.env.TEST_S3_ACCESS_KEY_ID = server.accessKeyId;
    process.env.TEST_S3_SECRET_ACCESS_KEY = server.secretAccessKey;
  } catch (error) {
    process.env.TEST_S3_UNAVAILABLE = (error as Error).message;
    console.error(`MinIO is not available, the object-storage tests will fail: ${(error as Error).message}`);
  }
}

const quietLogger = {
  trace: () => {},
  debug: () => {},
  info: () => {},
  log: () => {},
  warn: (message: string) => console.warn(message),
  error: (message: string) => console.error(message),
};
