import { WorkflowFailedError } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { anthropicReply, openaiReply, openaiResponsesReply } from '../support/fake-model-server';
import { fetchEvents, scheduledActivities } from '../support/history';
import { createTestWorker, runAgent, uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';
import { makeWorkspace } from '../support/workspace';

/**
 * Batch mode end to end: the real SDK clients against the fake's batch APIs (test/support/fake-batch-api.ts), a
 * real worker and dev server. Each model call is a batch of one request, waited for on timers.
 */
const bed = useTestBed();
const EventType = temporal.api.enums.v1.EventType;

// Checks come quickly here; the defaults (30 s, up to 5 min) suit real batches.
const quickBatch = { firstCheckSeconds: 0.1, maxCheckIntervalSeconds: 0.4, maxSubmissions: 2 };

async function runInBatch(model: string, extra: Record<string, unknown> = {}) {
  const taskQueue = uniqueTaskQueue('batch');
  const worker = await createTestWorker(bed.environment, { taskQueue, env: bed.server.providerEnv });
  const workspace = await makeWorkspace({ 'notes.md': 'ship it\n' });
  return worker.runUntil(
    runAgent(bed.environment, taskQueue, {
      prompt: 'What do the notes say?',
      model,
      tools: ['read_file'],
      workspace,
      batch: quickBatch,
      ...extra,
    }),
  );
}

function failureOf(error: unknown) {
  expect(error).toBeInstanceOf(WorkflowFailedError);
  return (error as WorkflowFailedError).cause as Error & { type?: string };
}

it('sends each model call of an OpenAI run as a batch, runs the tools as usual and pays half', async () => {
  bed.server.enqueue(
    openaiReply({ toolCalls: [{ id: 'call_1', name: 'read_file', arguments: { path: 'notes.md' } }] }),
    openaiReply({ content: 'They say: ship it.' }),
  );
  const { result, workflowId } = await runInBatch('openai:gpt-4o-mini', { stream: true });

  expect(result).toMatchObject({ answer: 'They say: ship it.', status: 'completed', iterations: 2 });
  // gpt-4o-mini at $0.15 / $0.60 per million tokens, halved for the batch API: 2 calls of 100 in, 20 out.
  expect(result.usage).toEqual({
    inputTokens: 200,
    outputTokens: 40,
    costUsd: expect.closeTo(((200 * 0.15 + 40 * 0.6) / 1e6) * 0.5, 12),
  });
  const batches = bed.server.batches.batches;
  expect(batches.map((batch) => [batch.api, batch.endpoint, batch.lines.length])).toEqual([
    ['openai', '/v1/chat/completions', 1],
    ['openai', '/v1/chat/completions', 1],
  ]);
  // The body is the one the online call sends, never streamed (a batch cannot stream, even for a watched run).
  expect(batches[0].lines[0].body).toMatchObject({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'What do the notes say?' }],
  });
  expect(batches[0].lines[0].body.stream).toBeUndefined();
  expect(batches[1].lines[0].body.messages[2]).toEqual({ role: 'tool', tool_call_id: 'call_1', content: 'ship it\n' });
  expect(bed.server.refusals).toEqual([]);
  expect(bed.server.requests.every((request) => request.batchId !== undefined)).toBe(true);
  // Uploaded, created, polled, read: no online call.
  const calls = bed.server.batches.calls.map((call) => `${call.method} ${call.path.replace(/(batch_fake|file-fake)\d+/g, 'ID')}`);
  expect(calls.filter((call) => call === 'POST /v1/files')).toHaveLength(2);
  expect(calls.filter((call) => call === 'POST /v1/batches')).toHaveLength(2);
  expect(calls).toContain('GET /v1/files/ID/content');

  // The history: per call a submit, then timers and short status checks, then the result; the tool in between.
  const events = await fetchEvents(bed.environment.client, workflowId);
  const types = scheduledActivities(events).map((activity) => activity.activityType);
  expect(types).not.toContain('callModel');
  const modelSteps = types.filter((type) => type !== 'prepareRun' && type !== 'read_file');
  expect(modelSteps[0]).toBe('submitModelBatch');
  expect(modelSteps).toContain('checkModelBatch');
  expect(modelSteps.filter((type) => type === 'readModelBatch')).toHaveLength(2);
  expect(types.indexOf('read_file')).toBeGreaterThan(types.indexOf('readModelBatch'));
  const timers = events.filter((event) => event.eventType === EventType.EVENT_TYPE_TIMER_STARTED);
  expect(timers.length).toBe(modelSteps.filter((type) => type === 'checkModelBatch').length);
  expect(scheduledActivities(events).find((activity) => activity.activityType === 'checkModelBatch')?.summary).toMatch(
    /gpt-4o-mini.*\(batch status\)$/,
  );
  expect(JSON.stringify(events)).not.toContain('sk-test-openai-secret');
});

it('sends an Anthropic run through Message Batches and reads its results by custom_id', async () => {
  bed.server.enqueue(
    anthropicReply({ toolCalls: [{ id: 'toolu_1', name: 'read_file', arguments: { path: 'notes.md' } }] }),
    // A hostile reply reuses the earlier call's id: made unique as online, so the conversation stays valid.
    anthropicReply({ toolCalls: [{ id: 'toolu_1', name: 'read_file', arguments: { path: 'notes.md' } }] }),
    anthropicReply({ text: 'Ship it.' }),
  );
  const { result } = await runInBatch('anthropic:claude-haiku-4-5');

  expect(result).toMatchObject({ answer: 'Ship it.', status: 'completed', iterations: 3 });
  expect(result.usage.costUsd).toBeCloseTo((result.usage.inputTokens * 1 + result.usage.outputTokens * 5) / 1e6 / 2, 12);
  const batches = bed.server.batches.batches;
  expect(batches).toHaveLength(3);
  expect(batches.every((batch) => batch.api === 'anthropic' && /^[a-zA-Z0-9_-]{1,64}$/.test(batch.lines[0].customId))).toBe(true);
  const ids = batches[2].lines[0].body.messages
    .flatMap((message: { content: Array<{ type: string; id?: string }> }) => message.content)
    .filter((block: { type: string }) => block.type === 'tool_use')
    .map((block: { id: string }) => block.id);
  expect(ids).toHaveLength(2);
  expect(new Set(ids).size).toBe(2);
  expect(bed.server.refusals).toEqual([]);
});

it('sends a Responses API run to /v1/responses batches', async () => {
  bed.server.enqueue(openaiResponsesReply({ content: 'Done.' }));
  const { result } = await runInBatch('openai-responses:gpt-4o-mini', { tools: [] });
  expect(result).toMatchObject({ answer: 'Done.', status: 'completed' });
  expect(bed.server.batches.batches.map((batch) => batch.endpoint)).toEqual(['/v1/responses']);
  expect(bed.server.batches.batches[0].lines[0].body).toMatchObject({ model: 'gpt-4o-mini', store: false });
  expect(bed.server.refusals).toEqual([]);
});

it('submits a batch that expired again, and finishes with the second', async () => {
  bed.server.batches.plan({ outcome: 'expired' });
  bed.server.enqueue(openaiReply({ content: 'Answered the second time.' }));
  const { result, workflowId } = await runInBatch('openai:gpt-4o-mini', { tools: [] });

  expect(result).toMatchObject({ answer: 'Answered the second time.', status: 'completed', iterations: 1 });
  expect(bed.server.batches.batches).toHaveLength(2);
  // The expired batch answered nothing, and cost nothing: only the second call's tokens are counted.
  expect(result.usage).toMatchObject({ inputTokens: 100, outputTokens: 20 });
  const types = scheduledActivities(await fetchEvents(bed.environment.client, workflowId)).map(
    (activity) => activity.activityType,
  );
  expect(types.filter((type) => type === 'submitModelBatch')).toHaveLength(2);
  expect(types.filter((type) => type === 'readModelBatch')).toHaveLength(2);
});

it('ends the run with BatchFailed when every submission expires', async () => {
  bed.server.batches.always({ outcome: 'expired' });
  const failure = failureOf(await runInBatch('anthropic:claude-haiku-4-5', { tools: [] }).catch((error: unknown) => error));
  expect(failure.type).toBe('BatchFailed');
  expect(failure.message).toMatch(/sent in 2 batch\(es\) and none answered it .*expired/);
  expect(bed.server.batches.batches).toHaveLength(2);
});

it('ends the run with the provider reason when OpenAI fails the batch', async () => {
  bed.server.batches.plan({ outcome: 'failed' });
  const failure = failureOf(await runInBatch('openai:gpt-4o-mini', { tools: [] }).catch((error: unknown) => error));
  expect(failure.type).toBe('BatchFailed');
  expect(failure.message).toMatch(/^the provider failed batch batch_fake\d+: invalid_request: The batch failed validation\.$/);
  // Sending the same request again would fail again: one batch only.
  expect(bed.server.batches.batches).toHaveLength(1);
});

it('fails the run as online when the provider refuses the request inside the batch', async () => {
  bed.server.batches.unknownModels.add('claude-nonexistent');
  const failure = failureOf(await runInBatch('anthropic:claude-nonexistent', { tools: [] }).catch((error: unknown) => error));
  expect(failure.type).toBe('ProviderRejectedRequest');
  expect(failure.message).toMatch(/anthropic rejected the request \(HTTP 400\): not_found_error: model: claude-nonexistent/);
});
