// The app's agents under test: a scripted model answers for every agent, while the agents, their tools and their
// approvals are the app's own, on a real Temporal worker in this process (time-skipping test server).
import { createAgentTestEnv, scriptedModel, type AgentTestEnv } from 'durable-agent/testing';
import { support } from '../src/agents';
import { refunds } from '../src/payments';

const model = scriptedModel();
let env: AgentTestEnv;

beforeAll(async () => {
  env = await createAgentTestEnv({ agents: [support], model });
});
afterAll(() => env.shutdown());
beforeEach(() => {
  refunds.length = 0;
});

test('the researcher looks the order up with its tool and answers from what the tool returned', async () => {
  model.reset([{ toolCalls: [{ name: 'lookup_order', arguments: { id: '7' } }] }, 'Order 7 has shipped.']);

  const result = await env.run({ agent: 'researcher', prompt: 'Where is order 7?' });

  expect(result.answer).toBe('Order 7 has shipped.');
  // The second model call was shown the tool's own output.
  expect(model.requests[1].messages.at(-1)).toMatchObject({ role: 'tool', content: '{"id":"7","status":"shipped"}' });
});

test('support asks the researcher, a subagent with a script of its own', async () => {
  model.reset({
    support: [{ toolCalls: [{ name: 'researcher', arguments: { task: 'Find order 8.' } }] }, 'Order 8 was lost, sorry.'],
    researcher: [{ toolCalls: [{ name: 'lookup_order', arguments: { id: '8' } }] }, 'Order 8 is lost in transit.'],
  });

  const result = await env.run('What happened to order 8?');

  expect(result.answer).toBe('Order 8 was lost, sorry.');
  expect(model.requestsOf('researcher')[0].messages.at(-1)?.content).toContain('Find order 8.');
  expect(model.requestsOf('support')[1].messages.at(-1)).toMatchObject({ content: 'Order 8 is lost in transit.' });
});

test('a refund waits for a person, and runs once approved', async () => {
  model.reset([{ toolCalls: [{ id: 'r1', name: 'refund_order', arguments: { id: '8' } }] }, 'Refunded.']);

  const run = await env.start('Please refund order 8.');
  const [pending] = await run.waitForApproval();
  expect(pending).toMatchObject({ id: 'r1', tool: 'refund_order' });
  expect(refunds).toEqual([]);
  await run.approve('r1');

  expect((await run.result()).answer).toBe('Refunded.');
  expect(refunds).toEqual(['8']);
});

test('a denied refund does not run, and the model is told why', async () => {
  model.reset([{ toolCalls: [{ id: 'r2', name: 'refund_order', arguments: { id: '7' } }] }, 'I cannot refund it.']);

  const run = await env.start('Please refund order 7.');
  await run.waitForApproval();
  await run.deny('r2', 'order 7 arrived');
  await run.result();

  expect(refunds).toEqual([]);
  expect(model.requests[1].messages.at(-1)).toMatchObject({ content: 'Error: not run: denied: order 7 arrived' });
});

test('a refund no one approves times out after an hour, at once under time skipping, and does not run', async () => {
  model.reset([{ toolCalls: [{ id: 'r3', name: 'refund_order', arguments: { id: '8' } }] }, 'No one approved it.']);

  const run = await env.start({ prompt: 'Please refund order 8.', approval: { timeoutSeconds: 3600 } });
  await run.waitForApproval();
  // Waiting for the result lets the test server skip ahead: the hour passes without the test waiting for it.
  await run.result();

  expect(refunds).toEqual([]);
  expect(model.requests[1].messages.at(-1)).toMatchObject({ content: 'Error: not run: no one approved it within 3600 s' });
});
