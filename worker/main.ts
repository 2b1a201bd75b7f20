// `npm run worker` (and `durable-agent worker`): polls the agent task queue until SIGINT or SIGTERM, then finishes
// in-flight work and exits.
import { NativeConnection } from '@temporalio/worker';
import { loadDefinitions } from '../agents/load-definitions';
import { createWorkerRegistry } from './features';
import { createAgentWorker } from './create-worker';
import { loadConnectionSettings, taskQueue } from './settings';
import { describeStorage, storageSettings } from '../storage/storage-settings';
import { checkStores } from '../storage/stores';
import { tracingSettings } from '../telemetry/tracing-settings';

export async function runWorker(): Promise<void> {
  // Bad definitions fail here, before anything connects, naming the agent and the problem.
  const registry = createWorkerRegistry(loadDefinitions());
  await checkStores();
  const settings = loadConnectionSettings();
  const connection = await NativeConnection.connect(settings.connectionOptions);
  try {
    const worker = await createAgentWorker({ connection, namespace: settings.namespace, taskQueue: taskQueue(), registry });
    const tracing = tracingSettings();
    const mcpServers = Object.entries(registry.mcpServers).map(([name, server]) => `${name} (${server.transport})`);
    // One write: a reader that waits for the first line (a test, a supervisor) finds the others with it.
    const lines = [
      `worker polling task queue "${taskQueue()}" on ${settings.connectionOptions.address} (namespace ${settings.namespace}); Ctrl-C stops it`,
      `worker stores: ${describeStorage(storageSettings())}`,
      `worker agents: ${registry.listedAgentNames().join(', ')}`,
      `worker tracing: ${tracing ? `OTLP to ${tracing.tracesUrl} as service "${tracing.serviceName}"` : 'off (no OTEL_EXPORTER_OTLP_ENDPOINT)'}`,
      ...(mcpServers.length > 0 ? [`worker MCP servers (started when a run lists them): ${mcpServers.join(', ')}`] : []),
    ];
    process.stderr.write(`${lines.join('\n')}\n`);
    // The SDK's runtime turns SIGINT/SIGTERM into a graceful shutdown; run() resolves once it has drained.
    await worker.run();
  } finally {
    await connection.close();
  }
}

if (require.main === module) {
  runWorker().catch((error: Error) => {
    console.error(`worker failed: ${error.message}`);
    process.exit(1);
  });
}
