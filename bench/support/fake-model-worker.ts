import { randomUUID } from 'node:crypto';
import { builtInTools } from '../../tools';
import { createAgentWorker } from '../../worker/create-worker';
import { FakeModelServer } from '../../test/support/fake-model-server';
import type { BenchServer } from './bench-server';
import type { BenchEnvironment } from './environment';

export interface FakeModelWorker {
  server: BenchServer;
  /** The model server the worker's providers call; the caller scripts it, and closes it when done. */
  fake: FakeModelServer;
  taskQueue: string;
}

/**
 * The project's dev server, a fresh fake model server, and a worker of the built-in tools on a task queue of its own
 * whose providers call that fake: for benchmarks that measure through the real model activity and provider clients.
 */
export async function startFakeModelWorker(
  environment: BenchEnvironment,
  { name, workspace }: { name: string; workspace: string },
): Promise<FakeModelWorker> {
  const server = await environment.server('project');
  const fake = await FakeModelServer.start();
  const taskQueue = `bench-${name}-${randomUUID()}`;
  const worker = await createAgentWorker({
    connection: server.nativeConnection,
    namespace: server.namespace,
    taskQueue,
    tools: builtInTools,
    env: fake.providerEnv,
    workspaceRoot: workspace,
    workflowBundle: { code: environment.bundleCode },
  });
  environment.runWorker(worker);
  return { server, fake, taskQueue };
}
