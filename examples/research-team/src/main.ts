// Runs the app end to end: its worker, then two runs from its own client code: an agent started
// directly, and the app's own workflow, which runs an agent as its child.
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { agentDataConverter, startAgent } from 'durable-agent';
import { createWorker, taskQueue } from './worker';
import { briefingWorkflow } from './workflows';

async function main(): Promise<void> {
  const address = process.env.TEMPORAL_ADDRESS ?? 'localhost:7233';
  const workspace = await mkdtemp(path.join(process.env.AGENT_WORKSPACE_ROOT ?? os.tmpdir(), 'research-team-'));
  await writeFile(path.join(workspace, 'roadmap.md'), 'Q3: ship the durable agent library.');

  const nativeConnection = await NativeConnection.connect({ address });
  const worker = await createWorker(nativeConnection);
  const connection = await Connection.connect({ address });
  const client = new Client({ connection, dataConverter: agentDataConverter() });
  await worker.runUntil(async () => {
    const handle = await startAgent(
      client,
      { agent: 'assistant', prompt: 'What does roadmap.md say? And is invoice 7 paid?', workspace },
      { taskQueue },
    );
    const result = await handle.result();
    console.log(`assistant run ${handle.workflowId}: ${result.status}, answered by ${result.agent}: ${result.answer}`);

    const briefing = await client.workflow.execute(briefingWorkflow, {
      taskQueue,
      workflowId: `briefing-run-${Date.now()}`,
      args: ['the roadmap', workspace],
    });
    console.log(briefing);
  });
  await connection.close();
  await nativeConnection.close();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
