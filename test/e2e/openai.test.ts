import { openaiReply } from '../support/fake-model-server';
import { fetchEvents, scheduledActivities } from '../support/history';
import { createTestWorker, runAgent, uniqueTaskQueue } from '../support/temporal';
import { makeWorkspace } from '../support/workspace';
import { useTestBed } from '../support/test-bed';

const bed = useTestBed();

it('runs a parallel tool loop through the real openai client', async () => {
  const workspace = await makeWorkspace({ 'alpha.txt': 'A-content', 'beta.txt': 'B-content' });
  bed.server.enqueue(
    openaiReply({
      toolCalls: [
        { id: 'call_a', name: 'read_file', arguments: { path: 'alpha.txt' } },
        { id: 'call_b', name: 'read_file', arguments: { path: 'beta.txt' } },
      ],
    }),
    openaiReply({ content: 'alpha says A-content, beta says B-content' }),
  );
  const taskQueue = uniqueTaskQueue('openai');
  const worker = await createTestWorker(bed.environment, { taskQueue, env: bed.server.providerEnv });
  const { result, workflowId } = await worker.runUntil(
    runAgent(bed.environment, taskQueue, {
      prompt: 'What do the files say?',
      systemPrompt: 'You are terse.',
      model: 'openai:gpt-4o-mini',
      tools: ['read_file'],
      workspace,
    }),
  );

  expect(result).toEqual({
    agent: 'default',
    answer: 'alpha says A-content, beta says B-content',
    status: 'completed',
    iterations: 2,
    turns: 1,
    // gpt-4o-mini at $0.15 / $0.60 per million tokens in / out (pricing/default-prices.json).
    usage: { inputTokens: 200, outputTokens: 40, costUsd: expect.closeTo((200 * 0.15 + 40 * 0.6) / 1e6, 12) },
  });
  expect(bed.server.requests).toHaveLength(2);
  const [first, second] = bed.server.requests;
  expect(first.path).toBe('/v1/chat/completions');
  expect(first.headers.authorization).toBe('Bearer sk-test-openai-secret');
  expect(first.body.model).toBe('gpt-4o-mini');
  expect(first.body.messages).toEqual([
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'What do the files say?' },
  ]);
  expect(first.body.tools).toEqual([
    {
      type: 'function',
      function: {
        name: 'read_file',
        description: expect.any(String),
        parameters: expect.objectContaining({
          type: 'object',
          required: ['path'],
          properties: { path: expect.objectContaining({ type: 'string' }) },
        }),
      },
    },
  ]);
  expect(second.body.messages.slice(2)).toEqual([
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call_a', type: 'function', function: { name: 'read_file', arguments: '{"path":"alpha.txt"}' } },
        { id: 'call_b', type: 'function', function: { name: 'read_file', arguments: '{"path":"beta.txt"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'call_a', content: 'A-content' },
    { role: 'tool', tool_call_id: 'call_b', content: 'B-content' },
  ]);

  const events = await fetchEvents(bed.environment.client, workflowId);
  const reads = scheduledActivities(events).filter((activity) => activity.activityType === 'read_file');
  expect(reads).toHaveLength(2);
  expect(reads[0].workflowTaskCompletedEventId).toBe(reads[1].workflowTaskCompletedEventId);
  expect(JSON.stringify(events)).not.toContain('sk-test-openai-secret');
});
