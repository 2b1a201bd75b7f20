// A real agent worker in a process of its own, for fault tests that SIGKILL it or
// restart the server under it. Spawn it with spawnWorker (./spawned-worker.ts).
//
// Environment: TEMPORAL_ADDRESS, AGENT_TASK_QUEUE, AGENT_WORKFLOW_BUNDLE (the prebuilt
// bundle, so it starts in a second or two), the provider variables of the fake model
// server, WORKER_IDENTITY (shown on the activities it starts, in history), and
// SLOW_STEP_LOG, which adds the slow_step test tool logging to that file; TEST_GOOGLE_BASE_URL, which registers
// Gemini through @ai-sdk/google (aiSdkProvider) as `google:` at that URL; and STICKY_QUEUE_TIMEOUT_MS, how long a
// workflow task waits on this worker's sticky queue (once it is killed) before another worker gets it (5 s by default).
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { aiSdkProvider, type ModelProvider } from '../../providers';
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
      tools: stepLog ? [...builtInTools, slowStepTool(stepLog, identity)] : builtInTools,
      providers: await googleProviders(process.env.TEST_GOOGLE_BASE_URL),
      overrides: {
        identity,
        ...(process.env.STICKY_QUEUE_TIMEOUT_MS && {
          stickyQueueScheduleToStartTimeout: Number(process.env.STICKY_QUEUE_TIMEOUT_MS),
        }),
      },
    });
    const running = worker.run();
    process.stdout.write(`${workerReadyLine}\n`);
    await running;
  } finally {
    await connection.close();
  }
}

/** Gemini through @ai-sdk/google, loaded only for the workers that use it. */
async function googleProviders(baseURL: string | undefined): Promise<ModelProvider[]> {
  if (!baseURL) return [];
  const { createGoogleGenerativeAI } = await import('@ai-sdk/google');
  return [aiSdkProvider('google', createGoogleGenerativeAI({ baseURL, apiKey: 'test-google-key' }))];
}

if (require.main === module) {
  main().catch((error: Error) => {
    console.error(`worker process failed: ${error.stack ?? error.message}`);
    process.exit(1);
  });
}
