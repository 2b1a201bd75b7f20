import { WorkflowFailedError } from '@temporalio/client';
import { z } from 'zod';
import { defineAgent } from '../../agents/define-agent';
import { defineTool } from '../../tools/define-tool';
import { createAgentTestEnv, failure, scriptedModel, type AgentTestEnv } from '../../testing';
import { ensureTestServer } from '../support/test-server/find-test-server';

// durable-agent/testing, as a user's test uses it: their agents, a tool and a subagent of theirs, on a real worker in
// this process, against Temporal's time-skipping test server (the Java server from Maven Central: no internet here).

// The first run on a machine fetches the test server from Maven Central (about a minute) before the env starts.
jest.setTimeout(300_000);

const lookups: string[] = [];
const lookupOrder = defineTool({
  name: 'lookup_order',
  description: 'Looks an order up by its id.',
  input: z.object({ id: z.string() }),
  async handler({ id }) {
    lookups.push(id);
    return JSON.stringify({ id, status: 'shipped' });
  },
});
const refunds: string[] = [];
const refund = defineTool({
  name: 'refund',
  description: 'Refunds an order.',
  input: z.object({ id: z.string() }),
  needsApproval: () => true,
  async handler({ id }) {
    refunds.push(id);
    return `order ${id} refunded`;
  },
});
const researcher = defineAgent({
  name: 'researcher',
  description: 'Finds facts about orders.',
  instructions: 'You are the researcher.',
  model: 'anthropic:claude-haiku-4-5',
  tools: [lookupOrder],
});
const support = defineAgent({
  name: 'support',
  description: 'Answers customers.',
  instructions: 'You are support. Be brief.',
  model: 'openai:gpt-4o-mini',
  tools: [lookupOrder, refund],
  subagents: [researcher],
  modelSettings: { temperature: 0.2, maxOutputTokens: 300 },
});

const model = scriptedModel();
let env: AgentTestEnv;

beforeAll(async () => {
  env = await createAgentTestEnv({
    agents: [support],
    model,
    testServerPath: await ensureTestServer(),
    workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! },
  });
});
afterAll(() => env?.shutdown());
beforeEach(() => {
  lookups.length = 0;
  refunds.length = 0;
});

it('records each request: the instructions and prompt, the tools offered, the model settings, and the tool result linked by call id', async () => {
  model.reset([{ toolCalls: [{ id: 'c1', name: 'lookup_order', arguments: { id: '7' } }] }, 'Order 7 has shipped.']);
  const result = await env.run('Where is order 7?');
  expect(result).toMatchObject({ status: 'completed', answer: 'Order 7 has shipped.', agent: 'support', iterations: 2 });
  expect(lookups).toEqual(['7']);
  const [first, second] = model.requests;
  expect(first.agent).toBe('support');
  expect(first.model).toBe('openai:gpt-4o-mini');
  expect(first.messages).toEqual([
    { role: 'system', content: expect.stringContaining('You are support. Be brief.') },
    { role: 'user', content: 'Where is order 7?' },
  ]);
  expect(first.tools.map((tool) => tool.name).sort()).toEqual(['lookup_order', 'refund', 'researcher']);
  expect(first.tools.find((tool) => tool.name === 'lookup_order')?.parameters).toMatchObject({
    properties: { id: { type: 'string' } },
  });
  expect(first.modelSettings).toEqual({ temperature: 0.2, maxOutputTokens: 300 });
  expect(second.messages.at(-1)).toEqual({
    role: 'tool',
    toolCallId: 'c1',
    toolName: 'lookup_order',
    content: '{"id":"7","status":"shipped"}',
    isError: false,
  });
  expect(model.requests).toHaveLength(2);
});

it('runs a subagent on its own script: the researcher gets the task, and its answer goes back to support', async () => {
  model.reset({
    support: [
      { toolCalls: [{ id: 'ask', name: 'researcher', arguments: { task: 'Find order 9.' } }] },
      (request) => `Researcher says: ${request.messages.at(-1)!.role === 'tool' ? request.messages.at(-1)!.content : '?'}`,
    ],
    researcher: [{ toolCalls: [{ name: 'lookup_order', arguments: { id: '9' } }] }, 'Order 9 shipped on Monday.'],
  });
  const result = await env.run('What about order 9?');
  expect(result.answer).toBe('Researcher says: Order 9 shipped on Monday.');
  expect(lookups).toEqual(['9']);
  const [researcherFirst] = model.requestsOf('researcher');
  expect(researcherFirst.model).toBe('anthropic:claude-haiku-4-5');
  expect(researcherFirst.messages.at(-1)).toEqual({ role: 'user', content: expect.stringContaining('Find order 9.') });
  expect(researcherFirst.tools.map((tool) => tool.name)).toEqual(['lookup_order']);
  expect(model.requestsOf('support')).toHaveLength(2);
});

it('an approved call runs, and its result reaches the model', async () => {
  model.reset([{ toolCalls: [{ id: 'r1', name: 'refund', arguments: { id: '7' } }] }, 'Refunded.']);
  const run = await env.start('Refund order 7.');
  const [pending] = await run.waitForApproval();
  expect(pending).toMatchObject({ id: 'r1', tool: 'refund' });
  expect(refunds).toEqual([]);
  expect(await run.approve('r1')).toEqual(['r1']);
  expect((await run.result()).answer).toBe('Refunded.');
  expect(refunds).toEqual(['7']);
  expect(model.requests[1].messages.at(-1)).toMatchObject({ toolCallId: 'r1', content: 'order 7 refunded', isError: false });
});

it('a denied call does not run, and the model is told why', async () => {
  model.reset([{ toolCalls: [{ id: 'r2', name: 'refund', arguments: { id: '8' } }] }, 'I cannot refund it.']);
  const run = await env.start('Refund order 8.');
  await run.waitForApproval();
  expect(await run.deny('r2', 'refunds need a manager')).toEqual(['r2']);
  expect((await run.result()).answer).toBe('I cannot refund it.');
  expect(refunds).toEqual([]);
  expect(model.requests[1].messages.at(-1)).toMatchObject({
    toolCallId: 'r2',
    content: 'Error: not run: denied: refunds need a manager',
    isError: true,
  });
});

it('under time skipping, a call no one approves times out after its hour at once, and is not run', async () => {
  model.reset([{ toolCalls: [{ id: 'r3', name: 'refund', arguments: { id: '9' } }] }, 'No one approved the refund.']);
  const run = await env.start({ prompt: 'Refund order 9.', approval: { timeoutSeconds: 3600 } });
  await run.waitForApproval();
  // Waiting for the result lets the test server skip time: the hour passes without the test waiting for it.
  expect((await run.result()).answer).toBe('No one approved the refund.');
  expect(refunds).toEqual([]);
  expect(model.requests[1].messages.at(-1)).toMatchObject({
    toolCallId: 'r3',
    content: 'Error: not run: no one approved it within 3600 s',
    isError: true,
  });
});

it('under time skipping, a session answers its messages, then ends idle after its idle timeout', async () => {
  model.reset(['Hello!', 'Order 7 has shipped.']);
  const session = await env.session({ session: { idleTimeoutSeconds: 24 * 3600 } });
  expect((await session.send('Hi')).answer).toBe('Hello!');
  expect((await session.send('And order 7?')).answer).toBe('Order 7 has shipped.');
  // The second request carries the whole conversation so far.
  expect(model.requests[1].messages.slice(1)).toEqual([
    { role: 'user', content: 'Hi' },
    { role: 'assistant', content: 'Hello!', toolCalls: [] },
    { role: 'user', content: 'And order 7?' },
  ]);
  expect(await session.result()).toMatchObject({ status: 'idle_timeout', turns: 2, answer: 'Order 7 has shipped.' });
});

it('a retryable failure is retried by Temporal and the next reply answers; the thinking is sent back with the conversation', async () => {
  model.reset([
    failure.retryable('overloaded'),
    { thinking: 'The order id is 7.', toolCalls: [{ id: 't1', name: 'lookup_order', arguments: { id: '7' } }] },
    'Shipped.',
  ]);
  expect((await env.run('Where is order 7?')).answer).toBe('Shipped.');
  expect(model.requests).toHaveLength(3);
  expect(model.requests[0].messages).toEqual(model.requests[1].messages);
  expect(model.requests[2].messages[2]).toMatchObject({
    role: 'assistant',
    toolCalls: [{ id: 't1', name: 'lookup_order' }],
    thinking: [{ type: 'thinking', provider: 'scripted', text: 'The order id is 7.' }],
  });
});

it('a rejected request is not retried: the run fails with the provider message', async () => {
  model.reset([failure.rejected('the prompt is too long'), 'never sent']);
  const failed = await env.run('Hi').catch((error: unknown) => error);
  expect(failed).toBeInstanceOf(WorkflowFailedError);
  expect(String((failed as WorkflowFailedError).cause?.message)).toContain(
    'scripted rejected the request (HTTP 400): the prompt is too long',
  );
  expect(model.requests).toHaveLength(1);
});

it('a script that runs out fails the run at once, naming the request', async () => {
  model.reset([]);
  const failed = (await env.run('Hi').catch((error: unknown) => error)) as WorkflowFailedError;
  expect(failed.cause?.message).toBe(
    'the scripted model has no reply for request 1 (agent support); its last message: user: "Hi"',
  );
});
