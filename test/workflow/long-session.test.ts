import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { temporal } from '@temporalio/proto';
import type { AgentInput } from '../../core/resolve-input';
import type { AgentResult } from '../../core/result';
import { summaryLead } from '../../core/context-view';
import { summaryPrompt } from '../../activities/model/with-transcript';
import { MemoryTranscriptStore } from '../../storage/transcript/transcript-store';
import { agentWorkflowType, messagesQuery, sendMessageUpdate } from '../../workflows/definitions';
import { activityAttempts, fetchEvents } from '../support/history';
import { answer, callTools, ScriptedModel } from '../support/scripted-model';
import { connectToTestServer, createTestWorker, uniqueTaskQueue, resolved } from '../support/temporal';
import { makeWorkspace } from '../support/workspace';

const EventType = temporal.api.enums.v1.EventType;
let environment: TestWorkflowEnvironment;
let workspace: string;
beforeAll(async () => {
  environment = await connectToTestServer();
  workspace = await makeWorkspace({ 'big.txt': 'B'.repeat(1000) });
});
afterAll(() => environment?.teardown());

async function run(model: ScriptedModel, input: Partial<AgentInput>, body?: (workflowId: string) => Promise<void>) {
  const taskQueue = uniqueTaskQueue('long');
  const worker = await createTestWorker(environment, { taskQueue, model });
  const workflowId = `long-${Date.now()}-${Math.random().toString(16).slice(2)}`;
  const result = await worker.runUntil(async () => {
    const handle = await environment.client.workflow.start<(input: AgentInput) => Promise<AgentResult>>(agentWorkflowType, {
      taskQueue,
      workflowId,
      args: [resolved({ model: 'openai:test', tools: ['read_file'], workspace, ...input })],
    });
    await body?.(workflowId);
    return handle.result();
  });
  return { result, workflowId };
}

const readBig = () => callTools({ name: 'read_file', arguments: { path: 'big.txt' } });

async function runIds(workflowId: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const execution of environment.client.workflow.list({ query: `WorkflowId = "${workflowId}"` }))
    ids.push(execution.runId);
  return ids;
}

it('sends each model call only the messages that are new since the stored transcript', async () => {
  const model = new ScriptedModel([readBig(), readBig(), readBig(), answer('done')]);
  await run(model, { prompt: 'read it three times' });
  expect(model.requests.map((request) => request.transcript.messages.length)).toEqual([1, 1, 1, 1]);
  expect(model.requests.map((request) => request.transcript.baseLength)).toEqual([0, 2, 4, 6]);
  expect(model.requests[3].messages).toHaveLength(7);
});

it('resends the conversation inline when the transcript store has lost it', async () => {
  const model = new ScriptedModel([
    readBig(),
    (request) => {
      return answer(`saw ${request.messages.length} messages`);
    },
  ]);
  // The store forgets everything after the first call, as a wiped disk or a worker on another machine would.
  const original = model.callModel;
  let calls = 0;
  model.callModel = async (input) => {
    if (calls++ === 1) model.transcripts = new MemoryTranscriptStore();
    return original(input);
  };
  const { result, workflowId } = await run(model, { prompt: 'survive a lost store' });
  expect(result.answer).toBe('saw 3 messages');
  expect(model.requests[1].transcript).toMatchObject({ baseLength: 0 });
  expect(model.requests[1].transcript.messages).toHaveLength(3);
  expect(
    activityAttempts(await fetchEvents(environment.client, workflowId)).filter((a) => a.activityType === 'callModel'),
  ).toHaveLength(3);
});

it('continues a long tool loop as new mid-turn and finishes it under the same workflow id', async () => {
  const model = new ScriptedModel([readBig(), readBig(), readBig(), readBig(), answer('read four times')]);
  const { result, workflowId } = await run(model, { prompt: 'loop', continueAsNewAfterModelCalls: 2 });
  expect(result).toMatchObject({ status: 'completed', answer: 'read four times', iterations: 5, turns: 1 });
  expect((await runIds(workflowId)).length).toBe(3);
  expect(model.requests[4].messages).toHaveLength(9);
  // The first run's history ends by handing over, not by failing.
  const first = await environment.client.workflow.getHandle(workflowId, (await runIds(workflowId)).at(-1)).fetchHistory();
  expect(first.events?.at(-1)?.eventType).toBe(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW);
});

it('keeps a session going across continue-as-new: updates by workflow id work and queries return the whole conversation', async () => {
  const model = new ScriptedModel([answer('a1'), answer('a2'), answer('a3')]);
  const { result, workflowId } = await run(
    model,
    { session: { idleTimeoutSeconds: 600 }, continueAsNewAfterModelCalls: 1 },
    async (id) => {
      const handle = environment.client.workflow.getHandle(id);
      for (const message of ['m1', 'm2', 'm3']) {
        await handle.executeUpdate(sendMessageUpdate, { args: [message] });
        // Wait for the hand-over to the next run before the next message.
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
      expect((await handle.query(messagesQuery)).map((message) => message.content)).toEqual(['m1', 'a1', 'm2', 'a2', 'm3', 'a3']);
      await handle.signal('endSession');
    },
  );
  expect(result).toMatchObject({ status: 'ended', turns: 3, iterations: 3, usage: { inputTokens: 30, outputTokens: 15 } });
  expect((await runIds(workflowId)).length).toBeGreaterThanOrEqual(3);
});

it('compacts old tool-call arguments and tool results in what the model sees', async () => {
  const model = new ScriptedModel([readBig(), readBig(), readBig(), answer('ok')]);
  await run(model, { prompt: 'compact', context: { compactAfterTurns: 2, keepRecentTurns: 4 } });
  const seen = model.requests[3].messages.filter((message) => message.role === 'tool').map((message) => message.content);
  expect(seen[0]).toMatch(/^B{200}… \[compacted: 1000 characters\]$/);
  expect(seen[1]).toBe('B'.repeat(1000));
  expect(seen[2]).toBe('B'.repeat(1000));
});

it('summarises older turns with a model call when the input exceeds the context budget', async () => {
  const small = { ...readBig(), usage: { inputTokens: 10, outputTokens: 8 } };
  const model = new ScriptedModel([small, readBig(), answer('the summary'), small, answer('done')]);
  // The second call reports 20 input tokens, over the budget of 15: the turns before the latest are summarised.
  const { result } = await run(model, { prompt: 'summarise', context: { maxContextTokens: 15, keepRecentTurns: 1 } });
  expect(result.answer).toBe('done');
  const summaryRequest = model.requests[2];
  expect(summaryRequest.offeredTools).toEqual([]);
  expect(summaryRequest.messages.at(-1)).toEqual({ role: 'user', content: summaryPrompt });
  expect(summaryRequest.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'user']);
  expect(model.requests[3].messages[0]).toEqual({ role: 'user', content: `${summaryLead}the summary` });
  expect(model.requests[3].messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
});

it('carries a conversation larger than the external-storage threshold across continue-as-new as a small claim', async () => {
  const large = await makeWorkspace({ 'large.txt': 'L'.repeat(100_000) });
  const readLarge = () => callTools({ name: 'read_file', arguments: { path: 'large.txt' } });
  const model = new ScriptedModel([readLarge(), readLarge(), readLarge(), readLarge(), readLarge(), answer('read it all')]);
  let messageCount = 0;
  const { result, workflowId } = await run(
    model,
    { prompt: 'read large', workspace: large, continueAsNewAfterModelCalls: 5 },
    async (id) => {
      const handle = environment.client.workflow.getHandle(id);
      await handle.result();
      // The query's answer (over 256 KiB) travels through external storage too.
      messageCount = (await handle.query(messagesQuery)).length;
    },
  );
  expect(result.answer).toBe('read it all');
  const runs = await runIds(workflowId);
  expect(runs.length).toBe(2);
  // The second run starts from the carried conversation (5 x 64 KiB of tool output), held in external storage.
  const second = await environment.client.workflow.getHandle(workflowId, runs[0]).fetchHistory();
  const started = temporal.api.history.v1.HistoryEvent.encode(second.events![0]).finish().length;
  expect(started).toBeLessThan(20_000);
  expect(model.requests[5].messages.filter((message) => message.role === 'tool')).toHaveLength(5);
  expect(messageCount).toBe(12);
});
