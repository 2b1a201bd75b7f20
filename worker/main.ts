// `npm run worker`: polls the agent task queue until SIGINT or SIGTERM, then finishes in-flight work and exits.
import { NativeConnection } from '@temporalio/worker';
import { createAgentWorker } from './create-worker';
import { loadConnectionSettings, taskQueue } from './settings';

async function main(): Promise<void> {
  const settings = loadConnectionSettings();
  const connection = await NativeConnection.connect(settings.connectionOptions);
  try {
    const worker = await createAgentWorker({ connection, namespace: settings.namespace, taskQueue: taskQueue() });
    console.error(
      `worker polling task queue "${taskQueue()}" on ${settings.connectionOptions.address} (namespace ${settings.namespace}); Ctrl-C stops it`,
    );
    // The SDK's runtime turns SIGINT/SIGTERM into a graceful shutdown; run() resolves once it has drained.
    await worker.run();
  } finally {
    await connection.close();
  }
}

main().catch((error: Error) => {
  console.error(`worker failed: ${error.message}`);
  process.exit(1);
});
