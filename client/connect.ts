import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { createAgentWorker } from '../worker/create-worker';
import { loadConnectionSettings, taskQueue as configuredTaskQueue } from '../worker/settings';
import { portAnswers, startEmbeddedServer, type EmbeddedServer } from './embedded-server';
import { webUiBase } from './web-ui';

export interface AgentSession {
  client: Client;
  namespace: string;
  taskQueue: string;
  uiBase: string | undefined;
  /** True when this process started the dev server (and so owns the only worker). */
  embedded: boolean;
  close(): Promise<void>;
}

export interface ConnectOptions {
  /** Start an in-process worker when no worker polls the task queue (needed to run or query workflows). */
  ensureWorker: boolean;
  log: (line: string) => void;
}

/**
 * Connects the CLI to Temporal. With TEMPORAL_ADDRESS (or a config profile) it
 * connects there and never starts a server. Otherwise it uses a server already
 * answering on localhost:7233, or starts an embedded dev server. When no worker
 * polls the task queue, it runs one in this process.
 */
export async function connect(options: ConnectOptions): Promise<AgentSession> {
  const settings = loadConnectionSettings();
  const taskQueue = configuredTaskQueue();
  const namespace = settings.namespace;
  const closers: Array<() => Promise<void>> = [];
  if (options.ensureWorker) quietWorkerLogs();

  let server: EmbeddedServer | undefined;
  if (!settings.addressConfigured && !(await portAnswers(7233))) {
    server = await startEmbeddedServer(options.log);
    closers.push(server.stop);
  }
  const connectionOptions = server ? { address: server.address } : settings.connectionOptions;
  const close = async () => {
    for (const closer of closers) await closer();
  };
  try {
    return await connectClient();
  } catch (error) {
    await close();
    throw error;
  }

  async function connectClient(): Promise<AgentSession> {
    const connection = await Connection.connect(connectionOptions);
    closers.unshift(() => connection.close());
    const client = new Client({ connection, namespace });

    if (options.ensureWorker && (server || !(await hasWorkflowPollers(client, namespace, taskQueue)))) {
      if (!server) options.log(`no worker is polling task queue "${taskQueue}": running one in this process`);
      const nativeConnection = await NativeConnection.connect(connectionOptions);
      closers.unshift(() => nativeConnection.close());
      const worker = await createAgentWorker({ connection: nativeConnection, namespace, taskQueue });
      const running = worker.run();
      closers.unshift(async () => {
        stopWorker(worker);
        await running;
      });
    }

    return {
      client,
      namespace,
      taskQueue,
      uiBase: webUiBase(connectionOptions.address ?? ''),
      embedded: server !== undefined,
      close,
    };
  }
}

function stopWorker(worker: Worker): void {
  if (worker.getState() === 'RUNNING') worker.shutdown();
}

async function hasWorkflowPollers(client: Client, namespace: string, taskQueue: string): Promise<boolean> {
  const response = await client.workflowService.describeTaskQueue({
    namespace,
    taskQueue: { name: taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  return (response.pollers ?? []).length > 0;
}

// The CLI's stderr is for the agent's progress; the in-process worker only reports problems.
function quietWorkerLogs(): void {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
}
