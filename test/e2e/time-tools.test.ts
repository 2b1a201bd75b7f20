import { randomUUID } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { defineAgent } from '../../agents/define-agent';
import { startAgent } from '../../client/start-agent';
import type { AgentInput } from '../../core/resolve-input';
import { scriptedModel } from '../../testing';
import { answeredBy } from '../../testing/scripted-agents';
import { startTestEnvironment } from '../../testing/test-environment';
import { sendEvent } from '../../time/send-event';
import { timeTools } from '../../time/time-tools';
import { createAgentWorker } from '../../worker/create-worker';
import { statusQuery } from '../../workflows/definitions';
import { ensureTestServer } from '../support/test-server/find-test-server';

// The time tools on Temporal's time-skipping test server: a 3-day sleep and a 7-day wait for an event take seconds.
// Each run continues as new in the middle of its wait (continueAsNewAfterModelCalls: 1), and the worker that began
// the wait is shut down and another one finishes it: the wait's deadline is carried, nothing is lost or added.

jest.setTimeout(60_000);

const day = 24 * 60 * 60;
const waiter = defineAgent({
  name: 'waiter',
  description: 'Waits when it must.',
  instructions: 'You wait.',
  model: 'anthropic:claude-haiku-4-5',
  tools: timeTools,
});
const model = scriptedModel();
let testEnv: TestWorkflowEnvironment;
let workspace: string;
// A queue per test: a run a failed test left behind never takes the next test's script.
let taskQueue: string;
beforeEach(() => {
  taskQueue = `time-tools-${randomUUID()}`;
});

beforeAll(async () => {
  testEnv = await startTestEnvironment('time-skipping', { testServerPath: await ensureTestServer(), env: process.env });
  workspace = await mkdtemp(path.join(os.tmpdir(), 'time-tools-'));
});
// Every worker a test started and did not stop (a failed test): stopped before the server goes.
const workers = new Set<{ stop(): Promise<void> }>();
afterEach(async () => {
  for (const worker of workers) await worker.stop();
});
afterAll(() => testEnv?.teardown());

/** A worker of this file's queue, running until stopped: `stop()` shuts it down as a deploy would. */
async function startWorker(): Promise<{ stop(): Promise<void> }> {
  const worker: Worker = await createAgentWorker({
    connection: testEnv.nativeConnection,
    namespace: testEnv.namespace ?? 'default',
    taskQueue,
    agents: answeredBy(model.provider.name, [waiter]),
    providers: [model.provider],
    workspaceRoot: workspace,
    workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! },
    overrides: { maxCachedWorkflows: 0 },
  });
  const running = worker.run();
  const started = {
    async stop() {
      workers.delete(started);
      worker.shutdown();
      await running;
    },
  };
  workers.add(started);
  return started;
}

const start = (prompt: string) =>
  startAgent(testEnv.client, { agent: 'waiter', prompt, workspace, continueAsNewAfterModelCalls: 1 } satisfies AgentInput, {
    taskQueue,
    workflowId: `time-${randomUUID()}`,
  });

/**
 * Waits until the run has continued as new and its next run has started its timer, reading histories only: a query
 * sent while the continue-as-new task is in flight makes Temporal's time-skipping test server drop that task's
 * completion. Then the next run's status tells what it waits on. Returns that run's handle too.
 */
async function waitsShown(workflowId: string, firstRunId: string) {
  const first = testEnv.client.workflow.getHandle(workflowId, firstRunId);
  for (;;) {
    const events = (await first.fetchHistory()).events ?? [];
    const next = events.find((event) => event.workflowExecutionContinuedAsNewEventAttributes)
      ?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
    if (events.some((event) => event.workflowExecutionCompletedEventAttributes || event.workflowExecutionFailedEventAttributes))
      throw new Error(`${workflowId} ended without continuing as new`);
    if (!next) continue;
    const run = testEnv.client.workflow.getHandle(workflowId, next);
    if (((await run.fetchHistory()).events ?? []).some((event) => event.timerStartedEventAttributes))
      return { waits: (await run.query(statusQuery)).waits ?? [], run };
  }
}

it('sleeps 3 days across continue-as-new and a worker restart, and refuses a sleep beyond the bound', async () => {
  model.reset([
    {
      toolCalls: [
        { id: 'nap', name: 'sleep', arguments: { seconds: 3 * day, reason: 'check the build again' } },
        // The hostile ask: ten years. An error result at once, not a timer.
        { id: 'forever', name: 'sleep', arguments: { seconds: 10 * 365 * day, reason: 'never wake' } },
      ],
    },
    'Checked again.',
  ]);
  const first = await startWorker();
  const handle = await start('Check the build in three days.');
  const shown = await waitsShown(handle.workflowId, handle.firstExecutionRunId);
  const [wait] = shown.waits;
  expect(wait).toMatchObject({ callId: 'nap', tool: 'sleep', reason: 'check the build again' });
  expect(Date.parse(wait.until) - Date.parse(wait.startedAt)).toBe(3 * day * 1000);
  // A sleeping run waits for no event: one sent to it is refused, with the reason.
  await expect(sendEvent(shown.run, 'build.done')).rejects.toThrow('this run waits for no event; "build.done" was not delivered');
  await first.stop();
  const second = await startWorker();
  expect(await handle.result()).toMatchObject({ status: 'completed', answer: 'Checked again.' });
  await second.stop();
  const results = model.requests[1].messages.filter((message) => message.role === 'tool');
  expect(results).toEqual([
    expect.objectContaining({ toolCallId: 'nap', isError: false, content: expect.stringMatching(/^Waited 3 d 0 h, from /) }),
    expect.objectContaining({
      toolCallId: 'forever',
      isError: true,
      content: expect.stringContaining('this agent may wait at most 604800 (7 d 0 h)'),
    }),
  ]);
  // The wait went on in a run of its own: the one that began it handed it over, its deadline carried.
  const firstRun = await testEnv.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId).describe();
  expect(firstRun.status.name).toBe('CONTINUED_AS_NEW');
});

it('waits 7 days for an event: refuses one nothing waits for, takes the named one once, with its payload', async () => {
  model.reset([
    {
      toolCalls: [
        {
          id: 'pay',
          name: 'wait_for_event',
          arguments: { event: 'payment.received', timeoutSeconds: 7 * day, reason: 'the invoice must be paid' },
        },
      ],
    },
    'Paid.',
  ]);
  const first = await startWorker();
  const handle = await start('Ship once the payment arrives.');
  const { run: latest } = await waitsShown(handle.workflowId, handle.firstExecutionRunId);
  await expect(sendEvent(latest, 'refund.requested')).rejects.toThrow(
    'this run waits for no event "refund.requested"; it waits for: payment.received',
  );
  await first.stop();

  const second = await startWorker();
  await testEnv.sleep('6 days');
  expect(await sendEvent(latest, 'payment.received', { amount: 42 }, { id: 'delivery-1' })).toEqual({
    event: 'payment.received',
    callId: 'pay',
  });
  // The same delivery again (a webhook's retry) gets the first outcome back, and is not delivered twice.
  expect(await sendEvent(latest, 'payment.received', { amount: 42 }, { id: 'delivery-1' })).toEqual({
    event: 'payment.received',
    callId: 'pay',
  });
  expect(await handle.result()).toMatchObject({ status: 'completed', answer: 'Paid.' });
  await expect(sendEvent(latest, 'payment.received')).rejects.toThrow();
  await second.stop();
  const result = model.requests[1].messages.at(-1);
  expect(result).toMatchObject({ role: 'tool', toolCallId: 'pay', isError: false });
  expect(JSON.parse(result!.content as string)).toEqual({
    event: 'payment.received',
    waited: '6 d 0 h',
    payload: { amount: 42 },
  });
});
