import { WorkflowFailedError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { anthropicError, anthropicReply, FakeModelServer, openaiError, openaiReply } from '../support/fake-model-server';
import { activityAttempts, fetchEvents } from '../support/history';
import { connectToTestServer, createTestWorker, runAgent, uniqueTaskQueue } from '../support/temporal';
import { makeWorkspace } from '../support/workspace';

let environment: TestWorkflowEnvironment;
let server: FakeModelServer;
let workspace: string;

beforeAll(async () => {
  environment = await connectToTestServer();
  server = await FakeModelServer.start();
  workspace = await makeWorkspace();
});
beforeEach(() => server.reset());
afterAll(async () => {
  await server?.close();
  await environment?.teardown();
});

async function run(model: string) {
  const taskQueue = uniqueTaskQueue('provider-errors');
  const worker = await createTestWorker(environment, { taskQueue, env: server.providerEnv });
  return worker.runUntil(runAgent(environment, taskQueue, { prompt: 'hello', model, workspace }));
}

function modelAttempts(events: Awaited<ReturnType<typeof fetchEvents>>): number[] {
  return activityAttempts(events).filter((activity) => activity.activityType === 'callModel').map((activity) => activity.attempt);
}

it('waits as long as a 429 Retry-After says, then retries through Temporal', async () => {
  server.enqueue(openaiError(429, 'Rate limit reached', { 'retry-after': '2' }), openaiReply({ content: 'after the wait' }));
  const { result, workflowId } = await run('openai:gpt-4o-mini');
  expect(result.answer).toBe('after the wait');
  expect(server.requests).toHaveLength(2);
  expect(server.requests[1].receivedAt - server.requests[0].receivedAt).toBeGreaterThanOrEqual(1900);
  expect(modelAttempts(await fetchEvents(environment.client, workflowId))).toEqual([2]);
});

it('retries a 500 as a new activity attempt, with the SDK retries off', async () => {
  server.enqueue(anthropicError(500, 'Internal server error'), anthropicReply({ text: 'recovered' }));
  const { result } = await run('anthropic:claude-haiku-4-5');
  expect(result.answer).toBe('recovered');
  expect(server.requests).toHaveLength(2);
});

it.each([
  ['openai:gpt-4o-mini', openaiError(400, "Invalid parameter: 'messages' must not be empty")],
  ['anthropic:claude-haiku-4-5', anthropicError(400, "Invalid parameter: 'messages' must not be empty")],
])('fails %s fast on a 400 and keeps the provider message', async (model, step) => {
  server.enqueue(step);
  const failure = await run(model).catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(WorkflowFailedError);
  expect((failure as WorkflowFailedError).cause).toMatchObject({
    type: 'ProviderRejectedRequest',
    message: expect.stringMatching(/rejected the request \(HTTP 400\): Invalid parameter: 'messages' must not be empty$/),
  });
  expect(server.requests).toHaveLength(1);
});
