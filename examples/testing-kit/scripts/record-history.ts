// `npm run record`: records the run that test/replay.test.ts replays, into histories/. Here it comes from the test
// env and a scripted model; from production, `agent history <workflow id> --out histories/<name>.json` saves a real one.
import path from 'node:path';
import { createAgentTestEnv, scriptedModel } from 'durable-agent/testing';
import { agents } from '../src/agents';

async function main(): Promise<void> {
  const model = scriptedModel({
    support: [
      { toolCalls: [{ id: 'ask-researcher', name: 'researcher', arguments: { task: 'Find order 8.' } }] },
      { toolCalls: [{ id: 'refund-8', name: 'refund_order', arguments: { id: '8' } }] },
      'Order 8 was lost in transit, and I have refunded it.',
    ],
    researcher: [{ toolCalls: [{ name: 'lookup_order', arguments: { id: '8' } }] }, 'Order 8 is lost in transit.'],
  });
  const env = await createAgentTestEnv({ agents, model });
  try {
    const run = await env.start('What happened to order 8? Refund it if it is lost.', { workflowId: 'order-8' });
    await run.waitForApproval();
    await run.approve();
    await run.result();
    const directory = path.join(__dirname, '..', 'histories');
    await env.saveHistory('order-8', path.join(directory, 'order-8.json'));
    // The subagent ran as a child workflow, named after its parent and the call that asked it.
    await env.saveHistory('order-8/ask-researcher', path.join(directory, 'order-8-researcher.json'));
  } finally {
    await env.shutdown();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
