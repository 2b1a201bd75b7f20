// `npm run record`: records the run that test/support.test.ts replays, into histories/. Here it comes from the test
// env and a scripted model; from a real server, `npm run agent -- history <workflow id> --out histories/<name>.json`
// saves a real one.
import path from 'node:path';
import { createAgentTestEnv, scriptedModel } from 'durable-agent/testing';
import { agents } from '../agents';

async function main(): Promise<void> {
  const model = scriptedModel([
    { toolCalls: [{ id: 'refund-8', name: 'refund_order', arguments: { id: '8' } }] },
    'Order 8 is refunded.',
  ]);
  const env = await createAgentTestEnv({ agents, model });
  try {
    const run = await env.start('Please refund order 8.', { workflowId: 'refund-order-8' });
    await run.waitForApproval();
    await run.approve();
    await run.result();
    await env.saveHistory('refund-order-8', path.join(__dirname, '..', 'histories', 'refund-order-8.json'));
  } finally {
    await env.shutdown();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
