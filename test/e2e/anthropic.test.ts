import { anthropicReply } from '../support/fake-model-server';
import { fetchEvents, scheduledActivities } from '../support/history';
import { createTestWorker, runAgent, uniqueTaskQueue } from '../support/temporal';
import { makeWorkspace } from '../support/workspace';
import { useTestBed } from '../support/test-bed';

const bed = useTestBed();

it('runs a parallel tool loop through the real anthropic client', async () => {
  const workspace = await makeWorkspace({ 'notes.md': '# Notes\nship it\n' });
  bed.server.enqueue(
    anthropicReply({
      text: 'Let me look.',
      toolCalls: [
        { id: 'toolu_1', name: 'list_directory', arguments: { path: '.' } },
        { id: 'toolu_2', name: 'search_files', arguments: { pattern: 'ship' } },
      ],
    }),
    anthropicReply({ text: 'The notes say: ship it.' }),
  );
  const taskQueue = uniqueTaskQueue('anthropic');
  const worker = await createTestWorker(bed.environment, { taskQueue, env: bed.server.providerEnv });
  const { result, workflowId } = await worker.runUntil(
    runAgent(bed.environment, taskQueue, {
      prompt: 'What do the notes say?',
      systemPrompt: 'Be precise.',
      model: 'anthropic:claude-haiku-4-5',
      tools: ['list_directory', 'search_files'],
      workspace,
      maxOutputTokens: 512,
    }),
  );

  expect(result).toEqual({
    agent: 'default',
    answer: 'The notes say: ship it.',
    status: 'completed',
    iterations: 2,
    turns: 1,
    // claude-haiku-4-5 at $1 / $5 per million tokens in / out (pricing/default-prices.json).
    usage: { inputTokens: 400, outputTokens: 60, costUsd: expect.closeTo((400 * 1 + 60 * 5) / 1e6, 12) },
  });
  const [first, second] = bed.server.requests;
  expect(first.path).toBe('/v1/messages');
  // Recent SDKs send the key as a bearer token, older ones as x-api-key.
  expect(first.headers['x-api-key'] ?? first.headers.authorization).toMatch(/sk-ant-test-secret$/);
  expect(first.body).toMatchObject({ model: 'claude-haiku-4-5', max_tokens: 512, system: 'Be precise.' });
  expect(first.body.tools.map((tool: { name: string }) => tool.name)).toEqual(['list_directory', 'search_files']);
  expect(first.body.tools[1].input_schema).toMatchObject({ type: 'object', required: ['pattern'] });
  expect(second.body.messages).toEqual([
    { role: 'user', content: [{ type: 'text', text: 'What do the notes say?' }] },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Let me look.' },
        { type: 'tool_use', id: 'toolu_1', name: 'list_directory', input: { path: '.' } },
        { type: 'tool_use', id: 'toolu_2', name: 'search_files', input: { pattern: 'ship' } },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_1', content: 'notes.md' },
        { type: 'tool_result', tool_use_id: 'toolu_2', content: 'notes.md:2: ship it' },
      ],
    },
  ]);

  const events = await fetchEvents(bed.environment.client, workflowId);
  const tools = scheduledActivities(events).filter(
    (activity) => activity.activityType !== 'callModel' && activity.activityType !== 'prepareRun',
  );
  expect(tools.map((activity) => activity.summary)).toEqual(['list_directory .', 'search_files ship']);
  expect(tools[0].workflowTaskCompletedEventId).toBe(tools[1].workflowTaskCompletedEventId);
  expect(JSON.stringify(events)).not.toContain('sk-ant-test-secret');
});
