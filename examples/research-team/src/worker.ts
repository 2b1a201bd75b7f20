// The app's worker: its own workflows, plus durable agents through the library's worker plugin.
import { NativeConnection, Worker } from '@temporalio/worker';
import { AgentPlugin } from 'durable-agent';
import { agents } from './agents';

export const taskQueue = process.env.EXAMPLE_TASK_QUEUE ?? 'research-team';

export async function createWorker(connection: NativeConnection): Promise<Worker> {
  return Worker.create({
    connection,
    taskQueue,
    workflowsPath: require.resolve('./workflows'),
    plugins: [new AgentPlugin({ agents, workspaceRoot: process.env.AGENT_WORKSPACE_ROOT ?? process.cwd() })],
  });
}

if (require.main === module) {
  void (async () => {
    const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS ?? 'localhost:7233' });
    const worker = await createWorker(connection);
    console.error(`research-team worker polling ${taskQueue}`);
    await worker.run();
    await connection.close();
  })();
}
