import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { AgentInput } from '../../core/resolve-input';
import { emptyReplyPrompt } from '../../workflows/agent';
import { anthropicReply, FakeModelServer, openaiReply, type FakeToolCall } from '../support/fake-model-server';
import { attemptsOf } from '../support/fault-history';
import { fetchEvents, scheduledActivities } from '../support/history';
import { connectToTestServer, createTestWorker, runAgent, uniqueTaskQueue } from '../support/temporal';
import { makeWorkspace } from '../support/workspace';

// Row 4: whatever the model gets wrong comes back to it on its next request,
// through the real OpenAI client and wire format; the run goes on.

const openai = 'openai:gpt-4o-mini';
const tools = ['read_file', 'list_directory'];

let environment: TestWorkflowEnvironment;
let server: FakeModelServer;
let workspace: string;

beforeAll(async () => {
  environment = await connectToTestServer();
  server = await FakeModelServer.start();
  workspace = await makeWorkspace({ 'alpha.txt': 'alpha contents' });
});
beforeEach(() => server.reset());
afterAll(async () => {
  await server?.close();
  await environment?.teardown();
});

async function run(input: Partial<AgentInput> = {}) {
  const taskQueue = uniqueTaskQueue('model-misbehaviour');
  const worker = await createTestWorker(environment, { taskQueue, env: server.providerEnv });
  const { result, workflowId } = await worker.runUntil(
    runAgent(environment, taskQueue, { prompt: 'hello', model: openai, tools, workspace, ...input }),
  );
  return { result, events: await fetchEvents(environment.client, workflowId) };
}

/** The tool messages of the model's n-th request (0-based), as sent on the wire. */
function toolMessagesOf(request: number) {
  return server.requests[request].body.messages.filter((message: { role: string }) => message.role === 'tool');
}

function toolActivities(events: Awaited<ReturnType<typeof fetchEvents>>) {
  return scheduledActivities(events).filter((activity) => tools.includes(activity.activityType));
}

it.each<[string, FakeToolCall, RegExp]>([
  [
    'malformed JSON arguments',
    { id: 'bad_json', name: 'read_file', arguments: '{"path": "alpha.tx' },
    /^Error: arguments for read_file are not valid JSON/,
  ],
  [
    'an unknown tool',
    { id: 'unknown', name: 'delete_everything', arguments: {} },
    /^Error: unknown tool "delete_everything"\. Available tools: read_file, list_directory\.$/,
  ],
])('returns %s to the model as an error result, without running anything', async (_case, call, error) => {
  server.enqueue(openaiReply({ toolCalls: [call] }), openaiReply({ content: 'understood' }));
  const { result, events } = await run();
  expect(result).toMatchObject({ answer: 'understood', status: 'completed', iterations: 2 });
  expect(toolMessagesOf(1)).toEqual([{ role: 'tool', tool_call_id: call.id, content: expect.stringMatching(error) }]);
  expect(toolActivities(events)).toEqual([]);
});

it('returns schema-invalid arguments to the model after one attempt of the tool', async () => {
  server.enqueue(
    openaiReply({ toolCalls: [{ id: 'bad_path', name: 'read_file', arguments: { path: 42 } }] }),
    openaiReply({ content: 'understood' }),
  );
  const { result, events } = await run();
  expect(result).toMatchObject({ answer: 'understood', status: 'completed' });
  expect(toolMessagesOf(1)).toEqual([
    {
      role: 'tool',
      tool_call_id: 'bad_path',
      content: expect.stringMatching(/^Error: invalid arguments for read_file: [\s\S]*path/),
    },
  ]);
  expect(attemptsOf(events, 'read_file')).toEqual([1]);
});

it('runs the good calls of a turn and reports each bad one, in the order asked', async () => {
  server.enqueue(
    openaiReply({
      toolCalls: [
        { id: 'c1', name: 'read_file', arguments: '{"path":' },
        { id: 'c2', name: 'read_file', arguments: { path: 'alpha.txt' } },
        { id: 'c3', name: 'rm_rf', arguments: {} },
        { id: 'c4', name: 'read_file', arguments: { path: ['alpha.txt'] } },
      ],
    }),
    openaiReply({ content: 'one of four worked' }),
  );
  const { result } = await run();
  expect(result.status).toBe('completed');
  expect(toolMessagesOf(1)).toEqual([
    { role: 'tool', tool_call_id: 'c1', content: expect.stringMatching(/^Error: arguments for read_file are not valid JSON/) },
    { role: 'tool', tool_call_id: 'c2', content: 'alpha contents' },
    { role: 'tool', tool_call_id: 'c3', content: expect.stringMatching(/^Error: unknown tool "rm_rf"/) },
    { role: 'tool', tool_call_id: 'c4', content: expect.stringMatching(/^Error: invalid arguments for read_file: [\s\S]*path/) },
  ]);
  // The malformed arguments go back exactly as the model wrote them.
  expect(server.requests[1].body.messages[1].tool_calls[0].function.arguments).toBe('{"path":');
});

it('asks again after an empty reply, sending the empty turn in a form the API accepts', async () => {
  server.enqueue(openaiReply({ content: '' }), openaiReply({ content: 'now an answer' }));
  const { result } = await run();
  expect(result).toMatchObject({ answer: 'now an answer', status: 'completed', iterations: 2 });
  // OpenAI refuses an assistant message with neither content nor tool calls: the empty reply stays in the
  // conversation but is left out of the request.
  expect(server.requests[1].body.messages).toEqual([
    { role: 'user', content: 'hello' },
    { role: 'user', content: emptyReplyPrompt },
  ]);
  expect(server.refusals).toEqual([]);
});

it('ends with status empty after two empty replies in a row', async () => {
  server.enqueue(openaiReply({ content: '' }), openaiReply({ content: '  ' }));
  const { result } = await run();
  expect(result).toMatchObject({ answer: '', status: 'empty', iterations: 2 });
  expect(server.requests).toHaveLength(2);
  expect(server.requests[1].body.messages.at(-1)).toEqual({ role: 'user', content: emptyReplyPrompt });
});

it('asks Anthropic again after an empty reply without sending an empty message', async () => {
  server.enqueue(anthropicReply({ text: '' }), anthropicReply({ text: 'now an answer' }));
  const { result } = await run({ model: 'anthropic:claude-haiku-4-5' });
  expect(result).toMatchObject({ answer: 'now an answer', status: 'completed', iterations: 2 });
  // Anthropic rejects any message with empty content except a final assistant one.
  expect(server.requests[1].body.messages).toEqual([
    {
      role: 'user',
      content: [
        { type: 'text', text: 'hello' },
        { type: 'text', text: emptyReplyPrompt },
      ],
    },
  ]);
});

it('ends with status truncated when the reply is cut at the token limit', async () => {
  server.enqueue(openaiReply({ content: 'The answer is', finishReason: 'length' }));
  const { result } = await run({ maxOutputTokens: 16 });
  expect(result).toMatchObject({ answer: 'The answer is', status: 'truncated', iterations: 1 });
  expect(server.requests).toHaveLength(1);
  expect(server.requests[0].body.max_completion_tokens).toBe(16);
});

it('runs none of the tool calls of a reply cut at the token limit', async () => {
  server.enqueue(
    openaiReply({ toolCalls: [{ id: 'cut', name: 'read_file', arguments: '{"path": "alp' }], finishReason: 'length' }),
  );
  const { result, events } = await run();
  expect(result.status).toBe('truncated');
  expect(server.requests).toHaveLength(1);
  expect(toolActivities(events)).toEqual([]);
});
