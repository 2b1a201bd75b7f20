// `npm start -- "<prompt>"`: starts a run of the support agent from your own code, as your app would, and prints
// its answer. The run is done by the worker (`npm run worker`, in another terminal), on the Temporal server at
// TEMPORAL_ADDRESS (default localhost:7233: `temporal server start-dev`).
import { Client, Connection } from '@temporalio/client';
import { agentDataConverter, startAgent } from 'durable-agent';

async function main(): Promise<void> {
  const prompt = process.argv.slice(2).join(' ') || 'Hello! What can you do for me?';
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS ?? 'localhost:7233' });
  try {
    const client = new Client({ connection, dataConverter: agentDataConverter() });
    const run = await startAgent(
      client,
      // The directory its file tools may use (this agent has none): here, inside the worker's AGENT_WORKSPACE_ROOT.
      { agent: 'support', prompt, workspace: process.cwd() },
      { taskQueue: process.env.AGENT_TASK_QUEUE || 'durable-agent' },
    );
    console.error(`started ${run.workflowId}; a refund waits for: npm run agent -- approve ${run.workflowId}`);
    const result = await run.result();
    console.log(result.answer);
  } finally {
    await connection.close();
  }
}

main().catch((error: Error) => {
  console.error(`start-run failed: ${error.message}`);
  process.exit(1);
});
