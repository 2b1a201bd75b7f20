import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { startAgent, type AgentHandle } from '../../client/start-agent';
import { activityStarts, startOf, type ActivityStart } from '../support/activity-starts';
import { openaiError, openaiReply, type FakeStep } from '../support/fake-model-server';
import { geminiReply } from '../support/gemini-and-mistral-replies';
import { fetchEvents } from '../support/history';
import { readStepLog, stepHistory } from '../support/slow-step-tool';
import { spawnWorker, type SpawnedWorker } from '../support/spawned-worker';
import { uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';
import { waitFor } from '../support/wait-for';
import { makeWorkspace } from '../support/workspace';

// Worker A, a real worker process, is SIGKILLed at a chosen point of a run; worker B
// is started after the kill and has to finish the run. A call in flight at the kill is
// retried once the server notices the dead worker: after the 30 s heartbeat timeout.

const model = 'openai:gpt-4o-mini';
const heartbeatTimeoutMs = 30_000;
/** Timer firing, the 1 s retry backoff and a loaded two-core machine. */
const marginMs = 5_000;
const testTimeoutMs = 180_000;
const faultPointTimeoutMs = 90_000;
const PendingActivityState = temporal.api.enums.v1.PendingActivityState;

const bed = useTestBed({ spawnedWorkers: true });

interface Run {
  handle: AgentHandle;
  workerA: SpawnedWorker;
  /** SIGKILLs worker A, then starts worker B. */
  replaceWorker(): Promise<{ killedAt: number; workerB: SpawnedWorker }>;
  steps(): Promise<Record<string, string[]>>;
  starts(): Promise<ActivityStart[]>;
}

/** Starts worker A, then a run on its task queue that may call slow_step. */
async function startRun(name: string, runModel = model): Promise<Run> {
  const taskQueue = uniqueTaskQueue(name);
  const workspace = await makeWorkspace();
  const stepLog = path.join(workspace, 'steps.log');
  const startWorker = (identity: string) =>
    spawnWorker({
      address: process.env.TEST_TEMPORAL_ADDRESS!,
      taskQueue,
      identity,
      env: { ...bed.server.providerEnv, SLOW_STEP_LOG: stepLog, TEST_GOOGLE_BASE_URL: `${bed.server.url}/v1beta` },
    });
  const workerA = await startWorker('worker-a');
  const handle = await startAgent(
    bed.environment.client,
    { prompt: 'Do the steps.', model: runModel, tools: ['slow_step'], workspace },
    { taskQueue },
  );
  return {
    handle,
    workerA,
    async replaceWorker() {
      const killedAt = await workerA.kill();
      return { killedAt, workerB: await startWorker('worker-b') };
    },
    steps: async () => stepHistory(await readStepLog(stepLog)),
    starts: async () => activityStarts(await fetchEvents(bed.environment.client, handle.workflowId)),
  };
}

function stepCall(id: string, label: string, extra: { waitForFile?: string } = {}): FakeStep {
  return openaiReply({ toolCalls: [{ id, name: 'slow_step', arguments: { label, ms: 0, ...extra } }] });
}

/** Asserts the answer and the workflow status; returns when the run closed. */
async function expectCompleted(run: Run, answer: string, iterations: number): Promise<number> {
  expect(await run.handle.result()).toMatchObject({ answer, status: 'completed', iterations });
  const description = await run.handle.describe();
  expect(description.status.name).toBe('COMPLETED');
  return description.closeTime!.getTime();
}

/**
 * The retried attempt starts when the server has noticed (`noticeMs` after the kill)
 * and worker B polls, whichever is later; B's start-up time on a loaded machine is not under test.
 */
function expectRetriedInTime(
  retried: ActivityStart,
  { killedAt, workerB, noticeMs, closedAt }: { killedAt: number; workerB: SpawnedWorker; noticeMs: number; closedAt: number },
): void {
  const bound = Math.max(noticeMs, workerB.readyAt - killedAt) + marginMs;
  expect(retried.startedAt - killedAt).toBeLessThan(bound);
  if (process.env.FAULT_TIMINGS) {
    const seconds = (millis: number) => `${(millis / 1000).toFixed(1)} s`;
    process.stderr.write(
      `${expect.getState().currentTestName}: attempt ${retried.attempt} started ${seconds(retried.startedAt - killedAt)} after the kill ` +
        `(worker B ready after ${seconds(workerB.readyAt - killedAt)}); the run closed ${seconds(closedAt - retried.startedAt)} later\n`,
    );
  }
}

// The model call of this case goes to an AI SDK model (Gemini through @ai-sdk/google, issue 38): its activity
// heartbeats like every provider's (activities/heartbeating.ts), and one case of a kill costs the 30 s it proves.
it(
  'finishes a run whose worker was SIGKILLed during a model call to an AI SDK model, sending only that call again',
  async () => {
    const model = 'google:gemini-2.5-flash';
    bed.server.enqueue(
      geminiReply({ toolCalls: [{ id: 'call_1', name: 'slow_step', arguments: { label: 'first', ms: 0 } }] }),
      { hang: true },
      geminiReply({ text: 'done despite the crash' }),
    );
    const run = await startRun('kill-during-model-call', model);
    await waitFor('the turn-2 model request to arrive (and hang)', () => bed.server.requests.length === 2, {
      timeoutMs: faultPointTimeoutMs,
    });

    const { killedAt, workerB } = await run.replaceWorker();

    const closedAt = await expectCompleted(run, 'done despite the crash', 2);
    // Iteration 1 once; iteration 2 twice (in flight at the kill, then its retry), with the same conversation.
    expect(bed.server.requests).toHaveLength(3);
    expect(bed.server.requests[2].body.contents).toEqual(bed.server.requests[1].body.contents);
    expect(await run.steps()).toEqual({ first: ['start@worker-a', 'finish@worker-a'] });
    const starts = await run.starts();
    expect(startOf(starts, `${model} iteration 1`)).toMatchObject({ attempt: 1, identity: 'worker-a' });
    const retried = startOf(starts, `${model} iteration 2`);
    expect(retried).toMatchObject({ attempt: 2, identity: 'worker-b' });
    expectRetriedInTime(retried, { killedAt, workerB, noticeMs: heartbeatTimeoutMs, closedAt });
  },
  testTimeoutMs,
);

it(
  'finishes a run whose worker was SIGKILLed during a tool call, running only that tool call again',
  async () => {
    // The second step cannot finish on worker A: it waits for a file the test creates only after the kill.
    const gate = path.join(await makeWorkspace(), 'open');
    bed.server.enqueue(
      stepCall('call_1', 'first'),
      stepCall('call_2', 'second', { waitForFile: gate }),
      openaiReply({ content: 'both steps done' }),
    );
    const run = await startRun('kill-during-tool-call');
    await waitFor('the second step to start on worker A', async () => (await run.steps()).second?.includes('start@worker-a'), {
      timeoutMs: faultPointTimeoutMs,
    });

    const { killedAt, workerB } = await run.replaceWorker();
    await writeFile(gate, '');

    const closedAt = await expectCompleted(run, 'both steps done', 3);
    // No model call was sent twice; the killed step ran again on worker B and finished only there.
    expect(bed.server.requests).toHaveLength(3);
    expect(await run.steps()).toEqual({
      first: ['start@worker-a', 'finish@worker-a'],
      second: ['start@worker-a', 'start@worker-b', 'finish@worker-b'],
    });
    const starts = await run.starts();
    expect(startOf(starts, 'slow_step first')).toMatchObject({ attempt: 1, identity: 'worker-a' });
    const retried = startOf(starts, 'slow_step second');
    expect(retried).toMatchObject({ attempt: 2, identity: 'worker-b' });
    expectRetriedInTime(retried, { killedAt, workerB, noticeMs: heartbeatTimeoutMs, closedAt });
  },
  testTimeoutMs,
);

it(
  'finishes a run whose worker was SIGKILLed between turns, with nothing running, at no extra cost',
  async () => {
    // Turn 2's first attempt is rate limited: while it waits out Retry-After, worker A runs nothing for this run.
    const retryAfterMs = 10_000;
    bed.server.enqueue(
      stepCall('call_1', 'first'),
      openaiError(429, 'Rate limit reached', { 'retry-after': String(retryAfterMs / 1000) }),
      openaiReply({ content: 'done after the pause' }),
    );
    const run = await startRun('kill-between-turns');
    await waitFor(
      'iteration 2 to wait for its second attempt, with nothing running',
      async () => {
        const pending = (await run.handle.describe()).raw.pendingActivities ?? [];
        return pending.some(
          (activity) => activity.attempt === 2 && activity.state === PendingActivityState.PENDING_ACTIVITY_STATE_SCHEDULED,
        );
      },
      { timeoutMs: faultPointTimeoutMs },
    );

    const { killedAt, workerB } = await run.replaceWorker();

    const closedAt = await expectCompleted(run, 'done after the pause', 2);
    expect(bed.server.requests).toHaveLength(3);
    expect(await run.steps()).toEqual({ first: ['start@worker-a', 'finish@worker-a'] });
    const starts = await run.starts();
    expect(startOf(starts, `${model} iteration 1`)).toMatchObject({ attempt: 1, identity: 'worker-a' });
    const retried = startOf(starts, `${model} iteration 2`);
    expect(retried).toMatchObject({ attempt: 2, identity: 'worker-b' });
    // The next attempt came when Retry-After said, not after a timeout of the dead worker.
    expect(retried.startedAt - bed.server.requests[1].receivedAt).toBeGreaterThanOrEqual(retryAfterMs - 1_000);
    expectRetriedInTime(retried, { killedAt, workerB, noticeMs: retryAfterMs, closedAt });
  },
  testTimeoutMs,
);
