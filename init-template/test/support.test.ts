// The support agent on a real Temporal worker in this process (Temporal's time-skipping test server), with its own
// tool and approval, while a scripted model answers each model call and records what it was shown.
import path from 'node:path';
import { createAgentTestEnv, expectHistoriesToReplay, scriptedModel, type AgentTestEnv } from 'durable-agent/testing';
import { agents, refunds, support } from '../agents';

const model = scriptedModel();
let env: AgentTestEnv;

beforeAll(async () => {
  env = await createAgentTestEnv({ agents: [support], model });
});
afterAll(() => env?.shutdown()); // env is undefined when createAgentTestEnv failed: its error is the one to read
beforeEach(() => {
  refunds.length = 0;
});

test('a refund waits for a person, runs once approved, and the model is shown its result', async () => {
  model.reset([{ toolCalls: [{ id: 'r1', name: 'refund_order', arguments: { id: '8' } }] }, 'Order 8 is refunded.']);

  const run = await env.start('Please refund order 8.');
  const [pending] = await run.waitForApproval();
  expect(pending).toMatchObject({ id: 'r1', tool: 'refund_order' });
  expect(refunds).toEqual([]);
  await run.approve('r1');

  expect((await run.result()).answer).toBe('Order 8 is refunded.');
  expect(refunds).toEqual(['8']);
  expect(model.requests[1].messages.at(-1)).toMatchObject({ role: 'tool', content: 'order 8 refunded' });
});

// Every run recorded in histories/ must replay against this code: a change that would break the runs in flight
// (a workflow changed without a patch, an upgrade that is not replay-safe) fails here, before a deploy.
test('the recorded runs replay against this code', async () => {
  const runs = await expectHistoriesToReplay(path.join(__dirname, '..', 'histories'), { agents });

  expect(runs.map((run) => run.workflowId)).toEqual(['refund-order-8']);
});
