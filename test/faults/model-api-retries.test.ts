import { randomUUID } from 'node:crypto';
import type { AgentInput } from '../../core/resolve-input';
import type { AgentResult } from '../../core/result';
import { agentWorkflowType } from '../../workflows/definitions';
import {
  anthropicError,
  anthropicReply,
  openaiError,
  openaiReply,
  openaiResponsesReply,
  type FakeStep,
} from '../support/fake-model-server';
import { attemptsOf, finalAttempts, retriedPendingAttempt } from '../support/fault-history';
import { fetchEvents } from '../support/history';
import { forwardPort, unusedPort } from '../support/late-listener';
import { createTestWorker, runAgent, uniqueTaskQueue, resolved } from '../support/temporal';
import { waitFor } from '../support/wait-for';
import { useTestBed } from '../support/test-bed';

// Row 3 (retryable half): transient provider faults are retried by Temporal, one
// request per activity attempt, through the real SDK clients with their retries off.

const openai = 'openai:gpt-4o-mini';
const anthropic = 'anthropic:claude-haiku-4-5';
const openaiResponses = 'openai-responses:o4-mini';

const bed = useTestBed();

async function run(model: string, input: Partial<AgentInput> = {}) {
  const taskQueue = uniqueTaskQueue('model-retries');
  const worker = await createTestWorker(bed.environment, { taskQueue, env: bed.server.providerEnv });
  const { result, workflowId } = await worker.runUntil(
    runAgent(bed.environment, taskQueue, { prompt: 'hello', model, workspace: bed.workspace, ...input }),
  );
  return { result, events: await fetchEvents(bed.environment.client, workflowId) };
}

it('waits as long as an OpenAI retry-after-ms header says before the next attempt', async () => {
  // 3 s is well above the 1 s the retry policy would wait on its own.
  bed.server.enqueue(
    openaiError(429, 'Rate limit reached', { 'retry-after-ms': '3000' }),
    openaiReply({ content: 'after the wait' }),
  );
  const { result, events } = await run(openai);
  expect(result.answer).toBe('after the wait');
  expect(bed.server.requests).toHaveLength(2);
  expect(bed.server.requests[1].receivedAt - bed.server.requests[0].receivedAt).toBeGreaterThanOrEqual(2900);
  expect(finalAttempts(events, 'callModel')).toEqual([
    {
      activityType: 'callModel',
      attempt: 2,
      lastFailure: { type: 'ProviderUnavailable', message: expect.stringContaining('HTTP 429') },
    },
  ]);
});

it.each<[string, FakeStep[], FakeStep]>([
  [
    openai,
    [
      openaiError(500, 'The server had an error'),
      openaiError(503, 'The engine is currently overloaded'),
      openaiError(500, 'The server had an error'),
    ],
    openaiReply({ content: 'through the burst' }),
  ],
  [
    openaiResponses,
    [openaiError(500, 'The server had an error'), openaiError(503, 'Slow down'), openaiError(500, 'The server had an error')],
    openaiResponsesReply({ content: 'through the burst' }),
  ],
  [
    anthropic,
    [anthropicError(529, 'Overloaded'), anthropicError(503, 'Service unavailable'), anthropicError(500, 'Internal server error')],
    anthropicReply({ text: 'through the burst' }),
  ],
])('answers after a burst of three 5xx from %s, one request per attempt', async (model, burst, reply) => {
  bed.server.enqueue(...burst, reply);
  const { result, events } = await run(model);
  expect(result).toMatchObject({ answer: 'through the burst', status: 'completed' });
  expect(bed.server.requests).toHaveLength(4);
  expect(finalAttempts(events, 'callModel')).toEqual([
    {
      activityType: 'callModel',
      attempt: 4,
      lastFailure: { type: 'ProviderUnavailable', message: expect.stringContaining('HTTP 500') },
    },
  ]);
});

it('retries a refused connection until the provider comes up', async () => {
  bed.server.enqueue(openaiReply({ content: 'finally up' }));
  const port = await unusedPort();
  const taskQueue = uniqueTaskQueue('model-retries');
  const worker = await createTestWorker(bed.environment, {
    taskQueue,
    env: { OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`, OPENAI_API_KEY: 'sk-test' },
  });
  let forwarder: Awaited<ReturnType<typeof forwardPort>> | undefined;
  try {
    const workflowId = `refused-${randomUUID()}`;
    const result = await worker.runUntil(async () => {
      const handle = await bed.environment.client.workflow.start<(input: AgentInput) => Promise<AgentResult>>(agentWorkflowType, {
        taskQueue,
        workflowId,
        args: [resolved({ prompt: 'hello', model: openai, workspace: bed.workspace })],
      });
      await waitFor('a refused model attempt', () => retriedPendingAttempt(bed.environment.client, workflowId, 'callModel'));
      forwarder = await forwardPort(port, bed.server.url);
      return handle.result();
    });
    expect(result.answer).toBe('finally up');
    expect(bed.server.requests).toHaveLength(1);
    const [started] = finalAttempts(await fetchEvents(bed.environment.client, workflowId), 'callModel');
    expect(started.attempt).toBeGreaterThanOrEqual(2);
    expect(started.lastFailure).toEqual({ type: 'ProviderUnavailable', message: expect.stringMatching(/connection/i) });
  } finally {
    await forwarder?.close();
  }
});

it('retries a connection the provider resets', async () => {
  bed.server.enqueue({ reset: true }, openaiReply({ content: 'after the reset' }));
  const { result, events } = await run(openai);
  expect(result.answer).toBe('after the reset');
  expect(bed.server.requests).toHaveLength(2);
  expect(finalAttempts(events, 'callModel')).toEqual([
    {
      activityType: 'callModel',
      attempt: 2,
      lastFailure: { type: 'ProviderUnavailable', message: expect.stringMatching(/connection/i) },
    },
  ]);
});

it('times out a response that never comes and retries it', async () => {
  bed.server.enqueue({ hang: true }, openaiReply({ content: 'second time lucky' }));
  const { result, events } = await run(openai, { modelTimeoutSeconds: 2 });
  expect(result.answer).toBe('second time lucky');
  expect(bed.server.requests).toHaveLength(2);
  const [started] = finalAttempts(events, 'callModel');
  expect(started.attempt).toBe(2);
  // Either the SDK's own timeout (same bound) or Temporal's start-to-close timeout ends the attempt.
  expect(started.lastFailure?.message).toMatch(/time(d)? ?out/i);
});

it.each<[string, string]>([
  [openai, '{"id": "x", "choi'],
  [anthropic, '{"id": "msg_x", "type": "mess'],
])('retries a truncated JSON body from %s', async (model, truncated) => {
  const reply = model === openai ? openaiReply({ content: 'whole this time' }) : anthropicReply({ text: 'whole this time' });
  bed.server.enqueue({ status: 200, raw: truncated }, reply);
  const { result, events } = await run(model);
  expect(result.answer).toBe('whole this time');
  expect(bed.server.requests).toHaveLength(2);
  expect(attemptsOf(events, 'callModel')).toEqual([2]);
});

it('retries a well-formed OpenAI body that has no choices', async () => {
  bed.server.enqueue(
    { status: 200, json: { id: 'chatcmpl-empty', object: 'chat.completion', choices: [] } },
    openaiReply({ content: 'with a choice' }),
  );
  const { result, events } = await run(openai);
  expect(result.answer).toBe('with a choice');
  expect(attemptsOf(events, 'callModel')).toEqual([2]);
});
