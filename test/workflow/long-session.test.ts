import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { temporal } from '@temporalio/proto';
import type { AgentInput } from '../../core/resolve-input';
import type { AgentResult } from '../../core/result';
import { summaryLead } from '../../core/context-view';
import { summaryPrompt } from '../../activities/model/with-transcript';
import { MemoryTranscriptStore, type TranscriptStore } from '../../storage/transcript/transcript-store';
import { agentWorkflowType, messagesQuery, sendMessageUpdate } from '../../workflows/definitions';
import { scriptedModel, type ReplySpec, type ScriptedModel } from 'durable-agent/testing';
import type { ModelCallInput } from '../../activities';
import { activityCalls } from '../support/activity-calls';
import { activityAttempts, fetchEvents } from '../support/history';
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

async function run(
  model: ScriptedModel,
  input: Partial<AgentInput>,
  body?: (workflowId: string) => Promise<void>,
  transcripts?: TranscriptStore,
) {
  const taskQueue = uniqueTaskQueue('long');
  const worker = await createTestWorker(environment, { taskQueue, model, transcripts });
  const workflowId = `long-${Date.now()}-${Math.random().toString(16).slice(2)}`;
  const result = await worker.runUntil(async () => {
    const handle = await environment.client.workflow.start<(input: AgentInput) => Promise<AgentResult>>(agentWorkflowType, {
      taskQueue,
      workflowId,
      args: [resolved({ model: 'scripted:test', tools: ['read_file'], workspace, ...input })],
    });
    await body?.(workflowId);
    return handle.result();
  });
  return { result, workflowId };
}

const readBig = (): ReplySpec => ({ toolCalls: [{ name: 'read_file', arguments: { path: 'big.txt' } }] });

/** The transcripts each model call was given, as the run's history holds the activity's input. */
async function modelCallTranscripts(workflowId: string): Promise<Array<ModelCallInput['transcript']>> {
  const calls = activityCalls(await fetchEvents(environment.client, workflowId));
  return calls.filter((call) => call.activityType === 'callModel').map((call) => (call.input as ModelCallInput).transcript);
}

async function runIds(workflowId: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const execution of environment.client.workflow.list({ query: `WorkflowId = "${workflowId}"` }))
    ids.push(execution.runId);
  return ids;
}

it('sends each model call only the messages that are new since the stored transcript', async () => {
  const model = scriptedModel([readBig(), readBig(), readBig(), 'done']);
  const { workflowId } = await run(model, { prompt: 'read it three times' });
  const transcripts = await modelCallTranscripts(workflowId);
  expect(transcripts.map((transcript) => transcript.messages.length)).toEqual([1, 1, 1, 1]);
  expect(transcripts.map((transcript) => transcript.baseLength)).toEqual([0, 2, 4, 6]);
  expect(model.requests[3].messages).toHaveLength(7);
});

it('resends the conversation inline when the transcript store has lost it', async () => {
  const model = scriptedModel([readBig(), (request) => `saw ${request.messages.length} messages`]);
  // The store forgets everything after the first call, as a wiped disk or a worker on another machine would.
  let store = new MemoryTranscriptStore();
  const forgetful: TranscriptStore = {
    load: (id) => store.load(id),
    append: async (parent, messages) => {
      const id = await store.append(parent, messages);
      store = new MemoryTranscriptStore();
      return id;
    },
  };
  const { result, workflowId } = await run(model, { prompt: 'survive a lost store' }, undefined, forgetful);
  expect(result.answer).toBe('saw 3 messages');
  // The second call found its transcript missing; the last sent the whole conversation inline.
  const inline = (await modelCallTranscripts(workflowId)).at(-1)!;
  expect(inline).toMatchObject({ baseLength: 0 });
  expect(inline.messages).toHaveLength(3);
  expect(
    activityAttempts(await fetchEvents(environment.client, workflowId)).filter((a) => a.activityType === 'callModel'),
  ).toHaveLength(3);
});

it('continues a long tool loop as new mid-turn and finishes it under the same workflow id', async () => {
  const model = scriptedModel([readBig(), readBig(), readBig(), readBig(), 'read four times']);
  const { result, workflowId } = await run(model, { prompt: 'loop', continueAsNewAfterModelCalls: 2 });
  expect(result).toMatchObject({ status: 'completed', answer: 'read four times', iterations: 5, turns: 1 });
  expect((await runIds(workflowId)).length).toBe(3);
  expect(model.requests[4].messages).toHaveLength(9);
  // The first run's history ends by handing over, not by failing.
  const first = await environment.client.workflow.getHandle(workflowId, (await runIds(workflowId)).at(-1)).fetchHistory();
  expect(first.events?.at(-1)?.eventType).toBe(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW);
});

it('keeps a session going across continue-as-new: updates by workflow id work and queries return the whole conversation', async () => {
  const model = scriptedModel(['a1', 'a2', 'a3']);
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
  const model = scriptedModel([readBig(), readBig(), readBig(), 'ok']);
  await run(model, { prompt: 'compact', context: { compactAfterTurns: 2, keepRecentTurns: 4 } });
  const seen = model.requests[3].messages.filter((message) => message.role === 'tool').map((message) => message.content);
  expect(seen[0]).toMatch(/^B{200}… \[compacted: 1000 characters\]$/);
  expect(seen[1]).toBe('B'.repeat(1000));
  expect(seen[2]).toBe('B'.repeat(1000));
});

it('summarises older turns with a model call when the input exceeds the context budget', async () => {
  const small = { ...readBig(), usage: { inputTokens: 10, outputTokens: 8 } };
  const over = { ...readBig(), usage: { inputTokens: 20, outputTokens: 8 } };
  const model = scriptedModel([small, over, 'the summary', small, 'done']);
  // The second call reports 20 input tokens, over the budget of 15: the turns before the latest are summarised.
  const { result } = await run(model, { prompt: 'summarise', context: { maxContextTokens: 15, keepRecentTurns: 1 } });
  expect(result.answer).toBe('done');
  const summaryRequest = model.requests[2];
  expect(summaryRequest.toolChoice).toBe('none');
  expect(summaryRequest.messages.at(-1)).toEqual({ role: 'user', content: summaryPrompt });
  expect(summaryRequest.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'user']);
  expect(model.requests[3].messages[0]).toEqual({ role: 'user', content: `${summaryLead}the summary` });
  expect(model.requests[3].messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
});

it('carries a conversation larger than the external-storage threshold across continue-as-new as a small claim', async () => {
  const large = await makeWorkspace({ 'large.txt': 'L'.repeat(100_000) });
  const readLarge = { toolCalls: [{ name: 'read_file', arguments: { path: 'large.txt' } }] };
  const model = scriptedModel([readLarge, readLarge, readLarge, readLarge, readLarge, 'read it all']);
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
