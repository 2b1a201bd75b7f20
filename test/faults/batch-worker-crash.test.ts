import { temporal } from '@temporalio/proto';
import { startAgent } from '../../client/start-agent';
import { activityStarts } from '../support/activity-starts';
import { anthropicReply, openaiReply } from '../support/fake-model-server';
import { fetchEvents, scheduledActivities } from '../support/history';
import { spawnWorker } from '../support/spawned-worker';
import { uniqueTaskQueue } from '../support/temporal';
import { useTestBed } from '../support/test-bed';
import { waitFor } from '../support/wait-for';
import { makeWorkspace } from '../support/workspace';

// A run in batch mode waits on timers, with no activity open: a worker SIGKILLed while the batch is pending leaves
// nothing to time out, and a worker started after it finishes the run from the history, without a second batch. A
// worker killed while its create request is in flight leaves a batch it never heard of: the retried submission finds
// it (issue 30), so the run reads that batch and no second one is billed. On Anthropic, whose batches carry no
// metadata and show their requests only in their results, the retried submission waits for the batches of one
// request made since, on timers, and adopts the one whose results hold its custom id; another run's is not adopted.

const EventType = temporal.api.enums.v1.EventType;
const bed = useTestBed({ spawnedWorkers: true });

/**
 * A fresh task queue with its worker processes (named by identity, so that history says which one ran what) and a
 * run in batch mode on it: checks every half second to a second, and at most two submissions.
 */
function batchQueue(name: string) {
  const taskQueue = uniqueTaskQueue(name);
  return {
    startWorker: (identity: string) =>
      spawnWorker({ address: process.env.TEST_TEMPORAL_ADDRESS!, taskQueue, identity, env: bed.server.providerEnv }),
    startBatchRun: async (model: string) =>
      startAgent(
        bed.environment.client,
        {
          prompt: 'Summarise nothing.',
          model,
          workspace: await makeWorkspace(),
          batch: { firstCheckSeconds: 0.5, maxCheckIntervalSeconds: 1, maxSubmissions: 2 },
        },
        { taskQueue },
      ),
  };
}

it('finishes a batch run on a new worker after the one waiting for the batch is killed', async () => {
  // The batch takes long enough to be pending through the kill and the new worker's start.
  bed.server.batches.plan({ validatingMs: 500, inProgressMs: 15_000, finalizingMs: 500 });
  bed.server.enqueue(openaiReply({ content: 'Done, later.' }));
  const queue = batchQueue('batch-crash');
  const workerA = await queue.startWorker('worker-a');
  const handle = await queue.startBatchRun('openai:gpt-4o-mini');
  // Worker A has submitted the batch and checked it at least once: it is waiting on a timer now.
  await waitFor('a status check of the pending batch', () =>
    bed.server.batches.calls.some((call) => call.method === 'GET' && call.path.startsWith('/v1/batches/')),
  );
  await workerA.kill();
  await queue.startWorker('worker-b');
  const result = await handle.result();

  expect(result).toMatchObject({ answer: 'Done, later.', status: 'completed' });
  expect(bed.server.batches.batches).toHaveLength(1);
  const events = await fetchEvents(bed.environment.client, handle.workflowId);
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

it('finds the batch a worker killed mid-create made, rather than creating a second: one batch at the API, read by the run', async () => {
  // The create request reaches the API, which makes the batch; its answer is held until the worker is dead.
  const held = bed.server.batches.holdCreates();
  bed.server.enqueue(openaiReply({ content: 'Answered from the one batch.' }));
  const queue = batchQueue('batch-create-crash');
  const workerA = await queue.startWorker('worker-a');
  const handle = await queue.startBatchRun('openai:gpt-4o-mini');
  const created = await held.held;
  await workerA.kill();
  held.release();
  // The submission's next attempt, after the heartbeat timeout, runs on worker B.
  await queue.startWorker('worker-b');
  const result = await handle.result();

  expect(result).toMatchObject({ answer: 'Answered from the one batch.', status: 'completed' });
  expect(bed.server.batches.batches.map((batch) => batch.id)).toEqual([created.id]);
  expect(bed.server.batches.calls.filter((call) => call.method === 'POST' && call.path === '/v1/batches')).toHaveLength(1);
  // Worker B listed the batches and found worker A's by its metadata.
  expect(bed.server.batches.calls.some((call) => call.method === 'GET' && call.path === '/v1/batches')).toBe(true);
  expect(created.metadata).toEqual({ durable_agent_request: expect.stringMatching(/^call-[0-9a-f]{40}$/) });
  const starts = activityStarts(await fetchEvents(bed.environment.client, handle.workflowId));
  expect(
    starts
      .filter((start) => start.activityType === 'submitModelBatch')
      .map((start) => [start.attempt, start.identity.includes('worker-b') ? 'worker-b' : 'worker-a']),
  ).toEqual([[2, 'worker-b']]);
  const read = starts.find((start) => start.activityType === 'readModelBatch');
  expect(read).toMatchObject({ identity: expect.stringContaining('worker-b') });
}, 240_000);

/** A batch of one request made by someone else (another run, in the same account), as its worker would send it. */
async function foreignAnthropicBatch(): Promise<string> {
  const response = await fetch(`${bed.server.url}/v1/messages/batches`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-test-secret', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({
      requests: [
        {
          custom_id: 'call-of-another-run',
          params: { model: 'claude-haiku-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'Something else.' }] },
        },
      ],
    }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { id: string }).id;
}

const anthropicCreates = () =>
  bed.server.batches.calls.filter(
    (call) => call.method === 'POST' && call.path === '/v1/messages/batches' && call.status === 200,
  );
const resultReads = (id: string) =>
  bed.server.batches.calls.filter((call) => call.method === 'GET' && call.path === `/v1/messages/batches/${id}/results`);

it('adopts the Anthropic batch a worker killed mid-create made, once it ends, rather than creating a second', async () => {
  // Another run's batch of one request, pending alongside: a candidate the search must read and pass over.
  bed.server.batches.plan(
    { inProgressMs: 5_000, finalizingMs: 200, outcome: 'expired' },
    { inProgressMs: 500, finalizingMs: 200 },
  );
  const foreign = await foreignAnthropicBatch();
  const held = bed.server.batches.holdCreates();
  // Our batch stays in progress until the retried submission has handed back a search and submitted again.
  let answer!: () => void;
  const answered = new Promise<void>((resolve) => (answer = resolve));
  bed.server.enqueue({ gate: answered, then: anthropicReply({ text: 'Answered from the one Anthropic batch.' }) });
  const queue = batchQueue('anthropic-batch-create-crash');
  const workerA = await queue.startWorker('worker-a');
  const handle = await queue.startBatchRun('anthropic:claude-haiku-4-5');
  const created = await held.held;
  await workerA.kill();
  held.release();
  await queue.startWorker('worker-b');
  await waitFor(
    'a second submission, after a timer, while our batch is pending',
    async () =>
      scheduledActivities(await fetchEvents(bed.environment.client, handle.workflowId)).filter(
        (activity) => activity.activityType === 'submitModelBatch',
      ).length >= 2,
    { timeoutMs: 120_000, intervalMs: 500 },
  );
  answer();
  const result = await handle.result();

  expect(result).toMatchObject({ answer: 'Answered from the one Anthropic batch.', status: 'completed' });
  // Exactly the two batches that were made before the kill: none created by the retried submission.
  expect(bed.server.batches.batches.map((batch) => batch.id)).toEqual([foreign, created.id]);
  expect(anthropicCreates()).toHaveLength(2);
  // Worker B listed the batches, waited for both candidates to end and read each one's results to find its own.
  expect(bed.server.batches.calls.some((call) => call.method === 'GET' && call.path === '/v1/messages/batches')).toBe(true);
  expect(resultReads(foreign).length).toBeGreaterThanOrEqual(1);
  expect(bed.server.batches.calls.filter((call) => call.path.endsWith('/results') && call.status !== 200)).toEqual([]);
  const events = await fetchEvents(bed.environment.client, handle.workflowId);
  const starts = activityStarts(events);
  const submits = starts.filter((start) => start.activityType === 'submitModelBatch');
  expect(submits[0]).toMatchObject({ attempt: 2, identity: expect.stringContaining('worker-b') });
  // The search waited on timers between submissions, with no activity sleeping through it.
  expect(submits.length).toBeGreaterThan(1);
  expect(events.some((event) => event.eventType === EventType.EVENT_TYPE_TIMER_STARTED)).toBe(true);
  expect(starts.find((start) => start.activityType === 'readModelBatch')).toMatchObject({
    identity: expect.stringContaining('worker-b'),
  });
}, 240_000);

it("does not adopt another run's Anthropic batch of one request: the retried submission creates its own", async () => {
  bed.server.batches.plan({ inProgressMs: 3_000, finalizingMs: 200, outcome: 'expired' });
  const queue = batchQueue('anthropic-batch-foreign');
  await queue.startWorker('worker-a');
  const foreign = await foreignAnthropicBatch();
  // The first create is refused overloaded, making nothing: attempt 2 finds only the other run's batch.
  bed.server.batches.overloadCreates(1);
  bed.server.enqueue(anthropicReply({ text: 'Answered from a batch of our own.' }));
  const handle = await queue.startBatchRun('anthropic:claude-haiku-4-5');
  const result = await handle.result();

  expect(result).toMatchObject({ answer: 'Answered from a batch of our own.', status: 'completed' });
  expect(bed.server.batches.batches).toHaveLength(2);
  const ours = bed.server.batches.batches[1];
  expect(ours.lines.map((line) => line.customId)).not.toContain('call-of-another-run');
  // The other run's batch was read once, after it ended, and passed over; ours was the one the run read.
  expect(resultReads(foreign)).toHaveLength(1);
  expect(resultReads(ours.id).length).toBeGreaterThanOrEqual(1);
  const starts = activityStarts(await fetchEvents(bed.environment.client, handle.workflowId));
  expect(starts.find((start) => start.activityType === 'submitModelBatch')).toMatchObject({ attempt: 2 });
}, 240_000);
