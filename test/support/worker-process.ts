// A real agent worker in a process of its own, for fault tests that SIGKILL it or
// restart the server under it. Spawn it with spawnWorker (./spawned-worker.ts).
//
// Environment: TEMPORAL_ADDRESS, AGENT_TASK_QUEUE, AGENT_WORKFLOW_BUNDLE (the prebuilt
// bundle, so it starts in a second or two), the provider variables of the fake model
// server, WORKER_IDENTITY (shown on the activities it starts, in history),
// SLOW_STEP_LOG, which adds the slow_step test tool logging to that file, and AGENT_DEFINITIONS.
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { loadDefinitions } from '../../agents/load-definitions';
import { builtInTools } from '../../tools';
import { createAgentWorker } from '../../worker/create-worker';
import { loadConnectionSettings, taskQueue } from '../../worker/settings';
import { slowStepTool } from './slow-step-tool';

export const workerReadyLine = 'worker ready';

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const settings = loadConnectionSettings();
  const identity = process.env.WORKER_IDENTITY || `${process.pid}@worker-process`;
  const stepLog = process.env.SLOW_STEP_LOG;
  const connection = await NativeConnection.connect(settings.connectionOptions);
  try {
    const worker = await createAgentWorker({
      connection,
      namespace: settings.namespace,
      taskQueue: taskQueue(),
      // AGENT_DEFINITIONS, as `durable-agent worker` loads them: agents and tools of a test's fixture module.
      ...(process.env.AGENT_DEFINITIONS && { agents: loadDefinitions().agents ?? [] }),
      tools: [
        ...builtInTools,
        ...(stepLog ? [slowStepTool(stepLog, identity)] : []),
        ...(process.env.AGENT_DEFINITIONS ? (loadDefinitions().tools ?? []) : []),
      ],
      overrides: { identity },
    });
    const running = worker.run();
    process.stdout.write(`${workerReadyLine}\n`);
    await running;
  } finally {
    await connection.close();
  }
}

if (require.main === module) {
  main().catch((error: Error) => {
    console.error(`worker process failed: ${error.stack ?? error.message}`);
    process.exit(1);
  });
}
