import { WorkflowFailedError } from '@temporalio/client';
import { anthropicError, anthropicReply, openaiError, openaiReply } from '../support/fake-model-server';
import { activityAttempts, fetchEvents } from '../support/history';
import { createTestWorker, runAgent, uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';

const bed = useTestBed();

async function run(model: string) {
  const taskQueue = uniqueTaskQueue('provider-errors');
  const worker = await createTestWorker(bed.environment, { taskQueue, env: bed.server.providerEnv });
  return worker.runUntil(runAgent(bed.environment, taskQueue, { prompt: 'hello', model, workspace: bed.workspace }));
}

function modelAttempts(events: Awaited<ReturnType<typeof fetchEvents>>): number[] {
  return activityAttempts(events)
    .filter((activity) => activity.activityType === 'callModel')
    .map((activity) => activity.attempt);
}

it('waits as long as a 429 Retry-After says, then retries through Temporal', async () => {
  bed.server.enqueue(openaiError(429, 'Rate limit reached', { 'retry-after': '2' }), openaiReply({ content: 'after the wait' }));
  const { result, workflowId } = await run('openai:gpt-4o-mini');
  expect(result.answer).toBe('after the wait');
  expect(bed.server.requests).toHaveLength(2);
  expect(bed.server.requests[1].receivedAt - bed.server.requests[0].receivedAt).toBeGreaterThanOrEqual(1900);
  expect(modelAttempts(await fetchEvents(bed.environment.client, workflowId))).toEqual([2]);
});

it('retries a 500 as a new activity attempt, with the SDK retries off', async () => {
  bed.server.enqueue(anthropicError(500, 'Internal server error'), anthropicReply({ text: 'recovered' }));
  const { result } = await run('anthropic:claude-haiku-4-5');
  expect(result.answer).toBe('recovered');
  expect(bed.server.requests).toHaveLength(2);
});

it.each([
  ['openai:gpt-4o-mini', openaiError(400, "Invalid parameter: 'messages' must not be empty")],
  ['anthropic:claude-haiku-4-5', anthropicError(400, "Invalid parameter: 'messages' must not be empty")],
])('fails %s fast on a 400 and keeps the provider message', async (model, step) => {
  bed.server.enqueue(step);
  const failure = await run(model).catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(WorkflowFailedError);
  expect((failure as WorkflowFailedError).cause).toMatchObject({
    type: 'ProviderRejectedRequest',
    message: expect.stringMatching(/rejected the request \(HTTP 400\): Invalid parameter: 'messages' must not be empty$/),
  });
  expect(bed.server.requests).toHaveLength(1);
});
