import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import type { AgentPlugin } from '../../worker/agent-plugin';
import { uniqueTaskQueue } from './temporal';

export interface TracedWorkerSetup {
  /** The plugin whose tracing is under test: both the worker and the client carry it. */
  plugin: AgentPlugin;
  /** A workflow bundle built with that plugin, so that it has the OpenTelemetry workflow interceptors. */
  bundlePath: string;
  /** Anything else the worker needs (inProcessTestWorker from ./temporal.ts). */
  workerOptions?: Partial<WorkerOptions>;
}

/**
 * Runs `body` with a worker in this process and a client, both carrying the plugin, on a fresh task queue and on
 * connections of their own (the test environment's carry no plugin); then sends every span the plugin still holds,
 * so that the Collector has them all when `body`'s result comes back.
 */
export async function withTracedWorker<T>(
  setup: TracedWorkerSetup,
  prefix: string,
  body: (client: Client, taskQueue: string) => Promise<T>,
): Promise<T> {
  const taskQueue = uniqueTaskQueue(prefix);
  const nativeConnection = await NativeConnection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS! });
  const connection = await Connection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS! });
  try {
    const worker = await Worker.create({
      connection: nativeConnection,
      taskQueue,
      workflowBundle: { codePath: setup.bundlePath },
      plugins: [setup.plugin],
      ...setup.workerOptions,
    });
    const client = new Client({ connection, plugins: [setup.plugin] });
    const result = await worker.runUntil(body(client, taskQueue));
    await setup.plugin.tracing!.flush();
    return result;
  } finally {
    await connection.close();
    await nativeConnection.close();
  }
}
