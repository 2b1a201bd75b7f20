// The app's worker: runs the agents' sessions (the chat handler only starts them and follows their streams).
import { NativeConnection } from '@temporalio/worker';
import { createAgentWorker } from 'durable-agent';
import { taskQueue, temporalAddress } from './settings';

async function main(): Promise<void> {
  const connection = await NativeConnection.connect({ address: temporalAddress });
  // Sessions may only name workspaces inside this directory.
  const worker = await createAgentWorker({
    connection,
    namespace: 'default',
    taskQueue,
    workspaceRoot: process.env.AGENT_WORKSPACE_ROOT ?? process.cwd(),
  });
  console.error(`worker polling ${taskQueue}`);
  await worker.run();
  await connection.close();
}

void main();
