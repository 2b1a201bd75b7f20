import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { FakeModelServer } from './fake-model-server';
import { killSpawnedWorkers } from './spawned-worker';
import { connectToTestServer } from './temporal';
import { makeWorkspace } from './workspace';

export interface TestBed {
  /** A connection to the dev server jest's global setup started. */
  environment: TestWorkflowEnvironment;
  /** The local OpenAI/Anthropic wire-format server; its script and requests are reset before each test. */
  server: FakeModelServer;
  /** An empty workspace directory. */
  workspace: string;
}

export interface TestBedOptions {
  /**
   * The tests start worker processes (spawnWorker): whatever a test leaves running is killed after it, and every
   * one before the bed closes the fake model server and the connection.
   */
  spawnedWorkers?: boolean;
}

/** Registers the hooks most end-to-end tests share and returns the bed they fill in. */
export function useTestBed(options: TestBedOptions = {}): TestBed {
  const bed = {} as TestBed;
  beforeAll(async () => {
    bed.environment = await connectToTestServer();
    bed.server = await FakeModelServer.start();
    bed.workspace = await makeWorkspace();
  });
  beforeEach(() => bed.server.reset());
  if (options.spawnedWorkers) afterEach(() => killSpawnedWorkers());
  afterAll(async () => {
    if (options.spawnedWorkers) await killSpawnedWorkers();
    await bed.server?.close();
    await bed.environment?.teardown();
  });
  return bed;
}
