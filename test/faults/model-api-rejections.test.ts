import { randomUUID } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import { runCli } from '../support/cli';
import { anthropicError, openaiError } from '../support/fake-model-server';
import { attemptsOf, workflowExecutionFailure } from '../support/fault-history';
import { fetchEvents } from '../support/history';
import { createTestWorker, uniqueTaskQueue, resolved } from '../support/temporal';
import { agentWorkflowType } from '../../workflows/definitions';
import { useTestBed } from '../support/test-bed';

// Row 3 (rejected half): a provider's 4xx ends the run at once, with the provider's
// own message on the workflow failure, in the history (the Web UI) and on the CLI.

const openai = 'openai:gpt-4o-mini';
const anthropic = 'anthropic:claude-haiku-4-5';
const openaiResponses = 'openai-responses:o4-mini';

const rejections: Array<[number, string]> = [
  [400, "Invalid parameter: 'messages' must not be empty"],
  [401, 'Incorrect API key provided'],
  [403, 'Project does not have access to this model'],
  [404, 'The model `gpt-9` does not exist'],
  [422, 'Unprocessable request'],
];

const bed = useTestBed();

async function failedRun(model: string) {
  const taskQueue = uniqueTaskQueue('model-rejections');
  const workflowId = `rejected-${randomUUID()}`;
  const worker = await createTestWorker(bed.environment, { taskQueue, env: bed.server.providerEnv });
  const failure = await worker
    .runUntil(
      bed.environment.client.workflow.execute(agentWorkflowType, {
        taskQueue,
        workflowId,
        args: [resolved({ prompt: 'hello', model, workspace: bed.workspace })],
      }),
    )
    .catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(WorkflowFailedError);
  return { cause: (failure as WorkflowFailedError).cause, events: await fetchEvents(bed.environment.client, workflowId) };
}

describe.each([
  [openai, openaiError],
  [openaiResponses, openaiError],
  [anthropic, anthropicError],
])('%s', (model, providerError) => {
  it.each(rejections)('fails at once on HTTP %i, non-retryably, with the provider message', async (status, message) => {
    bed.server.enqueue(providerError(status, message));
    const { cause, events } = await failedRun(model);
    const provider = model.split(':')[0];
    expect(cause).toMatchObject({
      type: 'ProviderRejectedRequest',
      nonRetryable: true,
      message: `${provider} rejected the request (HTTP ${status}): ${message}`,
    });
    expect(bed.server.requests).toHaveLength(1);
    expect(attemptsOf(events, 'callModel')).toEqual([1]);
    expect(workflowExecutionFailure(events)).toEqual({ type: 'ProviderRejectedRequest', message: cause!.message });
  });
});

it.each([
  [openai, openaiError(401, 'Incorrect API key provided: sk-test***')],
  [anthropic, anthropicError(403, 'Your API key does not have permission to use the specified resource.')],
])('shows the %s rejection message on the CLI and in the history the Web UI reads', async (model, step) => {
  bed.server.enqueue(step);
  const workflowId = `rejected-${randomUUID()}`;
  const cli = await runCli(['run', 'hello', '--model', model, '--workspace', bed.workspace, '--id', workflowId], {
    ...bed.server.providerEnv,
    AGENT_TASK_QUEUE: uniqueTaskQueue('model-rejections-cli'),
  });
  const providerMessage = (step as { json: { error: { message: string } } }).json.error.message;

  expect(cli.code).toBe(1);
  const events = await fetchEvents(bed.environment.client, workflowId);
  const failure = workflowExecutionFailure(events);
  expect(failure).toEqual({ type: 'ProviderRejectedRequest', message: expect.stringContaining(providerMessage) });
  expect(cli.stderr).toContain(failure!.message);
  expect(attemptsOf(events, 'callModel')).toEqual([1]);
  expect(bed.server.requests).toHaveLength(1);
});
