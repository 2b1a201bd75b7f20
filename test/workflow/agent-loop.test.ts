import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { emptyReplyPrompt, reflectionPrompt } from '../../workflows/agent';
import { fetchEvents, scheduledActivities } from '../support/history';
import { scriptedModel, type ScriptedModel } from 'durable-agent/testing';
import { connectToTestServer, createTestWorker, runAgent, uniqueTaskQueue } from '../support/temporal';

const allTools = ['read_file', 'write_file', 'list_directory', 'search_files'];
let environment: TestWorkflowEnvironment;
let workspace: string;

beforeAll(async () => {
  environment = await connectToTestServer();
  workspace = await mkdtemp(path.join(os.tmpdir(), 'agent-loop-'));
  await writeFile(path.join(workspace, 'alpha.txt'), 'alpha contents');
  await writeFile(path.join(workspace, 'beta.txt'), 'beta contents');
});
afterAll(() => environment?.teardown());

async function run(model: ScriptedModel, input: Record<string, unknown> = {}) {
  const taskQueue = uniqueTaskQueue('loop');
  const worker = await createTestWorker(environment, { taskQueue, model });
  return worker.runUntil(
    runAgent(environment, taskQueue, {
      prompt: 'do the task',
      model: 'scripted:test-model',
      tools: allTools,
      workspace,
      ...input,
    }),
  );
}

describe('agent loop', () => {
  it('returns the answer of a model that needs no tools', async () => {
    const model = scriptedModel(['42']);
    const { result } = await run(model);
    expect(result).toEqual({
      answer: '42',
      status: 'completed',
      iterations: 1,
      turns: 1,
      usage: { inputTokens: 10, outputTokens: 5, unpricedCalls: 1 },
      agent: 'default',
    });
    expect(model.requests[0].messages).toEqual([{ role: 'user', content: 'do the task' }]);
    expect(model.requests[0].tools.map((tool) => tool.name)).toEqual(allTools);
  });

  it('feeds tool results back to the model over several turns', async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: 'read_file', arguments: { path: 'alpha.txt' }, id: 'c1' }] },
      { toolCalls: [{ name: 'write_file', arguments: { path: 'out/copy.txt', content: 'copied' }, id: 'c2' }] },
      'done',
    ]);
    const { result } = await run(model, { systemPrompt: 'be brief' });
    expect(result.status).toBe('completed');
    expect(result.iterations).toBe(3);
    expect(result.usage).toEqual({ inputTokens: 30, outputTokens: 15, unpricedCalls: 3 });
    expect(model.requests[1].messages.slice(-1)).toEqual([
      { role: 'tool', toolCallId: 'c1', toolName: 'read_file', content: 'alpha contents', isError: false },
    ]);
    expect(model.requests[2].messages[0]).toEqual({ role: 'system', content: 'be brief' });
    expect(model.requests[2].messages.slice(-1)[0]).toMatchObject({ toolCallId: 'c2', content: 'wrote 6 bytes to out/copy.txt' });
  });

  it('schedules parallel tool calls together and appends results in the order asked', async () => {
    const model = scriptedModel([
      {
        toolCalls: [
          { name: 'read_file', arguments: { path: 'beta.txt' }, id: 'p1' },
          { name: 'list_directory', arguments: { path: '.' }, id: 'p2' },
          { name: 'read_file', arguments: { path: 'alpha.txt' }, id: 'p3' },
        ],
      },
      'read both',
    ]);
    const { workflowId } = await run(model);
    const results = model.requests[1].messages.filter((message) => message.role === 'tool');
    expect(results.map((message) => message.role === 'tool' && message.toolCallId)).toEqual(['p1', 'p2', 'p3']);
    expect(results.map((message) => message.content)).toEqual([
      'beta contents',
      expect.stringContaining('alpha.txt'),
      'alpha contents',
    ]);

    const tools = scheduledActivities(await fetchEvents(environment.client, workflowId)).filter(
      (a) => a.activityType !== 'callModel' && a.activityType !== 'prepareRun',
    );
    expect(tools.map((activity) => activity.summary)).toEqual(['read_file beta.txt', 'list_directory .', 'read_file alpha.txt']);
    expect(new Set(tools.map((activity) => activity.workflowTaskCompletedEventId)).size).toBe(1);
  });

  it('caps how many tool calls run at once', async () => {
    const reads = ['a', 'b', 'c'].map((_, index) => ({ name: 'list_directory', arguments: { path: '.' }, id: `cap${index}` }));
    const model = scriptedModel([{ toolCalls: reads }, 'ok']);
    const { workflowId } = await run(model, { maxConcurrentTools: 1 });
    const tools = scheduledActivities(await fetchEvents(environment.client, workflowId)).filter(
      (a) => a.activityType === 'list_directory',
    );
    expect(new Set(tools.map((activity) => activity.workflowTaskCompletedEventId)).size).toBe(3);
  });

  it('ends at max iterations with a summary made without tools', async () => {
    const listing = { toolCalls: [{ name: 'list_directory', arguments: {} }] };
    const model = scriptedModel([listing, listing, 'summary of the work']);
    const { result } = await run(model, { maxIterations: 2 });
    expect(result).toMatchObject({ status: 'max_iterations', answer: 'summary of the work', iterations: 2 });
    expect(model.requests).toHaveLength(3);
    // The tools stay defined (the conversation holds tool calls) but the model may not call them.
    expect(model.requests[2].toolChoice).toBe('none');
    expect(model.requests[2].tools.map((tool) => tool.name)).toEqual(allTools);
    expect(model.requests[2].messages.slice(-1)).toEqual([{ role: 'user', content: reflectionPrompt }]);
  });

  it('returns tool errors to the model instead of failing the run', async () => {
    const model = scriptedModel([
      {
        toolCalls: [
          { name: 'no_such_tool', arguments: {}, id: 'e1' },
          { name: 'read_file', arguments: '{"path": ', id: 'e2' },
          { name: 'read_file', arguments: { file: 'alpha.txt' }, id: 'e3' },
          { name: 'read_file', arguments: { path: '../etc/passwd' }, id: 'e4' },
          { name: 'read_file', arguments: { path: 'missing.txt' }, id: 'e5' },
        ],
      },
      'recovered',
    ]);
    const { result } = await run(model);
    expect(result.status).toBe('completed');
    const results = model.requests[1].messages.filter((message) => message.role === 'tool');
    expect(results.every((message) => message.role === 'tool' && message.isError)).toBe(true);
    expect(results.map((message) => message.content)).toEqual([
      expect.stringContaining('unknown tool "no_such_tool"'),
      expect.stringContaining('not valid JSON'),
      expect.stringContaining('invalid arguments for read_file'),
      expect.stringContaining('outside the workspace'),
      expect.stringContaining('does not exist'),
    ]);
  });

  it.each([
    ['length', 'truncated'],
    ['content_filter', 'refused'],
    ['refusal', 'refused'],
  ] as const)('ends with a clear status when the model stops for %s', async (finishReason, status) => {
    const model = scriptedModel([{ text: 'partial', finishReason }]);
    const { result } = await run(model);
    expect(result).toMatchObject({ status, answer: 'partial', iterations: 1 });
  });

  it('asks again after an empty reply, and ends with status empty after two in a row', async () => {
    const recovered = scriptedModel(['', 'here it is']);
    expect((await run(recovered)).result).toMatchObject({ status: 'completed', answer: 'here it is', iterations: 2 });
    expect(recovered.requests[1].messages.slice(-1)).toEqual([{ role: 'user', content: emptyReplyPrompt }]);

    const silent = scriptedModel(['', '  ']);
    expect((await run(silent)).result).toMatchObject({ status: 'empty', answer: '', iterations: 2 });
  });
});
