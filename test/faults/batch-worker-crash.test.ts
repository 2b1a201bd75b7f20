import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { temporal } from '@temporalio/proto';
import { startAgent } from '../../client/start-agent';
import { activityStarts } from '../support/activity-starts';
import { FakeModelServer, openaiReply } from '../support/fake-model-server';
import { fetchEvents } from '../support/history';
import { killSpawnedWorkers, spawnWorker } from '../support/spawned-worker';
import { connectToTestServer, uniqueTaskQueue } from '../support/temporal';
import { waitFor } from '../support/wait-for';
import { makeWorkspace } from '../support/workspace';

// A run in batch mode waits on timers, with no activity open: a worker SIGKILLed while the batch is pending leaves
// nothing to time out, and a worker started after it finishes the run from the history, without a second batch.

const EventType = temporal.api.enums.v1.EventType;
let environment: TestWorkflowEnvironment;
let fake: FakeModelServer;

beforeAll(async () => {
  environment = await connectToTestServer();
  fake = await FakeModelServer.start();
});
afterEach(() => killSpawnedWorkers());
afterAll(async () => {
  await killSpawnedWorkers();
  await fake?.close();
  await environment?.teardown();
});

it('finishes a batch run on a new worker after the one waiting for the batch is killed', async () => {
  // The batch takes long enough to be pending through the kill and the new worker's start.
  fake.batches.plan({ validatingMs: 500, inProgressMs: 15_000, finalizingMs: 500 });
  fake.enqueue(openaiReply({ content: 'Done, later.' }));
  const taskQueue = uniqueTaskQueue('batch-crash');
  const startWorker = (identity: string) =>
    spawnWorker({ address: process.env.TEST_TEMPORAL_ADDRESS!, taskQueue, identity, env: fake.providerEnv });
  const workerA = await startWorker('worker-a');
  const handle = await startAgent(
    environment.client,
    {
      prompt: 'Summarise nothing.',
      model: 'openai:gpt-4o-mini',
      workspace: await makeWorkspace(),
      batch: { firstCheckSeconds: 0.5, maxCheckIntervalSeconds: 1, maxSubmissions: 2 },
    },
    { taskQueue },
  );
  // Worker A has submitted the batch and checked it at least once: it is waiting on a timer now.
  await waitFor('a status check of the pending batch', () =>
    fake.batches.calls.some((call) => call.method === 'GET' && call.path.startsWith('/v1/batches/')),
  );
  await workerA.kill();
  await startWorker('worker-b');
  const result = await handle.result();

  expect(result).toMatchObject({ answer: 'Done, later.', status: 'completed' });
  expect(fake.batches.batches).toHaveLength(1);
  const events = await fetchEvents(environment.client, handle.workflowId);
  const starts = activityStarts(events);
  expect(starts.find((start) => start.activityType === 'submitModelBatch')).toMatchObject({
    identity: expect.stringContaining('worker-a'),
    attempt: 1,
  });
  expect(starts.find((start) => start.activityType === 'readModelBatch')).toMatchObject({
    identity: expect.stringContaining('worker-b'),
    attempt: 1,
  });
  const checks = starts.filter((start) => start.activityType === 'checkModelBatch');
  expect(checks.some((check) => check.identity.includes('worker-b'))).toBe(true);
  // Waiting is timers: one before each status check; no activity was open across the kill (none timed out).
  expect(events.filter((event) => event.eventType === EventType.EVENT_TYPE_TIMER_STARTED)).toHaveLength(checks.length);
  expect(events.some((event) => event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT)).toBe(false);
}, 180_000);
