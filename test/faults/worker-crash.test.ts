import path from 'node:path';
import { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { startAgent, type AgentHandle } from '../../client/start-agent';
import { activityStarts, startOf } from '../support/activity-starts';
import { FakeModelServer, openaiError, openaiReply, type FakeStep } from '../support/fake-model-server';
import { fetchEvents } from '../support/history';
import { readStepLog, stepHistory } from '../support/slow-step-tool';
import { killSpawnedWorkers, spawnWorker, type SpawnedWorker } from '../support/spawned-worker';
import { connectToTestServer, uniqueTaskQueue } from '../support/temporal';
import { waitFor } from '../support/wait-for';
import { makeWorkspace } from '../support/workspace';

// A worker process is SIGKILLed at a chosen point of a run and a fresh one takes over.
// The activities' heartbeat timeout is 30 s, so a test that kills a worker mid-call
// waits about that long for the retry.

const model = 'openai:gpt-4o-mini';
const heartbeatTimeoutMs = 30_000;
/** Timer firing, retry backoff (1 s) and a loaded two-core machine. */
const marginMs = 5_000;
const testTimeoutMs = 120_000;
const PendingActivityState = temporal.api.enums.v1.PendingActivityState;

let environment: TestWorkflowEnvironment;
let fake: FakeModelServer;

beforeAll(async () => {
  environment = await connectToTestServer();
  fake = await FakeModelServer.start();
});
beforeEach(() => fake.reset());
afterEach(() => killSpawnedWorkers());
afterAll(async () => {
  await killSpawnedWorkers();
  await fake?.close();
  await environment?.teardown();
});

function stepCall(id: string, label: string, ms: number): FakeStep {
  return openaiReply({ toolCalls: [{ id, name: 'slow_step', arguments: { label, ms } }] });
}

interface Run {
  handle: AgentHandle;
  workerA: SpawnedWorker;
  startWorker(identity: string): Promise<SpawnedWorker>;
  steps(): Promise<Record<string, string[]>>;
  starts(): Promise<ReturnType<typeof activityStarts>>;
}

/** Starts worker A, then a run on its task queue that may call slow_step. */
async function startRun(name: string): Promise<Run> {
  const taskQueue = uniqueTaskQueue(name);
  const workspace = await makeWorkspace();
  const stepLog = path.join(workspace, 'steps.log');
  const startWorker = (identity: string) =>
    spawnWorker({
      address: process.env.TEST_TEMPORAL_ADDRESS!,
      taskQueue,
      identity,
      env: { ...fake.providerEnv, SLOW_STEP_LOG: stepLog },
    });
  const workerA = await startWorker('worker-a');
  const handle = await startAgent(environment.client, { prompt: 'Do the steps.', model, tools: ['slow_step'], workspace }, { taskQueue });
  return {
    handle,
    workerA,
    startWorker,
    steps: async () => stepHistory(await readStepLog(stepLog)),
    starts: async () => activityStarts(await fetchEvents(environment.client, handle.workflowId)),
  };
}

async function expectCompleted(run: Run, answer: string, iterations: number): Promise<void> {
  expect(await run.handle.result()).toMatchObject({ answer, status: 'completed', iterations });
  expect((await run.handle.describe()).status.name).toBe('COMPLETED');
}

it(
  'finishes a run whose worker was SIGKILLed during a model call, sending only that call again',
  async () => {
    fake.enqueue(stepCall('call_1', 'first', 0), { hang: true }, openaiReply({ content: 'done despite the crash' }));
    const run = await startRun('kill-during-model-call');
    await waitFor('the turn-2 model request to arrive (and hang)', () => fake.requests.length === 2);

    const killedAt = await run.workerA.kill();
    await run.startWorker('worker-b');

    await expectCompleted(run, 'done despite the crash', 2);
    // Turn 1 once, turn 2 twice (the call in flight at the kill, then its retry), both with the same conversation.
    expect(fake.requests).toHaveLength(3);
    expect(fake.requests[2].body.messages).toEqual(fake.requests[1].body.messages);
    expect(await run.steps()).toEqual({ first: ['start@worker-a', 'finish@worker-a'] });
    const starts = await run.starts();
    expect(startOf(starts, `${model} turn 1`)).toMatchObject({ attempt: 1, identity: 'worker-a' });
    const retried = startOf(starts, `${model} turn 2`);
    expect(retried).toMatchObject({ attempt: 2, identity: 'worker-b' });
    expect(retried.startedAt - killedAt).toBeLessThan(heartbeatTimeoutMs + marginMs);
    expect(fake.requests[2].receivedAt - killedAt).toBeLessThan(heartbeatTimeoutMs + marginMs);
    reportTiming('model call', retried.startedAt - killedAt);
  },
  testTimeoutMs,
);

it(
  'finishes a run whose worker was SIGKILLed during a tool call, running only that tool call again',
  async () => {
    fake.enqueue(stepCall('call_1', 'first', 0), stepCall('call_2', 'second', 8_000), openaiReply({ content: 'both steps done' }));
    const run = await startRun('kill-during-tool-call');
    await waitFor('the second step to start on worker A', async () => (await run.steps()).second?.includes('start@worker-a'));

    const killedAt = await run.workerA.kill();
    await run.startWorker('worker-b');

    await expectCompleted(run, 'both steps done', 3);
    // No model call was sent twice; the killed step ran again on worker B and finished only there.
    expect(fake.requests).toHaveLength(3);
    expect(await run.steps()).toEqual({
      first: ['start@worker-a', 'finish@worker-a'],
      second: ['start@worker-a', 'start@worker-b', 'finish@worker-b'],
    });
    const starts = await run.starts();
    expect(startOf(starts, 'slow_step first')).toMatchObject({ attempt: 1, identity: 'worker-a' });
    const retried = startOf(starts, 'slow_step second');
    expect(retried).toMatchObject({ attempt: 2, identity: 'worker-b' });
    expect(retried.startedAt - killedAt).toBeLessThan(heartbeatTimeoutMs + marginMs);
    reportTiming('tool call', retried.startedAt - killedAt);
  },
  testTimeoutMs,
);

it(
  'finishes a run whose worker was SIGKILLed between turns, with no activity running, at no extra cost',
  async () => {
    // Turn 2's first attempt is rate limited: while it waits out Retry-After, worker A runs nothing for this run.
    const retryAfterMs = 10_000;
    fake.enqueue(
      stepCall('call_1', 'first', 0),
      openaiError(429, 'Rate limit reached', { 'retry-after': String(retryAfterMs / 1000) }),
      openaiReply({ content: 'done after the pause' }),
    );
    const run = await startRun('kill-between-turns');
    await waitFor('turn 2 to wait for its second attempt, with nothing running', async () => {
      const pending = (await run.handle.describe()).raw.pendingActivities ?? [];
      return pending.some((activity) => activity.attempt === 2 && activity.state === PendingActivityState.PENDING_ACTIVITY_STATE_SCHEDULED);
    });

    const killedAt = await run.workerA.kill();
    await run.startWorker('worker-b');

    await expectCompleted(run, 'done after the pause', 2);
    expect(fake.requests).toHaveLength(3);
    expect(await run.steps()).toEqual({ first: ['start@worker-a', 'finish@worker-a'] });
    const starts = await run.starts();
    const retried = startOf(starts, `${model} turn 2`);
    expect(retried).toMatchObject({ attempt: 2, identity: 'worker-b' });
    // The next attempt came when Retry-After said, not after any timeout of the dead worker.
    const rateLimitedAt = fake.requests[1].receivedAt;
    expect(retried.startedAt - rateLimitedAt).toBeGreaterThanOrEqual(retryAfterMs - 1_000);
    expect(retried.startedAt - killedAt).toBeLessThan(retryAfterMs + marginMs);
    reportTiming('between turns', retried.startedAt - killedAt);
  },
  testTimeoutMs,
);

function reportTiming(point: string, millis: number): void {
  if (process.env.FAULT_TIMINGS) process.stderr.write(`worker killed during ${point}: next attempt started ${(millis / 1000).toFixed(1)} s later\n`);
}
