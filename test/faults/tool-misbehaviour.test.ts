import { z } from 'zod';
import { maxToolOutputChars } from '../../core/limits';
import { builtInTools, defineTool } from '../../tools';
import { openaiReply } from '../support/fake-model-server';
import { countEvents, EventType, finalAttempts, largestEventBytes } from '../support/fault-history';
import { fetchEvents } from '../support/history';
import { createTestWorker, runAgent, uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';

// Row 5: a tool that fails, hangs or floods is retried by its own policy, and
// what is left of it goes back to the model as a result; the run completes.

const handlerCalls: Record<string, number> = {};
const counted = (name: string) => (handlerCalls[name] = (handlerCalls[name] ?? 0) + 1);

const alwaysFails = defineTool({
  name: 'always_fails',
  description: 'Fails every time.',
  input: z.object({}),
  activity: { maximumAttempts: 3, initialRetryInterval: '200ms' },
  async handler() {
    counted('always_fails');
    throw new Error('disk on fire');
  },
});

const hangs = defineTool({
  name: 'hangs',
  description: 'Never finishes on its own.',
  input: z.object({}),
  activity: { timeout: '2s', maximumAttempts: 2, initialRetryInterval: '200ms' },
  handler(_input, { signal }) {
    counted('hangs');
    // Stops only when Temporal cancels the timed-out attempt, as a well-behaved tool does.
    return new Promise<string>((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));
  },
});

const threeMegabytes = 3 * 1024 * 1024;
const floods = defineTool({
  name: 'floods',
  description: 'Returns 3 MB of text.',
  input: z.object({}),
  async handler() {
    return 'x'.repeat(threeMegabytes);
  },
});

const failsLoudly = defineTool({
  name: 'fails_loudly',
  description: 'Fails with a 3 MB error message.',
  input: z.object({}),
  activity: { maximumAttempts: 1 },
  async handler() {
    throw new Error('y'.repeat(threeMegabytes));
  },
});

const testTools = [alwaysFails, hangs, floods, failsLoudly];

const bed = useTestBed();

/** Runs a turn that calls `tool` once, then answers; returns the result the model received for it. */
async function callOnce(tool: string) {
  bed.server.enqueue(
    openaiReply({ toolCalls: [{ id: 'call_1', name: tool, arguments: {} }] }),
    openaiReply({ content: 'carried on' }),
  );
  const taskQueue = uniqueTaskQueue('tool-misbehaviour');
  const worker = await createTestWorker(bed.environment, {
    taskQueue,
    env: bed.server.providerEnv,
    tools: [...builtInTools, ...testTools],
  });
  const { result, workflowId } = await worker.runUntil(
    runAgent(bed.environment, taskQueue, {
      prompt: 'use the tool',
      model: 'openai:gpt-4o-mini',
      tools: [tool],
      workspace: bed.workspace,
    }),
  );
  expect(result).toMatchObject({ answer: 'carried on', status: 'completed', iterations: 2 });
  expect(bed.server.requests).toHaveLength(2);
  const toolMessages = bed.server.requests[1].body.messages.filter((message: { role: string }) => message.role === 'tool');
  expect(toolMessages).toEqual([{ role: 'tool', tool_call_id: 'call_1', content: expect.any(String) }]);
  return { received: toolMessages[0].content as string, events: await fetchEvents(bed.environment.client, workflowId) };
}

it('retries a throwing tool up to its maximumAttempts, then tells the model why it failed', async () => {
  const { received, events } = await callOnce('always_fails');
  expect(handlerCalls.always_fails).toBe(3);
  expect(finalAttempts(events, 'always_fails')).toEqual([
    { activityType: 'always_fails', attempt: 3, lastFailure: { message: 'disk on fire', type: 'Error' } },
  ]);
  expect(received).toBe('Error: always_fails failed after 3 attempt(s): disk on fire');
});

it('times out a hanging tool on every attempt, then tells the model', async () => {
  const { received, events } = await callOnce('hangs');
  expect(handlerCalls.hangs).toBe(2);
  expect(finalAttempts(events, 'hangs')).toEqual([
    { activityType: 'hangs', attempt: 2, lastFailure: expect.objectContaining({ type: 'Timeout' }) },
  ]);
  expect(countEvents(events, EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT)).toBe(1);
  expect(received).toMatch(/^Error: hangs failed after 2 attempt\(s\): .*time(d)? ?out/i);
});

it('cuts 3 MB of tool output to the documented bound before it reaches history', async () => {
  const { received, events } = await callOnce('floods');
  expect(received).toHaveLength(maxToolOutputChars);
  expect(received.endsWith(`[output truncated: showing ${maxToolOutputChars} of ${threeMegabytes} characters]`)).toBe(true);
  // No payload near Temporal's 512 KB warning, so no workflow task failed and retried over a payload.
  expect(largestEventBytes(events)).toBeLessThan(512 * 1024);
  expect(countEvents(events, EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED)).toBe(0);
});

it('bounds a 3 MB tool error message before it reaches history or the model', async () => {
  const { received, events } = await callOnce('fails_loudly');
  expect(received).toMatch(/^Error: fails_loudly failed after 1 attempt\(s\): y+/);
  expect(received).toContain(`of ${threeMegabytes} characters]`);
  expect(received.length).toBeLessThanOrEqual(maxToolOutputChars);
  expect(finalAttempts(events, 'fails_loudly')).toEqual([{ activityType: 'fails_loudly', attempt: 1 }]);
  expect(largestEventBytes(events)).toBeLessThan(512 * 1024);
});
