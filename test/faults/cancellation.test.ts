import { temporal } from '@temporalio/proto';
import { z } from 'zod';
import { builtInTools, defineTool } from '../../tools';
import { agentWorkflowType, messagesQuery } from '../../workflows/definitions';
import { runCli } from '../support/cli';
import { openaiReply } from '../support/fake-model-server';
import { fetchEvents } from '../support/history';
import { createTestWorker, uniqueTaskQueue, resolved } from '../support/temporal';
import { makeWorkspace } from '../support/workspace';
import { useTestBed } from '../support/test-bed';

const EventType = temporal.api.enums.v1.EventType;
const bed = useTestBed();

const toolStarted: string[] = [];
const toolSawCancellation: string[] = [];
// Waits until Temporal cancels it, and records that the cancellation reached it.
const waitForever = defineTool({
  name: 'wait_forever',
  description: 'Waits until cancelled.',
  input: z.object({ label: z.string() }),
  activity: { timeout: '5m', maximumAttempts: 1 },
  handler: ({ label }, { signal }) =>
    new Promise((_, reject) => {
      toolStarted.push(label);
      signal.addEventListener('abort', () => {
        toolSawCancellation.push(label);
        reject(new Error('cancelled'));
      });
    }),
});

async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function cancelWithCli(workflowId: string, taskQueue: string) {
  const cancel = await runCli(['cancel', workflowId], { AGENT_TASK_QUEUE: taskQueue });
  expect(cancel.code).toBe(0);
  expect(cancel.stderr).toContain(`${workflowId}: CANCELLED`);
}

function eventTypes(events: Awaited<ReturnType<typeof fetchEvents>>) {
  return events.map((event) => event.eventType);
}

it('cancels a run during a model call: the call is aborted and the conversation stays queryable', async () => {
  bed.server.enqueue({ hang: true });
  const taskQueue = uniqueTaskQueue('cancel-model');
  const worker = await createTestWorker(bed.environment, { taskQueue, env: bed.server.providerEnv });
  const workflowId = `cancel-model-${Date.now()}`;
  await worker.runUntil(async () => {
    await bed.environment.client.workflow.start(agentWorkflowType, {
      taskQueue,
      workflowId,
      args: [resolved({ prompt: 'take your time', model: 'openai:gpt-4o-mini', workspace: await makeWorkspace() })],
    });
    await until(() => bed.server.requests.length === 1);
    await cancelWithCli(workflowId, taskQueue);
    await until(() => bed.server.requests[0].abandonedAt !== undefined);
    const messages = await bed.environment.client.workflow.getHandle(workflowId).query(messagesQuery);
    expect(messages).toEqual([{ role: 'user', content: 'take your time' }]);
  });
  const types = eventTypes(await fetchEvents(bed.environment.client, workflowId));
  expect(types).toContain(EventType.EVENT_TYPE_ACTIVITY_TASK_CANCEL_REQUESTED);
  expect(types).toContain(EventType.EVENT_TYPE_ACTIVITY_TASK_CANCELED);
  expect(types[types.length - 1]).toBe(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED);
});

it('cancels a run during tool calls: every running tool sees the cancellation through its heartbeat', async () => {
  bed.server.enqueue(
    openaiReply({
      toolCalls: [
        { id: 'w1', name: 'wait_forever', arguments: { label: 'first' } },
        { id: 'w2', name: 'wait_forever', arguments: { label: 'second' } },
      ],
    }),
  );
  const taskQueue = uniqueTaskQueue('cancel-tools');
  const worker = await createTestWorker(bed.environment, {
    taskQueue,
    env: bed.server.providerEnv,
    tools: [...builtInTools, waitForever],
  });
  const workflowId = `cancel-tools-${Date.now()}`;
  await worker.runUntil(async () => {
    await bed.environment.client.workflow.start(agentWorkflowType, {
      taskQueue,
      workflowId,
      args: [
        resolved({
          prompt: 'wait twice',
          model: 'openai:gpt-4o-mini',
          tools: ['wait_forever'],
          workspace: await makeWorkspace(),
        }),
      ],
    });
    await until(() => toolStarted.length === 2);
    await cancelWithCli(workflowId, taskQueue);
    // Both calls were cut short: each still gets its one result, so the conversation can be continued or forked.
    const messages = await bed.environment.client.workflow.getHandle(workflowId).query(messagesQuery);
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'tool']);
    expect(messages.slice(2)).toEqual([
      expect.objectContaining({ isError: true, content: 'Error: not run: the run was cancelled' }),
      expect.objectContaining({ isError: true, content: 'Error: not run: the run was cancelled' }),
    ]);
  });
  expect(toolSawCancellation.sort()).toEqual(['first', 'second']);
  const types = eventTypes(await fetchEvents(bed.environment.client, workflowId));
  expect(types.filter((type) => type === EventType.EVENT_TYPE_ACTIVITY_TASK_CANCELED)).toHaveLength(2);
  expect(types[types.length - 1]).toBe(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED);
});
